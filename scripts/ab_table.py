#!/usr/bin/env python3
"""A/B of the reader with module settings changed, on the same synthesized frames.

    python scripts/ab_table.py --set vision.plate.WORK_LAST_SHRINK_MIN=2.0 [--set MODULE.NAME=VALUE ...]
                               [--seeds 6000:6500] [--size 1280x720] [--kind outcome] [--workers 2]
                               [--condition KEY=VALUE ...] [--json OUT.json]

Every scene (``vision.synth.render_scene(seed, kind, size=size)``, labelled
by how it was made; ``--condition`` sets, draws or picks conditions as in
``scripts/synth_table.py``) is read twice in the same worker: once as the code
stands (A) and once with every ``--set`` applied (B).  The settings are put
back after each B reading, also when it raises, so no setting leaks into the
next frame's A reading.  ``VALUE`` is a Python literal (``1.5``, ``(0.4,
1.6)``, ``'faint'``) of the setting's own type (an int may stand for a
float).  A setting that another module copied at import time
(``from vision.faces import DARK_RED_MIN_DELTA_A``) is not seen there: every
other loaded ``vision`` module that binds the same name to an equal value is
named on stderr, so that it can be set too (a copy under another name, or a
default argument, is not found).

Prints per kind: n, right under A and B, wrong outcomes under A and B; then
every scene whose verdict (or red count) changed.  Each frame is scored by
:func:`vision.replay_accuracy.classify`.  Exits 1 if either side gave a wrong
outcome, 2 on a usage error.
"""
from __future__ import annotations

import argparse
import ast
import collections
import contextlib
import importlib
import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth_table import draw_conditions, parse_condition  # noqa: E402

Setting = tuple[str, str, Any]


def parse_setting(text: str) -> Setting:
    """``"module.path.NAME=literal"`` -> (module, name, value), checked against the module.

    Raises
    ------
    ValueError
        The text is not ``MODULE.NAME=VALUE``, the module or setting does not
        exist, the value is not a literal, or its type differs from the setting's.
    """
    target, sep, literal = text.partition("=")
    module_name, dot, name = target.strip().rpartition(".")
    if not sep or not dot or not module_name or not name:
        raise ValueError(f"--set: expected MODULE.NAME=VALUE, got {text!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--set: no module {module_name!r} ({exc})") from None
    if not hasattr(module, name):
        raise ValueError(f"--set: module {module_name} has no setting {name!r}")
    try:
        value = ast.literal_eval(literal.strip())
    except (ValueError, SyntaxError):
        raise ValueError(f"--set {target}: expected a Python literal, got {literal!r}") from None
    old = getattr(module, name)
    same_kind = type(value) is type(old) or (isinstance(old, float) and type(value) is int)
    if not same_kind:
        raise ValueError(f"--set {target}: expected a value of type {type(old).__name__} like {old!r}, got {value!r}")
    return module_name, name, float(value) if isinstance(old, float) else value


def copies_elsewhere(setting: Setting) -> list[str]:
    """Other loaded ``vision`` modules that bind the same name to an equal value
    (a copy made at import time, which ``--set`` does not reach)."""
    module_name, name, _ = setting
    old = getattr(sys.modules[module_name], name)
    out = []
    for other_name, other in sorted(sys.modules.items()):
        if (other_name.startswith("vision") and other_name != module_name and other is not None
                and name in vars(other) and vars(other)[name] == old):
            out.append(other_name)
    return out


@contextlib.contextmanager
def applied(settings: list[Setting]) -> Iterator[None]:
    """Every setting applied for the block's duration, then each put back (also on an exception)."""
    saved = [(sys.modules[m], n, getattr(sys.modules[m], n)) for m, n, _ in settings]
    try:
        for module_name, name, value in settings:
            setattr(sys.modules[module_name], name, value)
        yield
    finally:
        for module, name, old in reversed(saved):
            setattr(module, name, old)


def read_pair(seed: int, size: tuple[int, int], kind: str | None, settings: list[Setting],
              conditions: list[tuple[str, object]] = ()) -> dict:
    """One scene read as the code stands (``a``) and with ``settings`` (``b``):
    each side's bucket (``classify``), verdict, red count and reason.
    ``conditions``: parsed ``--condition`` specs (:func:`synth_table.parse_condition`)."""
    from vision.reader import read_frame
    from vision.replay_accuracy import classify
    from vision.synth import render_scene

    scene = render_scene(seed, kind, size=size, conditions=draw_conditions(seed, list(conditions)))
    row: dict = {"seed": seed, "kind": scene.label["kind"], "glaze": scene.label["conditions"].get("glaze")}
    for side in ("a", "b"):
        with applied(settings) if side == "b" else contextlib.nullcontext():
            r = read_frame(scene.image)
        reading = {"verdict": r.verdict, "red": r.red}
        row[side] = {"bucket": classify(reading, scene.label), **reading, "reason": r.reason}
    return row


def _worker(args: tuple[int, tuple[int, int], str | None, list[Setting], list]) -> dict:
    import cv2

    cv2.setNumThreads(1)
    for module_name, _, _ in args[3]:
        importlib.import_module(module_name)
    return read_pair(*args)


def summary(rows: list[dict]) -> dict[str, collections.Counter]:
    """Per kind (and ``total``): n, right and wrong outcomes under A and B, and changed verdicts."""
    stats: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for row in rows:
        for key in (row["kind"], "total"):
            st = stats[key]
            st["n"] += 1
            for side in ("a", "b"):
                st[f"right_{side}"] += row[side]["bucket"] == "right"
                st[f"wrong_{side}"] += row[side]["bucket"] == "wrong_outcome"
            st["changed"] += changed(row)
    return dict(stats)


def changed(row: dict) -> bool:
    """Whether the verdict or the red count differs between A and B."""
    return (row["a"]["verdict"], row["a"]["red"]) != (row["b"]["verdict"], row["b"]["red"])


def _fmt(side: dict) -> str:
    v = side["verdict"] if side["red"] is None else f"{side['verdict']} {side['red']} red"
    return f"{v} ({side['bucket']})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", dest="settings", action="append", default=[], metavar="MODULE.NAME=VALUE",
                    required=True, help="a module setting for side B (repeatable)")
    ap.add_argument("--seeds", default="6000:6500", help="START:END (end excluded)")
    ap.add_argument("--size", default="1280x720", help="WxH")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kind", default=None, help="force every scene to this kind (vision.synth.KINDS)")
    ap.add_argument("--condition", dest="conditions", action="append", default=[], metavar="KEY=VALUE",
                    help="set a condition (KEY=VALUE), draw it (KEY=LO:HI) or pick it (KEY=A,B,...); repeatable")
    ap.add_argument("--json", type=Path, default=None, help="write every row here")
    args = ap.parse_args(argv)
    # One OpenCV thread in this process before any worker is forked (as the
    # workers themselves): a worker forked from a process whose OpenCV thread
    # pool has started can wait forever on its lock (see scripts/synth_table.py).
    import cv2
    cv2.setNumThreads(1)
    try:
        lo, hi = (int(v) for v in args.seeds.split(":"))
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        ap.error(f"--seeds START:END and --size WxH: got {args.seeds!r}, {args.size!r}")
    if not (lo < hi and w > 0 and h > 0 and args.workers >= 1):
        ap.error(f"expected START < END, a positive size and workers >= 1, got {args.seeds} {args.size} "
                 f"{args.workers}")
    import vision.reader  # noqa: F401  (every vision module a reading uses, for the copy check)
    from vision.synth import KINDS
    if args.kind is not None and args.kind not in KINDS:
        ap.error(f"--kind: expected one of {', '.join(KINDS)}, got {args.kind!r}")
    try:
        settings = [parse_setting(s) for s in args.settings]
        conditions = [parse_condition(c) for c in args.conditions]
    except ValueError as exc:
        ap.error(str(exc))
    for s in settings:
        for other in copies_elsewhere(s):
            print(f"note: {other}.{s[1]} has the same value as {s[0]}.{s[1]} and is not set (if it is a copy, "
                  f"--set it too)", file=sys.stderr)
    jobs = [(seed, (w, h), args.kind, settings, conditions) for seed in range(lo, hi)]
    if args.workers == 1:
        rows = [_worker(j) for j in jobs]
    else:
        with multiprocessing.Pool(args.workers) as pool:
            rows = pool.map(_worker, jobs, chunksize=4)
    stats = summary(rows)
    print("B: " + ", ".join(f"{m}.{n}={v!r}" for m, n, v in settings))
    print(f"{'kind':<14}{'n':>5}{'right A':>9}{'right B':>9}{'wrong A':>9}{'wrong B':>9}{'changed':>9}")
    for kind in sorted(k for k in stats if k != "total") + ["total"]:
        st = stats[kind]
        print(f"{kind:<14}{st['n']:>5}{st['right_a']:>9}{st['right_b']:>9}{st['wrong_a']:>9}{st['wrong_b']:>9}"
              f"{st['changed']:>9}")
    moved = [r for r in rows if changed(r)]
    if moved:
        print("\nchanged:")
    for r in moved:
        print(f"  {r['seed']} {r['kind']} {r['glaze']}: {_fmt(r['a'])} -> {_fmt(r['b'])}")
    if args.json is not None:
        args.json.write_text(json.dumps({"settings": [list(s) for s in settings], "size": [w, h],
                                         "kind": args.kind, "rows": rows}, indent=1))
    return 1 if stats["total"]["wrong_a"] or stats["total"]["wrong_b"] else 0


if __name__ == "__main__":
    sys.exit(main())
