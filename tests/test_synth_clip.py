"""Checks of the round-clip synthesizer (vision.synth_clip) and the ``xocdia synth`` command."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.synth_clip import PHASES, VARIANTS, Clip, render_clip, write_clip

TINY = (192, 144)
#: The documented order of phases within a round (``gap`` has no frames).
ROUND_ORDER = ("idle", "bowl_on", "shake", "still", "lift", "revealed", "rearrange")


def _order_ok(phases: list[str], variant: str) -> bool:
    """Phases are non-decreasing in the documented order within each round (revealed may follow rearrange)."""
    rank = {p: i for i, p in enumerate(ROUND_ORDER)}
    last = -1
    for p in phases:
        r = rank[p]
        if p == "revealed" and last == rank["rearrange"]:
            r = rank["rearrange"]
        if r < last:
            if p == "idle" and variant == "same_layout":  # the second round starts
                last = r
                continue
            return False
        last = r
    return True


@pytest.fixture(scope="module")
def clips():
    return {v: render_clip(4, v, fps=10, size=TINY) for v in VARIANTS}


def test_every_variant_renders_frames_and_labels(clips):
    for v, clip in clips.items():
        assert isinstance(clip, Clip) and clip.name == f"clip_4_{v}"
        assert len(clip.frames) == len(clip.frame_labels) == clip.label["frame_count"] > 20
        f0 = clip.frames[0]
        assert f0.dtype == np.uint8 and f0.shape == (144, 192, 3)
        json.dumps(clip.label)
        json.dumps(clip.frame_labels)
        assert clip.label["duration_s"] <= 12.5
        for fl in clip.frame_labels:
            assert fl["phase"] in PHASES and fl["phase"] != "gap"


def test_phases_come_in_the_documented_order(clips):
    for v, clip in clips.items():
        seen = [fl["phase"] for fl in clip.frame_labels]
        dedup = [p for i, p in enumerate(seen) if i == 0 or p != seen[i - 1]]
        assert _order_ok(dedup, v), (v, dedup)
        assert dedup[0] == "idle" and dedup[-1] == "revealed"
        assert ("shake" in dedup) == (v != "no_shake")
        assert ("rearrange" in dedup) == (v == "overlap_rearrange")
        ts = [fl["t"] for fl in clip.frame_labels]
        assert all(b > a for a, b in zip(ts, ts[1:]))


def test_camera_gap_has_a_hole_in_its_timestamps(clips):
    clip = clips["camera_gap"]
    ts = np.array([fl["t"] for fl in clip.frame_labels])
    steps = np.diff(ts)
    assert steps.max() > 5 / clip.label["fps"]
    (gap,) = clip.label["gaps"]
    assert not np.any((ts >= gap["t_start"]) & (ts < gap["t_end"]))
    assert any(p["phase"] == "gap" for p in clip.label["phases"])
    for v, other in clips.items():
        if v != "camera_gap":
            assert np.allclose(np.diff([fl["t"] for fl in other.frame_labels]), 1 / other.label["fps"], atol=1e-3)


def test_round_labels(clips):
    assert clips["normal"].label["expected"] == "outcome"
    r = clips["normal"].label["rounds"][0]
    assert r["red"] + r["white"] == 4 and r["red"] == r["faces"].count("red")
    assert clips["upright"].label["expected"] == "reshake"
    assert clips["no_shake"].label["expected"] == "void"
    assert clips["camera_gap"].label["expected"] == "void"
    assert clips["touched"].label["touched"]["action"] in ("nudge", "flip")
    same = clips["same_layout"].label["rounds"]
    assert len(same) == 2 and same[1]["same_layout_as_previous"] and same[0]["tokens_R"] == same[1]["tokens_R"]
    ov = clips["overlap_rearrange"].label
    assert ov["rounds"][0]["reveal_verdict"] == "rearrange" and ov["expected"] == "outcome"
    assert ov["rearrange"]["flipped"] is False


def test_the_bowl_hides_the_tokens_and_the_plate_moves_in_the_shake(clips):
    clip = clips["normal"]
    labels = clip.frame_labels
    shake = [i for i, fl in enumerate(labels) if fl["phase"] == "shake"]
    centres = np.array([[labels[i]["plate"]["cx"], labels[i]["plate"]["cy"]] for i in shake])
    assert np.ptp(centres, axis=0).max() > 0.5  # pixels
    idle = [fl["plate"]["cx"] for fl in labels if fl["phase"] in ("idle", "revealed")]
    assert np.ptp(idle) < 1e-6
    still = [i for i, fl in enumerate(labels) if fl["phase"] == "still"]
    assert all(labels[i]["bowl_over_plate"] for i in still)
    rev = [i for i, fl in enumerate(labels) if fl["phase"] == "revealed"]
    assert not labels[rev[-1]]["bowl_over_plate"]
    # pixels differ between the covered and the revealed plate
    assert np.abs(clip.frames[still[0]].astype(int) - clip.frames[rev[-1]].astype(int)).mean() > 2


def test_clip_is_deterministic():
    a = render_clip(9, "touched", fps=5, size=TINY)
    b = render_clip(9, "touched", fps=5, size=TINY)
    assert a.label == b.label and a.frame_labels == b.frame_labels
    for fa, fb in zip(a.frames, b.frames):
        assert np.array_equal(fa, fb)


def test_write_clip_reads_back(tmp_path):
    clip = render_clip(2, "no_shake", fps=8, size=TINY)
    out = write_clip(clip, tmp_path, video=True, folder=True)
    cap = cv2.VideoCapture(out["video"])
    assert cap.isOpened()
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape == (144, 192, 3)
        n += 1
    cap.release()
    assert n == len(clip.frames)
    jpgs = sorted((tmp_path / clip.name).glob("*.jpg"))
    assert len(jpgs) == len(clip.frames) and jpgs[0].name == "000000.jpg"
    meta = json.loads((tmp_path / f"{clip.name}.json").read_text())
    assert len(meta["frames"]) == len(clip.frames) and meta["frames"][3]["index"] == 3
    assert meta["rounds"] == clip.label["rounds"]


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        ({"seed": -2}, ValueError, "seed"),
        ({"seed": 1, "variant": "wobbly"}, ValueError, "variant"),
        ({"seed": 1, "fps": 0}, ValueError, "fps"),
        ({"seed": 1, "size": (0, 5)}, ValueError, "size"),
        ({"seed": 1, "seconds": -1}, ValueError, "seconds"),
    ],
)
def test_bad_clip_arguments(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        render_clip(**kwargs)


def test_write_clip_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="clip"):
        write_clip("clip", tmp_path)
    with pytest.raises(ValueError, match="video"):
        write_clip(render_clip(1, size=TINY, fps=2, seconds=1), tmp_path, video=False, folder=False)


def test_seconds_cuts_the_clip():
    clip = render_clip(1, "normal", fps=10, size=TINY, seconds=2.0)
    assert len(clip.frames) == 20 and clip.frame_labels[-1]["t"] < 2.0


# -- the xocdia synth command ------------------------------------------------
def test_cli_writes_scenes_and_labels(tmp_path):
    from vision.cli import main

    assert main(["synth", str(tmp_path), "--count", "3", "--seed", "5", "--size", "320x240"]) == 0
    jsons = sorted(tmp_path.glob("*.json"))
    assert len(jsons) == 3
    for j in jsons:
        lab = json.loads(j.read_text())
        img = cv2.imread(str(j.with_suffix(".jpg")))
        assert img.shape == (240, 320, 3) and j.stem.startswith("synth_5_") and j.stem.endswith(lab["kind"])
    # reproducible: byte-identical files
    again = tmp_path / "again"
    assert main(["synth", str(again), "--count", "3", "--seed", "5", "--size", "320x240"]) == 0
    for j in jsons:
        assert (again / j.with_suffix(".jpg").name).read_bytes() == j.with_suffix(".jpg").read_bytes()


def test_cli_kind_and_clips(tmp_path):
    from vision.cli import main

    assert main(["synth", str(tmp_path), "--count", "2", "--kind", "covered", "--size", "160x120", "--clips",
                 "--variants", "normal", "--fps", "4"]) == 0
    assert len(list(tmp_path.glob("synth_0_*_covered.jpg"))) == 2
    assert len(list(tmp_path.glob("clip_*_normal.avi"))) + len(list(tmp_path.glob("clip_*_normal.mp4"))) == 1


def test_cli_bad_arguments(tmp_path, capsys):
    from vision.cli import main

    assert main(["synth", str(tmp_path), "--seed", "-1"]) == 2
    assert "--seed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["synth", str(tmp_path), "--size", "big"])
    with pytest.raises(SystemExit):
        main(["synth", str(tmp_path), "--kind", "flying"])
