"""vision.faces.whites_alike_in_yellowness: white faces of one frame are alike in b*.

One light tints every white face of a frame alike.  A patch of a coloured
glaze found faintly can be read white (its colour is the plate's, so it is
close to the plate beside it), but its own b* is the glaze's, far from a
true white's beside it: on a gold plate such a find (b* 40) completed a
count of four around three tokens next to a neutral white face (b* -1), a
wrong outcome (fresh forced three tokens 1016290 at 1280x720).

Checklist: known values (spreads either side of the bound, as measured and
relative to the plate, fewer than two whites, None and red readings
skipped), the plate's b* recorded by classify_face on a drawn plate, and
real pixels (the scene abstains, and reads the wrong outcome with the rule
off).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import faces
from vision.canonical import PLATE_RADIUS_PX, make_canonical_view
from vision.faces import FaceReading, classify_face, whites_alike_in_yellowness
from vision.reader import read_frame
from vision.synth import render_scene
from vision.types import Ellipse

from scene_truth import up_face_reds


def white(b: float, plate_b: float = 0.0) -> FaceReading:
    return FaceReading("white", 0.05, 0.0, 5.0, 3.0, 6.0, a_star=0.0, l_star=90.0, b_star=b, plate_b_star=plate_b)


def red(b: float) -> FaceReading:
    return FaceReading("red", 0.95, 40.0, -20.0, 45.0, 10.0, a_star=50.0, l_star=55.0, b_star=b)


@pytest.mark.parametrize("readings, alike, spread", [
    ([white(0.0), white(20.0)], False, 20.0),
    ([white(0.0), white(10.0)], True, 10.0),
    ([white(-1.0, 38.0), white(40.0, 39.0)], False, 40.0),   # both ways apart (the gold-plate case)
    ([white(0.0, 0.0), white(30.0, 30.0)], True, 0.0),       # apart as measured, alike relative to the plate
    ([white(0.0)], True, 0.0),                              # one white
    ([], True, 0.0),
    ([white(0.0), None, red(60.0), white(4.0)], True, 4.0),  # None and red faces skipped
])
def test_known_values(readings, alike, spread):
    got_alike, got_spread = whites_alike_in_yellowness(readings)
    assert got_alike is alike
    assert got_spread == pytest.approx(spread)


def test_classify_face_records_the_plates_b():
    """A drawn pale-gold plate (BGR 120, 200, 230) with a white face: the
    reading's plate b* is the plate's, far above the face's own."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 110, 40)
    cv2.circle(img, (320, 240), 150, (120, 200, 230), -1)
    cv2.circle(img, (320, 240), 20, (235, 238, 238), -1)
    view = make_canonical_view(img, Ellipse(320, 240, 150, 150, 0))
    c = view.canvas_px / 2
    got = classify_face(view, c, c, 20 * PLATE_RADIUS_PX / 150)
    plate_b = float(np.median(view.lab[..., 2][(view.radius_px > 0.5 * view.plate_radius_px)
                                               & (view.radius_px < 0.8 * view.plate_radius_px)]))
    assert got.plate_b_star == pytest.approx(plate_b, abs=2.0)
    assert got.plate_b_star > got.b_star + 20.0


def test_glaze_patch_beside_a_neutral_white_is_not_read(monkeypatch):
    scene = render_scene(1016290, "three_tokens", size=(1280, 720))
    assert scene.label["verdict"] == "reshake" and scene.label["conditions"]["glaze"] == "gold"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "differ in yellowness" in got.reason, got.reason
    # the rule is what stops it: without it, three tokens and the patch make four
    monkeypatch.setattr(faces, "WHITE_MAX_SPREAD_B", math.inf)
    off = read_frame(scene.image)
    assert off.verdict == "outcome", off.reason
    assert off.red == up_face_reds(scene)
