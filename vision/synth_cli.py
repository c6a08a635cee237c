"""``xocdia synth``: write labelled synthetic table scenes (and round clips) to a folder."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .synth import KINDS, check_seed, render_scene
from .synth_clip import VARIANTS, render_clip, write_clip

#: Seeds of scene i of a run with seed S are S * SEED_STRIDE + i.
SEED_STRIDE = 100_000
#: JPEG quality of a scene whose draw had no JPEG step (files are always .jpg).
FALLBACK_JPEG_QUALITY = 95


def scene_seed(seed: int, index: int) -> int:
    """The seed of scene ``index`` of a run started with ``seed`` (deterministic, distinct per index)."""
    return seed * SEED_STRIDE + index


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--size: expected WIDTHxHEIGHT such as 1280x720, got {text!r}") from None
    return w, h


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("outdir", metavar="OUTDIR", help="folder to write NAME.jpg + NAME.json into")
    parser.add_argument("--count", type=int, default=20, help="number of scenes (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="run seed S; scene i uses S*%d+i" % SEED_STRIDE)
    parser.add_argument("--kind", choices=KINDS, default=None,
                        help="render only this kind (default: cycle through every kind)")
    parser.add_argument("--size", type=parse_size, default=(1280, 720), help="WIDTHxHEIGHT, default 1280x720")
    parser.add_argument("--clips", action="store_true", help="also write one clip of every variant")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help="comma-separated clip variants for --clips (default: all)")
    parser.add_argument("--clip-size", type=parse_size, default=None, help="clip WIDTHxHEIGHT (default --size)")
    parser.add_argument("--fps", type=float, default=25.0, help="clip frame rate (default 25)")


def run(args: argparse.Namespace) -> int:
    try:
        check_seed(args.seed, "--seed")
        if args.count < 0:
            raise ValueError(f"--count: expected >= 0, got {args.count}")
        variants = [v for v in args.variants.split(",") if v]
        for v in variants:
            if v not in VARIANTS:
                raise ValueError(f"--variants: expected some of {VARIANTS}, got {v!r}")
    except (TypeError, ValueError) as exc:
        print(f"xocdia synth: {exc}", file=sys.stderr)
        return 2
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        kind = args.kind or KINDS[i % len(KINDS)]
        s = scene_seed(args.seed, i)
        scene = render_scene(s, kind, size=tuple(args.size))
        if scene.jpeg_bytes is None:  # files are JPEG: draw the same scene with the best drawn quality
            scene = render_scene(s, kind, size=tuple(args.size), conditions={"jpeg_quality": FALLBACK_JPEG_QUALITY})
        name = f"synth_{args.seed}_{i}_{kind}"
        (out / f"{name}.jpg").write_bytes(scene.jpeg_bytes)
        label = dict(scene.label, name=name, file=f"{name}.jpg")
        (out / f"{name}.json").write_text(json.dumps(label, indent=1))
    if args.clips:
        size = tuple(args.clip_size or args.size)
        for j, v in enumerate(variants):
            clip = render_clip(scene_seed(args.seed, 90_000 + j), v, fps=args.fps, size=size)
            write_clip(clip, out, video=True, folder=False)
    print(f"xocdia synth: wrote {args.count} scenes{' and clips' if args.clips else ''} to {out}")
    return 0
