"""vision.faces: a red face dimmed by the exposure is still red; nothing pale or grey becomes red.

A dark red face under-exposed (or a pale one washed out) falls below the
absolute a* bound of the red rule, but its a* stays high for its lightness
(``faces.RED_DIM_MIN_A_PER_L``).  A white face tinted yellow by warm light is white
(``faces.WHITE_TINT_HUE_RANGE_DEG``).  Checklist: known values on painted faces
(both sides of the rule), the old rule's verdict shown for contrast, and real
pixels (synthesized under-exposed scenes of dark red tokens).
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.faces as faces
from vision.canonical import PLATE_RADIUS_PX, make_canonical_view
from vision.faces import classify_face
from vision.reader import read_frame
from vision.synth import render_scene
from vision.types import Ellipse


#: L* 78, a* 10, b* 30 (hue 72)
ORANGE_BGR = (137, 184, 229)


def painted_face(face_bgr, plate_bgr=(225, 228, 230)):
    """A plate with one flat face of ``face_bgr`` at its centre: the canonical view and the face's radius."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 110, 40)
    cv2.circle(img, (320, 240), 150, plate_bgr, -1)
    cv2.circle(img, (320, 240), 20, face_bgr, -1)
    view = make_canonical_view(img, Ellipse(320, 240, 150, 150, 0))
    return view, 20 * PLATE_RADIUS_PX / 150


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
    monkeypatch.setattr(faces, "RED_DIM_MIN_A_PER_L", np.inf)
    view, r = painted_face((25, 28, 75))
    c = view.canvas_px / 2
    assert classify_face(view, c, c, r).face == "unknown"


@pytest.mark.parametrize("face_bgr, expected", [
    ((200, 190, 230), "unknown"),   # faint pink, L* 81, a* 16: a* too low for its lightness
    ((150, 200, 235), "unknown"),   # L* 82, a* 5, b* 30 (hue 81) on a paler plate: yellow, never red nor white
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


# Warm light tints a white face yellow: chroma along b*, hue 80-120 degrees.
# A gold glaze is yellower still, so the face's chroma relative to it is large.
#: A gold glaze under warm light: L* 75, a* 20, b* 58.
GOLD_BGR = (75, 168, 245)


@pytest.mark.parametrize("face_bgr", [
    (136, 228, 254),   # L* 91, a* -3, b* 48 (hue 94)
    (185, 249, 252),   # L* 97, a* -9, b* 31 (hue 106): over-exposed, green-yellow
])
def test_warm_tinted_white_on_a_gold_plate_is_white(face_bgr):
    view, r = painted_face(face_bgr, plate_bgr=GOLD_BGR)
    c = view.canvas_px / 2
    got = classify_face(view, c, c, r)
    assert got.face == "white", got
    assert got.chroma > faces.WHITE_MAX_CHROMA  # only the tint rule lets it through
    assert got.p_red < 0.5


@pytest.mark.parametrize("plate_bgr", [(18, 20, 22), (225, 228, 230)])
def test_yellow_face_on_a_less_yellow_plate_is_undecided(plate_bgr):
    """On a black or a white plate a yellow face is yellower than its plate:
    a yellow thing, or a white under a light nothing else shows; not read."""
    view, r = painted_face((136, 228, 254), plate_bgr=plate_bgr)
    c = view.canvas_px / 2
    assert classify_face(view, c, c, r).face == "unknown"


def test_without_the_tint_rule_it_is_undecided(monkeypatch):
    monkeypatch.setattr(faces, "WHITE_TINT_HUE_RANGE_DEG", (np.inf, np.inf))
    view, r = painted_face((136, 228, 254), plate_bgr=GOLD_BGR)
    c = view.canvas_px / 2
    assert classify_face(view, c, c, r).face == "unknown"


def test_orange_below_the_tint_hues_stays_undecided():
    """a* 10, b* 30 (hue 72): within the white a* bounds, but a washed-out red
    in warm light looks like this; only yellow is taken for a tinted white."""
    view, r = painted_face(ORANGE_BGR, plate_bgr=GOLD_BGR)
    c = view.canvas_px / 2
    got = classify_face(view, c, c, r)
    assert got.face == "unknown", got
    assert got.delta_a <= faces.WHITE_MAX_DELTA_A


@pytest.mark.parametrize("seed, glaze", [(1262, "gold"), (1334, "celadon")])
def test_warm_lit_white_tokens_are_read(seed, glaze):
    """Tuning seeds, four flat tokens under 2700-2900 K light: their white
    faces (chroma 22-28 along b*, less yellow than the glaze) used to be
    undecided."""
    scene = render_scene(seed, "outcome")
    assert scene.label["conditions"]["glaze"] == glaze
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"]
