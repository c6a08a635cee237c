"""vision.touching_lobes: two touching faces whose blob is one region at half contrast are two faces.

Two flat faces that touch, with their side walls and shadows, make one blob
of 2.4-2.8 face areas, 4.6-5.3 token radii long: too large for
``split_pair`` and longer than an object's bound.  Cut at half its own
peak, the blob stays one region (the faces' blurred edges where they touch
are over half their contrast), so ``faces_at_half_contrast`` (which wants
two regions) did not split it, and the round read ``uncertain``,
"something larger than a token" (forced touching 1430016 and 1430148 at
1280x720).  That region, two round lobes of one face each joined by a
narrow waist, is two faces; a bar (a stick) or a face beside a bar is not.

Checklist: known values on drawn blobs (two touching faces with a shadow;
one bar as long as the pair; a face and a bar; three faces; one face), an
empty region and bad input; real pixels: the two touching scenes read right
with the rule and stop without it, a stick scene and a bowl scene still stop.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import tokens
from vision.reader import read_frame
from vision.synth import render_scene
from vision.touching_lobes import touching_lobes

R = 20.0
S = 260


def soft(shapes: np.ndarray, halo_px: float = 3.0, shadow_px: int = 0, floor: float = 14.0
         ) -> tuple[np.ndarray, np.ndarray]:
    """``shapes`` (delta-E 60 where drawn) blurred by ``halo_px``, with a
    paler shadow (20) ``shadow_px`` wide around it; the blob above ``floor``."""
    de = cv2.GaussianBlur(shapes, (0, 0), halo_px)
    if shadow_px:
        grown = cv2.dilate((shapes > 0).astype(np.uint8),
                           cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * shadow_px + 1,) * 2))
        de = np.maximum(de, 20.0 * grown.astype(np.float32))
    return de > floor, de


def discs(centres: list[tuple[float, float]], radius: float = R) -> np.ndarray:
    canvas = np.zeros((S, S), np.float32)
    for x, y in centres:
        cv2.circle(canvas, (int(round(x)), int(round(y))), int(round(radius)), 60.0, -1)
    return canvas


def test_two_touching_faces_with_shadows_are_two_faces():
    region, de = soft(discs([(90.0, 130.0), (90.0 + 2.0 * R, 130.0)]), shadow_px=8)
    assert cv2.connectedComponents(region.astype(np.uint8))[0] == 2  # one blob
    assert tokens.faces_at_half_contrast(region, de, R) is None  # one region at half contrast
    got = touching_lobes(region, de, R)
    assert got is not None and len(got) == 2
    xs = sorted(c[0][0] for c in got)
    assert xs == pytest.approx([90.0, 90.0 + 2.0 * R], abs=2.0)
    for (_, y), area, ratio in got:
        assert y == pytest.approx(130.0, abs=1.0)
        assert area == pytest.approx(np.pi * R * R, rel=0.15)
        assert ratio >= 0.85


def test_a_bar_as_long_as_the_pair_is_not_two_faces():
    bar = np.zeros((S, S), np.float32)
    cv2.rectangle(bar, (50, int(130 - 0.8 * R)), (int(50 + 4.6 * R), int(130 + 0.8 * R)), 60.0, -1)
    region, de = soft(bar, shadow_px=6)
    assert touching_lobes(region, de, R) is None


def test_a_face_beside_a_bar_is_not_two_faces():
    shapes = discs([(70.0, 130.0)])
    cv2.rectangle(shapes, (int(70 + 0.9 * R), 118), (int(70 + 4.0 * R), 142), 60.0, -1)
    region, de = soft(shapes, shadow_px=6)
    assert touching_lobes(region, de, R) is None


def test_three_faces_or_one_are_not_two():
    region, de = soft(discs([(50.0, 130.0), (50.0 + 2 * R, 130.0), (50.0 + 4 * R, 130.0)]), shadow_px=6)
    assert touching_lobes(region, de, R) is None
    region, de = soft(discs([(130.0, 130.0)]), shadow_px=6)
    assert touching_lobes(region, de, R) is None


def test_empty_region():
    assert touching_lobes(np.zeros((S, S), bool), np.zeros((S, S), np.float32), R) is None


@pytest.mark.parametrize("region, de, radius, match", [
    (np.zeros((10, 10), bool), np.zeros((12, 12), np.float32), R, "region"),
    (np.zeros((S, S), np.uint8), np.zeros((S, S), np.float32), R, "region"),
    (np.zeros((S, S), bool), np.zeros((S, S), np.float32), 0.0, "radius_px"),
])
def test_bad_arguments(region, de, radius, match):
    with pytest.raises(ValueError, match=match):
        touching_lobes(region, de, radius)


@pytest.mark.parametrize("seed, red", [(1430016, 3), (1430148, 4)])
def test_touching_pair_is_read_not_an_object(seed, red, monkeypatch):
    scene = render_scene(seed, "touching", size=(1280, 720))
    assert scene.label["red"] == red
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome" and reading.red == red
    monkeypatch.setattr(tokens, "TOUCHING_LOBES_SPLIT", False)
    off = read_frame(scene.image)
    assert off.verdict == "uncertain" and "larger than a token" in off.reason


@pytest.mark.parametrize("seed, kind, size", [
    # a rod and hand over a token: its on-plate blob reaches the rule (core
    # of 4.8 face areas at half contrast) and is still an object
    (1470876, "stick", (800, 600)),
    # a stick scene whose blob reaches the rule as two regions at half contrast
    (1471123, "stick", (800, 600)),
    # the bowl over the plate, stopped as an object on the plate
    (1471238, "covered", (1280, 720)),
])
def test_stick_and_bowl_are_still_stopped(seed, kind, size):
    scene = render_scene(seed, kind, size=size)
    assert scene.label["verdict"] != "outcome"
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain" and "larger than a token" in reading.reason
