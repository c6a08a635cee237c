#!/usr/bin/env python3
"""Profile of the still-frame reader (cProfile), for finding where the time goes.

One process, ``cv2.setNumThreads(1)``; the frames are those of
``bench/bench_reader.py`` (studio renders and synthesized scenes) scaled to
one size.  Prints the functions by cumulative time and by own time.

    .venv/bin/python bench/profile_reader.py [--size 1920x1080] [--reps 2] [--top 40]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("BENCH_CODE_ROOT", str(ROOT)))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402

cv2.setNumThreads(1)

from bench_reader import scaled, source_frames  # noqa: E402
from vision.reader import read_frame  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1920x1080", help="frame size WxH")
    ap.add_argument("--reps", type=int, default=2, help="reads of every frame")
    ap.add_argument("--top", type=int, default=40, help="rows printed per table")
    ap.add_argument("--studio", type=int, default=43, help="studio renders used")
    ap.add_argument("--synth", type=int, default=24, help="synthesized scenes used")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    frames = [scaled(img, (w, h)) for _, img in source_frames(args.studio, args.synth)]
    for f in frames[:3]:
        read_frame(f)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.reps):
        for f in frames:
            read_frame(f)
    prof.disable()
    n = args.reps * len(frames)
    print(f"{n} reads of {len(frames)} frames at {w}x{h}; times below are totals (divide by {n} per frame)")
    for key in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(args.top)
        print(out.getvalue())


if __name__ == "__main__":
    main()
