#!/usr/bin/env python3
"""Time spent per reader stage, per frame (for before/after comparisons).

Wraps the stage functions of ``vision.reader`` and ``vision.tokens`` with a
timer (a wrapped function's time includes the wrapped functions it calls),
reads the bench frames (``bench/bench_reader.py``'s studio renders and
synthesized scenes) scaled to one size, and prints each stage's mean time per
frame read, and its calls per frame.  ``cv2.setNumThreads(1)``.

    .venv/bin/python bench/stage_times.py [--size 1280x720] [--reps 3]
    BENCH_CODE_ROOT=/tmp/old .venv/bin/python bench/stage_times.py   # another tree's vision package
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("BENCH_CODE_ROOT", str(ROOT)))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402

cv2.setNumThreads(1)

from bench_reader import scaled, source_frames  # noqa: E402
from vision import reader, tokens  # noqa: E402

try:  # the disc filter's own module (older trees keep it in vision.tokens)
    from vision import discs  # noqa: E402
except ImportError:  # pragma: no cover
    discs = None
try:  # the outline filter's own module (round 10 calls outline_response from there)
    from vision import outline  # noqa: E402
except ImportError:  # pragma: no cover
    outline = None
try:  # faint faces' regions and the token radius from them (the tenth round moved them out of vision.tokens)
    from vision import faint_faces  # noqa: E402
except ImportError:  # pragma: no cover
    faint_faces = None
try:  # the outline-face search (moved out of vision.tokens: it calls outline_support and _peaks from there)
    from vision import outline_faces  # noqa: E402
except ImportError:  # pragma: no cover
    outline_faces = None
#: Modules whose references to a timed function are all replaced by its timer,
#: so calls between the stages' modules are counted too.
MODULES = tuple(m for m in (reader, tokens, discs, outline, faint_faces, outline_faces) if m is not None)

#: (module, function name) pairs timed, in the order printed.
STAGES = ((reader, "read_frame"), (reader, "find_plate"), (reader, "make_canonical_view"),
          (reader, "without_shading"), (reader, "find_tokens"), (tokens, "_blob_mask"), (tokens, "_blobs"), (tokens, "half_max_radius"),
          (tokens, "_radius_from_faint_faces"), (tokens, "_radius_scan"), (tokens, "disc_response"), (tokens, "_peaks"),
          (tokens, "sector_support"), (tokens, "faint_extent"), (tokens, "_outline_faces"),
          (tokens, "outline_response"), (tokens, "outline_support"), (reader, "decide"),
          (reader, "outside_plate_mask"), (reader, "offplate_blobs"), (reader, "plate_intrusions"))

TOTALS: dict[str, float] = collections.defaultdict(float)
CALLS: dict[str, int] = collections.defaultdict(int)


def timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            TOTALS[name] += time.perf_counter() - t0
            CALLS[name] += 1
    return wrapper


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1280x720", help="frame size WxH")
    ap.add_argument("--reps", type=int, default=3, help="reads of every frame")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    frames = [scaled(img, (w, h)) for _, img in source_frames(43, 24)]
    for f in frames[:3]:
        reader.read_frame(f)
    for mod, name in STAGES:
        if hasattr(mod, name):
            fn = getattr(mod, name)
            wrapper = timed(name, fn)
            for m in MODULES:
                if getattr(m, name, None) is fn:
                    setattr(m, name, wrapper)
    read = reader.read_frame
    for _ in range(args.reps):
        for f in frames:
            read(f)
    n = CALLS["read_frame"]
    print(f"{n} reads at {w}x{h}, load {os.getloadavg()[0]:.1f}; code from {reader.__file__}")
    print(f"{'stage':24s} {'ms/frame':>9s} {'calls/frame':>12s}")
    for _, name in STAGES:
        if CALLS[name]:
            print(f"{name:24s} {TOTALS[name] / n * 1e3:9.2f} {CALLS[name] / n:12.2f}")


if __name__ == "__main__":
    main()
