"""vision.io: headers, truncation, pixel limits, paths and array normalisation.

Every refusal is a FrameError whose message names the file (or parameter)
and the problem; nothing here may raise anything else or return None.
"""
from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import io as vio
from vision.errors import FrameError
from vision.io import MIN_SIDE_PX, decode_image, header_size, load_image, to_bgr8

ROOT = Path(__file__).resolve().parents[1]
FORMATS = (".jpg", ".png", ".bmp", ".tiff", ".webp")


@pytest.fixture(scope="module")
def image() -> np.ndarray:
    rng = np.random.default_rng(5)
    img = np.zeros((72, 96, 3), np.uint8)
    cv2.circle(img, (48, 36), 20, (40, 40, 220), -1)
    return cv2.add(img, rng.integers(0, 30, img.shape, dtype=np.uint8))


def encode(img: np.ndarray, ext: str, *params: int) -> bytes:
    ok, buf = cv2.imencode(ext, img, list(params))
    assert ok, ext
    return buf.tobytes()


def refused(fn, *args, match: str, **kw) -> str:
    with pytest.raises(FrameError) as info:
        fn(*args, **kw)
    msg = str(info.value)
    assert match.lower() in msg.lower(), msg
    return msg


def _no_decoder(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("cv2.imdecode must not be called")
    monkeypatch.setattr(vio.cv2, "imdecode", boom)


# --------------------------------------------------------------------------- headers
@pytest.mark.parametrize("ext", FORMATS + (".jpg-progressive",))
def test_header_size_of_every_format(image, ext):
    data = encode(image, ".jpg", cv2.IMWRITE_JPEG_PROGRESSIVE, 1) if ext == ".jpg-progressive" else encode(image, ext)
    assert header_size(data) == (96, 72)
    assert decode_image(data).shape == (72, 96, 3)


def test_header_size_of_lossy_webp_and_unknown(image):
    assert header_size(encode(image, ".webp", cv2.IMWRITE_WEBP_QUALITY, 50)) == (96, 72)
    assert header_size(b"GIF89a....") is None
    assert header_size(b"") is None


def _png_claiming(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + b"\0" * 64


def _jpeg_claiming(img: np.ndarray, w: int, h: int) -> bytes:
    data = bytearray(encode(img, ".jpg"))
    i = data.index(b"\xff\xc0")
    data[i + 5 : i + 9] = struct.pack(">HH", h, w)
    return bytes(data)


@pytest.mark.parametrize("kind", ["png", "jpeg", "bmp", "webp"])
def test_a_bomb_is_refused_by_its_header_before_decoding(image, kind, monkeypatch):
    if kind == "png":
        data = _png_claiming(30000, 30000)
    elif kind == "jpeg":
        data = _jpeg_claiming(image, 30000, 30000)
    elif kind == "bmp":
        data = bytearray(encode(image, ".bmp"))
        data[18:26] = struct.pack("<ii", 30000, 30000)
    else:
        data = bytearray(encode(image, ".webp"))  # lossless: VP8L, 14-bit sizes (WebP's largest is 16383)
        bits = (16000 - 1) | ((16000 - 1) << 14)
        data[21:25] = struct.pack("<I", bits | (struct.unpack("<I", data[21:25])[0] & ~((1 << 28) - 1)))
    _no_decoder(monkeypatch)
    msg = refused(decode_image, bytes(data), name="bomb.img", match="over the limit")
    assert "bomb.img" in msg and ("16000x16000" if kind == "webp" else "30000x30000") in msg


def test_pixel_limit_parameter(image):
    data = encode(image, ".png")
    assert decode_image(data, max_pixels=96 * 72).shape == (72, 96, 3)
    refused(decode_image, data, max_pixels=96 * 72 - 1, match="over the limit of 6911 px")
    for bad in (0, -5, 1.5, "100", True):
        refused(decode_image, data, max_pixels=bad, match="max_pixels")


def test_pixel_limit_from_the_environment(tmp_path, image):
    (tmp_path / "f.png").write_bytes(encode(image, ".png"))
    code = ("import sys; from vision.io import DEFAULT_MAX_PIXELS, load_image\n"
            "print(DEFAULT_MAX_PIXELS)\n"
            "try:\n    load_image(sys.argv[1]); print('read')\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    def run(value):
        env = dict(os.environ, XOCDIA_MAX_PIXELS=value, PYTHONPATH=str(ROOT))
        return subprocess.run([sys.executable, "-c", code, str(tmp_path / "f.png")], env=env, capture_output=True,
                              text=True, timeout=60).stdout.splitlines()
    assert run("5000") == ["5000", f"FrameError {tmp_path / 'f.png'}: header says 96x72 = 6912 px, "
                                   "over the limit of 5000 px"]
    assert run("7000") == ["7000", "read"]
    bad = run("lots")
    assert bad[0] == str(vio.BUILTIN_MAX_PIXELS) and bad[1].startswith("FrameError")
    assert "XOCDIA_MAX_PIXELS" in bad[1] and "positive integer" in bad[1]


# --------------------------------------------------------------------------- truncation and junk
@pytest.mark.parametrize("ext", FORMATS)
@pytest.mark.parametrize("keep", [0.5, 0.9, 0.99])
def test_truncated_files_are_refused_with_a_reason(image, ext, keep):
    data = encode(image, ext)
    cut = data[: max(1, int(len(data) * keep))]
    msg = refused(decode_image, cut, name=f"cut{ext}", match=f"cut{ext}")
    assert any(w in msg for w in ("truncated", "corrupt", "not a decodable")), msg


def test_truncated_jpeg_with_exif_thumbnail_is_refused(image):
    """An EXIF thumbnail carries its own end-of-image marker: truncation must
    still be found (the scan data never reaches the frame's own marker)."""
    thumb = encode(image[:36, :48], ".jpg")
    body = encode(image, ".jpg")
    app1 = b"Exif\0\0" + thumb
    data = body[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + body[2:]
    assert decode_image(data).shape == (72, 96, 3)
    refused(decode_image, data[: len(data) - 200], match="truncated or corrupt JPEG")


def test_jpeg_with_trailing_bytes_is_read(image):
    data = encode(image, ".jpg") + b"\0" * 500 + b"camera trailer"
    assert decode_image(data).shape == (72, 96, 3)


def test_png_with_a_flipped_bit_is_refused(image):
    data = bytearray(encode(image, ".png"))
    data[len(data) // 2] ^= 0x10
    refused(decode_image, bytes(data), match="CRC mismatch")


@pytest.mark.parametrize("data, match", [
    (b"", "empty file"),
    (b"hello, this is text", "not an image"),
    (b"GIF89a" + b"\0" * 100, "not an image"),
    (b"\xff\xd8\xff", "corrupt or truncated JPEG"),
    (b"\x89PNG\r\n\x1a\n", "corrupt or truncated PNG"),
    (b"RIFF\xff\xff\xff\xffWEBPVP8 ", "corrupt or truncated WEBP"),
    (b"II*\x00\xff\xff\xff\x7f", "corrupt or truncated TIFF"),
    (b"BM" + b"\0" * 8, "corrupt or truncated BMP"),
])
def test_junk_bytes(data, match):
    refused(decode_image, data, name="junk.jpg", match=match)


def test_zero_sized_header_is_refused():
    refused(decode_image, _png_claiming(0, 10), match="empty image")


def test_decode_image_refuses_non_bytes():
    refused(decode_image, "a string", match="expected bytes")


# --------------------------------------------------------------------------- depth and channels
def test_sixteen_bit_grey_and_bgra_files_are_normalised(image):
    assert (decode_image(encode(image.astype(np.uint16) * 257, ".png")) == image).all()
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert (decode_image(encode(grey, ".png"))[:, :, 1] == grey).all()
    bgra = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    assert (decode_image(encode(bgra, ".png")) == image).all()


def test_float_tiff_is_refused(image):
    data = encode(image.astype(np.float32) / 255, ".tiff")
    refused(decode_image, data, name="float.tiff", match="float.tiff: expected dtype uint8 or uint16, got float32")


@pytest.mark.parametrize("shape", [(1, 1), (1, 100000), (31, 200), (200, 31)])
def test_too_small_files(shape):
    data = encode(np.full(shape, 128, np.uint8), ".png")
    refused(decode_image, data, name="small.png", match=f"small.png: expected both sides >= {MIN_SIDE_PX} px")


# --------------------------------------------------------------------------- paths
def test_missing_directory_and_links(tmp_path):
    refused(load_image, tmp_path / "nope.jpg", match=f"{tmp_path / 'nope.jpg'}: no such file")
    d = tmp_path / "dir.jpg"
    d.mkdir()
    refused(load_image, d, match=f"{d}: is a directory")
    loop = tmp_path / "loop.jpg"
    loop.symlink_to(tmp_path / "loop2.jpg")
    (tmp_path / "loop2.jpg").symlink_to(loop)
    refused(load_image, loop, match=f"{loop}: cannot read file (symbolic link loop)")
    broken = tmp_path / "broken.jpg"
    broken.symlink_to(tmp_path / "gone.jpg")
    refused(load_image, broken, match="no such file (a broken symbolic link)")


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "cam.jpg"
    os.mkfifo(fifo)
    refused(load_image, fifo, match="not a regular file")


def test_permission_denied(tmp_path, image, monkeypatch):
    f = tmp_path / "secret.png"
    f.write_bytes(encode(image, ".png"))
    if os.geteuid() != 0:
        f.chmod(0)
    else:  # root reads anything: simulate the refusal of open()
        def deny(*a, **k):
            raise PermissionError(13, "Permission denied", str(f))
        monkeypatch.setattr(vio, "open", deny, raising=False)
    refused(load_image, f, match=f"{f}: permission denied")


def test_bad_path_values(tmp_path):
    refused(load_image, None, match="path: expected str or PathLike, got NoneType")
    refused(load_image, str(tmp_path / "a\0b.jpg"), match="not a usable path")


def test_oversized_file_is_refused_before_reading(tmp_path):
    f = tmp_path / "huge.bmp"
    with open(f, "wb") as fh:
        fh.truncate(2_000_000)
    refused(load_image, f, max_pixels=1000, match="bytes allowed")


def test_load_image_reads_every_sample():
    for p in sorted((ROOT / "samples").rglob("*.jpg"))[:10]:
        assert load_image(p).dtype == np.uint8


# --------------------------------------------------------------------------- arrays
@pytest.mark.parametrize("arr, match", [
    (np.zeros((64, 64, 3), np.float32), "got float32"),
    (np.full((64, 64, 3), np.nan, np.float64), "contains NaN"),
    (np.zeros((64, 64, 3), bool), "got bool"),
    (np.zeros((64, 64, 3), np.int16), "got int16"),
    (np.zeros((64, 64, 3), np.int64), "got int64"),
    (np.zeros((64, 64, 3), object), "got object"),
    (np.zeros((64, 64, 3), np.complex64), "got complex64"),
    (np.zeros((64, 64, 2), np.uint8), "expected shape"),
    (np.zeros((64, 64, 5), np.uint8), "expected shape"),
    (np.zeros((64,), np.uint8), "expected shape"),
    (np.zeros((2, 64, 64, 3), np.uint8), "expected shape"),
    (np.zeros((), np.uint8), "expected shape"),
    (np.zeros((0, 0), np.uint8), "expected both sides"),
    (np.zeros((0, 64, 3), np.uint8), "expected both sides"),
    (np.zeros((1, 1, 3), np.uint8), "expected both sides"),
    (np.zeros((1, 100000, 3), np.uint8), "expected both sides"),
    ([[0, 0], [0, 0]], "expected a numpy array, got list"),
    (None, "expected a numpy array, got NoneType"),
])
def test_to_bgr8_refusals(arr, match):
    refused(to_bgr8, arr, name="param", match=match)


def test_to_bgr8_layouts(image):
    assert to_bgr8(image) is image
    for view in (image[::-1], image[:, ::-1], image[:, :, ::-1], np.asfortranarray(image), image[::2, ::2]):
        out = to_bgr8(view)
        assert out.flags.c_contiguous and out.dtype == np.uint8 and (out == view).all()
    be = (image.astype(">u2") * 257)
    assert (to_bgr8(be) == image).all()
    ro = image.copy()
    ro.flags.writeable = False
    assert to_bgr8(ro) is ro
    assert to_bgr8(np.zeros((40, 40, 1), np.uint8)).shape == (40, 40, 3)


@pytest.mark.parametrize("kind", ["jpeg-segments", "jpeg-no-ff", "png-chunks"])
def test_pathological_structure_is_refused_quickly(image, kind):
    """Millions of tiny segments, or megabytes without a marker, are refused
    (the walk is bounded by MAX_SEGMENTS; see the test below; speed belongs in
    bench/, not in a timed unit test)."""
    sof = encode(image, ".jpg")[:2000]
    i = sof.index(b"\xff\xc0")
    head = sof[: i + 2 + struct.unpack(">H", sof[i + 2 : i + 4])[0]]
    if kind == "jpeg-segments":
        data = head + b"\xff\xfe\x00\x02" * 1_000_000
    elif kind == "jpeg-no-ff":
        data = head + b"\xff\xfe\x00\x02" + b"\x00" * 8_000_000
    else:
        data = encode(image, ".png")[:33] + (struct.pack(">I", 0) + b"tEXt" + struct.pack(">I", zlib.crc32(b"tEXt"))) * 500_000
    refused(decode_image, data, match="corrupt")


def test_structure_walk_stops_at_max_segments(monkeypatch, image):
    """The walk gives up after MAX_SEGMENTS segments: with the bound lowered, a
    JPEG with more comment segments than that is refused, not walked to its end."""
    import vision.io as vio

    sof = encode(image, ".jpg")
    i = sof.index(b"\xff\xc0")
    many = sof[:i] + b"\xff\xfe\x00\x02" * 50 + sof[i:]
    assert decode_image(many).shape == image.shape  # a real file with 50 extra segments reads
    monkeypatch.setattr(vio, "MAX_SEGMENTS", 20)
    refused(decode_image, many, match="corrupt")
