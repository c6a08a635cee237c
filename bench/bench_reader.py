#!/usr/bin/env python3
"""Speed of the still-frame reader (``make bench``).

One process, ``cv2.setNumThreads(1)``.  For each frame size (1280x720,
1920x1080, 3840x2160) the same frames - studio renders and synthesized
scenes, scaled to the size - are read at least 200 times in all; beside each
``read_frame`` call the *floor* is timed on the same frame: one
``cv2.resize`` (INTER_AREA) to the reader's working size (the plate search's
320-pixel-high frame) plus one ``cv2.cvtColor`` to Lab.  Reader and floor are
interleaved frame by frame, so a load spike on the machine hits both.

Then replay throughput (frames/s): 1280x720 JPEG files decoded
(:func:`vision.io.decode_image`, full size: reduced-size decoding changes readings) and
read, in a pool of 1 and 2 worker processes (each with one OpenCV thread);
and the round monitor's reveal-to-outcome latency in frames
(:mod:`bench.bench_monitor`, synthesized normal clips at 25 fps).

    .venv/bin/python bench/bench_reader.py [--reads 200] [--quick] [--json out.json]

Other processes may share the machine: ``os.getloadavg()`` is printed before
and after.  This is a measurement, not a test: it never fails on a target.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# BENCH_CODE_ROOT: time the vision package of another tree (e.g. an exported
# older commit) in the same conditions, for a before/after comparison.
sys.path.insert(0, os.environ.get("BENCH_CODE_ROOT", str(ROOT)))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

from vision import io as vio  # noqa: E402
from vision.plate import PLATE_WORK_HEIGHT_PX  # noqa: E402
from vision.reader import read_frame  # noqa: E402
from vision.synth import KINDS, render_scene, source_digest  # noqa: E402

STUDIO = ROOT.parent / "shared" / "studio-renders"
CACHE = ROOT / "out" / "bench_cache"
SIZES = ((1280, 720), (1920, 1080), (3840, 2160))
SYNTH_SEEDS = range(8100, 8124)
TARGETS = {"1920x1080 median ms": 8.0, "1920x1080 p99 ms": 16.0, "reader/floor": 3.0, "replay fps (2 workers)": 80.0}


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, OpenCV {cv2.__version__}, NumPy {np.__version__}")


def source_frames(n_studio: int, n_synth: int) -> list[tuple[str, np.ndarray]]:
    """Studio renders (1280x720 JPEG) spread over their kinds, and synthesized
    scenes rendered at 1920x1080 over every kind (cached as PNG)."""
    out = []
    studio = sorted(STUDIO.glob("*.jpg"))
    if studio:
        step = max(1, len(studio) // max(n_studio, 1))
        for p in studio[::step][:n_studio]:
            out.append((f"studio/{p.stem}", vio.load_image(p)))
    cache = CACHE / f"synth_1920x1080_{source_digest()}"
    cache.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(SYNTH_SEEDS[:n_synth]):
        kind = KINDS[i % len(KINDS)]
        p = cache / f"{seed}_{kind}.png"
        if not p.exists():
            cv2.imwrite(str(p), render_scene(seed, kind, size=(1920, 1080)).image)
        out.append((f"synth/{seed}_{kind}", cv2.imread(str(p), cv2.IMREAD_COLOR)))
    return out


def scaled(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    h, w = img.shape[:2]
    if (w, h) == size:
        return img.copy()
    interp = cv2.INTER_AREA if size[0] < w else cv2.INTER_CUBIC
    return cv2.resize(img, size, interpolation=interp)


def floor_op(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    s = PLATE_WORK_HEIGHT_PX / h
    small = cv2.resize(frame, (max(8, int(round(w * s))), PLATE_WORK_HEIGHT_PX), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2Lab)


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q))


def bench_size(sources, size, reads: int) -> dict:
    frames = [scaled(img, size) for _, img in sources]
    for f in frames[:3]:  # warm-up (caches, first-call costs)
        read_frame(f)
        floor_op(f)
    t_read, t_floor = [], []
    verdicts = {}
    i = 0
    while len(t_read) < reads:
        k = i % len(frames)
        f = frames[k]
        t0 = time.perf_counter()
        floor_op(f)
        t1 = time.perf_counter()
        r = read_frame(f)
        t2 = time.perf_counter()
        t_floor.append((t1 - t0) * 1e3)
        t_read.append((t2 - t1) * 1e3)
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + (i < len(frames))
        i += 1
    med_r, p99_r = statistics.median(t_read), pct(t_read, 99)
    med_f, p99_f = statistics.median(t_floor), pct(t_floor, 99)
    return {"size": f"{size[0]}x{size[1]}", "reads": len(t_read), "frames": len(frames),
            "reader_median_ms": round(med_r, 2), "reader_p99_ms": round(p99_r, 2),
            "floor_median_ms": round(med_f, 3), "floor_p99_ms": round(p99_f, 3),
            "ratio_median": round(med_r / med_f, 1), "ratio_p99": round(p99_r / p99_f, 1),
            "verdicts": verdicts}


# --- replay throughput -------------------------------------------------------
def _init_worker() -> None:
    cv2.setNumThreads(1)


def _replay_one(path: str) -> str:
    data = Path(path).read_bytes()
    frame = vio.decode_image(data, name=path)
    return read_frame(frame).verdict


def bench_replay(sources, n_frames: int, workers_list=(1, 2)) -> list[dict]:
    folder = CACHE / f"replay_1280x720_{source_digest()}"  # made from the synthesized frames too
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, (name, img) in enumerate(sources):
        p = folder / f"{i:03d}.jpg"
        if not p.exists():
            cv2.imwrite(str(p), scaled(img, (1280, 720)), [cv2.IMWRITE_JPEG_QUALITY, 90])
        paths.append(str(p))
    work = [paths[i % len(paths)] for i in range(n_frames)]
    rows = []
    for workers in workers_list:
        with mp.get_context("spawn").Pool(workers, initializer=_init_worker) as pool:
            pool.map(_replay_one, paths[:2 * workers], chunksize=1)  # start-up and warm-up
            t0 = time.perf_counter()
            list(pool.imap(_replay_one, work, chunksize=4))
            wall = time.perf_counter() - t0
        rows.append({"workers": workers, "frames": n_frames, "fps": round(n_frames / wall, 1)})
    return rows


# --- monitor latency ------------------------------------------------------------
def bench_latency(seeds: list[int]) -> dict:
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_monitor import bench_clip  # noqa: E402
    from vision.monitor import MonitorConfig  # noqa: E402

    rows = [bench_clip(s, 25.0, (640, 360), MonitorConfig.stable_frames) for s in seeds]
    lat = [r["latency_frames"] for r in rows if "latency_frames" in r]
    return {"fps": 25, "size": "640x360", "clips": len(rows), "outcomes": len(lat),
            "latency_frames_median": statistics.median(lat) if lat else None,
            "latency_frames_max": max(lat) if lat else None,
            "monitor_ms_per_frame_median": statistics.median(r["wall_ms_per_frame"] for r in rows)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reads", type=int, default=200, help="read_frame calls per size (>= 200 for the table)")
    ap.add_argument("--studio", type=int, default=24, help="studio renders in the frame set")
    ap.add_argument("--synth", type=int, default=24, help="synthesized scenes in the frame set")
    ap.add_argument("--replay-frames", type=int, default=300)
    ap.add_argument("--monitor-seeds", default="4,6,8,11,5")
    ap.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES))
    ap.add_argument("--quick", action="store_true", help="reader timing only (no replay, no monitor)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)

    import vision
    print(f"machine: {machine()}")
    print(f"code: {Path(vision.__file__).parent}")
    print(f"cv2.setNumThreads(1) (OpenCV threads now: {cv2.getNumThreads()}); one process for the reader timing")
    load0 = os.getloadavg()
    print(f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    sources = source_frames(args.studio, args.synth)
    print(f"frame set: {len(sources)} frames ({sum(n.startswith('studio') for n, _ in sources)} studio renders, "
          f"{sum(n.startswith('synth') for n, _ in sources)} synthesized), scaled to each size")
    results = {"machine": machine(), "threads": 1, "load_before": load0, "sizes": []}
    print(f"\n{'size':>10} {'reads':>5} {'reader med':>10} {'reader p99':>10} {'floor med':>9} {'floor p99':>9} "
          f"{'ratio med':>9} {'ratio p99':>9}")
    for spec in args.sizes.split(","):
        size = tuple(int(v) for v in spec.split("x"))
        row = bench_size(sources, size, args.reads)
        results["sizes"].append(row)
        print(f"{row['size']:>10} {row['reads']:>5} {row['reader_median_ms']:>8.1f}ms {row['reader_p99_ms']:>8.1f}ms "
              f"{row['floor_median_ms']:>7.2f}ms {row['floor_p99_ms']:>7.2f}ms {row['ratio_median']:>9.1f} "
              f"{row['ratio_p99']:>9.1f}", flush=True)
    if not args.quick:
        print("\nreplay, 1280x720 JPEG (quality 90), decode + read_frame, one OpenCV thread per worker:")
        results["replay"] = bench_replay(sources, args.replay_frames)
        for r in results["replay"]:
            print(f"  {r['workers']} worker(s): {r['fps']:.1f} frames/s over {r['frames']} frames", flush=True)
        lat = bench_latency([int(s) for s in args.monitor_seeds.split(",")])
        results["monitor"] = lat
        print(f"\nround monitor, normal clips at {lat['fps']} fps {lat['size']}: {lat['outcomes']}/{lat['clips']} "
              f"outcomes; reveal-to-outcome median {lat['latency_frames_median']} frames, max "
              f"{lat['latency_frames_max']} frames; monitor {lat['monitor_ms_per_frame_median']} ms/frame median")
    load1 = os.getloadavg()
    results["load_after"] = load1
    print(f"\nload average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print("targets: 1920x1080 median <= 8 ms, p99 <= 16 ms; reader/floor <= 3 at every size; "
          "replay 1280x720 >= 80 frames/s with 2 workers")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
