"""Reveal-to-outcome latency of the round monitor, in frames and milliseconds of frame time.

For each synthesized ``normal`` clip (seeds, fps and size from the command
line) the monitor runs frame by frame; the latency is measured from the
clip's label ``t_reveal`` (the end of the lift: the bowl has cleared) to the
frame that carries the ``outcome`` event.  Rounds the reader does not read
(``uncertain``) are counted separately, never as a latency.  Wall time per
frame (cheap features vs reader calls) is reported too.

    .venv/bin/python bench/bench_monitor.py --fps 25 --size 640x360 --seeds 4,6,8,11
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.monitor import MonitorConfig, RoundMonitor  # noqa: E402
from vision.synth_clip import render_clip  # noqa: E402


def bench_clip(seed: int, fps: float, size: tuple[int, int], stable: int) -> dict:
    clip = render_clip(seed, "normal", fps=fps, size=size)
    frames = list(clip.frames)
    mon = RoundMonitor(MonitorConfig(require_betting_closed=False, stable_frames=stable))
    t_reveal = clip.label["rounds"][0]["t_reveal"]
    reveal_frame = next(lab["index"] for lab in clip.frame_labels if lab["t"] >= t_reveal)
    final = None
    t0 = time.perf_counter()
    for frame, lab in zip(frames, clip.frame_labels):
        for ev in mon.feed(frame, lab["t"], lab["index"]):
            if ev["event"] in ("outcome", "uncertain", "void") and final is None:
                final = ev
    wall = time.perf_counter() - t0
    row = {"seed": seed, "fps": fps, "size": f"{size[0]}x{size[1]}", "frames": len(frames), "reads": mon.reads,
           "wall_ms_per_frame": round(1e3 * wall / len(frames), 2), "result": None if final is None else final["event"],
           "red": None if final is None else final.get("red"), "label_red": clip.label["rounds"][0]["red"]}
    if final is not None and final["event"] == "outcome":
        row["latency_frames"] = final["frame"] - reveal_frame
        row["latency_ms"] = round(1e3 * (final["t"] - t_reveal), 1)
        row["frames_after_monitor_clear"] = final["latency_frames"]
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="4,6,8,11,5")
    ap.add_argument("--fps", default="25,60", help="comma-separated frame rates")
    ap.add_argument("--size", default="640x360")
    ap.add_argument("--stable-frames", type=int, default=MonitorConfig.stable_frames)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    rows = [bench_clip(int(s), float(f), size, args.stable_frames)
            for f in args.fps.split(",") for s in args.seeds.split(",")]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'fps':>5} {'seed':>5} {'result':>9} {'red':>4} {'label':>5} {'lat_fr':>6} {'lat_ms':>7} {'reads':>5} "
          f"{'ms/frame':>8}")
    for r in rows:
        print(f"{r['fps']:>5g} {r['seed']:>5} {str(r['result']):>9} {str(r['red']):>4} {r['label_red']:>5} "
              f"{r.get('latency_frames', '-'):>6} {r.get('latency_ms', '-'):>7} {r['reads']:>5} "
              f"{r['wall_ms_per_frame']:>8}")
    for f in args.fps.split(","):
        lat = [r["latency_ms"] for r in rows if r["fps"] == float(f) and "latency_ms" in r]
        latf = [r["latency_frames"] for r in rows if r["fps"] == float(f) and "latency_frames" in r]
        if lat:
            print(f"fps {f}: {len(lat)} outcomes; reveal-to-outcome median {statistics.median(latf)} frames / "
                  f"{statistics.median(lat):.0f} ms, max {max(latf)} frames / {max(lat):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
