#!/usr/bin/env python3
"""Before/after time of a reader stage, paired frame by frame (for a shared, loaded machine).

The ``vision`` package of another tree (an exported older commit) is imported
beside this tree's, under another name; every bench frame
(``bench/bench_reader.py``'s studio renders and synthesized scenes, scaled to
one size) is read by both back to back, the order alternated frame by frame
and repetition by repetition, so a change of load hits both alike.  Prints the
mean time per frame read of each (median over the repetitions) and the median
of the per-repetition differences (after minus before).  ``cv2.setNumThreads(1)``.

    git archive main | tar -x -C /tmp/before
    .venv/bin/python bench/paired_times.py --before /tmp/before [--size 1280x720] [--stage read_frame] [--reps 9] [--cpu]

``--cpu`` times each read by the thread's CPU time (``time.thread_time``)
instead of the wall clock: on a machine loaded by other work (load 4-7 on 2
cores) the wall clock's waits swamp a difference under a millisecond, the
CPU time much less (the bench frames where the code that changed did not
run differed by -0.05 to +0.02 ms on average by CPU time, by -0.8 to +1.3 ms
by the wall clock).
"""
from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

from bench_reader import scaled, source_frames  # noqa: E402

#: Stages that can be timed: (module of ``vision``, function).
STAGES = {"read_frame": ("reader", "read_frame"), "find_plate": ("plate", "find_plate")}
#: Name the other tree's package is imported under.
BEFORE_PACKAGE = "vision_before"
#: Frames read before timing (caches, first calls).
WARM_UP_FRAMES = 3


def _import_before(tree: Path, workdir: Path):
    """The ``vision`` package of ``tree``, copied into ``workdir`` as ``BEFORE_PACKAGE`` and imported."""
    src = tree / "vision"
    if not (src / "__init__.py").is_file():
        raise SystemExit(f"--before: no vision package in {tree}")
    for path in src.glob("*.py"):  # relative imports only, or the copy would import this tree's modules
        text = path.read_text()
        if "from vision" in text or "import vision" in text:
            raise SystemExit(f"--before: {path} imports vision by name; only relative imports can be renamed")
    shutil.copytree(src, workdir / BEFORE_PACKAGE)
    sys.path.insert(0, str(workdir))
    return importlib.import_module(BEFORE_PACKAGE)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="tree whose vision package is 'before'")
    ap.add_argument("--size", default="1280x720", help="frame size WxH")
    ap.add_argument("--stage", default="read_frame", choices=sorted(STAGES))
    ap.add_argument("--reps", type=int, default=9, help="reads of every frame by each tree")
    ap.add_argument("--cpu", action="store_true", help="time by the thread's CPU time, not the wall clock")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    module, name = STAGES[args.stage]
    with tempfile.TemporaryDirectory() as workdir:
        _import_before(args.before.resolve(), Path(workdir))
        before = getattr(importlib.import_module(f"{BEFORE_PACKAGE}.{module}"), name)
        after = getattr(importlib.import_module(f"vision.{module}"), name)
        frames = [scaled(img, (w, h)) for _, img in source_frames(43, 24)]
        for f in frames[:WARM_UP_FRAMES]:
            before(f)
            after(f)
        fns = (before, after)
        clock = time.thread_time if args.cpu else time.perf_counter
        times = np.zeros((2, args.reps, len(frames)))
        for r in range(args.reps):
            for i, f in enumerate(frames):
                for j in ((0, 1) if (r + i) % 2 == 0 else (1, 0)):
                    t0 = clock()
                    fns[j](f)
                    times[j, r, i] = clock() - t0
    per_rep = 1e3 * times.mean(axis=2)  # (2, reps): mean ms per frame read
    print(f"{args.stage} at {w}x{h}{' (CPU time)' if args.cpu else ''}, {args.reps} x {len(frames)} frames each: before {np.median(per_rep[0]):.2f}, "
          f"after {np.median(per_rep[1]):.2f} ms per frame read (medians over the repetitions); "
          f"after - before, median per repetition: {np.median(per_rep[1] - per_rep[0]):+.2f} ms")


if __name__ == "__main__":
    main()
