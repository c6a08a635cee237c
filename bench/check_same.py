#!/usr/bin/env python3
"""Guard for speed work on the reader: the readings must not change.

Reads the 85 studio renders (/work/shared/studio-renders), the same scaled
to 1920x1080 and 3840x2160 (bicubic), and ~300
synthesized frames (``render_scene(seed, kind, size=(960, 540))`` for seeds
7000.. over every kind in :data:`vision.synth.KINDS`) and stores each
reading's (verdict, red, reason) in a JSON file; a later run compares against
it and lists every difference.  Confidence and positions are not compared.

    .venv/bin/python bench/check_same.py --record   # write bench/baseline_readings.json
    .venv/bin/python bench/check_same.py            # compare; exit 1 on a verdict or red difference
    .venv/bin/python bench/check_same.py --strict   # ... or on a reason-text difference too

The synthesized frames are cached (lossless PNG) under out/bench_cache/ so a
comparison does not re-render them; the cache's name carries the
synthesizer's source digest (:func:`vision.synth.source_digest`), so a
changed synthesizer renders afresh.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# CHECK_CODE_ROOT: read with the vision package from another tree (e.g. an
# exported older commit) to record a baseline for it.
sys.path.insert(0, os.environ.get("CHECK_CODE_ROOT", str(ROOT)))

import cv2  # noqa: E402

from vision.io import load_image  # noqa: E402
from vision.reader import read_frame  # noqa: E402
from vision.synth import KINDS, render_scene, source_digest  # noqa: E402

STUDIO = ROOT.parent / "shared" / "studio-renders"
#: named by the synthesizer's source digest: frames rendered by an older synthesizer are not read
CACHE = ROOT / "out" / "bench_cache" / f"synth_960x540_{source_digest()}"
BASELINE = ROOT / "bench" / "baseline_readings.json"
SEEDS = range(7000, 7028)  # 28 seeds x 11 kinds = 308 frames
SIZE = (960, 540)
#: Large frames (the reader's shrink paths): every studio render scaled up.
SCALED = ((1920, 1080), (3840, 2160))


def synth_path(seed: int, kind: str) -> Path:
    return CACHE / f"{seed}_{kind}.png"


def ensure_synth(item: tuple[int, str]) -> str:
    seed, kind = item
    p = synth_path(seed, kind)
    if not p.exists():
        img = render_scene(seed, kind, size=SIZE).image
        tmp = p.with_suffix(".tmp.png")
        cv2.imwrite(str(tmp), img)
        tmp.replace(p)
    return str(p)


def items() -> list[tuple[str, Path]]:
    out = []
    for label in sorted(STUDIO.glob("*.json")):
        img = next((label.with_suffix(s) for s in (".jpg", ".png") if label.with_suffix(s).exists()), None)
        if img is not None:
            out.append((f"studio/{img.name}", img))
    for w, h in SCALED:
        for label in sorted(STUDIO.glob("*.json")):
            img = label.with_suffix(".jpg")
            if img.exists():
                out.append((f"scaled{w}x{h}/{img.name}", img))
    for seed in SEEDS:
        for kind in KINDS:
            out.append((f"synth/{seed}_{kind}", synth_path(seed, kind)))
    return out


def read_one(item: tuple[str, str]) -> tuple[str, dict]:
    name, path = item
    frame = load_image(path)
    if name.startswith("scaled"):
        w, h = (int(v) for v in name[len("scaled"):].split("/")[0].split("x"))
        frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_CUBIC)
    r = read_frame(frame)
    return name, {"verdict": r.verdict, "red": r.red, "reason": r.reason}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="write the baseline instead of comparing")
    ap.add_argument("--baseline", default=str(BASELINE))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 on a reason-text difference too (for a refactor that must change nothing)")
    args = ap.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    todo = [(s, k) for s in SEEDS for k in KINDS]
    with ProcessPoolExecutor(args.workers) as pool:
        list(pool.map(ensure_synth, todo, chunksize=8))
        readings = dict(pool.map(read_one, [(n, str(p)) for n, p in items()], chunksize=8))
    path = Path(args.baseline)
    if args.record:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(readings, indent=1, sort_keys=True))
        print(f"recorded {len(readings)} readings to {path}")
        return 0
    base = json.loads(path.read_text())
    diffs = []
    for name in sorted(set(base) | set(readings)):
        a, b = base.get(name), readings.get(name)
        if a is None or b is None or a["verdict"] != b["verdict"] or a["red"] != b["red"]:
            diffs.append(f"VERDICT {name}: {a} -> {b}")
        elif a["reason"] != b["reason"]:
            diffs.append(f"reason  {name}: {a['reason']!r} -> {b['reason']!r}")
    n_verdict = sum(d.startswith("VERDICT") for d in diffs)
    for d in diffs:
        print(d)
    print(f"compared {len(readings)} readings with {path}: {n_verdict} verdict/red differences, "
          f"{len(diffs) - n_verdict} reason-text differences")
    return 1 if n_verdict or (args.strict and diffs) else 0


if __name__ == "__main__":
    sys.exit(main())
