"""A pale face's outline dark on its shadow side only: judged on that side.

Fresh scene 28115 (640x480, five tokens) was read as an outcome of four: the
fifth, an ivory face on a celadon plate under motion blur and JPEG 42, showed
only a dark arc (its side wall) on 10 of 16 sectors, 2.4 L darker than its
sides over the whole circle; the uneven-outline suspect rule wanted 3 L.  A
circle dark on at least half its sectors is now also a suspect when its
darker half (:func:`vision.outline.shadow_side_contrast`) is 3 L darker: a
superset of the old rule, so it can only add suspects.

Checklist: known values (a half circle, a whole circle, a flat image, the
canvas edge), and real pixels (28115, with and without the rule).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import outline, outline_faces, reader
from vision.outline import outline_support, shadow_side_contrast
from vision.reader import read_frame
from vision.synth import render_scene

S = 160
RADIUS = 15.0
DEPTH_L = 6.0


def circle_image(start_deg: float, end_deg: float, seed: int = 3) -> np.ndarray:
    """Lightness (S, S) float32 around 70 with seeded noise and a dark arc of
    ``DEPTH_L`` at ``RADIUS`` from the centre, from ``start_deg`` to ``end_deg``."""
    rng = np.random.default_rng(seed)
    img = (70.0 + rng.normal(0.0, 0.3, (S, S))).astype(np.float32)
    arc = np.zeros((S, S), np.uint8)
    cv2.ellipse(arc, (S // 2, S // 2), (int(RADIUS), int(RADIUS)), 0.0, start_deg, end_deg, 1, thickness=2)
    img[arc > 0] -= DEPTH_L
    return img


def test_half_circle_is_judged_on_its_dark_half():
    img = circle_image(180.0, 360.0)
    n, whole, _ = outline_support(img, S // 2, S // 2, RADIUS)
    shadow = shadow_side_contrast(img, S // 2, S // 2, RADIUS)
    assert 8 <= n <= 12  # half the sectors, and the two it ends in
    # the whole circle's mean halves it; its dark half keeps it
    assert shadow > 1.7 * whole > 0
    assert shadow == pytest.approx(2 * whole, rel=0.25)


def test_whole_circle_is_the_same_either_way():
    img = circle_image(0.0, 360.0)
    n, whole, _ = outline_support(img, S // 2, S // 2, RADIUS)
    assert n == 16
    assert shadow_side_contrast(img, S // 2, S // 2, RADIUS) == pytest.approx(whole, rel=0.1)


@pytest.mark.parametrize("image, radius, word", [
    (np.zeros((S, S, 3), np.float32), RADIUS, "lightness"),
    (np.zeros((S, S), np.float32), 2.0, "radius_px"),
])
def test_bad_input(image, radius, word):
    with pytest.raises(ValueError, match=word):
        shadow_side_contrast(image, S // 2, S // 2, radius)


def test_flat_image_and_canvas_edge_give_nothing():
    flat = np.full((S, S), 70.0, np.float32)
    assert shadow_side_contrast(flat, S // 2, S // 2, RADIUS) == 0.0
    assert shadow_side_contrast(circle_image(0.0, 360.0), 3, 3, RADIUS) == 0.0


def test_scene_28115_is_not_read_as_four(monkeypatch):
    scene = render_scene(28115, size=(640, 480))
    assert scene.label["kind"] == "five_tokens"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    assert "more disc-like evidence" in got.reason
    # the rule is what stops it: without it, the wrong outcome of four
    monkeypatch.setattr(outline_faces, "shadow_side_contrast", lambda *a, **k: 0.0)
    # (the plate is also over-exposed, which stops it too: that rule off here)
    monkeypatch.setattr(reader, "SATURATED_ROOM_MIN_RADII", math.inf)
    assert read_frame(scene.image).verdict == "outcome"
