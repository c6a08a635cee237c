"""vision.shading: the angular shading model, and the gap rule of the token search.

Checklist: smoke and shapes on a real canonical view, a bad-input table, the
empty case (a flat residual), known values (a planted first harmonic is
removed, a planted token is kept), and real pixels (a side-lit synthesized
scene whose reading needs the shading taken out).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision.canonical import CANVAS_PX, PLATE_RADIUS_PX, make_canonical_view
from vision.plate import find_plate
from vision.reader import read_frame
from vision.shading import SHADING_FADE_FRAC, SHADING_MIN_RADIUS_FRAC, angular_shading, without_shading
from vision.synth import render_scene
from vision.tokens import Candidate, _gaps_between

S = CANVAS_PX
R = PLATE_RADIUS_PX


def polar():
    yy, xx = np.mgrid[0:S, 0:S].astype(np.float64)
    c = S / 2.0 - 0.5
    return np.hypot(xx - c, yy - c), np.arctan2(yy - c, xx - c), xx, yy


def residual_with(l_channel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r, *_ = polar()
    res = np.zeros((S, S, 3), np.float32)
    res[..., 0] = np.where(r < R, l_channel, 0.0)
    return res, np.abs(res[..., 0]).astype(np.float32)


@pytest.fixture(scope="module")
def view():
    scene = render_scene(1017, "outcome")
    plate = find_plate(scene.image)
    return make_canonical_view(scene.image, plate.ellipse)


def test_smoke_shapes_and_dtypes(view):
    shade = angular_shading(view.residual, view.delta_e)
    assert shade.shape == (S, S, 3) and shade.dtype == np.float32
    flat = without_shading(view)
    for name in ("residual", "background", "delta_e"):
        assert getattr(flat, name).shape == getattr(view, name).shape
        assert getattr(flat, name).dtype == np.float32
    # the shading moves from the residual into the background; lab is untouched
    np.testing.assert_allclose(flat.residual + flat.background, view.residual + view.background, atol=1e-4)
    assert flat.lab is view.lab
    np.testing.assert_allclose(flat.delta_e, np.linalg.norm(flat.residual, axis=2), atol=1e-4)
    # the caller's view is not written to
    assert not np.shares_memory(flat.residual, view.residual)


@pytest.mark.parametrize("args, kwargs, match", [
    ((np.zeros((S, S), np.float32), np.zeros((S, S), np.float32)), {}, "residual"),
    ((np.zeros((S, S + 1, 3), np.float32), np.zeros((S, S + 1), np.float32)), {}, "residual"),
    ((np.zeros((S, S, 3), np.float32), np.zeros((S, S - 1), np.float32)), {}, "delta_e"),
    ((np.zeros((S, S, 3), np.float32), np.zeros((S, S), np.float32)), {"max_delta_e": 0.0}, "max_delta_e"),
    ((np.zeros((S, S, 3), np.float32), np.zeros((S, S), np.float32)), {"plate_radius_px": -1.0}, "plate_radius_px"),
])
def test_bad_input_names_the_parameter(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        angular_shading(*args, **kwargs)


def test_without_shading_wants_a_view():
    with pytest.raises(TypeError, match="view"):
        without_shading(np.zeros((S, S, 3), np.float32))


def test_flat_residual_has_no_shading():
    res, de = residual_with(np.zeros((S, S)))
    assert np.abs(angular_shading(res, de)).max() == 0.0


def test_planted_harmonic_is_removed_and_a_token_kept():
    r, theta, xx, yy = polar()
    rng = np.random.default_rng(7)
    # side light: 4 Lab units of first harmonic, growing with the radius
    light = 4.0 * (r / R) * np.cos(theta - 0.7)
    token = ((xx - (S / 2 + 0.5 * R)) ** 2 + (yy - S / 2) ** 2) < (0.12 * R) ** 2
    L = light + 8.0 * token + rng.normal(0.0, 0.5, (S, S))
    res, de = residual_with(L)
    shade = angular_shading(res, de)[..., 0]
    band = (r > (SHADING_MIN_RADIUS_FRAC + 0.05) * R) & (r < SHADING_FADE_FRAC * R) & ~token
    left = (L - shade)[band] - (L - light)[band]  # what is left of the light
    assert np.abs(left).mean() < 0.4, "the planted harmonic is removed"
    before = (L - light)[token].mean()
    after = (L - shade)[token].mean()
    assert after == pytest.approx(before, abs=0.1 * before), "the token is not taken away"


def test_rings_beyond_the_model_are_untouched():
    r, theta, *_ = polar()
    res, de = residual_with(3.0 * np.cos(theta))
    shade = angular_shading(res, de)[..., 0]
    assert np.all(shade[r >= 0.9 * R] == 0.0)
    assert np.abs(shade[(r > 0.4 * R) & (r < 0.7 * R)]).max() > 2.5


def test_side_lit_scene_reads_right_with_the_shading_out(view):
    """Seed 1017 (outcome, four red, lit from one side): with the ring model
    alone, the bright-to-dark shading beside a token read as an overlap."""
    scene = render_scene(1017, "outcome")
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome" and reading.red == scene.label["red"] == 4
    # and the plate's own spread is smaller once the shading is out
    on_plate = (view.radius_px < 0.8 * R) & (view.delta_e < 12)
    flat = without_shading(view)
    assert np.std(flat.residual[..., 0][on_plate]) < 0.8 * np.std(view.residual[..., 0][on_plate])


def _cand(x, y, kind="faint", contrast=8.0, r=16.0):
    return Candidate(x, y, r, kind, math.pi * r * r, 1.0, 1.0, contrast, found_by="disc_filter")


def two_faces(dist_radii: float, r: float = 16.0):
    """A residual with two pale faces of radius ``r`` side by side (8 L units), and their centres."""
    res = np.zeros((S, S, 3), np.float32)
    yy, xx = np.mgrid[0:S, 0:S]
    a, b = (100.0, 160.0), (100.0 + dist_radii * r, 160.0)
    for cx, cy in (a, b):
        res[((xx - cx) ** 2 + (yy - cy) ** 2) < r * r, 0] = 8.0
    return res, a, b


def test_gap_between_tokens_is_a_suspect_not_a_face():
    r = 16.0
    res, a, b = two_faces(2.1, r)
    gap = _cand(100.0 + 1.05 * r, 160.0 - 1.8 * r)  # between them, bare plate at its centre
    kept, gaps = _gaps_between(res, [_cand(*a), _cand(*b), gap], r)
    assert [(c.x, c.y) for c in kept] == [a, b]
    assert gaps == [(gap.x, gap.y, gap.contrast)]


def test_faint_faces_side_by_side_are_kept():
    r = 16.0
    res, a, b = two_faces(2.05, r)
    kept, gaps = _gaps_between(res, [_cand(*a), _cand(*b)], r)
    assert len(kept) == 2 and gaps == []
    # alone, even a find with a bare centre is left to the other rules
    lone = _cand(250.0, 100.0)
    assert _gaps_between(res, [lone], r) == ([lone], [])


def test_three_token_scene_with_a_gap_is_not_an_outcome():
    """Seed 1263 (three tokens, two white side by side on a cream plate): the
    plate between the white tokens answered the disc filter like a fourth face."""
    scene = render_scene(1263)
    assert scene.label["kind"] == "three_tokens"
    assert read_frame(scene.image).verdict != "outcome"
