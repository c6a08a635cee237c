"""``xocdia read [--profile PROFILE.json] IMAGE...``: one JSON verdict per image.

Output contract (one JSON object per line on stdout): ``source`` (the path as
given), ``verdict``, ``red``, ``white``, ``reason``, ``confidence``,
``tokens`` (``x, y, radius, face, p_red`` in source pixels), ``plate``
(``cx, cy, a, b, angle_deg`` or null), ``elapsed_ms``.  Exit code 1 if any
file was an error, else 0; usage errors exit 2 (argparse).
"""
from __future__ import annotations

import json
import sys
import time
from typing import Any

from .errors import FrameError, ProfileError
from .io import DEFAULT_MAX_PIXELS, load_image
from .types import error_reading


def add_arguments(parser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files to read")
    parser.add_argument("--profile", metavar="PROFILE.json", default=None, help="studio profile from xocdia calibrate")
    parser.add_argument("--max-pixels", type=int, default=DEFAULT_MAX_PIXELS,
                        help=f"refuse images larger than this, by their header (default {DEFAULT_MAX_PIXELS})")


def load_profile_arg(path: str | None):
    """Load ``--profile`` or return None; raises ProfileError with the path."""
    if path is None:
        return None
    from calibration.profile import load_profile

    return load_profile(path)


def read_path(path: str, profile=None, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> dict[str, Any]:
    """Read one image file into the ``xocdia read`` JSON object; never raises
    for a bad file (it becomes verdict ``error``)."""
    from .reader import read_frame

    t0 = time.perf_counter()
    try:
        frame = load_image(path, max_pixels=max_pixels)
        reading = read_frame(frame, profile=profile)
    except FrameError as exc:
        reading = error_reading(str(exc), elapsed_ms=(time.perf_counter() - t0) * 1e3)
    except Exception as exc:  # noqa: BLE001 - one bad frame must not stop the others
        reading = error_reading(f"{path}: internal error while reading: {type(exc).__name__}: {exc}",
                                elapsed_ms=(time.perf_counter() - t0) * 1e3)
    return reading.to_dict(source=path)


def run(args) -> int:
    try:
        profile = load_profile_arg(args.profile)
    except ProfileError as exc:
        print(f"xocdia read: {exc}", file=sys.stderr)
        return 2
    any_error = False
    for path in args.images:
        row = read_path(path, profile, max_pixels=args.max_pixels)
        any_error |= row["verdict"] == "error"
        sys.stdout.write(json.dumps(row) + "\n")
        sys.stdout.flush()
    return 1 if any_error else 0
