"""The white faces of one frame are alike in lightness; a shadow read as a white face stops an outcome.

A flat face gets the same light as the plate around it, so white faces of
one frame differ little in L*, as measured and relative to the plate under
each (a light gradient moves plate and face together).  A "white" face much
darker than another is in a shadow, or is one: fresh scene 183093 (640x480)
read the shadow of a white token on edge as a white face 21.6 L darker than
the true white beside it, an outcome on a reshake scene.
:func:`vision.faces.whites_alike_in_lightness` compares the faces read white
both ways; true whites of 1,478 frames spread at most 11.4.

Checklist: known values (each way alone wide, both wide, fewer than two
whites, reds and None entries ignored), and real pixels (183093 is in
tests/test_whole_face_shape.py; here, frames of true whites under a light
gradient still read).
"""
from __future__ import annotations

import pytest

from vision import faces
from vision.faces import FaceReading, whites_alike_in_lightness
from vision.reader import read_frame
from vision.synth import render_scene

from scene_truth import assert_tokens_are_their_true_faces


def white(l_star: float, delta_l: float) -> FaceReading:
    return FaceReading("white", 0.02, 0.0, delta_l, 3.0, 5.0, a_star=0.0, plate_a_star=0.0, l_star=l_star, b_star=2.0)


def red(l_star: float) -> FaceReading:
    return FaceReading("red", 0.98, 40.0, -30.0, 45.0, 10.0, a_star=45.0, l_star=l_star, b_star=20.0)


@pytest.mark.parametrize("readings, alike, spread", [
    # 183093: the shadow (L* 69.0, 18.0 below the plate) beside a true white (90.6, 3.6 above)
    ([white(69.0, -18.0), white(90.6, 3.6), red(47.8), red(52.2)], False, 21.6),
    # wide as measured, close relative to the plate (a gradient of light): alike
    ([white(70.0, 2.0), white(90.0, 4.0)], True, 2.0),
    # wide relative to the plate, close as measured (a glaze of uneven lightness): alike
    ([white(85.0, -12.0), white(88.0, 6.0)], True, 3.0),
    # 151518 (gold), the widest of 1,478 frames of true whites: 11.4 both ways
    ([white(80.4, 6.5), white(91.8, 17.9), white(82.7, 8.8), white(89.8, 16.9)], True, 11.4),
    # just past the bound both ways
    ([white(70.0, -10.0), white(70.0 + faces.WHITE_MAX_SPREAD_L + 0.5, 5.5)], False, faces.WHITE_MAX_SPREAD_L + 0.5),
    # one white, reds and non-faces: nothing to compare
    ([white(69.0, -18.0), red(30.0), None, red(90.0)], True, 0.0),
    ([], True, 0.0),
])
def test_known_values(readings, alike, spread):
    got_alike, got_spread = whites_alike_in_lightness(readings)
    assert got_alike is alike
    assert got_spread == pytest.approx(spread, abs=0.05)


@pytest.mark.parametrize("seed", [151518, 150177, 151776])
def test_true_whites_under_uneven_light_still_read(seed):
    """Real pixels (640x480, forced four flat tokens): the frames whose true
    white faces spread most in L* (10.6-11.4 both ways) read the right
    outcome, every token its true face."""
    scene = render_scene(seed, "outcome", size=(640, 480))
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"]
    assert_tokens_are_their_true_faces(reading, scene)
    whites = [t for t in reading.tokens if t.face == "white"]
    assert len(whites) >= 2
