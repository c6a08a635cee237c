#!/usr/bin/env python3
"""How often a reading changes when the frame changes imperceptibly.

    python scripts/stability_table.py [DIR] [--workers N]   (default ../shared/studio-renders)

Each labelled frame is read as it is and under small perturbations that no
one would call a different scene: a shift by half a pixel (bilinear), a
JPEG re-encode at quality 95, the whole frame 2 levels brighter or darker,
and a seeded Gaussian noise of sigma 1 level.  The table counts, per
perturbation, the frames whose reading (verdict and red count) differs from
the unperturbed one, how many of those changes were gains and losses
against the label, and any wrong outcome (an outcome whose red count
differs from the label, or an outcome on a scene whose label is not an
outcome).  Exits 1 on any wrong outcome.

A reader whose readings flip under such changes needs more frames to agree
at a live table, and any change to its resampling (a faster resize, another
working size) moves readings by about this much.
"""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import sys
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

#: Perturbation name -> what it does (for the table's legend).
PERTURBATIONS = {
    "shift_half_px": "translated by (0.5, 0.5) px, bilinear",
    "jpeg_q95": "re-encoded as JPEG, quality 95",
    "brighter_2": "+2 levels on every channel (saturating)",
    "darker_2": "-2 levels on every channel (saturating)",
    "noise_1": "Gaussian noise, sigma 1 level, seeded by the frame's name",
}


def perturb(frame: np.ndarray, name: str, seed: int) -> np.ndarray:
    """``frame`` (BGR uint8) changed by the perturbation ``name``; a new array."""
    if name == "shift_half_px":
        m = np.float32([[1, 0, 0.5], [0, 1, 0.5]])
        return cv2.warpAffine(frame, m, (frame.shape[1], frame.shape[0]), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    if name == "jpeg_q95":
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if name in ("brighter_2", "darker_2"):
        step = np.full(frame.shape, 2, np.uint8)
        return cv2.add(frame, step) if name == "brighter_2" else cv2.subtract(frame, step)
    if name == "noise_1":
        rng = np.random.default_rng(seed)
        noisy = frame.astype(np.float32) + rng.normal(0.0, 1.0, frame.shape).astype(np.float32)
        return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)
    raise ValueError(f"name: expected one of {sorted(PERTURBATIONS)}, got {name!r}")


def _right(label: dict, verdict: str, red: int | None) -> bool:
    return verdict == label["verdict"] and (label["verdict"] != "outcome" or red == label["red"])


def _wrong_outcome(label: dict, verdict: str, red: int | None) -> bool:
    return verdict == "outcome" and (label["verdict"] != "outcome" or red != label["red"])


def _init_worker() -> None:
    cv2.setNumThreads(1)  # one thread per worker process


def read_one(args: tuple[str, int]) -> dict:
    """The readings of one frame, unperturbed and under every perturbation."""
    path, seed = args
    from vision.io import load_image
    from vision.reader import read_frame
    frame = load_image(path)
    out = {"base": read_frame(frame)}
    for name in PERTURBATIONS:
        out[name] = read_frame(perturb(frame, name, seed))
    return {k: (r.verdict, r.red) for k, r in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "studio-renders"))
    ap.add_argument("--workers", type=int, default=2, help="processes (1: read in this process)")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    items = []
    for label_path in sorted(folder.glob("*.json")):
        image = next((label_path.with_suffix(s) for s in (".jpg", ".png") if label_path.with_suffix(s).exists()), None)
        if image is not None:
            # the noise seed follows the frame's name, not its place in the folder
            items.append((str(image), json.loads(label_path.read_text()), zlib.crc32(label_path.stem.encode())))
    if not items:
        print(f"{folder}: no labelled frames (IMAGE.jpg or .png beside IMAGE.json)", file=sys.stderr)
        return 2
    jobs = [(p, seed) for p, _, seed in items]
    if args.workers <= 1:
        readings = [read_one(job) for job in jobs]
    else:
        # spawned, not forked: a child forked while OpenCV's thread pool is
        # in use can deadlock in its first OpenCV call
        with ProcessPoolExecutor(max_workers=args.workers, mp_context=mp.get_context("spawn"),
                                 initializer=_init_worker) as pool:
            readings = list(pool.map(read_one, jobs))
    stats: dict[str, collections.Counter] = {name: collections.Counter() for name in PERTURBATIONS}
    changed_any = set()
    wrong = 0
    for (path, label, _), got in zip(items, readings):
        base = got["base"]
        wrong += _wrong_outcome(label, *base)
        for name in PERTURBATIONS:
            st, now = stats[name], got[name]
            st["wrong_outcome"] += _wrong_outcome(label, *now)
            if now != base:
                st["changed"] += 1
                changed_any.add(path)
                st["gain"] += _right(label, *now) and not _right(label, *base)
                st["loss"] += _right(label, *base) and not _right(label, *now)
            st["right"] += _right(label, *now)
    n = len(items)
    print(f"{n} frames from {folder}; unperturbed: {sum(_right(l, *g['base']) for (_, l, _), g in zip(items, readings))}"
          f" right, {wrong} wrong outcomes")
    print(f"{'perturbation':<16}{'changed':>9}{'gain':>6}{'loss':>6}{'right':>7}{'wrong outcome':>15}  what")
    for name, what in PERTURBATIONS.items():
        st = stats[name]
        print(f"{name:<16}{st['changed']:>9}{st['gain']:>6}{st['loss']:>6}{st['right']:>7}{st['wrong_outcome']:>15}  {what}")
    print(f"frames whose reading changed under at least one perturbation: {len(changed_any)} of {n}")
    for path in sorted(changed_any):
        print(f"  {Path(path).name}")
    total_wrong = wrong + sum(st["wrong_outcome"] for st in stats.values())
    return 1 if total_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
