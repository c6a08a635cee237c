"""A face much darker than the plate and redder than it is a dark red.

Under cool light (6000-7000 K) or a stop under-exposed, the dark-red token
style measures a* 9-16 at L* 40-63: below the absolute red bound (24) and
the dimmed-red chromaticity (a* >= 0.4 L*), so such faces were undecided
(43 of 88 undecided red faces on synthesized scenes 1000-1799 and
45000-45999).  A face at least 25 L darker than the plate is no white (the
existing white bound; no white face there was even 20 L darker); with a*
at least 8 above the plate's and 8 absolute, and a red hue, it is now red.
A shadow keeps or lowers the glaze's a*: darker and redder takes a pigment.

Checklist: known values on drawn faces (a dark red under cool light, a grey
disc as dark, a dark face no redder than the plate, a dark face of blue
hue), and real pixels (scene 42149, four dark reds, with and without the
rule).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.faces as faces
import vision.reader as reader
from vision.canonical import make_canonical_view
from vision.faces import classify_face
from vision.reader import read_frame
from vision.synth import render_scene
from vision.types import Ellipse


def bgr_of_lab(L: float, a: float, b: float) -> tuple[int, int, int]:
    """The 8-bit BGR colour of CIE Lab (L in 0-100, a and b in Lab units)."""
    lab = np.array([[[L * 255 / 100, a + 128, b + 128]]], np.float32).round().astype(np.uint8)
    return tuple(int(v) for v in cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)[0, 0])


def face_on_porcelain(face_lab: tuple[float, float, float]):
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 110, 40)
    cv2.circle(img, (320, 240), 150, bgr_of_lab(88.0, -1.0, -3.0), -1)  # white porcelain under cool light
    cv2.circle(img, (320, 240), 20, bgr_of_lab(*face_lab), -1)
    view = make_canonical_view(img, Ellipse(320, 240, 150, 150, 0))
    c = view.canvas_px / 2
    return classify_face(view, c, c, 20 * view.plate_radius_px / 150)


@pytest.mark.parametrize("face_lab, expected, why", [
    ((46.0, 16.0, -3.0), "red", "a dark red under cool light (42149): 42 L darker, a* 16"),
    ((60.0, 11.0, -3.0), "red", "a dark red washed (1109): 28 L darker, a* 11"),
    ((46.0, 0.0, -3.0), "unknown", "a grey disc as dark: no redder than the plate"),
    ((46.0, 5.0, -3.0), "unknown", "a* only 5: below the dark-red bound"),
    ((70.0, 16.0, -3.0), "unknown", "only 18 L darker: could be no pigment's doing"),
    ((46.0, 12.0, -30.0), "unknown", "a blue-purple hue: not red"),
])
def test_known_values(face_lab, expected, why):
    got = face_on_porcelain(face_lab)
    assert got.face == expected, (why, got)
    if expected == "red":
        assert 0.5 <= got.p_red <= 1.0 and got.margin >= 0.0


def test_scene_42149_reads_four_dark_reds(monkeypatch):
    scene = render_scene(42149, size=(1280, 720))
    assert scene.label["red"] == 4
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", 4), got.reason
    monkeypatch.setattr(faces, "DARK_RED_MIN_DELTA_A", math.inf)
    # without the dark-red rule two faces are still read red, and the other
    # two have their colour: alike_in_frame would read them red too
    monkeypatch.setattr(reader, "alike_in_frame", lambda readings: list(readings))
    off = read_frame(scene.image)
    assert off.verdict == "uncertain" and "neither clearly red nor white" in off.reason
