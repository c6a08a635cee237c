"""The outline filter on a box only, and an outline's contrast alone.

:func:`vision.outline.outline_responses_in_box` lets the shadowed-face rule
(:func:`vision.tokens._outline_near`, ``SUSPECT_FILTER_CROP``) filter the
few pixels around a suspect instead of the whole canvas; it must give the
whole canvas's values there (zero beyond the canvas, as the canvas filter
has), up to float32 rounding, also where the box touches the canvas's edge.
:func:`vision.outline.outline_contrast` lets the low-z circle look
(:func:`vision.outline_faces._low_z_circles`) drop faint peaks before their
sectors are measured; it must be the very number :func:`outline_support`
gives.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import tokens
from vision.outline import (DEFAULT_OUTLINE_RULE, OUTLINE_RADIUS_FACTORS, outline_contrast, outline_response,
                            outline_responses_in_box, outline_support, strongest_in_window)

S = 160
TOKEN_R = 12.0
RADII = tuple(f * TOKEN_R for f in OUTLINE_RADIUS_FACTORS)


def _noise(seed=0, shape=(S, S)):
    img = np.random.default_rng(seed).normal(0.0, 1.0, shape).astype(np.float32)
    img[:, :20] = 0.0  # a blanked part, as the canvas outside the plate
    return img


@pytest.mark.parametrize("box", [(60, 85, 70, 95), (0, 25, 0, 25), (140, 160, 130, 160), (0, 160, 150, 160),
                                 (79, 80, 3, 4)])
def test_responses_in_box_are_the_canvas_filter_there(box):
    light = _noise()
    y0, y1, x0, x1 = box
    got = outline_responses_in_box(light, box, RADII)
    assert len(got) == len(RADII)
    for radius, resp in zip(RADII, got):
        want = outline_response(light, radius)[y0:y1, x0:x1]
        assert resp.shape == want.shape and resp.dtype == np.float32
        np.testing.assert_allclose(resp, want, rtol=0, atol=1e-5)


def test_responses_in_box_on_a_wide_canvas():
    light = _noise(1, (90, 200))
    got = outline_responses_in_box(light, (70, 90, 150, 200), RADII[:1])[0]
    np.testing.assert_allclose(got, outline_response(light, RADII[0])[70:90, 150:200], rtol=0, atol=1e-5)


@pytest.mark.parametrize("box", [(5, 5, 0, 10), (0, 10, 0, S + 1), (-1, 10, 0, 10)])
def test_responses_in_box_refuses_a_box_off_the_canvas(box):
    with pytest.raises(ValueError):
        outline_responses_in_box(_noise(), box, RADII)


@pytest.mark.parametrize("x, y", [(80, 80), (30, 40), (3, 80), (150, 150)])
def test_outline_contrast_is_outline_supports(x, y):
    light = _noise(2)
    for radius in RADII:
        assert outline_contrast(light, x, y, radius) == outline_support(light, x, y, radius)[1]


def test_outline_near_on_its_box_decides_as_on_the_canvas():
    """The shadowed-face look with the filters of its box only (None) and of
    the whole canvas: the same circle found, or none, over many suspects."""
    rng = np.random.default_rng(3)
    light = 0.3 * _noise(4)
    for x, y in [(50, 50), (110, 60), (60, 120), (140, 140)]:
        cv2.circle(light, (x, y), int(TOKEN_R), -4.0, thickness=2)
    hidden = np.zeros((S, S), bool)
    centres = np.ones((S, S), bool)
    full = tuple(outline_response(light, r) for r in RADII)
    answers = []
    for x, y in rng.uniform(0, S, (60, 2)):
        on_canvas = tokens._outline_near(light, hidden, full, centres, x, y, TOKEN_R, DEFAULT_OUTLINE_RULE, 1.0)
        on_box = tokens._outline_near(light, hidden, None, centres, x, y, TOKEN_R, DEFAULT_OUTLINE_RULE, 1.0)
        assert on_box == on_canvas, (x, y)
        answers.append(on_box)
    assert any(answers) and not all(answers)


def test_strongest_in_window_known_values():
    # two radii's windows at canvas (y0, x0) = (10, 20); the larger value on
    # the second radius, at window (1, 2), is canvas (11, 22); a larger value
    # outside ``within`` is not taken
    a = np.zeros((3, 4), np.float32)
    b = np.zeros((3, 4), np.float32)
    a[0, 0] = 2.0
    b[1, 2] = 3.0
    b[2, 3] = 9.0
    within = np.ones((3, 4), bool)
    within[2, 3] = False
    assert strongest_in_window((a, b), within, (10, 20)) == (3.0, 11, 22, 1)


def test_strongest_in_window_ties_go_to_the_earlier_radius():
    a = np.full((2, 2), 1.0, np.float32)
    value, cy, cx, i = strongest_in_window((a, a.copy()), np.ones((2, 2), bool), (0, 0))
    assert (value, cy, cx, i) == (1.0, 0, 0, 0)


def test_strongest_in_window_nothing_allowed_is_minus_infinity():
    a = np.ones((2, 3), np.float32)
    value, _, _, _ = strongest_in_window((a,), np.zeros((2, 3), bool), (5, 5))
    assert value == -np.inf
