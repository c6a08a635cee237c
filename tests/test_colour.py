"""vision.colour.lab_to_bgr: the reader's Lab (Lab units) back into the camera's BGR levels.

Checklist: smoke and shapes, known values (white, black, a classic red),
the round trip through bgr_to_lab on every 8th level of each channel, empty
input, and the bad input table.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision.colour import bgr_to_lab, lab_to_bgr


def test_smoke_shape_and_dtype():
    got = lab_to_bgr(np.zeros((4, 5, 3), np.float32))
    assert got.shape == (4, 5, 3) and got.dtype == np.uint8


@pytest.mark.parametrize("lab, bgr", [
    ((100.0, 0.0, 0.0), (255, 255, 255)),
    ((0.0, 0.0, 0.0), (0, 0, 0)),
])
def test_known_values(lab, bgr):
    got = lab_to_bgr(np.asarray(lab, np.float64).reshape(1, 1, 3))[0, 0]
    assert tuple(int(v) for v in got) == bgr


@pytest.mark.parametrize("bgr", [(36, 32, 200), (118, 98, 222), (246, 238, 232)])  # classic, pinkish red; cool white
def test_token_colours_come_back(bgr):
    # the synthesizer's token albedos (sRGB, here BGR): within 2 levels
    src = np.asarray(bgr, np.uint8).reshape(1, 1, 3)
    back = lab_to_bgr(bgr_to_lab(src))
    assert np.abs(back.astype(int) - src.astype(int)).max() <= 2, back


def test_round_trip_through_bgr_to_lab():
    levels = np.arange(0, 256, 8, dtype=np.uint8)
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    bgr = np.stack([b, g, r], axis=-1).reshape(-1, 1, 3)
    back = lab_to_bgr(bgr_to_lab(bgr))
    # the 8-bit Lab codes lose a little: most colours come back exactly, 99 % within
    # 6 levels; the most saturated corners (a channel at 0 beside two high ones) up to 23
    err = np.abs(back.astype(int) - bgr.astype(int))
    assert np.median(err) == 0
    assert np.percentile(err, 99) <= 6
    assert err.max() <= 24


def test_empty_input():
    got = lab_to_bgr(np.zeros((0, 0, 3), np.float32))
    assert got.shape == (0, 0, 3) and got.dtype == np.uint8


@pytest.mark.parametrize("bad", [
    np.zeros((4, 4), np.float32),
    np.zeros((4, 4, 4), np.float32),
    np.zeros((4, 4, 3), np.uint8),
    np.zeros(3, np.float64),
])
def test_bad_input_names_the_parameter(bad):
    with pytest.raises(ValueError, match="lab"):
        lab_to_bgr(bad)
