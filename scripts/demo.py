"""``make demo``: replay samples/ (frames and clips, recursively) through the reader, with labels.

Writes out/demo/ (results.jsonl, annotated/, summary.json, report.html),
prints the per-kind accuracy table and where the report is.

Usage: python scripts/demo.py [--strict] [--workers N] [--out DIR]

Exit code 0 when the replay ran (wrong outcomes are printed, not fatal, so a
first run always shows the report; ``--strict`` exits 1 on any wrong outcome
like ``xocdia replay --labels``); 2 when samples/ cannot be replayed.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.io import IMAGE_SUFFIXES  # noqa: E402
from vision.replay import replay  # noqa: E402
from vision.replay_sources import VIDEO_SUFFIXES, SourceError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default=str(ROOT / "samples"), help="folder to replay (default samples/)")
    parser.add_argument("--out", default=str(ROOT / "out" / "demo"), help="output folder (default out/demo)")
    parser.add_argument("--workers", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    parser.add_argument("--strict", action="store_true", help="exit 1 on any wrong outcome")
    args = parser.parse_args(argv)

    samples = Path(args.samples)
    suffixes = IMAGE_SUFFIXES + VIDEO_SUFFIXES
    if not samples.is_dir() or not any(p.suffix.lower() in suffixes for p in samples.rglob("*") if p.is_file()):
        print(f"demo: {samples} holds no frames or clips yet, nothing to replay.\n"
              f"      Put labelled images (NAME.jpg + NAME.json) or videos there, or run the synthesizer, "
              f"then `make demo` again.")
        return 0
    print(f"demo: replaying {samples} with labels into {args.out} ({args.workers} worker(s))", flush=True)
    try:
        code = replay([str(samples)], outdir=args.out, labels="", workers=args.workers)
    except SourceError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 2
    report = Path(args.out) / "report.html"
    print(f"\nOpen the report: file://{report.resolve()}")
    if code == 1:
        print("demo: the reader gave at least one wrong outcome (see the table and the report)")
        return 1 if args.strict else 0
    return code


if __name__ == "__main__":
    sys.exit(main())
