"""A corpus of bad inputs through the API, ``xocdia read`` and ``xocdia replay``.

Each bad input must give a clear error (FrameError naming the file and the
problem on the API, verdict ``error`` with that reason on the CLI), and the
process must keep serving the next input unchanged.  The corpus is generated
here, from the studio samples, so nothing binary is checked in.
"""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli import main
from vision.errors import FrameError
from vision.io import load_image
from vision.read_cli import read_path
from vision.reader import read_frame

ROOT = Path(__file__).resolve().parents[1]
GOOD = ROOT / "samples" / "studio" / "s0_000_outcome.jpg"   # outcome, red 3
GOOD2 = ROOT / "samples" / "studio" / "s1_000_outcome.jpg"  # outcome, red 3


def _png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return buf.tobytes()


def _png_claiming(w: int, h: int) -> bytes:
    chunk = b"IHDR" + struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + b"\0" * 64


def _jpeg_claiming(data: bytes, w: int, h: int) -> bytes:
    out = bytearray(data)
    i = out.index(b"\xff\xc0")
    out[i + 5 : i + 9] = struct.pack(">HH", h, w)
    return bytes(out)


#: name -> (bytes builder taking the good JPEG's bytes, words the reason must contain)
BAD_FILES = {
    "empty.jpg": (lambda g: b"", "empty file"),
    "truncated.jpg": (lambda g: g[: len(g) // 2], "truncated or corrupt JPEG"),
    "truncated_tail.jpg": (lambda g: g[:-3], "truncated or corrupt JPEG"),
    "truncated.png": (lambda g: (lambda p: p[: len(p) * 2 // 3])(_png(cv2.imdecode(np.frombuffer(g, np.uint8), 1))),
                      "truncated PNG"),
    "text.jpg": (lambda g: b"This is not a picture of the plate.\n" * 20, "not an image"),
    "one_pixel.png": (lambda g: _png(np.zeros((1, 1, 3), np.uint8)), "both sides >= 32"),
    "strip_100000x1.png": (lambda g: _png(np.full((1, 100000, 3), 90, np.uint8)), "both sides >= 32"),
    "bomb_30000.png": (lambda g: _png_claiming(30000, 30000), "30000x30000"),
    "bomb_30000.jpg": (lambda g: _jpeg_claiming(g, 30000, 30000), "30000x30000"),
    "float32.tiff": (lambda g: cv2.imencode(".tiff", np.zeros((64, 64, 3), np.float32))[1].tobytes(),
                     "expected dtype uint8 or uint16, got float32"),
    "gif_named.jpg": (lambda g: b"GIF89a\x40\x00\x40\x00" + b"\0" * 200, "not an image"),
    "truncated.bmp": (lambda g: cv2.imencode(".bmp", np.zeros((64, 64, 3), np.uint8))[1].tobytes()[:5000],
                      "truncated BMP"),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("hostile")
    good = GOOD.read_bytes()
    out = {}
    for name, (build, _) in BAD_FILES.items():
        (d / name).write_bytes(build(good))
        out[name] = d / name
    (d / "folder.jpg").mkdir()
    out["folder.jpg"] = d / "folder.jpg"
    (d / "loop.jpg").symlink_to(d / "loop2.jpg")
    (d / "loop2.jpg").symlink_to(d / "loop.jpg")
    out["loop.jpg"] = d / "loop.jpg"
    return out


REASONS = {**{k: v[1] for k, v in BAD_FILES.items()}, "folder.jpg": "is a directory",
           "loop.jpg": "symbolic link loop"}


@pytest.fixture(scope="module")
def good_reading():
    return read_frame(load_image(GOOD))


def test_good_sample_is_an_outcome(good_reading):
    assert good_reading.verdict == "outcome" and good_reading.red == 3


@pytest.mark.parametrize("name", sorted(REASONS))
def test_api_refuses_each_bad_file_naming_it(corpus, name):
    with pytest.raises(FrameError) as info:
        load_image(corpus[name])
    msg = str(info.value)
    assert str(corpus[name]) in msg and REASONS[name] in msg, msg


def test_read_path_turns_every_bad_file_into_an_error_row_and_keeps_serving(corpus, good_reading):
    rows = []
    for name in sorted(REASONS):
        rows.append(read_path(str(corpus[name])))
        rows.append(read_path(str(GOOD)))
    for name, bad, good in zip(sorted(REASONS), rows[::2], rows[1::2]):
        assert bad["verdict"] == "error" and str(corpus[name]) in bad["reason"], bad
        assert REASONS[name] in bad["reason"] and "internal error" not in bad["reason"], bad
        assert bad["red"] is None and bad["tokens"] == []
        assert (good["verdict"], good["red"]) == ("outcome", good_reading.red)


@pytest.mark.parametrize("make", [
    lambda g: g.astype(np.float32),
    lambda g: np.where(np.arange(g.size).reshape(g.shape) == 7, np.nan, g.astype(np.float64)),
    lambda g: g.astype(np.int32),
    lambda g: g > 128,
    lambda g: g[:, :, :2],
    lambda g: g[None],
    lambda g: g[:1, :1],
    lambda g: np.zeros((1, 100000, 3), np.uint8),
    lambda g: g.tolist()[:40],
], ids=["float32", "nan", "int32", "bool", "2ch", "4d", "1x1", "100000x1", "list"])
def test_read_frame_refuses_non_images_with_frame_error(make):
    g = load_image(GOOD)[:200, :200]
    with pytest.raises(FrameError) as info:
        read_frame(make(g))
    assert str(info.value).startswith("frame:"), info.value


def test_accepted_variants_read_like_the_original(good_reading):
    """16-bit and BGRA are the same picture: the same verdict and red count.
    Greyscale carries no colour: the reader must abstain, never an outcome."""
    g = load_image(GOOD)
    for variant in (g.astype(np.uint16) * 257, cv2.cvtColor(g, cv2.COLOR_BGR2BGRA)):
        r = read_frame(variant)
        assert (r.verdict, r.red) == (good_reading.verdict, good_reading.red)
    grey = read_frame(cv2.cvtColor(g, cv2.COLOR_BGR2GRAY))
    assert grey.verdict != "outcome" and grey.red is None


def test_cli_read_good_bad_good(corpus):
    """``xocdia read good.jpg bad.jpg good2.jpg``: three lines, the bad one an
    error naming the file, exit code 1 (a real process: no traceback)."""
    bad = corpus["truncated.jpg"]
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(GOOD), str(bad), str(GOOD2)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["source"] for r in rows] == [str(GOOD), str(bad), str(GOOD2)]
    assert [r["verdict"] for r in rows] == ["outcome", "error", "outcome"]
    assert str(bad) in rows[1]["reason"] and "truncated or corrupt JPEG" in rows[1]["reason"]


def test_cli_read_whole_corpus_in_process(corpus, capsys):
    names = sorted(REASONS)
    code = main(["read", *[str(corpus[n]) for n in names], str(GOOD)])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1 and len(rows) == len(names) + 1
    for name, row in zip(names, rows):
        assert row["verdict"] == "error" and str(corpus[name]) in row["reason"] and REASONS[name] in row["reason"]
    assert rows[-1]["verdict"] == "outcome"


def test_cli_read_max_pixels_option(capsys):
    assert main(["read", "--max-pixels", "1000", str(GOOD)]) == 1
    row = json.loads(capsys.readouterr().out)
    assert row["verdict"] == "error" and "over the limit of 1000 px" in row["reason"]


# --------------------------------------------------------------------------- video and replay
def _clip(path: Path, frames: list[np.ndarray]) -> None:
    h, w = frames[0].shape[:2]
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (w, h))
    for f in frames:
        wr.write(f)
    wr.release()


@pytest.fixture(scope="module")
def corrupt_video(tmp_path_factory) -> Path:
    """Six MJPG frames of a studio sample; the third frame's JPEG zeroed."""
    d = tmp_path_factory.mktemp("video")
    frame = cv2.resize(load_image(GOOD), (640, 360), interpolation=cv2.INTER_AREA)
    p = d / "corrupt_middle.avi"
    _clip(p, [frame] * 6)
    data = bytearray(p.read_bytes())
    starts = [i for i in range(len(data) - 2) if data[i : i + 3] == b"\xff\xd8\xff"]
    assert len(starts) == 6
    data[starts[2] : starts[3]] = bytes(starts[3] - starts[2])
    p.write_bytes(bytes(data))
    return p


@pytest.fixture(scope="module")
def replayed(corpus, corrupt_video, tmp_path_factory):
    """One replay over a folder holding the corpus, two good frames and the video."""
    d = tmp_path_factory.mktemp("replay_in")
    for name, path in corpus.items():
        if path.is_symlink():
            (d / "loop.jpg").symlink_to(d / "loop2.jpg")
            (d / "loop2.jpg").symlink_to(d / "loop.jpg")
        elif path.is_dir():
            (d / name).mkdir()
        else:
            (d / name).write_bytes(path.read_bytes())
    (d / "a_good.jpg").write_bytes(GOOD.read_bytes())
    (d / "z_good.jpg").write_bytes(GOOD2.read_bytes())
    (d / "video.avi").write_bytes(corrupt_video.read_bytes())
    (d / "broken_video.mp4").write_bytes(b"\0\0\0\x18ftypmp42" + b"\0" * 100)
    out = tmp_path_factory.mktemp("replay_out")
    code = main(["replay", str(d), "--out", str(out)])
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return code, rows, d


def test_replay_gives_error_rows_and_reads_the_good_frames(replayed):
    code, rows, d = replayed
    assert code == 0
    by_src = {}
    for r in rows:
        by_src.setdefault(Path(r["source"]).name, []).append(r)
    for name in REASONS:
        if name == "folder.jpg":
            continue  # a folder is searched (it is empty), not read as an image
        (row,) = by_src[name]
        assert row["verdict"] == "error" and REASONS[name] in row["reason"] and name in row["reason"], row
    for name in ("a_good.jpg", "z_good.jpg"):
        assert [(r["verdict"], r["red"]) for r in by_src[name]] == [("outcome", 3)]
    (bad_vid,) = by_src["broken_video.mp4"]
    assert bad_vid["verdict"] == "error" and "broken_video.mp4" in bad_vid["reason"]
    vid = by_src["video.avi"]
    assert [r["frame"] for r in vid if r["verdict"] != "error"][:2] == [0, 1]
    assert all(r["verdict"] != "outcome" or r["red"] == 3 for r in vid)
    errors = [r for r in vid if r["verdict"] == "error"]
    assert errors and all("video.avi" in r["reason"] for r in errors)
    assert not any("internal error" in r["reason"] for r in rows)


def test_replay_reads_the_good_frames_after_a_corrupt_middle_frame(replayed):
    # A corrupt middle frame costs only itself (this was a finding of this suite, now fixed).
    _, rows, _ = replayed
    vid = [r for r in rows if Path(r["source"]).name == "video.avi"]
    frames = [r.get("frame") for r in vid if r["verdict"] != "error"]
    # Zeroing frame 2 also wipes the next chunk header, so the demuxer loses one
    # more packet; what matters is that reading goes on after the corrupt frame.
    assert frames[:2] == [0, 1] and len([f for f in frames if f > 2]) >= 2, frames
    assert any(r["verdict"] == "error" and r.get("frame") == 2 and "frame 2" in r["reason"] for r in vid)


# --------------------------------------------------------------------------- profiles
def _run_read_with_profile(tmp_path: Path, text: str | bytes):
    p = tmp_path / "profile.json"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    out = subprocess.run([sys.executable, "-m", "vision", "read", "--profile", str(p), str(GOOD)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    return p, out


PROFILE_CASES = {
    "empty": "",
    "not_json": "{format: xocdia-profile",
    "truncated": '{"format": "xocdia-profile", "version": 1, "frames": [',
    "array": "[1, 2, 3]",
    "wrong_format": '{"format": "something-else", "version": 1}',
    "newer": '{"format": "xocdia-profile", "version": 99}',
    "nan": '{"format": "xocdia-profile", "version": NaN}',
    "missing_fields": '{"format": "xocdia-profile", "version": 1}',
    "binary": b"\x89\xff\x00\x10garbage",
}


@pytest.mark.parametrize("case", sorted(PROFILE_CASES))
def test_malformed_profile_is_a_clear_usage_error(tmp_path, case):
    pytest.importorskip("calibration.profile")
    p, out = _run_read_with_profile(tmp_path, PROFILE_CASES[case])
    assert out.returncode == 2 and out.stdout == "", (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and str(p) in out.stderr, out.stderr


@pytest.mark.parametrize("case", ["deep_nesting", "huge_integer"])
def test_pathological_profile_json_is_a_clear_usage_error(tmp_path, case):
    pytest.importorskip("calibration.profile")
    text = "[" * 100_000 + "]" * 100_000 if case == "deep_nesting" else \
        '{"format": "xocdia-profile", "version": 1' + "0" * 5000 + "}"
    p, out = _run_read_with_profile(tmp_path, text)
    assert out.returncode == 2 and "Traceback" not in out.stderr and str(p) in out.stderr, out.stderr[-500:]


def test_cli_read_honours_xocdia_max_pixels():
    env = dict(os.environ, XOCDIA_MAX_PIXELS="1000")
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(GOOD)], capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env=env)
    row = json.loads(out.stdout)
    assert out.returncode == 1 and row["verdict"] == "error" and "over the limit of 1000 px" in row["reason"]
