"""A short light arc on the well's slope is a highlight, not a token on edge.

Glossy black lacquer and gold plates show short highlights on the slope
between the well's floor and the rim; thin and about a face long, they were
taken for tokens on edge (false ``reshake`` on 8 of 20 such frames of forced
four flat tokens 277000-277999 at 640x480).  A bar-shaped blob lighter than
the plate, centred beyond ``SLOPE_HIGHLIGHT_MIN_RADIUS_FRAC`` of the plate
radius and lying along the rim, is now dropped like a long rim arc.  True
tokens on edge (forced upright 243000-243999) lay at most 0.733 of the plate
radius from its centre.

Checklist: known values on drawn bars (along the rim and across it, inside
and beyond the bound, lighter and darker than the plate, not bar-shaped),
real pixels (three four-flat frames now read right, and the rule shown to be
what lets them; true uprights still read reshake).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import tokens, upright_doubt
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import _Blob, _slope_highlight

S = 320
PLATE_R = 128.0
TOKEN_R = 14.0
C = (S - 1) / 2.0


def bar_at(radius_frac: float, polar_deg: float, axis_from_rim_deg: float, light: float = 20.0,
           length_px: float = 28.0, width_px: float = 4.0):
    """A residual canvas with one bar, and the bar's blob as find_tokens measures it."""
    res = np.zeros((S, S, 3), np.float32)
    t = math.radians(polar_deg)
    x, y = C + radius_frac * PLATE_R * math.cos(t), C + radius_frac * PLATE_R * math.sin(t)
    along_rim = (polar_deg + 90.0) % 180.0
    angle = (along_rim + axis_from_rim_deg) % 180.0
    mask = np.zeros((S, S), np.uint8)
    box = ((x, y), (length_px, width_px), angle)
    cv2.fillPoly(mask, [np.round(cv2.boxPoints(box)).astype(np.int32)], 1)
    res[mask.astype(bool), 0] = light
    area = float(mask.sum())
    blob = _Blob(x=x, y=y, area=area, major=length_px, minor=width_px, angle_deg=angle, solidity=1.0,
                 contrast=abs(light), crosses_rim=False, mask=mask.astype(bool))
    return res, blob


@pytest.mark.parametrize("polar_deg", [0.0, 37.0, 90.0, 200.0, 315.0])
def test_light_bar_along_the_rim_beyond_the_bound_is_a_highlight(polar_deg):
    res, blob = bar_at(0.85, polar_deg, 3.0)
    assert _slope_highlight(blob, res, PLATE_R, TOKEN_R)


@pytest.mark.parametrize("radius_frac, axis_from_rim_deg, light, why", [
    (0.70, 0.0, 20.0, "on the well's floor, where a token stands"),
    (0.85, 30.0, 20.0, "across the rim"),
    (0.85, 90.0, 20.0, "radial"),
    (0.85, 0.0, -20.0, "darker than the plate"),
])
def test_other_bars_are_not(radius_frac, axis_from_rim_deg, light, why):
    res, blob = bar_at(radius_frac, 60.0, axis_from_rim_deg, light)
    assert not _slope_highlight(blob, res, PLATE_R, TOKEN_R), why


def test_a_round_blob_is_not():
    res, blob = bar_at(0.85, 10.0, 0.0)
    round_blob = _Blob(x=blob.x, y=blob.y, area=blob.area, major=10.0, minor=9.0, angle_deg=blob.angle_deg,
                       solidity=1.0, contrast=20.0, crosses_rim=False, mask=blob.mask)
    assert not _slope_highlight(round_blob, res, PLATE_R, TOKEN_R)
    no_direction = _Blob(x=blob.x, y=blob.y, area=blob.area, major=14.0, minor=2.0, angle_deg=math.nan,
                         solidity=1.0, contrast=20.0, crosses_rim=False, mask=blob.mask)
    assert not _slope_highlight(no_direction, res, PLATE_R, TOKEN_R)


def test_a_larger_bar_stays_what_it_is():
    """Longer than a token on edge (a stick along the rim): not dropped as a highlight."""
    res, blob = bar_at(0.85, 120.0, 0.0, length_px=3.2 * TOKEN_R)
    assert not _slope_highlight(blob, res, PLATE_R, TOKEN_R)
    res, blob = bar_at(0.85, 120.0, 0.0, length_px=2.6 * TOKEN_R, width_px=1.2 * TOKEN_R)
    assert blob.minor / blob.major < tokens.UPRIGHT_MAX_AXIS_RATIO
    assert blob.area >= tokens.UPRIGHT_MAX_AREA * math.pi * TOKEN_R ** 2
    assert not _slope_highlight(blob, res, PLATE_R, TOKEN_R)


@pytest.mark.parametrize("seed", [277397, 277734, 277994])
def test_four_flat_frames_with_a_slope_highlight_read(seed, monkeypatch, washed_out_rule_off):
    # (277734 is four whites at the ceiling in red: that rule off here, this test is about the highlight)
    scene = render_scene(seed, "outcome", size=(640, 480))
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    # the rule is what lets them: without it the highlight is a token on edge
    monkeypatch.setattr(tokens, "SLOPE_HIGHLIGHT_MIN_RADIUS_FRAC", math.inf)
    # ... which goes on along the rim beyond a token's length (vision.upright_doubt): no reshake either
    assert read_frame(scene.image).verdict == "uncertain"
    monkeypatch.setattr(upright_doubt, "UPRIGHT_DOUBT_RULE", False)
    assert "standing on edge" in read_frame(scene.image).reason


@pytest.mark.parametrize("seed", [243994, 243925])
def test_true_uprights_still_read(seed):
    """243994: the farthest true upright (0.733 of the plate radius); 243925: one lying along the rim, lighter
    than the plate (black lacquer), at 0.638."""
    scene = render_scene(seed, "upright", size=(640, 480))
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and "standing on edge" in got.reason, got.reason
