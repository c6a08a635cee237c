"""vision.faces: a red face dimmed by the exposure is still red; nothing pale or grey becomes red.

A dark red face under-exposed (or a pale one washed out) falls below the
absolute a* bound of the red rule, but its a* stays high for its lightness
(``faces.RED_DIM_MIN_A_PER_L``).  Checklist: known values on painted faces
(both sides of the rule), the old rule's verdict shown for contrast, and real
pixels (synthesized under-exposed scenes of dark red tokens).
"""
from __future__ import annotations

import numpy as np
import pytest

import vision.faces as faces
from vision.faces import classify_face
from vision.reader import read_frame
from vision.synth import render_scene

from painted_faces import painted_face


@pytest.mark.parametrize("face_bgr", [
    (25, 28, 75),     # L* 18, a* 22: a dark red under-exposed
    (90, 90, 140),    # L* 44, a* 21: a dull red
])
def test_dim_red_is_red(face_bgr):
    view, r = painted_face(face_bgr)
    c = view.canvas_px / 2
    got = classify_face(view, c, c, r)
    assert got.face == "red", got
    assert got.p_red > 0.5
    assert got.delta_a < faces.RED_MIN_ABS_A  # below the absolute bound: the dim path decided it


def test_without_the_dim_rule_it_is_undecided(monkeypatch):
    # the under-exposed dark red is also far darker than the plate and redder
    # than it, so the dark-red rule (test_faces_dark_red.py) reads it too;
    # without both it is undecided
    monkeypatch.setattr(faces, "RED_DIM_MIN_A_PER_L", np.inf)
    view, r = painted_face((25, 28, 75))
    c = view.canvas_px / 2
    assert classify_face(view, c, c, r).face == "red"
    monkeypatch.setattr(faces, "DARK_RED_MIN_DELTA_A", np.inf)
    assert classify_face(view, c, c, r).face == "unknown"


@pytest.mark.parametrize("face_bgr, expected", [
    ((200, 190, 230), "unknown"),   # faint pink, L* 81, a* 16: a* too low for its lightness
    ((150, 200, 235), "unknown"),   # white tinted by 2700 K light: never red
    ((60, 60, 60), "unknown"),      # dark grey
    ((228, 230, 232), "white"),
])
def test_pale_and_grey_faces_are_not_red(face_bgr, expected):
    view, r = painted_face(face_bgr)
    c = view.canvas_px / 2
    got = classify_face(view, c, c, r)
    assert got.face == expected, got


@pytest.mark.parametrize("seed", [1078, 1111])
def test_under_exposed_dark_red_tokens_are_read(seed):
    """Dark red tokens, the frame about 0.9 stops under-exposed: their faces
    used to be undecided."""
    scene = render_scene(seed, "outcome")
    conditions = scene.label["conditions"]
    assert conditions["red_style"] == "dark_red" and conditions["exposure_stops"] < -0.8
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"] >= 3


#: A gold glaze under warm light: L* 75, a* 20, b* 58.
GOLD_BGR = (75, 168, 245)


@pytest.mark.parametrize("face_bgr", [
    (110, 215, 235),   # L* 86, a* -6, b* 54: pale yellow, less yellow than the glaze
    (136, 228, 254),   # L* 91, a* -3, b* 48: a white under 2700 K light looks the same
])
def test_yellow_face_on_a_gold_plate_is_undecided(face_bgr):
    """Colour alone cannot tell a white face under warm light from a yellow
    thing under neutral light: a yellow face is never read as white (a rule
    that did, for faces less yellow than the glaze, was reverted)."""
    view, r = painted_face(face_bgr, plate_bgr=GOLD_BGR)
    c = view.canvas_px / 2
    assert classify_face(view, c, c, r).face == "unknown"
