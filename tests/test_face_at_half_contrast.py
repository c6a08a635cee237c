"""vision.blobshape.face_at_half_contrast: one face with its shadow is one face, not an overlap.

A strong face's blob, cut at the blob threshold far below its own contrast,
takes in its shadow or its side wall: seen from a camera tilted 34 degrees, two
of four separated dark red tokens on white porcelain made blobs of 1.5 and
1.6 face areas, past one face's bound (1.45), and the frame read ``rearrange``
(forced four flat tokens 640038 at 1280x720).  Cut at half its own peak, as
the token radius is measured, such a blob is one round face of one face area,
and nothing of the blob lies further than half a radius from it.

Checklist: known values on drawn blobs (a face with a shadow beside it; two
faces one partly on the other; a strong face on a pale one; two faces apart),
bad input, an empty region, and real pixels (640038 read right, and
``rearrange`` without the rule).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import tokens
from vision.blobshape import face_at_half_contrast
from vision.reader import read_frame
from vision.synth import render_scene

R = 20.0
S = 240
FLOOR = 14.0  # the blob threshold, Lab units


def canvas(discs: list[tuple], blur_px: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """A delta-E canvas of discs (x, y, contrast[, radius]; radius R unless
    given), drawn in order (a later disc covers an earlier one), softly
    blurred; and the blob above FLOOR."""
    de = np.zeros((S, S), np.float32)
    for x, y, contrast, *radius in discs:
        cv2.circle(de, (int(round(x)), int(round(y))), int(round(radius[0] if radius else R)), float(contrast), -1)
    de = cv2.GaussianBlur(de, (0, 0), blur_px)
    return de > FLOOR, de


def test_a_face_with_its_shadow_is_one_face():
    # the shadow: a weaker disc 1.25 radii across its centre, 0.15 radii off the face's, under it
    region, de = canvas([(123.0, 120.0, 22.0, 1.25 * R), (120.0, 120.0, 60.0)])
    assert region.sum() > 1.45 * math.pi * R * R  # the blob is larger than one face may be
    got = face_at_half_contrast(region, de, R)
    assert got is not None
    (x, y), area, ratio = got
    assert (x, y) == pytest.approx((120.0, 120.0), abs=1.0)
    # the face's blurred edge over its shadow lies a pixel out: 1.13 faces
    assert area == pytest.approx(math.pi * R * R, rel=0.15)
    assert ratio > 0.95


def test_a_face_partly_on_another_of_the_same_colour_is_not_one_face():
    region, de = canvas([(100.0, 120.0, 60.0), (100.0 + 1.0 * R, 120.0, 60.0)])
    assert face_at_half_contrast(region, de, R) is None


def test_a_strong_face_on_a_pale_one_is_not_one_face():
    """At half the red's contrast only the red is left; the pale face's crescent
    reaches a radius beyond it."""
    region, de = canvas([(100.0, 120.0, 24.0), (100.0 + 1.0 * R, 120.0, 60.0)])
    assert face_at_half_contrast(region, de, R) is None


def test_two_faces_apart_are_not_one():
    region, de = canvas([(70.0, 120.0, 60.0), (70.0 + 2.2 * R, 120.0, 60.0)], blur_px=6.0)
    assert face_at_half_contrast(region, de, R) is None


def test_empty_region_and_bad_input():
    de = np.zeros((S, S), np.float32)
    assert face_at_half_contrast(np.zeros((S, S), bool), de, R) is None
    with pytest.raises(ValueError, match="region"):
        face_at_half_contrast(np.zeros((S, S), np.uint8), de, R)
    with pytest.raises(ValueError, match="region"):
        face_at_half_contrast(np.zeros((S, S + 1), bool), de, R)
    with pytest.raises(ValueError, match="radius_px"):
        face_at_half_contrast(np.ones((S, S), bool), de, 0.0)


def test_separated_faces_with_their_shadows_read_right(monkeypatch):
    """Real pixels: forced four flat tokens 640038 (1280x720, camera tilted
    34 degrees): four dark red faces on white porcelain, two of them blobs of
    1.5-1.6 face areas with their shadows."""
    scene = render_scene(640038, "outcome", size=(1280, 720))
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    monkeypatch.setattr(tokens, "face_at_half_contrast", lambda region, delta_e, radius_px: None)
    assert read_frame(scene.image).verdict == "rearrange"
