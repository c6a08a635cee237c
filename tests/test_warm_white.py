"""vision.warm_white: a white under a warm lamp on a dark plate is white.

On black lacquer a white face under a 2700-3800 K lamp is as yellow as the
lamp while the plate stays near neutral, so its chroma relative to the plate
passes the white bound and it was undecided.  The rule reads it white when
its hue and chroma are a white's under a warm lamp and it is no yellower
than the light makes a white beside the plate (the blue-to-green ratio
against the plate's).

Checklist: known values on painted faces (a warm white on a warm-lit black
plate; the same yellow on a neutral plate, a gold pigment, a red hue, too
much chroma: each not white; the switch off), argument checks, and real
pixels (a synthesized scene read right only with the rule; the red faces of
warm-lit black lacquer scenes never read white).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.warm_white as warm_white
from vision.canonical import PLATE_RADIUS_PX, make_canonical_view
from vision.faces import classify_face
from vision.reader import read_frame
from vision.synth import render_scene
from vision.types import Ellipse
from vision.warm_white import blue_green_ln, is_warm_white, lab_levels


def bgr_of_lab(lightness: float, a: float, b: float) -> tuple[int, int, int]:
    """The 8-bit BGR colour of CIE Lab (L* 0-100, a*, b*), by OpenCV's conversion."""
    lab = np.array([[[round(lightness * 255 / 100), round(a + 128), round(b + 128)]]], np.uint8)
    return tuple(int(v) for v in cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)[0, 0])


def painted(face_lab, plate_lab):
    """A plate of ``plate_lab`` with one flat face of ``face_lab`` at its centre,
    read by :func:`classify_face`."""
    img = np.full((480, 640, 3), (40, 110, 40), np.uint8)
    cv2.circle(img, (320, 240), 150, bgr_of_lab(*plate_lab), -1)
    cv2.circle(img, (320, 240), 20, bgr_of_lab(*face_lab), -1)
    view = make_canonical_view(img, Ellipse(320, 240, 150, 150, 0))
    c = view.canvas_px / 2
    return classify_face(view, c, c, 20 * PLATE_RADIUS_PX / 150)


# measured on fresh synthesized scenes (black lacquer, 2700-3800 K): a white
# face and the plate beside it
WARM_WHITE = (81, 10, 45)
WARM_BLACK_PLATE = (20, 4, 12)


def test_warm_white_on_warm_black_plate_is_white(monkeypatch):
    f = painted(WARM_WHITE, WARM_BLACK_PLATE)
    assert f.face == "white" and f.margin > 0
    monkeypatch.setattr(warm_white, "WARM_WHITE_RULE", False)
    assert painted(WARM_WHITE, WARM_BLACK_PLATE).face == "unknown"  # chroma 46 > 22: undecided before


def test_same_yellow_on_neutral_plate_is_not_white():
    # the light does not tint the plate: the face is yellower than the light makes a white
    assert painted(WARM_WHITE, (15, 0, 0)).face == "unknown"


def test_gold_pigment_is_not_white():
    # the synthesizer's gold decoration under neutral light: hue 82, chroma 55, like a warm white
    gold = (66, 7, 54)
    assert painted(gold, (20, 0, 0)).face == "unknown"
    ok, margin = is_warm_white(*gold, lab_levels(np.array(gold, float)), np.array([20.0, 0.0, 0.0]))
    assert not ok and margin < -5


@pytest.mark.parametrize("face_lab", [
    (60, 14, 12),   # a red hue (41 deg) within the white a* bound: not this rule's
    (85, 8, 66),    # chroma 66: more than a white's under the warmest lamp
    (35, 5, 30),    # too dark for a white (L* < 40)
])
def test_other_faces_are_not_warm_whites(face_lab):
    assert painted(face_lab, WARM_BLACK_PLATE).face != "white"


def test_blue_green_ln_values():
    assert blue_green_ln(np.array([255.0, 255.0, 0.0])) == pytest.approx(0.0)
    assert blue_green_ln(np.array([0.0, 255.0, 255.0])) == pytest.approx(math.log((1 / 255) ** 2.2))
    assert math.isnan(blue_green_ln(np.array([np.nan, 1.0, 1.0])))
    assert lab_levels(np.array([100.0, 0.0, 0.0])) == pytest.approx([255, 255, 255], abs=1)


@pytest.mark.parametrize("bad", [np.zeros(2), np.zeros((1, 3))])
def test_bad_levels_raise(bad):
    with pytest.raises(ValueError, match="bgr"):
        blue_green_ln(bad)


def test_bad_lab_raises():
    with pytest.raises(ValueError, match="lab"):
        lab_levels(np.array([50.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="face_bgr|bgr"):
        is_warm_white(80.0, 10.0, 45.0, np.zeros(4), np.array([20.0, 4.0, 12.0]))


def _scene(seed: int, size: tuple[int, int], kelvin: float):
    return render_scene(seed, "outcome", size=size, conditions={"glaze": "black_lacquer", "kelvin": kelvin})


def test_scene_read_right_only_with_rule(monkeypatch):
    # fresh forced four flat tokens on black lacquer under 2800 K: warm whites
    # (b* 30-50) undecided without the rule, the outcome read right with it
    scene = _scene(1829002, (1280, 720), 2800.0)
    on = read_frame(scene.image)
    assert on.verdict == "outcome" and on.red == scene.label["red"]
    assert scene.label["red"] < 4  # a white face is read
    monkeypatch.setattr(warm_white, "WARM_WHITE_RULE", False)
    off = read_frame(scene.image)
    assert off.verdict == "uncertain" and "neither clearly red nor white" in off.reason


def test_red_faces_in_warm_light_are_never_white():
    # every token found on fresh warm-lit black lacquer scenes: a red one is never read white
    reds = 0
    for seed in range(1829100, 1829110):
        scene = _scene(seed, (640, 480), 2700.0 + 110.0 * (seed - 1829100))
        reading = read_frame(scene.image)
        for t in reading.tokens:
            near = [lt for lt in scene.label["tokens"]
                    if math.hypot(lt["x"] - t.x, lt["y"] - t.y) < lt["radius"]]
            if near and near[0]["face"] == "red":
                reds += 1
                assert t.face != "white", (seed, t)
    assert reds >= 10


def test_not_beside_a_pale_plate():
    # a pale plate takes the lamp's tint as a white does: the relative chroma
    # reads such whites, and a yellow face there may be the glaze's own colour
    face = np.array(WARM_WHITE, float)
    assert is_warm_white(*WARM_WHITE, lab_levels(face), np.array(WARM_BLACK_PLATE, float))[0]
    assert not is_warm_white(*WARM_WHITE, lab_levels(face), np.array([60.0, 4.0, 12.0]))[0]
    assert painted((86, -6, 54), (75, 20, 58)).face == "unknown"  # pale yellow on a gold glaze
