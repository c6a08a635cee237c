"""vision.faint_beside_bar: a face found only faintly beside a thin bar no candidate accounts for.

A token on edge seen from nearly overhead is a thin bar; grey on a speckled
cream plate, blurred and under-exposed, it can stay under the blob threshold
over its whole length, and its dark line can draw the ring of a phantom
outline face that completes a count of four.  Fresh upright scene 1872281 at
1280x720 (speckle decoration, cream glaze, -0.77 stop, defocus, JPEG 59):
the bar 8-14 Lab from the plate under a threshold of 14.0 Lab, an outline
face 1.0 token radius from its centre, read as an outcome of two red.

Checklist: drawn shapes (a straight bar beside a faint find is a suspect; an
arc of a face's outline, a speck, a bar too far, a bar below the floor, a
claimed bar, a bar inside the find and a blob find are not; the switch off gives none), and the real
scene (not an outcome; the wrong outcome with the rule off).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from vision import faint_beside_bar as fbb
from vision import tokens
from vision.candidates import Candidate
from vision.reader import read_frame
from vision.synth import render_scene

R = 18.0          # token radius, canonical pixels
THRESHOLD = 14.0  # blob threshold, Lab units


def canvas() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((200, 200), np.float32), np.zeros((200, 200), np.uint8)


def draw_bar(de: np.ndarray, cx: float, cy: float, length: float, width: float, angle_deg: float,
             value: float) -> None:
    """A straight bar of ``value`` Lab."""
    ys, xs = np.mgrid[0:de.shape[0], 0:de.shape[1]]
    a = math.radians(angle_deg)
    along = (xs - cx) * math.cos(a) + (ys - cy) * math.sin(a)
    across = -(xs - cx) * math.sin(a) + (ys - cy) * math.cos(a)
    de[(np.abs(along) <= length / 2) & (np.abs(across) <= width / 2)] = value


def find(x: float, y: float, kind: str = "outline", found_by: str = "outline") -> Candidate:
    return Candidate(x, y, R, kind, math.pi * R ** 2, 1.0, 1.0, 2.4, found_by=found_by)


def suspects(de: np.ndarray, claimed: np.ndarray, cands: list[Candidate]) -> list:
    return fbb.faint_finds_beside_bars(de, claimed, cands, R, THRESHOLD, length_radii=tokens.UPRIGHT_LENGTH_RADII,
                                       max_area_faces=tokens.UPRIGHT_MAX_AREA)


def test_bar_below_threshold_beside_outline_find_is_suspect():
    # 1872281's shape: 2.1 radii long, 0.3 wide, 9 Lab under a 14 Lab threshold, 1.0 radius from the find
    de, claimed = canvas()
    draw_bar(de, 100.0, 118.0, 2.1 * R, 0.3 * R, 135.0, 9.0)
    got = suspects(de, claimed, [find(100.0, 100.0)])
    assert len(got) == 1 and got[0][:2] == (100.0, 100.0)
    # a disc-filter find is not judged (its face differs across its disc; a line draws no disc)
    assert suspects(de, claimed, [find(100.0, 100.0, "faint", "disc_filter")]) == []


def test_arc_speck_far_faint_claimed_and_blob_are_not():
    de, claimed = canvas()
    ys, xs = np.mgrid[0:200, 0:200]
    dist = np.hypot(xs - 100.0, ys - 100.0)
    ang = np.degrees(np.arctan2(ys - 100.0, xs - 100.0))
    de[(np.abs(dist - R) <= 1.5) & (np.abs(ang) <= 60)] = 9.0  # a third of a face's outline
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []
    de, claimed = canvas()
    de[98:103, 98:103] = 12.0  # a speck
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []
    de, claimed = canvas()
    draw_bar(de, 100.0 + 2.6 * R, 100.0, 2.1 * R, 0.3 * R, 90.0, 9.0)  # beyond a token's diameter
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []
    de, claimed = canvas()
    draw_bar(de, 100.0, 118.0, 2.1 * R, 0.3 * R, 135.0, 0.4 * THRESHOLD)  # below the floor: plate noise
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []
    de, claimed = canvas()
    draw_bar(de, 100.0, 118.0, 2.1 * R, 0.3 * R, 135.0, 9.0)
    claimed[:, :] = 1  # a blob candidate's pixels
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []
    claimed[:, :] = 0
    assert suspects(de, claimed, [find(100.0, 100.0, "disc", "blob")]) == []
    de, claimed = canvas()
    draw_bar(de, 100.0, 94.0, 1.4 * R, 0.3 * R, 0.0, 9.0)  # wholly inside the find: its own face's shading
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []


def test_switch_off_gives_none(monkeypatch):
    de, claimed = canvas()
    draw_bar(de, 100.0, 118.0, 2.1 * R, 0.3 * R, 135.0, 9.0)
    monkeypatch.setattr(fbb, "FAINT_BESIDE_BAR_SUSPECT", False)
    assert suspects(de, claimed, [find(100.0, 100.0)]) == []


@pytest.fixture(scope="module")
def scene_1872281() -> np.ndarray:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from synth_table import draw_conditions
    specs = [("plate_decor", ["speckle", "rings", "motif"])]
    return render_scene(1872281, "upright", size=(1280, 720), conditions=draw_conditions(1872281, specs)).image


def test_scene_1872281_is_not_an_outcome(scene_1872281):
    reading = read_frame(scene_1872281)
    assert reading.verdict != "outcome"
    assert reading.verdict in ("uncertain", "reshake")


def test_scene_1872281_wrong_with_the_rule_off(scene_1872281, monkeypatch):
    monkeypatch.setattr(fbb, "FAINT_BESIDE_BAR_SUSPECT", False)
    reading = read_frame(scene_1872281)
    assert reading.verdict == "outcome" and reading.red == 2  # the wrong outcome the rule closes
