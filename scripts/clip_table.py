#!/usr/bin/env python3
"""Per-variant accuracy of the round monitor on synthesized round clips.

    python scripts/clip_table.py --seeds 1300000:1300035 [--variants normal,no_shake,...]
                                 [--fps 25] [--size 640x360] [--workers 2] [--json OUT.jsonl]

Clip ``(seed, variant)`` is ``vision.synth_clip.render_clip(seed, variant)``
(every variant of ``vision.synth_clip.VARIANTS`` unless ``--variants`` names
some), fed frame by frame to a ``RoundMonitor`` whose betting closes when the
bowl settles (``require_betting_closed=False``, as in tests/monitor_clips.py).
The truth of each round is the clip's label (``label["rounds"][k]``:
``expected`` from ``VARIANT_RESULTS`` for the last round, ``outcome`` for the
first of ``same_layout``; ``red``).  Events belong to the label round in
which the monitor's round id first appeared.  Each round is

``right``
    its final event (the last of ``FINAL_EVENTS`` or ``rearrange``) is the
    truth: for an outcome, with the truth's red count; for a void, with the
    code of what the variant did (``VOID_CODE``: a ``no_shake`` clip voided as
    ``layout_unchanged`` is ``other``, refunded for a reason that is not
    what happened);
``wrong``
    any ``outcome`` event of the round has another red count than the truth,
    or the truth is not an outcome (void, reshake, rearrange): a missed void
    is wrong.  An outcome is delivered when it is emitted, so an outcome
    followed by something else is still wrong;
``abstained``
    the final event is ``uncertain`` or ``cancelled``, or there is none;
``other``
    a final event that is neither the truth nor an outcome (a void for an
    outcome round, a reshake for a void one, a ``rearrange`` left hanging).

The table counts rounds (``same_layout`` clips have two).  Each wrong clip
(seed, variant, its round events) is printed after the table, and on stderr
as soon as it is seen; the exit code is 1 if any round is wrong.  ``--json``
writes one line per clip as it is done, in (seed, variant) order: seed,
variant, truth (per round: expected, red), events (per round: the decisive
events), result (per round) and the clip's result (wrong, else other, else
abstained, else right).  Exit code 2 on a usage error.
"""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.monitor_events import FINAL_EVENTS  # noqa: E402

#: Events that decide a round, in a clip's ``--json`` line and in the wrong-clip listing: those that
#: end one, and a ``rearrange`` (the last word of a round whose reading never followed).
DECISIVE = FINAL_EVENTS + ("rearrange",)
#: Columns of the table, in order.
RESULTS = ("right", "wrong", "abstained", "other")
#: The void code that names what each void variant did.
VOID_CODE = {"no_shake": "no_shake", "touched": "bowl_touched_token", "camera_gap": "reveal_not_seen",
             "same_layout": "layout_unchanged"}
#: A clip's result is its worst round's, in this order.
_WORST = ("wrong", "other", "abstained", "right")


def round_of(t: float, starts: list[float]) -> int:
    """The label round whose first phase starts last at or before ``t`` (0 before any)."""
    k = 0
    for i, s in enumerate(starts):
        if s <= t:
            k = i
    return k


def round_starts(label: dict) -> list[float]:
    """Start time of each label round: its first phase's ``t_start``."""
    n = len(label["rounds"])
    return [min(p["t_start"] for p in label["phases"] if p["round"] == k and p["phase"] != "gap") for k in range(n)]


def split_rounds(events: list[dict], label: dict) -> list[list[dict]]:
    """The decisive events of each label round.

    An event with a round id belongs to the round in which that id first
    appeared (any event of it, e.g. ``round_started``), so a reveal that ends
    after the next round's idle began still counts for its own round; one
    without an id by its own time.
    """
    starts = round_starts(label)
    first_t: dict = {}
    for e in events:
        if e.get("round_id") is not None:
            first_t.setdefault(e["round_id"], e["t"])
    out: list[list[dict]] = [[] for _ in starts]
    for e in events:
        if e["event"] not in DECISIVE:
            continue
        rid = e.get("round_id")
        out[round_of(first_t[rid] if rid is not None else e["t"], starts)].append(e)
    return out


def classify(truth: dict, events: list[dict]) -> str:
    """``right``, ``wrong``, ``abstained`` or ``other`` (see the module's docstring) for one round.

    ``truth`` is the label round (``expected``, ``red`` and, for a void, ``code``: None takes any
    code); ``events`` its decisive events in order.
    """
    want, red = truth["expected"], truth.get("red")
    if any(e["event"] == "outcome" and (want != "outcome" or e.get("red") != red) for e in events):
        return "wrong"
    if not events or events[-1]["event"] in ("uncertain", "cancelled"):
        return "abstained"
    final = events[-1]
    if final["event"] == want and (want != "outcome" or final.get("red") == red) \
            and (want != "void" or truth.get("code") in (None, final.get("code"))):
        return "right"
    return "other"


def brief(e: dict) -> dict:
    """The fields of a decisive event worth listing."""
    keep = ("event", "round_id", "frame", "t", "red", "white", "code", "reason")
    return {k: e[k] for k in keep if k in e}


def _one(args: tuple) -> dict:
    import cv2

    from vision.monitor import MonitorConfig, RoundMonitor
    from vision.monitor_events import feed_clip
    from vision.synth_clip import render_clip

    cv2.setNumThreads(1)
    seed, variant, fps, size = args
    clip = render_clip(seed, variant, fps=fps, size=size)
    mon = RoundMonitor(MonitorConfig(require_betting_closed=False))
    events = feed_clip(mon, clip.frames, clip.frame_labels)
    per_round = split_rounds(events, clip.label)
    truth = [{"expected": r["expected"], "red": r["red"]} for r in clip.label["rounds"]]
    if truth[-1]["expected"] == "void":
        truth[-1]["code"] = VOID_CODE[variant]
    results = [classify(t, evs) for t, evs in zip(truth, per_round)]
    return {"seed": seed, "variant": variant, "truth": truth, "events": [[brief(e) for e in evs] for evs in per_round],
            "results": results, "result": next(r for r in _WORST if r in results), "reads": mon.reads,
            "touched": clip.label["touched"]}


def print_table(stats: dict[str, collections.Counter], order: list[str]) -> collections.Counter:
    """Print the per-variant table of rounds (n, right, %, wrong, abstained, other); return the totals."""
    print(f"{'variant':<19}{'n':>5}{'right':>7}{'%':>6}{'wrong':>7}{'abstained':>11}{'other':>7}")
    tot: collections.Counter = collections.Counter()
    for v in order:
        st = stats.get(v)
        if not st:
            continue
        tot.update(st)
        print(f"{v:<19}{st['n']:>5}{st['right']:>7}{100 * st['right'] / st['n']:>6.0f}{st['wrong']:>7}"
              f"{st['abstained']:>11}{st['other']:>7}")
    print(f"{'total':<19}{tot['n']:>5}{tot['right']:>7}{100 * tot['right'] / max(tot['n'], 1):>6.0f}"
          f"{tot['wrong']:>7}{tot['abstained']:>11}{tot['other']:>7}")
    return tot


def describe(row: dict) -> str:
    """One wrong clip: seed, variant, and per round the truth, the result and the decisive events."""
    lines = [f"seed {row['seed']} {row['variant']}:"]
    for k, (truth, res, evs) in enumerate(zip(row["truth"], row["results"], row["events"])):
        lines.append(f"  round {k}: truth {truth['expected']} red={truth['red']} -> {res}")
        for e in evs:
            extra = "".join(f" {key}={e[key]}" for key in ("red", "code") if key in e)
            lines.append(f"    {e['event']}{extra} frame={e['frame']} t={e['t']}: {e['reason']}")
    return "\n".join(lines)


def parse_args(argv=None) -> argparse.Namespace:
    """Parsed and checked arguments: ``seeds`` a range, ``variants`` a list, ``size`` a (w, h) tuple."""
    from vision.synth_clip import VARIANTS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", required=True, help="START:END (end excluded)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, among {', '.join(VARIANTS)}")
    ap.add_argument("--fps", default="25", help="frames per second, in (0, 120]")
    ap.add_argument("--size", default="640x360", help="WxH")
    ap.add_argument("--workers", default="2", help="processes")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT.jsonl",
                    help="write one JSON line per clip as it is done (seed, variant, truth, events, result)")
    args = ap.parse_args(argv)
    try:
        lo, hi = (int(v) for v in args.seeds.split(":"))
    except ValueError:
        ap.error(f"--seeds: expected START:END with two integers, got {args.seeds!r}")
    if not 0 <= lo < hi:
        ap.error(f"--seeds: expected 0 <= START < END, got {args.seeds!r}")
    args.seeds = range(lo, hi)
    variants = [v.strip() for v in args.variants.split(",")]
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"--variants: expected names among {', '.join(VARIANTS)}, got {v!r}")
    if len(set(variants)) != len(variants):
        ap.error(f"--variants: a variant is named twice in {args.variants!r}")
    args.variants = variants
    try:
        args.fps = float(args.fps)
    except ValueError:
        ap.error(f"--fps: expected a number in (0, 120], got {args.fps!r}")
    if not 0 < args.fps <= 120:
        ap.error(f"--fps: expected a number in (0, 120], got {args.fps:g}")
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        ap.error(f"--size: expected WxH with two integers, got {args.size!r}")
    from vision.synth import check_size
    try:
        args.size = check_size((w, h))
    except (TypeError, ValueError) as exc:
        ap.error(f"--size {args.size}: {exc}")
    try:
        workers = int(args.workers)
    except ValueError:
        workers = 0
    if workers < 1:
        ap.error(f"--workers: expected an integer >= 1, got {args.workers!r}")
    args.workers = workers
    args.ap = ap
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    # one OpenCV thread in this process before the pool forks (see scripts/synth_table.py)
    import cv2
    cv2.setNumThreads(1)
    try:  # opened before any clip is rendered: a bad path is a usage error, not a lost run
        dump = None if args.json is None else args.json.open("w")
    except OSError as exc:
        args.ap.error(f"--json: cannot write {args.json}: {exc.strerror}")
    stats: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    wrong = []
    tasks = [(s, v, args.fps, args.size) for s in args.seeds for v in args.variants]
    with multiprocessing.Pool(args.workers) as pool:
        for row in pool.imap(_one, tasks, chunksize=1):
            st = stats[row["variant"]]
            for res in row["results"]:
                st["n"] += 1
                st[res] += 1
            if row["result"] == "wrong":
                wrong.append(row)
                print("WRONG " + describe(row), file=sys.stderr, flush=True)
            if dump is not None:
                dump.write(json.dumps(row) + "\n")
                dump.flush()
    if dump is not None:
        dump.close()
    w, h = args.size
    print(f"seeds {args.seeds.start}:{args.seeds.stop}, {w}x{h}, {args.fps:g} fps; rounds per variant")
    tot = print_table(stats, args.variants)
    if wrong:
        print(f"\n{len(wrong)} wrong clip(s):")
        for row in wrong:
            print(describe(row))
    return 1 if tot["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
