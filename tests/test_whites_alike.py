"""The white faces of one frame are alike; a washed-out red among them stops an outcome.

Fresh scene 33638 (a cream plate under 3260 K light, a stop over-exposed):
three pinkish red faces washed out to a* 12, 5 and -2 beside one white of
-5 were each read white, an outcome of four whites on a three-red plate.
One face at a time they are inside every white bound; together they are not
alike.  :func:`vision.faces.whites_alike` compares the faces read white,
both as measured and relative to the plate under each (a cream plate's own
a* can vary under steady whites, and so can a gold one's).

Checklist: known values (the two ways of measuring, each alone wide on true
whites; fewer than two whites), the face reading carries its a*, bad input
through the dataclass, and real pixels (33638 with and without the rule).
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.faces as faces
from vision import exposure
from vision.canonical import PLATE_RADIUS_PX, make_canonical_view
from vision.faces import FaceReading, classify_face, whites_alike
from vision.reader import read_frame
from vision.synth import render_scene
from vision.types import Ellipse


def white(a_star: float, plate_a_star: float) -> FaceReading:
    return FaceReading("white", 0.1, 0.0, 0.0, 0.0, 5.0, a_star=a_star, plate_a_star=plate_a_star)


def red() -> FaceReading:
    return FaceReading("red", 0.9, 40.0, -20.0, 45.0, 10.0, a_star=45.0, plate_a_star=0.0)


@pytest.mark.parametrize("faces_, alike, spread", [
    # 33638: washed-out reds read white beside a true white
    ([white(12, -8.4), white(5, -7.5), white(-2, -6.2), white(-5, -8.3)], False, 17.0),
    # 1208 (cream plate, a* 8-15 under five whites): wide as measured, close relative to the plate
    ([white(-1, 8.3), white(5, 10.8), white(8, 13.5), white(11, 15.0)], True, 5.3),
    # 1299 (gold plate, a* -2 to -13 under steady whites): wide relative, close as measured
    ([white(-5, -2.0), white(-5, -4.5), white(-3, -7.7), white(-2, -12.6)], True, 3.0),
    # one white and three reds: nothing to compare
    ([white(12, -8.4), red(), red(), red()], True, 0.0),
    ([], True, 0.0),
])
def test_known_values(faces_, alike, spread):
    got_alike, got_spread = whites_alike(faces_)
    assert got_alike is alike
    assert got_spread == pytest.approx(spread, abs=0.05)


def test_the_reading_carries_its_a_star():
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 110, 40)
    cv2.circle(img, (320, 240), 150, (170, 200, 160), -1)   # a pale green plate: a* below 0
    cv2.circle(img, (320, 240), 20, (225, 228, 230), -1)
    view = make_canonical_view(img, Ellipse(320, 240, 150, 150, 0))
    c = view.canvas_px / 2
    got = classify_face(view, c, c, 20 * PLATE_RADIUS_PX / 150)
    lab = cv2.cvtColor(np.uint8([[[225, 228, 230], [170, 200, 160]]]), cv2.COLOR_BGR2LAB).astype(float)
    assert got.face == "white"
    assert got.a_star == pytest.approx(lab[0, 0, 1] - 128, abs=1.0)
    assert got.plate_a_star == pytest.approx(lab[0, 1, 1] - 128, abs=1.5)
    assert got.plate_a_star < 0  # not clipped, unlike the reference the face rule uses


def test_scene_33638_is_not_read_as_four_whites(monkeypatch, washed_out_rule_off):
    # (its washed-out reds are at the ceiling in red, which the fourteenth round's rule sees too: off here)
    # (its plate is also at the ceiling in two channels, which stops it too: that rule off here)
    monkeypatch.setattr(exposure, "SATURATED_MIN_CHANNELS", 3)
    scene = render_scene(33638)
    assert scene.label["red"] == 3
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "white faces differ in colour" in got.reason, got.reason
    # the rule is what stops it: without it, four whites
    monkeypatch.setattr(faces, "WHITE_MAX_SPREAD_A", np.inf)
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", 0)
