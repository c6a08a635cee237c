#!/usr/bin/env python3
"""Print the reader's per-kind accuracy table on a folder of labelled frames.

    python scripts/studio_table.py [DIR] [--size WxH]   (default ../shared/studio-renders, native size)

``--size`` scales every frame (bicubic) before reading, to check other camera
resolutions on the same scenes.

A frame is right when the verdict equals the label's verdict (and, for an
outcome, the red count equals the label's).  A wrong outcome is an outcome
whose red count differs from the label, or an outcome on a scene whose label
is not an outcome.  Exits 1 if there is any wrong outcome.
"""
from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from vision.io import load_image  # noqa: E402
from vision.reader import read_frame  # noqa: E402


def table(folder: Path, size: tuple[int, int] | None = None) -> dict[str, collections.Counter]:
    stats: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for label_path in sorted(folder.glob("*.json")):
        image = next((label_path.with_suffix(s) for s in (".jpg", ".png") if label_path.with_suffix(s).exists()), None)
        if image is None:
            continue
        label = json.loads(label_path.read_text())
        frame = load_image(image)
        if size is not None:
            frame = cv2.resize(frame, size, interpolation=cv2.INTER_CUBIC)
        r = read_frame(frame)
        kind, want = label["kind"], label["verdict"]
        st = stats[kind]
        st["n"] += 1
        st["right"] += r.verdict == want and (want != "outcome" or r.red == label["red"])
        st["wrong_outcome"] += r.verdict == "outcome" and (want != "outcome" or r.red != label["red"])
        st["uncertain"] += r.verdict == "uncertain"
    return stats


def print_table(stats: dict[str, collections.Counter]) -> collections.Counter:
    """Print the per-kind table (n, right, %, wrong outcomes, uncertain); return the totals."""
    print(f"{'kind':<14}{'n':>4}{'right':>7}{'%':>6}{'wrong outcome':>15}{'uncertain':>11}")
    tot: collections.Counter = collections.Counter()
    for kind, st in sorted(stats.items()):
        tot.update(st)
        print(f"{kind:<14}{st['n']:>4}{st['right']:>7}{100 * st['right'] / st['n']:>6.0f}{st['wrong_outcome']:>15}"
              f"{st['uncertain']:>11}")
    print(f"{'total':<14}{tot['n']:>4}{tot['right']:>7}{100 * tot['right'] / max(tot['n'], 1):>6.0f}"
          f"{tot['wrong_outcome']:>15}{tot['uncertain']:>11}")
    return tot


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?",
                    default=str(Path(__file__).resolve().parents[2] / "shared" / "studio-renders"))
    ap.add_argument("--size", default=None, help="WxH to scale every frame to")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    tot = print_table(table(Path(args.folder), size))
    return 1 if tot["wrong_outcome"] else 0


if __name__ == "__main__":
    sys.exit(main())
