"""Reading frames from files and normalising arrays to BGR uint8.

Everything here raises :class:`vision.errors.FrameError` with a message that
names the file (or the parameter) and the problem; nothing returns None.

Only JPEG, PNG, BMP, TIFF and WebP are decoded, and only after their header
has given a size within the pixel limit and their structure has been checked
for truncation (a truncated JPEG would otherwise decode to a grey-filled
frame).  The limits are described in ``docs/limits.md``.
"""
from __future__ import annotations

import os
import re
import stat
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from .errors import FrameError

#: Built-in pixel limit (width x height).  An 8K frame is 33.2 Mpx; the limit
#: leaves room for that and refuses decompression bombs.
BUILTIN_MAX_PIXELS = 40_000_000
#: Environment variable that sets :data:`DEFAULT_MAX_PIXELS` when the process starts.
MAX_PIXELS_ENV = "XOCDIA_MAX_PIXELS"
#: Smallest side, pixels, of a frame the reader will look at.
MIN_SIDE_PX = 32
#: A file may hold at most this many bytes per allowed pixel (16-bit BGRA
#: uncompressed is 8), plus 1 MiB of metadata.
MAX_FILE_BYTES_PER_PIXEL = 8

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
#: Most JPEG segments or PNG chunks walked (real files have under a thousand).
MAX_SEGMENTS = 100_000
_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_JPEG_SCAN_END = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")  # first marker after entropy-coded data


def _env_max_pixels() -> tuple[int, str | None]:
    text = os.environ.get(MAX_PIXELS_ENV, "").strip()
    value = int(text) if text.isdigit() else 0
    if not text or value > 0:
        return value or BUILTIN_MAX_PIXELS, None
    return BUILTIN_MAX_PIXELS, f"environment variable {MAX_PIXELS_ENV}={text!r}: expected a positive integer"


#: Largest frame accepted by default, pixels: ``$XOCDIA_MAX_PIXELS`` when the
#: process starts, else :data:`BUILTIN_MAX_PIXELS`.  A malformed variable makes
#: every file an error naming it (never a silent fallback).
DEFAULT_MAX_PIXELS, _ENV_PROBLEM = _env_max_pixels()


def image_format(data: bytes) -> str | None:
    """``jpeg``, ``png``, ``bmp``, ``tiff`` or ``webp`` from the magic bytes, else None."""
    for fmt, magic in (("jpeg", b"\xff\xd8\xff"), ("png", _PNG_SIG), ("bmp", b"BM"), ("tiff", b"II*\x00"),
                       ("tiff", b"MM\x00*")):
        if data.startswith(magic):
            return fmt
    return "webp" if data[:4] == b"RIFF" and data[8:12] == b"WEBP" else None


def _jpeg_walk(data: bytes) -> tuple[tuple[int, int] | None, bool]:
    """(size from the SOF marker or None, whether the end-of-image marker is reached)."""
    size, i, n = None, 2, len(data)
    for _ in range(MAX_SEGMENTS):
        if i + 4 > n:
            break
        if data[i] != 0xFF:
            i = data.find(b"\xff", i)
            if i < 0:
                return size, False
            continue
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker == 0xD9:
            return size, True
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (seg_len,) = struct.unpack(">H", data[i + 2 : i + 4])
        # SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC)
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) and size is None and i + 9 <= n:
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            size = (int(width), int(height))
        if seg_len < 2:
            return size, False
        i += 2 + seg_len
        if marker == 0xDA:  # start of scan: skip the entropy-coded data
            m = _JPEG_SCAN_END.search(data, i)
            if m is None:
                return size, False
            i = m.start()
    return size, i + 2 <= n and data[i : i + 2] == b"\xff\xd9"


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    e = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(e + "I", data[4:8])
    if ifd + 2 > len(data):
        return None
    (count,) = struct.unpack(e + "H", data[ifd : ifd + 2])
    found: dict[int, int] = {}
    for k in range(min(count, (len(data) - ifd - 2) // 12)):
        tag, typ, _cnt = struct.unpack(e + "HHI", data[ifd + 2 + 12 * k : ifd + 10 + 12 * k])
        if tag in (256, 257) and typ in (3, 4):
            fmt = e + ("H" if typ == 3 else "I")
            found[tag] = struct.unpack_from(fmt, data, ifd + 10 + 12 * k)[0]
    return (int(found[256]), int(found[257])) if len(found) == 2 else None


def header_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG, JPEG, BMP, TIFF or WebP header, without decoding.

    Parameters
    ----------
    data : bytes
        The start of the file (the whole file is fine).

    Returns
    -------
    (width, height) in pixels, or None when the format is not one of these or
    the header is not found.
    """
    fmt, n = image_format(data), len(data)
    if fmt == "png" and n >= 24 and data[12:16] == b"IHDR":
        return tuple(int(v) for v in struct.unpack(">II", data[16:24]))  # type: ignore[return-value]
    if fmt == "bmp" and n >= 26:
        if struct.unpack("<I", data[14:18])[0] == 12:  # OS/2 BITMAPCOREHEADER
            return tuple(int(v) for v in struct.unpack("<HH", data[18:22]))  # type: ignore[return-value]
        width, height = struct.unpack("<ii", data[18:26])
        return abs(int(width)), abs(int(height))
    if fmt == "jpeg":
        return _jpeg_walk(data)[0]
    if fmt == "tiff" and n >= 8:
        return _tiff_size(data)
    if fmt == "webp" and n >= 30:
        chunk = data[12:16]
        if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
            width, height = struct.unpack("<HH", data[26:30])
            return width & 0x3FFF, height & 0x3FFF
        if chunk == b"VP8L" and data[20] == 0x2F:
            (bits,) = struct.unpack("<I", data[21:25])
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    return None


def truncation(data: bytes, fmt: str) -> str | None:
    """Why an encoded image is truncated or structurally corrupt, or None.

    Checks the JPEG marker chain up to end-of-image, every PNG chunk (length
    and CRC) up to IEND, the BMP pixel array and the WebP RIFF size; TIFF is
    left to the decoder.
    """
    n = len(data)
    if fmt == "jpeg" and not _jpeg_walk(data)[1]:
        return "truncated or corrupt JPEG (no end-of-image marker after its segments)"
    if fmt == "png":
        i = 8
        for _ in range(MAX_SEGMENTS):
            if i + 12 > n:
                break
            (length,) = struct.unpack(">I", data[i : i + 4])
            ctype = data[i + 4 : i + 8]
            if i + 12 + length > n:
                return f"truncated PNG (chunk {ctype!r} at byte {i} is cut short)"
            (crc,) = struct.unpack(">I", data[i + 8 + length : i + 12 + length])
            if zlib.crc32(memoryview(data)[i + 4 : i + 8 + length]) != crc:
                return f"corrupt PNG (CRC mismatch in chunk {ctype!r} at byte {i})"
            if ctype == b"IEND":
                return None
            i += 12 + length
        return "truncated or corrupt PNG (no IEND chunk)"
    if fmt == "bmp" and n >= 34:
        (offset,) = struct.unpack("<I", data[10:14])
        if struct.unpack("<I", data[14:18])[0] == 12:
            (w, h), bpp, comp = struct.unpack("<HH", data[18:22]), struct.unpack("<H", data[24:26])[0], 0
        else:
            w, h, _, bpp, comp = struct.unpack("<iiHHI", data[18:34])
        need = offset + ((abs(w) * bpp + 31) // 32) * 4 * abs(h)
        if comp in (0, 3) and n < need:
            return f"truncated BMP ({n} bytes, the pixel array needs {need})"
    if fmt == "webp" and n < 8 + struct.unpack("<I", data[4:8])[0]:
        return f"truncated WebP ({n} bytes, the RIFF header says {8 + struct.unpack('<I', data[4:8])[0]})"
    return None


def _limit(max_pixels: int | None, name: str) -> int:
    if _ENV_PROBLEM:
        raise FrameError(f"{name}: {_ENV_PROBLEM}")
    if max_pixels is None:
        return DEFAULT_MAX_PIXELS
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, (int, np.integer)) or max_pixels <= 0:
        raise FrameError(f"max_pixels: expected a positive int, got {max_pixels!r}")
    return int(max_pixels)


def to_bgr8(frame: np.ndarray, *, name: str = "frame") -> np.ndarray:
    """Normalise an image array to BGR uint8 (H, W, 3).

    Accepts greyscale (H, W) or (H, W, 1), BGR (H, W, 3) and BGRA (H, W, 4),
    as uint8 or uint16 of either byte order (16-bit is scaled by 1/257).
    Refuses floats, bools, signed ints, NaN, other channel counts and frames
    smaller than ``MIN_SIDE_PX``.

    Parameters
    ----------
    frame : ndarray
        The image.
    name : str
        Named in error messages (a path or a parameter name).

    Returns
    -------
    ndarray, uint8, (H, W, 3), BGR, C-contiguous.  The input itself when it
    already is one (never modified), otherwise a new array.

    Raises
    ------
    FrameError
        With a message naming ``name`` and what was expected.
    """
    if not isinstance(frame, np.ndarray):
        raise FrameError(f"{name}: expected a numpy array, got {type(frame).__name__}")
    frame = np.asarray(frame)  # drop subclasses (matrix, masked arrays)
    dt = frame.dtype
    if dt.kind == "u" and dt.itemsize == 2:
        frame = (frame.astype(np.uint16) // 257).astype(np.uint8)
    elif dt != np.uint8:
        hint = " (it contains NaN)" if dt.kind == "f" and np.isnan(frame).any() else ""
        raise FrameError(f"{name}: expected dtype uint8 or uint16, got {dt}{hint}")
    if frame.ndim == 3 and frame.shape[2] == 1:
        frame = frame[:, :, 0]
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] in (3, 4))):
        raise FrameError(f"{name}: expected shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4), got {frame.shape}")
    h, w = frame.shape[:2]
    if min(h, w) < MIN_SIDE_PX:
        raise FrameError(f"{name}: expected both sides >= {MIN_SIDE_PX} px, got {w}x{h}")
    if frame.ndim == 2:
        frame = cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:
        frame = cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(frame)


def load_image(path: str | os.PathLike, *, max_pixels: int | None = None) -> np.ndarray:
    """Read an image file into BGR uint8 (H, W, 3).

    The header is checked against the pixel limit, and the file for
    truncation, before anything is decoded.

    Parameters
    ----------
    path : str or PathLike
        The file.
    max_pixels : int or None
        Largest accepted width x height; None is :data:`DEFAULT_MAX_PIXELS`.

    Raises
    ------
    FrameError
        The path is missing, a broken link, a link loop, a directory, not a
        regular file or unreadable; or the file is empty, not an image,
        truncated, too large, or of an unsupported depth.  The message names
        the path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise FrameError(f"path: expected str or PathLike, got {type(path).__name__}")
    p = Path(path)
    limit = _limit(max_pixels, str(p))
    max_bytes = limit * MAX_FILE_BYTES_PER_PIXEL + (1 << 20)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise FrameError(f"{p}: is a directory, not an image")
        if not stat.S_ISREG(st.st_mode):
            raise FrameError(f"{p}: not a regular file (a pipe, socket or device), not an image")
        if st.st_size > max_bytes:
            raise FrameError(f"{p}: file is {st.st_size} bytes, over the {max_bytes} bytes allowed "
                             f"for {limit} px")
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        broken = " (a broken symbolic link)" if p.is_symlink() else ""
        raise FrameError(f"{p}: no such file{broken}") from None
    except IsADirectoryError:
        raise FrameError(f"{p}: is a directory, not an image") from None
    except PermissionError:
        raise FrameError(f"{p}: permission denied") from None
    except OSError as exc:
        why = "symbolic link loop" if exc.errno == 40 else (exc.strerror or str(exc))
        raise FrameError(f"{p}: cannot read file ({why})") from None
    except ValueError as exc:  # embedded NUL byte in the path
        raise FrameError(f"{p!r}: not a usable path ({exc})") from None
    if len(data) > max_bytes:
        raise FrameError(f"{p}: file grew over the {max_bytes} bytes allowed for {limit} px while being read")
    return decode_image(data, name=str(p), max_pixels=limit)


def decode_image(data: bytes, *, name: str = "<bytes>", max_pixels: int | None = None) -> np.ndarray:
    """Decode an encoded image (JPEG, PNG, BMP, TIFF, WebP) held in memory.

    Parameters
    ----------
    data : bytes
        The encoded file.
    name : str
        Named in error messages.
    max_pixels : int or None
        Largest accepted width x height; None is :data:`DEFAULT_MAX_PIXELS`.

    Returns
    -------
    ndarray, uint8, (H, W, 3), BGR.

    Raises
    ------
    FrameError
        See :func:`load_image`.
    """
    limit = _limit(max_pixels, name)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise FrameError(f"{name}: expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) == 0:
        raise FrameError(f"{name}: empty file (0 bytes)")
    fmt = image_format(data)
    if fmt is None:
        raise FrameError(f"{name}: not an image (the file does not start like a JPEG, PNG, BMP, TIFF or WebP)")
    size = header_size(data)
    if size is None:
        raise FrameError(f"{name}: corrupt or truncated {fmt.upper()} (no image size in its header)")
    w, h = size
    if w * h > limit:
        raise FrameError(f"{name}: header says {w}x{h} = {w * h} px, over the limit of {limit} px")
    if w == 0 or h == 0:
        raise FrameError(f"{name}: header says {w}x{h}, an empty image")
    problem = truncation(data, fmt)
    if problem:
        raise FrameError(f"{name}: {problem}")
    try:
        img = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_UNCHANGED)
    except cv2.error as exc:
        raise FrameError(f"{name}: the {fmt.upper()} decoder failed ({str(exc).strip()[-120:]})") from None
    if img is None or img.size == 0:
        raise FrameError(f"{name}: not a decodable {fmt.upper()} (corrupt, truncated or an unsupported variant)")
    if img.shape[0] * img.shape[1] > limit:
        raise FrameError(f"{name}: {img.shape[1]}x{img.shape[0]} px is over the limit of {limit} px")
    return to_bgr8(img, name=name)
