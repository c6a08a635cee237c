"""The plate's own shadow on the cloth is no stick reaching onto the plate (``vision.plate_reach``).

The case: a gold plate on beige cloth.  The plate's shadow is darker than the
cloth and, a darkened beige being a less saturated one, its chroma changes
by 4.4-11.0 cloth spreads, past the shadow test's 4 (``vision.plate.
SHADOW_MAX_CHROMA_UNITS``), so it is not-cloth; the crescent touches the band
around the plate and is long, and read "something reaches onto the plate
from outside" on 16 of 300 clean four-token scenes (800x600, seeds
1780000-1780299).  Those crescents reach 1.09-1.17 plate radii; every stick or
hand region darker than the cloth reaches 1.70 or more.

Checklist: known values on drawn maps (a dark crescent, one pixel brighter,
too far out, too colourful, the rule off), real gold-on-beige scenes read
with the rule on and off, a real dark rod that is darker than the cloth and
within the chroma bound still reaching onto the plate, and a bright crescent
(a black lacquer plate fitted too small, a token in it) still counted.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision import plate_reach, read_frame
from vision.plate import PlateFit, _components_with_areas, _component_box, find_plate
from vision.plate_reach import farthest_radius, is_plate_shadow
from vision.reader import outside_plate_mask
from vision.synth import render_scene
from vision.types import Ellipse

#: Drawn maps: frame size, pixels (work scale 1).
H, W = 200, 200
#: The drawn plate: centre and radius, pixels.
CX, CY, R_PX = 100.0, 100.0, 60.0
#: A drawn shadow's darkening and chroma change, cloth spreads.
SHADOW_LIGHT, SHADOW_CHROMA = -7.0, 6.0

GOLD_ON_BEIGE = {"glaze": "gold", "cloth": "beige"}
REACHES = "something reaches onto the plate from outside"


def _plate(r_in: float, r_out: float, light: float = SHADOW_LIGHT, chroma: float = SHADOW_CHROMA):
    """A round plate with a crescent (the left half of the ring ``r_in``-``r_out`` plate radii) of the given
    lightness and chroma change; returns the fit, the crescent's labels and box."""
    yy, xx = np.mgrid[0:H, 0:W]
    rho = np.hypot(xx - CX, yy - CY) / R_PX
    crescent = ((rho >= r_in) & (rho <= r_out) & (xx < CX)).astype(np.uint8)
    lightness = np.zeros((H, W), np.float32)
    lightness[crescent > 0] = light
    deviation = np.zeros((H, W), np.float32)
    deviation[crescent > 0] = np.hypot(light, chroma)
    fit = PlateFit(ellipse=Ellipse(CX, CY, R_PX, R_PX, 0.0), fill=1.0, contrast=20.0, reason="drawn",
                   cloth_deviation=deviation, cloth_lightness=lightness, work_scale=1.0, frame_size=(W, H))
    n, labels, _ = _components_with_areas(crescent)
    assert n == 2
    return fit, labels, _component_box(crescent, labels, n, 1)


def test_a_dark_crescent_hugging_the_plate_is_its_shadow():
    fit, labels, box = _plate(1.07, 1.15)
    assert farthest_radius(fit, labels, 1, box) == pytest.approx(1.15, abs=0.02)
    assert is_plate_shadow(fit, labels, 1, box)


def test_one_pixel_brighter_than_the_cloth_is_no_shadow():
    fit, labels, box = _plate(1.07, 1.15)
    ys, xs = np.nonzero(labels == 1)
    fit.cloth_lightness[ys[0], xs[0]] = 0.5
    assert not is_plate_shadow(fit, labels, 1, box)


def test_a_dark_region_reaching_out_across_the_cloth_is_no_shadow():
    fit, labels, box = _plate(1.07, 1.5)
    assert farthest_radius(fit, labels, 1, box) > plate_reach.SHADOW_MAX_REACH_RADII
    assert not is_plate_shadow(fit, labels, 1, box)


def test_a_colourful_dark_crescent_is_no_shadow():
    limit = plate_reach.SHADOW_MAX_CHROMA_TIMES * 4.0  # times vision.plate.SHADOW_MAX_CHROMA_UNITS
    fit, labels, box = _plate(1.07, 1.15, chroma=limit + 1.0)
    assert not is_plate_shadow(fit, labels, 1, box)
    fit, labels, box = _plate(1.07, 1.15, chroma=limit - 1.0)
    assert is_plate_shadow(fit, labels, 1, box)


def test_rule_off_takes_no_shadow(monkeypatch):
    fit, labels, box = _plate(1.07, 1.15)
    monkeypatch.setattr(plate_reach, "SHADOW_MAX_REACH_RADII", 0.0)
    assert not is_plate_shadow(fit, labels, 1, box)


@pytest.mark.parametrize("seed", [1780035, 1780052])
def test_gold_plate_shadow_on_beige_keeps_the_outcome(seed, monkeypatch):
    scene = render_scene(seed, "outcome", size=(800, 600), conditions=GOLD_ON_BEIGE)
    reading = read_frame(scene.image)
    assert (reading.verdict, reading.red) == ("outcome", scene.label["red"])
    monkeypatch.setattr(plate_reach, "SHADOW_MAX_REACH_RADII", 0.0)
    off = read_frame(scene.image)
    assert off.verdict == "uncertain" and off.reason.startswith(REACHES)


def _regions(image):
    """The plate fit and each not-cloth region outside it: (farthest radius, every pixel darker, is shadow)."""
    fit = find_plate(image)
    outside = outside_plate_mask(fit)
    n, labels, areas = _components_with_areas(outside)
    out = []
    for i in range(1, n):
        if areas[i] < 50:
            continue
        box = _component_box(outside, labels, n, i)
        dark = bool((fit.cloth_lightness[labels == i] < 0).all())
        out.append((farthest_radius(fit, labels, i, box), dark, is_plate_shadow(fit, labels, i, box)))
    return out


def test_a_dark_rod_reaching_onto_the_plate_still_counts():
    # a dark rod on black cloth, darker than the cloth everywhere and within
    # the chroma bound: only its reach (1.75 plate radii) tells it from a shadow
    scene = render_scene(1780130, "stick", size=(800, 600))
    assert scene.label["stick"]["mode"] == "rod"
    regions = _regions(scene.image)
    assert any(dark and reach > 1.7 and not shadow for reach, dark, shadow in regions)
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain" and reading.reason.startswith(REACHES)


def test_a_bright_crescent_with_a_token_in_it_still_counts():
    # black lacquer on black cloth: the plate is fitted too small, its lit rim
    # and part of a white token lie outside the fit (1.22 plate radii), brighter than the cloth
    scene = render_scene(1780119, "outcome", size=(1280, 720),
                         conditions={"glaze": "black_lacquer", "cloth": "black"})
    regions = _regions(scene.image)
    assert any(reach <= plate_reach.SHADOW_MAX_REACH_RADII and not dark for reach, dark, _ in regions)
    assert not any(shadow for _, _, shadow in regions)
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain" and reading.reason.startswith(REACHES)
