"""Reading frames from files and normalising arrays to BGR uint8.

Everything here raises :class:`vision.errors.FrameError` with a message that
names the file (or the parameter) and the problem; nothing returns None.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path

import cv2
import numpy as np

from .errors import FrameError

#: Largest frame the reader accepts, in pixels (width x height).  An 8K frame
#: is 33.2 Mpx; the limit leaves room for that and refuses decompression bombs.
DEFAULT_MAX_PIXELS = 40_000_000
#: Smallest side, pixels, of a frame the reader will look at.
MIN_SIDE_PX = 32

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def header_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG, JPEG or BMP header, without decoding.

    Parameters
    ----------
    data : bytes
        The start of the file (the whole file is fine).

    Returns
    -------
    (width, height) in pixels, or None when the format is not one of these or
    the header is not found.
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:2] == b"BM" and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return abs(int(width)), abs(int(height))
    if data[:2] == b"\xff\xd8":
        i = 2
        n = len(data)
        while i + 4 <= n:
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker == 0xFF:
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            (seg_len,) = struct.unpack(">H", data[i + 2 : i + 4])
            # SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC)
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                if i + 9 <= n:
                    height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                    return int(width), int(height)
                return None
            i += 2 + seg_len
        return None
    return None


def to_bgr8(frame: np.ndarray, *, name: str = "frame") -> np.ndarray:
    """Normalise an image array to BGR uint8 (H, W, 3).

    Accepts greyscale (H, W) or (H, W, 1), BGR (H, W, 3) and BGRA (H, W, 4),
    as uint8 or uint16 (16-bit is scaled by 1/257).  Refuses floats, bools,
    NaN, other channel counts and frames smaller than ``MIN_SIDE_PX``.

    Parameters
    ----------
    frame : ndarray
        The image.
    name : str
        Named in error messages (a path or a parameter name).

    Returns
    -------
    ndarray, uint8, (H, W, 3), BGR.  The input itself when it already is one
    (never modified), otherwise a new array.

    Raises
    ------
    FrameError
        With a message naming ``name`` and what was expected.
    """
    if not isinstance(frame, np.ndarray):
        raise FrameError(f"{name}: expected a numpy array, got {type(frame).__name__}")
    if frame.dtype == np.uint16:
        frame = (frame // 257).astype(np.uint8)
    elif frame.dtype != np.uint8:
        hint = " (it contains NaN)" if frame.dtype.kind == "f" and np.isnan(frame).any() else ""
        raise FrameError(f"{name}: expected dtype uint8 or uint16, got {frame.dtype}{hint}")
    if frame.ndim == 3 and frame.shape[2] == 1:
        frame = frame[:, :, 0]
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    elif not (frame.ndim == 3 and frame.shape[2] == 3):
        raise FrameError(f"{name}: expected shape (H, W), (H, W, 3) or (H, W, 4), got {frame.shape}")
    h, w = frame.shape[:2]
    if min(h, w) < MIN_SIDE_PX:
        raise FrameError(f"{name}: expected both sides >= {MIN_SIDE_PX} px, got {w}x{h}")
    return frame


def load_image(path: str | os.PathLike, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Read an image file into BGR uint8 (H, W, 3).

    The header is checked against ``max_pixels`` before anything is decoded.

    Parameters
    ----------
    path : str or PathLike
        The file.
    max_pixels : int
        Largest accepted width x height.

    Raises
    ------
    FrameError
        The file is missing, empty, not an image, truncated, too large, or of
        an unsupported depth; the message names the path.
    """
    if not isinstance(max_pixels, int) or max_pixels <= 0:
        raise ValueError(f"max_pixels: expected a positive int, got {max_pixels!r}")
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise FrameError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise FrameError(f"{p}: is a directory, not an image") from None
    except OSError as exc:
        raise FrameError(f"{p}: cannot read file ({exc.strerror or exc})") from None
    return decode_image(data, name=str(p), max_pixels=max_pixels)


def decode_image(data: bytes, *, name: str = "<bytes>", max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Decode an encoded image (JPEG, PNG, ...) held in memory; see :func:`load_image`."""
    if len(data) == 0:
        raise FrameError(f"{name}: empty file (0 bytes)")
    size = header_size(data)
    if size is not None:
        w, h = size
        if w * h > max_pixels:
            raise FrameError(f"{name}: header says {w}x{h} = {w * h} px, over the limit of {max_pixels} px")
        if w == 0 or h == 0:
            raise FrameError(f"{name}: header says {w}x{h}, an empty image")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
        raise FrameError(f"{name}: truncated JPEG (no end-of-image marker)")
    buf = np.frombuffer(data, dtype=np.uint8)
    img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if img is None or img.size == 0:
        raise FrameError(f"{name}: not a decodable image (corrupt, truncated or unknown format)")
    if size is None and img.shape[0] * img.shape[1] > max_pixels:
        raise FrameError(f"{name}: {img.shape[1]}x{img.shape[0]} px is over the limit of {max_pixels} px")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and not data.rstrip(b"\x00").endswith(b"IEND\xaeB`\x82"):
        raise FrameError(f"{name}: truncated PNG (no IEND chunk)")
    return to_bgr8(img, name=name)
