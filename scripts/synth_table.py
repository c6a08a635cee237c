#!/usr/bin/env python3
"""Per-kind accuracy of the reader on synthesized scenes.

    python scripts/synth_table.py [--seeds 6000:6500] [--size 1280x720] [--workers 2]

Scene ``seed`` is ``vision.synth.render_scene(seed)`` (its kind and every
condition drawn from the seed); labels come from how each scene was made.
Prints the same columns as ``scripts/studio_table.py`` and exits 1 on any
wrong outcome (each one's seed and reason on stderr).  Seeds 6000-6499 were never looked at while the reader was
tuned (a held-out set).
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from studio_table import print_table  # noqa: E402


def _one(args: tuple[int, tuple[int, int]]) -> tuple[str, bool, bool, bool, int, str]:
    import cv2

    from vision.reader import read_frame
    from vision.synth import render_scene

    cv2.setNumThreads(1)
    seed, size = args
    scene = render_scene(seed, size=size)
    label, reading = scene.label, read_frame(scene.image)
    want = label["verdict"]
    right = reading.verdict == want and (want != "outcome" or reading.red == label["red"])
    wrong = reading.verdict == "outcome" and (want != "outcome" or reading.red != label["red"])
    return label["kind"], right, wrong, reading.verdict == "uncertain", seed, reading.reason


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="6000:6500", help="START:END (end excluded)")
    ap.add_argument("--size", default="1280x720", help="WxH")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    lo, hi = (int(v) for v in args.seeds.split(":"))
    w, h = (int(v) for v in args.size.lower().split("x"))
    stats: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    with multiprocessing.Pool(args.workers) as pool:
        for kind, right, wrong, unsure, seed, reason in pool.imap(_one, [(s, (w, h)) for s in range(lo, hi)],
                                                                  chunksize=4):
            if wrong:
                print(f"wrong outcome: seed {seed} ({kind}): {reason}", file=sys.stderr)
            st = stats[kind]
            st["n"] += 1
            st["right"] += right
            st["wrong_outcome"] += wrong
            st["uncertain"] += unsure
    tot = print_table(stats)
    return 1 if tot["wrong_outcome"] else 0


if __name__ == "__main__":
    sys.exit(main())
