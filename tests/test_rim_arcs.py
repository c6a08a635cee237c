"""Shading on the plate's rim and on the well's wall is not an object.

A lit or shadowed band along the rim, or along the wall of the well just
inside it, is a thin arc concentric with the plate; it used to stop the round
as "something larger than a token".  ``blobshape.is_rim_arc`` sets it aside
when it lies beyond ``RIM_ARC_MIN_RADIUS_FRAC`` of the plate radius, is thin,
long, and even along its length (a token lying against it makes a bump).

Checklist: real pixels (a synthesized black-lacquer scene whose well wall is
lit from one side), the same scene with the band limited to the rim alone
(the arc counts as an object again: the rule is what reads it), and that a
token on edge lying against the arc, inside or outside it, anywhere along it,
is still not set aside (constructed masks).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import blobshape
from vision.canonical import CANVAS_PX, PLATE_RADIUS_PX, _radius_grid
from vision.reader import read_frame
from vision.synth import render_scene

#: Tuning seed: four flat tokens on a black-lacquer plate, the well's wall lit
#: on one side as a bright arc at 0.80-0.87 of the fitted plate radius.
WALL_LIT_SEED = 1700


def test_lit_well_wall_does_not_stop_the_outcome():
    scene = render_scene(WALL_LIT_SEED)
    assert scene.label["verdict"] == "outcome"
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"]
    assert len(reading.tokens) == 4


def test_the_band_rule_is_what_reads_it(monkeypatch):
    monkeypatch.setattr(blobshape, "RIM_ARC_MIN_RADIUS_FRAC", 0.8)  # the band before this rule
    reading = read_frame(render_scene(WALL_LIT_SEED).image)
    assert reading.verdict == "uncertain"
    assert "larger than a token" in reading.reason


def _wall_arc() -> np.ndarray:
    c = CANVAS_PX // 2
    wall = np.zeros((CANVAS_PX, CANVAS_PX), np.uint8)
    cv2.ellipse(wall, (c, c), (96, 96), angle=0, startAngle=200, endAngle=290, color=1, thickness=5)
    return wall


@pytest.mark.parametrize("centre_px", [90, 101])  # inside the arc, and between it and the rim
def test_token_against_the_arc_anywhere_along_it_is_a_bump(centre_px):
    """A bar a token's diameter long (30 px) and about 5 px thick (0.3 token
    radii: a side wall seen from above), touching the arc, every 2 degrees."""
    rho = _radius_grid(CANVAS_PX) / PLATE_RADIUS_PX
    c = CANVAS_PX // 2
    assert blobshape.is_rim_arc(_wall_arc().astype(bool), rho, 0.12)
    missed = []
    for along_deg in range(205, 286, 2):
        bumped = _wall_arc()
        ang = math.radians(along_deg)
        cv2.ellipse(bumped, (round(c + centre_px * math.cos(ang)), round(c + centre_px * math.sin(ang))),
                    (15, 2), angle=along_deg + 90, startAngle=0, endAngle=360, color=1, thickness=-1)
        assert cv2.connectedComponents(bumped)[0] == 2  # one blob with the arc
        if blobshape.is_rim_arc(bumped.astype(bool), rho, 0.12):
            missed.append(along_deg)
    assert missed == []


def test_crescent_tapering_smoothly_is_an_arc():
    """The rim's shadow where the fitted ellipse is a little off centre:
    thickest in its middle, thin at its ends, no bump."""
    rho = _radius_grid(CANVAS_PX) / PLATE_RADIUS_PX
    c = CANVAS_PX // 2
    crescent = np.zeros((CANVAS_PX, CANVAS_PX), np.uint8)
    cv2.ellipse(crescent, (c, c), (117, 117), angle=0, startAngle=20, endAngle=160, color=1, thickness=-1)
    cv2.ellipse(crescent, (c, c - 5), (112, 112), angle=0, startAngle=0, endAngle=180, color=0, thickness=-1)
    assert blobshape.is_rim_arc(crescent.astype(bool), rho, 0.12)


@pytest.mark.xfail(strict=True, reason="known gap: a 3 px (0.2 token radii) bar between the arc and the rim "
                                       "is still taken for rim arc at some angles (8 of 81 measured)")
def test_thinnest_side_wall_between_arc_and_rim_is_a_bump():
    rho = _radius_grid(CANVAS_PX) / PLATE_RADIUS_PX
    c = CANVAS_PX // 2
    missed = []
    for along_deg in range(205, 286):
        bumped = _wall_arc()
        ang = math.radians(along_deg)
        cv2.ellipse(bumped, (round(c + 100 * math.cos(ang)), round(c + 100 * math.sin(ang))),
                    (15, 1), angle=along_deg + 90, startAngle=0, endAngle=360, color=1, thickness=-1)
        if cv2.connectedComponents(bumped)[0] == 2 and blobshape.is_rim_arc(bumped.astype(bool), rho, 0.12):
            missed.append(along_deg)
    assert missed == []
