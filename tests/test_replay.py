"""xocdia replay: folders, videos, labels, accuracy table, report, workers, errors, Ctrl-C.

Fixtures are real pixels from the scene synthesizer (seeded), kept small
(400x240) so the whole file runs in a few seconds.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import cv2
import numpy as np
import pytest

from vision.cli import main
from vision.replay import Progress, accuracy_table, format_table
from vision.replay_accuracy import classify

ROOT = Path(__file__).resolve().parents[1]
SIZE = (400, 240)
KINDS = ("outcome", "overlap", "touching", "upright", "no_plate", "covered")
FPS = 5.0


def _scene(seed: int, kind: str):
    from vision.synth import render_scene

    scene = render_scene(seed, kind, size=SIZE)
    data = scene.jpeg_bytes
    if data is None:
        ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert ok
        data = buf.tobytes()
    return scene, data


@pytest.fixture(scope="module")
def synth_folder(tmp_path_factory) -> Path:
    """6 labelled synthesized frames in two sub-folders, one corrupt JPEG, one non-image file."""
    folder = tmp_path_factory.mktemp("frames")
    for i, kind in enumerate(KINDS):
        sub = folder / ("a" if i < 3 else "b")
        sub.mkdir(exist_ok=True)
        scene, data = _scene(1000 + i, kind)
        (sub / f"f{i}_{kind}.jpg").write_bytes(data)
        (sub / f"f{i}_{kind}.json").write_text(json.dumps(scene.label))
    good = (folder / "a" / "f0_outcome.jpg").read_bytes()
    (folder / "b" / "f9_corrupt.jpg").write_bytes(good[: len(good) // 3])  # truncated JPEG, no label
    (folder / "notes.txt").write_text("not an image")
    return folder


@pytest.fixture(scope="module")
def synth_video(tmp_path_factory) -> tuple[Path, list[dict]]:
    """A 6-frame MJPG .avi of synthesized scenes with a per-frame label file."""
    folder = tmp_path_factory.mktemp("video")
    path = folder / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, SIZE)
    assert writer.isOpened()
    labels = []
    for i, kind in enumerate(KINDS):
        scene, _ = _scene(2000 + i, kind)
        writer.write(scene.image)
        labels.append(scene.label)
    writer.release()
    (folder / "clip.json").write_text(json.dumps({"frames": labels}))
    return path, labels


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _strip_timing(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "elapsed_ms"} for r in rows]


@pytest.fixture(scope="module")
def folder_run(synth_folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("out1")
    rc = main(["replay", str(synth_folder), "--labels", "--out", str(out)])
    return rc, out


# ---------------------------------------------------------------------------
def test_folder_replay_compares_with_labels(synth_folder, folder_run, capsys):
    rc, out = folder_run
    rows = _rows(out)
    images = sorted(p.relative_to(synth_folder).as_posix() for p in synth_folder.rglob("*.jpg"))
    assert [Path(r["source"]).relative_to(synth_folder).as_posix() for r in rows] == images
    labels = []
    for r in rows:
        lp = Path(r["source"]).with_suffix(".json")
        full = json.loads(lp.read_text()) if lp.exists() else None
        labels.append(full)
        expected = None if full is None else {"kind": full["kind"], "verdict": full["verdict"], "red": full["red"]}
        assert r["label"] == expected
        for key in ("verdict", "red", "white", "reason", "confidence", "tokens", "plate", "elapsed_ms"):
            assert key in r
    summary = json.loads((out / "summary.json").read_text())
    table = accuracy_table(rows, labels)
    for key in ("kinds", "total", "confusion", "verdicts", "unlabelled"):
        assert summary[key] == table[key]
    assert summary["total"]["n"] == len(KINDS) and summary["unlabelled"] == 1
    wrong = sum(classify(r, lab) == "wrong_outcome" for r, lab in zip(rows, labels))
    assert summary["total"]["wrong_outcome"] == wrong
    assert rc == (1 if wrong else 0)
    for r in rows:
        if r["verdict"] != "error":
            assert (out / r["annotated"]).is_file()


def test_corrupt_file_is_one_error_row_and_the_rest_are_read(folder_run):
    _, out = folder_run
    rows = _rows(out)
    errors = [r for r in rows if r["verdict"] == "error"]
    assert len(errors) == 1
    assert errors[0]["source"].endswith("f9_corrupt.jpg") and "f9_corrupt.jpg" in errors[0]["reason"]
    assert errors[0]["annotated"] is None
    assert len(rows) == len(KINDS) + 1


class _Checker(HTMLParser):
    VOID = {"meta", "img", "br", "hr", "link", "input", "source", "col", "wbr", "area", "base", "embed", "track"}

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.refs: list[str] = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append(value)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def test_report_is_well_formed_and_every_reference_exists(folder_run):
    _, out = folder_run
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.problems == [] and checker.stack == []
    assert checker.refs, "the report references its thumbnails"
    for ref in checker.refs:
        parsed = urlparse(ref)
        assert parsed.scheme == "" and not ref.startswith("/"), f"{ref}: not a relative reference"
        assert (out / unquote(parsed.path)).is_file(), f"{ref}: referenced but missing"
    text = " ".join(checker.text)
    rows = _rows(out)
    listed = [r for r in rows if r["verdict"] != "outcome" or classify(r, r["label"]) == "wrong_outcome"]
    for r in listed:  # every non-outcome or wrong frame appears, with its reason
        assert r["reason"] in text
    assert "Accuracy by kind" in text and "Confusion" in text


def test_table_printed_to_stdout(synth_folder, tmp_path, capsys):
    rc = main(["replay", str(synth_folder / "a"), "--labels", "--out", str(tmp_path)])
    stdout = capsys.readouterr().out
    table = json.loads((tmp_path / "summary.json").read_text())
    assert format_table(table) in stdout
    assert str(tmp_path / "report.html") in stdout
    assert rc == (1 if table["total"]["wrong_outcome"] else 0)


def test_labels_in_a_separate_folder(synth_folder, tmp_path):
    labels = tmp_path / "labels"
    labels.mkdir()
    for p in (synth_folder / "a").glob("*.json"):
        (labels / p.name).write_bytes(p.read_bytes())
    images = tmp_path / "images"
    images.mkdir()
    for p in (synth_folder / "a").glob("*.jpg"):
        (images / p.name).write_bytes(p.read_bytes())
    main(["replay", str(images), "--labels", str(labels), "--out", str(tmp_path / "out")])
    rows = _rows(tmp_path / "out")
    assert len(rows) == 3 and all(r["label"] is not None for r in rows)


def test_video_every_frame_and_stride(synth_video, tmp_path):
    path, labels = synth_video
    main(["replay", str(path), "--labels", "--out", str(tmp_path / "all")])
    rows = _rows(tmp_path / "all")
    assert [r["frame"] for r in rows] == list(range(len(KINDS)))
    assert [r["timestamp_ms"] for r in rows] == pytest.approx([1000.0 * i / FPS for i in range(len(KINDS))])
    assert [r["label"]["kind"] for r in rows] == [lab["kind"] for lab in labels]
    summary = json.loads((tmp_path / "all" / "summary.json").read_text())
    assert summary["kinds"] == accuracy_table(rows, labels)["kinds"]
    assert all((tmp_path / "all" / r["annotated"]).is_file() for r in rows)

    main(["replay", str(path), "--stride", "2", "--out", str(tmp_path / "s2")])
    rows2 = _rows(tmp_path / "s2")
    assert [r["frame"] for r in rows2] == [0, 2, 4]
    by_frame = {r["frame"]: r for r in _strip_timing(rows)}
    for r in _strip_timing(rows2):  # same frame, same verdict, whatever the stride
        assert {k: v for k, v in r.items() if k != "annotated" and k != "label"} == \
            {k: v for k, v in by_frame[r["frame"]].items() if k != "annotated" and k != "label"}


def test_truncated_video_reads_what_decodes_then_one_error_row(synth_video, tmp_path):
    path, _ = synth_video
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: int(len(data) * 0.55)])
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00not a video" * 50)
    rc = main(["replay", str(cut), str(junk), "--out", str(tmp_path / "out")])
    assert rc == 0  # errors alone do not fail a replay
    rows = _rows(tmp_path / "out")
    cut_rows = [r for r in rows if r["source"] == str(cut)]
    errors = [r for r in cut_rows if r["verdict"] == "error"]
    assert len(errors) == 1 and errors[0] is cut_rows[-1]
    n_ok = len(cut_rows) - 1
    assert 1 <= n_ok < len(KINDS)
    assert f"truncated video: no frame after index {n_ok - 1} of {len(KINDS)} expected" in errors[0]["reason"]
    assert str(cut) in errors[0]["reason"] and errors[0]["frame"] == n_ok
    junk_rows = [r for r in rows if r["source"] == str(junk)]
    assert len(junk_rows) == 1 and junk_rows[0]["verdict"] == "error" and str(junk) in junk_rows[0]["reason"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["verdicts"]["error"] == 2


def test_two_workers_give_the_same_results_as_one(synth_folder, synth_video, folder_run, tmp_path):
    _, out1 = folder_run
    video, _ = synth_video
    rc2 = main(["replay", str(synth_folder), "--labels", "--out", str(tmp_path / "w2"), "--workers", "2"])
    assert _strip_timing(_rows(tmp_path / "w2")) == _strip_timing(_rows(out1))
    s1 = json.loads((out1 / "summary.json").read_text())
    s2 = json.loads((tmp_path / "w2" / "summary.json").read_text())
    assert s1["kinds"] == s2["kinds"] and rc2 == s1["exit_code"]
    main(["replay", str(video), "--out", str(tmp_path / "v1")])
    main(["replay", str(video), "--out", str(tmp_path / "v2"), "--workers", "2"])
    assert _strip_timing(_rows(tmp_path / "v1")) == _strip_timing(_rows(tmp_path / "v2"))


def test_usage_errors_exit_2_and_name_the_source(tmp_path, capsys):
    missing = tmp_path / "nope.jpg"
    assert main(["replay", str(missing), "--out", str(tmp_path / "o")]) == 2
    assert str(missing) in capsys.readouterr().err
    pattern = str(tmp_path / "*.png")
    assert main(["replay", pattern, "--out", str(tmp_path / "o")]) == 2
    assert pattern in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["replay", str(empty)]) == 2
    assert str(empty) in capsys.readouterr().err
    for bad in (["--workers", "0"], ["--stride", "-1"]):
        with pytest.raises(SystemExit) as exc:
            main(["replay", str(tmp_path), *bad])
        assert exc.value.code == 2


def test_glob_source(synth_folder, tmp_path):
    main(["replay", str(synth_folder / "**" / "f[0-2]_*.jpg"), "--out", str(tmp_path / "o")])
    assert [Path(r["source"]).name for r in _rows(tmp_path / "o")] == ["f0_outcome.jpg", "f1_overlap.jpg",
                                                                        "f2_touching.jpg"]


def test_ctrl_c_leaves_valid_results_and_a_report(synth_folder, tmp_path):
    frames = tmp_path / "many"
    frames.mkdir()
    src = synth_folder / "a" / "f0_outcome.jpg"
    # far more frames than can be read before the signal, even on a loaded
    # machine (60 were once all read before it arrived)
    n_frames = 400
    for i in range(n_frames):
        os.link(src, frames / f"x{i:03d}.jpg")
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # Ctrl-C as in a terminal: SIGINT at its default in the child.  A test run
    # started in the background by a non-interactive shell has SIGINT ignored,
    # the child would inherit that (Python then installs no KeyboardInterrupt
    # handler) and finish all frames with exit 0.
    proc = subprocess.Popen([sys.executable, "-m", "vision", "replay", str(frames), "--out", str(out),
                             "--workers", "2"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    results = out / "results.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if results.exists() and results.read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    rows = _rows(out)  # every line parses
    assert 2 <= len(rows) < n_frames
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["frames"] == len(rows)
    assert "interrupted" in (out / "report.html").read_text()


def test_accuracy_table_buckets_and_format():
    lab = {"kind": "outcome", "verdict": "outcome", "red": 2}
    rows = [
        {"verdict": "outcome", "red": 2}, {"verdict": "outcome", "red": 3}, {"verdict": "uncertain", "red": None},
        {"verdict": "error", "red": None}, {"verdict": "rearrange", "red": None},
        {"verdict": "outcome", "red": 1}, {"verdict": "covered", "red": None}, {"verdict": "covered", "red": None},
    ]
    labels = [lab, lab, lab, lab, lab, {"kind": "overlap", "verdict": "rearrange", "red": None},
              {"kind": "covered", "verdict": "covered", "red": None}, None]
    t = accuracy_table(rows, labels)
    assert t["kinds"]["outcome"] == {"n": 5, "right": 1, "wrong_outcome": 1, "abstained": 1, "errors": 1,
                                     "other_wrong": 1, "right_pct": 20.0}
    assert t["kinds"]["overlap"]["wrong_outcome"] == 1
    assert t["total"]["n"] == 7 and t["total"]["right"] == 2 and t["total"]["wrong_outcome"] == 2
    assert t["unlabelled"] == 1 and t["frames"] == 8
    assert t["confusion"]["counts"]["outcome"]["outcome (wrong red)"] == 1
    assert t["confusion"]["counts"]["rearrange"]["outcome"] == 1
    assert list(t["kinds"]) == ["outcome", "overlap", "covered"]
    text = format_table(t)
    lines = text.splitlines()
    assert lines[0].split() == ["kind", "n", "right", "right", "%", "wrong", "outcome", "abstained", "errors",
                                "other", "wrong"]
    assert len({len(line) for line in lines[:-1]}) == 1, "columns are aligned"
    assert "TOTAL" in text and "without a label" in lines[-1]
    with pytest.raises(ValueError):
        accuracy_table(rows, labels[:-1])


def test_progress_bar_only_on_a_terminal():
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    bar = Progress(10, stream=tty)
    for _ in range(10):
        bar.update()
    bar.close()
    text = tty.getvalue()
    assert "10/10" in text and "frames/s" in text and "ETA" in text
    plain = io.StringIO()
    bar = Progress(10, stream=plain)
    for _ in range(10):
        bar.update()
    bar.close()
    assert plain.getvalue() == ""


def test_sources_are_never_modified(synth_folder, folder_run):
    before = {p: p.read_bytes() for p in synth_folder.rglob("*") if p.is_file()}
    main(["replay", str(synth_folder / "a"), "--out", str(synth_folder.parent / "again")])
    assert {p: p.read_bytes() for p in synth_folder.rglob("*") if p.is_file()} == before
    assert np.array_equal(np.frombuffer(before[synth_folder / "a" / "f0_outcome.jpg"], np.uint8),
                          np.frombuffer((synth_folder / "a" / "f0_outcome.jpg").read_bytes(), np.uint8))


def test_interrupt_is_held_until_the_row_is_counted():
    """A SIGINT raised while a row is being written and counted arrives after the block."""
    from vision.replay import _interrupts_deferred

    # Ctrl-C's own handler, as in a terminal (a test run started in the
    # background by a non-interactive shell has SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with _interrupts_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                done.append("written")
                done.append("counted")
            done.append("after")  # never reached: the interrupt lands on leaving the block
    finally:
        signal.signal(signal.SIGINT, previous)
    assert done == ["written", "counted"]
