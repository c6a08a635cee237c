"""The camera pipeline of the Xoc Dia result reader.

Frames are BGR uint8 arrays of shape (H, W, 3), as OpenCV gives them; points
are (x, y) pixels.
"""
from __future__ import annotations

__version__ = "0.1.0"

from .errors import FrameError, ProfileError, XocDiaError  # noqa: E402
from .types import FACES, VERDICTS, Ellipse, Reading, TokenReading  # noqa: E402

__all__ = [
    "__version__",
    "FACES",
    "VERDICTS",
    "Ellipse",
    "FrameError",
    "ProfileError",
    "Reading",
    "TokenReading",
    "XocDiaError",
    "read_frame",
    "RoundMonitor",
    "MonitorConfig",
]


def __getattr__(name: str):
    # read_frame pulls in OpenCV and the whole pipeline; import it on first use.
    if name == "read_frame":
        from .reader import read_frame

        return read_frame
    if name in ("RoundMonitor", "MonitorConfig"):
        from . import monitor

        return getattr(monitor, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
