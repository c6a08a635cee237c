"""vision.tokens.faint_extent: a region is two faces side by side only when it is as wide as a face.

A faint region larger than one face is split into two touching faces when
its length says so (``pair_dist_px``).  A band of shading along a bowl's
edge or the well's wall is as long but much thinner; split, it made two
"faces" out of nothing (a bowl over the plate was read as four flat tokens).

Checklist: known values on constructed residuals (two touching faces, a
band of the same area, the width cut-off on both sides), the empty case,
and real pixels (that bowl scene).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import tokens
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import faint_extent

R = 14.0
S = 320
PALE = (-9.0, 1.0, 4.0)  # a faint face's difference from the plate (Lab units)


def residual_with(*ellipses) -> np.ndarray:
    res = np.zeros((S, S, 3), np.float32)
    for (cx, cy), (ax, ay), ang in ellipses:
        cv2.ellipse(res, (int(round(cx)), int(round(cy))), (int(round(ax)), int(round(ay))), ang, 0, 360, PALE,
                    thickness=cv2.FILLED)
    return res


def test_two_touching_faces_are_a_pair():
    d = 2.05 * R
    res = residual_with(((160 - d / 2, 160), (R, R), 0), ((160 + d / 2, 160), (R, R), 0))
    area, ratio, pair, (gx, gy), _ = faint_extent(res, 160, 160, R)  # a peak between them
    assert area > tokens.FAINT_MAX_AREA * math.pi * R * R
    assert pair == pytest.approx(d, rel=0.1)
    assert gx == pytest.approx(160, abs=1) and gy == pytest.approx(160, abs=1)


def test_a_band_of_the_same_area_is_not():
    # 6 radii long, 0.7 wide: 2.1 face areas, as large as two faces, a fifth as wide
    res = residual_with(((160, 160), (3.0 * R, 0.7 * R), 15))
    area, ratio, pair, *_ = faint_extent(res, 160, 160, R)
    assert area > tokens.FAINT_MAX_AREA * math.pi * R * R
    assert pair == 0.0


@pytest.mark.parametrize("half_width_radii, is_pair", [(0.55, False), (0.95, True)])
def test_the_width_cut_off(half_width_radii, is_pair):
    """A stadium 3.2 radii between its cap centres and half-width w: its
    variance across is about w^2 / 3, so the cut (PAIR_MIN_WIDTH_SHARE of a
    disc's r^2 / 4) lies near w = 0.72 r; both stadiums are larger than one face."""
    w = half_width_radii * R
    res = np.zeros((S, S, 3), np.float32)
    cv2.rectangle(res, (int(160 - 1.6 * R), int(160 - w)), (int(160 + 1.6 * R), int(160 + w)), PALE,
                  thickness=cv2.FILLED)
    for cx in (160 - 1.6 * R, 160 + 1.6 * R):
        cv2.ellipse(res, (int(cx), 160), (int(round(w)), int(round(w))), 0, 0, 360, PALE, thickness=cv2.FILLED)
    area, _, pair, _, _ = faint_extent(res, 160, 160, R)
    assert area > tokens.FAINT_MAX_AREA * math.pi * R * R
    assert (pair > 0) == is_pair


def test_empty_residual():
    area, ratio, pair, centroid, _ = faint_extent(np.zeros((S, S, 3), np.float32), 160, 160, R)
    assert (area, ratio, pair, centroid) == (0.0, 0.0, 0.0, (160, 160))


def test_bowl_edge_bands_are_not_four_faces():
    """Real pixels: a bowl over a pale blue plate (fresh synthesized scene
    11227, kind covered): two bands of shading along its edge, each split into
    two faint faces, made four flat white tokens and an outcome."""
    scene = render_scene(11227)
    assert scene.label["verdict"] == "covered"
    assert read_frame(scene.image).verdict != "outcome"
