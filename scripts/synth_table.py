#!/usr/bin/env python3
"""Per-kind accuracy of the reader on synthesized scenes.

    python scripts/synth_table.py [--seeds 6000:6500] [--size 1280x720] [--workers 2]
                                  [--kind outcome] [--by exposure_stops] [--reasons 10]
                                  [--condition exposure_stops=1.5:4 --condition glaze=black_lacquer,gold]
                                  [--json OUT.jsonl]

Scene ``seed`` is ``vision.synth.render_scene(seed)`` (its kind and every
condition drawn from the seed; ``--kind`` forces the kind, e.g. ``outcome``
for four flat separated tokens); labels come from how each scene was made.
Prints the same columns as ``scripts/studio_table.py`` and exits 1 on any
wrong outcome (each one's seed and reason on stderr).  ``--by CONDITION``
adds the right share per value of one drawn condition (a numeric one in
five bins of equal count), ``--reasons N`` the N most frequent reasons of
the readings that were not right (numbers replaced by ``#``).  Seeds
6000-6499 were never looked at while the reader was tuned (a held-out set).
``--condition KEY=VALUE`` sets a condition of every scene, ``KEY=LO:HI`` draws
it uniformly in [LO, HI) and ``KEY=A,B,...`` picks one of the values, each
from a generator seeded by the scene's seed: a stress set beyond the ranges
the synthesizer draws (e.g. over-exposure of several stops).  ``--json`` writes
every scene's row (seed, kind, the reader's verdict, red count and reason,
whether it was right, a wrong outcome or uncertain, the label's verdict and
red count, the conditions) as one JSON line as soon as it is read, in seed
order, for looking at the scenes behind a number.
"""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from studio_table import print_table  # noqa: E402

#: Bins of a numeric condition in ``--by``.
CONDITION_BINS = 5


#: Seeds the generator of ``--condition`` draws beside the scene's own seed.
CONDITION_DRAW_SEED = 20261203


def parse_condition(text: str) -> tuple[str, object]:
    """``KEY=VALUE``, ``KEY=LO:HI`` or ``KEY=A,B,...`` -> (key, spec).

    The spec is a number or a string (a fixed value), a ``(lo, hi)`` tuple of
    floats or a list of values (numbers where they parse as one; an integer
    literal gives an int, so that ``jpeg_quality=20,40`` reaches the
    synthesizer, which takes only ints there).

    Raises
    ------
    ValueError
        Naming ``--condition`` and the text, when it has no ``=``, an empty
        key or value, or a range that is not two numbers with lo < hi.
    """
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise ValueError(f"--condition: expected KEY=VALUE, KEY=LO:HI or KEY=A,B,..., got {text!r}")

    def num(v: str) -> int | float | str:
        # an integer literal stays an int: jpeg_quality is refused as a float
        for kind in (int, float):
            try:
                return kind(v)
            except ValueError:
                pass
        return v

    if ":" in value:
        parts = value.split(":")
        try:
            lo, hi = (float(v) for v in parts)
        except ValueError:
            raise ValueError(f"--condition: expected KEY=LO:HI with two numbers, got {text!r}") from None
        if not lo < hi:
            raise ValueError(f"--condition: expected LO < HI, got {text!r}")
        return key, (lo, hi)
    if "," in value:
        vals = [num(v) for v in value.split(",")]
        if any(v == "" for v in vals):
            raise ValueError(f"--condition: expected values between the commas, got {text!r}")
        return key, vals
    return key, num(value)


def draw_conditions(seed: int, specs: list[tuple[str, object]]) -> dict | None:
    """The conditions for scene ``seed`` from parsed ``--condition`` specs (None without any)."""
    if not specs:
        return None
    import numpy as np

    rng = np.random.default_rng((seed, CONDITION_DRAW_SEED))
    out: dict = {}
    for key, spec in specs:
        if isinstance(spec, tuple):
            out[key] = float(rng.uniform(spec[0], spec[1]))
        elif isinstance(spec, list):
            out[key] = spec[int(rng.integers(len(spec)))]
        else:
            out[key] = spec
    return out


def _one(args: tuple) -> dict:
    import cv2

    from vision.reader import read_frame
    from vision.synth import render_scene

    cv2.setNumThreads(1)
    seed, size, kind, specs = args
    scene = render_scene(seed, kind, size=size, conditions=draw_conditions(seed, specs))
    label, reading = scene.label, read_frame(scene.image)
    want = label["verdict"]
    right = reading.verdict == want and (want != "outcome" or reading.red == label["red"])
    wrong = reading.verdict == "outcome" and (want != "outcome" or reading.red != label["red"])
    return {"kind": label["kind"], "right": right, "wrong": wrong, "uncertain": reading.verdict == "uncertain",
            "seed": seed, "verdict": reading.verdict, "red": reading.red, "reason": reading.reason,
            "label_verdict": want, "label_red": label["red"], "conditions": label["conditions"]}


def condition_table(rows: list[dict], name: str) -> list[tuple[str, int, int, int]]:
    """Rows grouped by the value of condition ``name``: (group, n, right, wrong outcomes).

    A numeric condition is cut into ``CONDITION_BINS`` bins of about equal
    count (``[lo, hi)``, the last one closed); any other is grouped by value
    (None as ``none``).  Rows without the condition are left out.

    Raises
    ------
    ValueError
        No row has the condition ``name``.
    """
    have = [r for r in rows if name in r["conditions"]]
    if not have:
        raise ValueError(f"by: expected one of {sorted(rows[0]['conditions']) if rows else []}, got {name!r}")
    values = [r["conditions"][name] for r in have if r["conditions"][name] is not None]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    groups: dict[str, list[dict]] = collections.defaultdict(list)
    if numeric and len(set(values)) > CONDITION_BINS:
        ordered = sorted(values)
        edges = [ordered[(k * len(ordered)) // CONDITION_BINS] for k in range(CONDITION_BINS)] + [ordered[-1]]
        for r in have:
            v = r["conditions"][name]
            if v is None:
                groups["none"].append(r)
                continue
            k = max(i for i in range(CONDITION_BINS) if v >= edges[i])
            groups[f"[{edges[k]:.3g}, {edges[k + 1]:.3g}{']' if k == CONDITION_BINS - 1 else ')'}"].append(r)
        order = sorted(groups, key=lambda g: (g == "none", float(g[1:].split(",")[0]) if g != "none" else 0.0))
    else:
        for r in have:
            v = r["conditions"][name]
            groups["none" if v is None else str(v)].append(r)
        order = sorted(groups)
    return [(g, len(groups[g]), sum(r["right"] for r in groups[g]), sum(r["wrong"] for r in groups[g]))
            for g in order]


def reason_table(rows: list[dict], top: int) -> list[tuple[int, str]]:
    """The ``top`` most frequent (count, "verdict: reason") of the rows not read right, numbers as ``#``."""
    counts = collections.Counter(f"{r['verdict']}: {re.sub(r'[0-9]+(?:[.][0-9]+)?', '#', r['reason'])}"
                                 for r in rows if not r["right"])
    return [(n, text) for text, n in counts.most_common(top)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="6000:6500", help="START:END (end excluded)")
    ap.add_argument("--size", default="1280x720", help="WxH")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kind", default=None, help="force every scene to this kind (vision.synth.KINDS)")
    ap.add_argument("--by", default=None, metavar="CONDITION", help="right share per value of a drawn condition")
    ap.add_argument("--reasons", type=int, default=0, metavar="N", help="the N most frequent reasons not right")
    ap.add_argument("--condition", action="append", default=[], metavar="KEY=VALUE",
                    help="set a condition (KEY=VALUE), draw it (KEY=LO:HI) or pick it (KEY=A,B,...); repeatable")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT.jsonl",
                    help="write one JSON line per scene as it is read (seed, kind, verdict, red, reason, "
                         "right/wrong/uncertain, the label's verdict and red, conditions)")
    args = ap.parse_args()
    # One OpenCV thread in this process before anything runs: the check render
    # below would otherwise start OpenCV's thread pool here, and a worker forked
    # from a process with that pool can wait forever on its lock (seen twice with
    # --condition plate_decor=..., whose painting uses cv2.remap on a large texture).
    import cv2
    cv2.setNumThreads(1)
    lo, hi = (int(v) for v in args.seeds.split(":"))
    w, h = (int(v) for v in args.size.lower().split("x"))
    from vision.synth import CONDITION_KEYS, KINDS, render_scene
    if args.kind is not None and args.kind not in KINDS:
        ap.error(f"--kind: expected one of {', '.join(KINDS)}, got {args.kind!r}")
    if args.by is not None and args.by not in CONDITION_KEYS:
        ap.error(f"--by: expected one of {', '.join(sorted(CONDITION_KEYS))}, got {args.by!r}")
    try:
        specs = [parse_condition(t) for t in args.condition]
    except ValueError as exc:
        ap.error(str(exc))
    for key, _ in specs:
        if key not in CONDITION_KEYS:
            ap.error(f"--condition: expected a key among {', '.join(sorted(CONDITION_KEYS))}, got {key!r}")
    try:  # the synthesizer checks the values: a bad one is a usage error, before any worker starts
        render_scene(lo, args.kind, size=(64, 64), conditions=draw_conditions(lo, specs))
    except (TypeError, ValueError) as exc:
        ap.error(f"--condition {' '.join(args.condition)}: {exc}")
    try:  # opened before any scene is read: a bad path is a usage error, not a lost run
        dump = None if args.json is None else args.json.open("w")
    except OSError as exc:
        ap.error(f"--json: cannot write {args.json}: {exc.strerror}")
    stats: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    rows = []
    with multiprocessing.Pool(args.workers) as pool:
        for row in pool.imap(_one, [(s, (w, h), args.kind, specs) for s in range(lo, hi)], chunksize=4):
            if row["wrong"]:
                print(f"wrong outcome: seed {row['seed']} ({row['kind']}): {row['reason']}", file=sys.stderr)
            st = stats[row["kind"]]
            st["n"] += 1
            st["right"] += row["right"]
            st["wrong_outcome"] += row["wrong"]
            st["uncertain"] += row["uncertain"]
            rows.append(row)
            if dump is not None:
                dump.write(json.dumps(row) + "\n")
                dump.flush()
    if dump is not None:
        dump.close()
    tot = print_table(stats)
    if args.by:
        groups = condition_table(rows, args.by)
        print(f"\n{args.by:<22}{'n':>5}{'right':>7}{'%':>6}{'wrong outcome':>15}")
        for g, n, right, wrong in groups:
            print(f"{g:<22}{n:>5}{right:>7}{100 * right / n:>6.0f}{wrong:>15}")
    if args.reasons > 0:
        print("\nnot right, by reason:")
        for n, text in reason_table(rows, args.reasons):
            print(f"{n:>5}  {text}")
    return 1 if tot["wrong_outcome"] else 0


if __name__ == "__main__":
    sys.exit(main())
