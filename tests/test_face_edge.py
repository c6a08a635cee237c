"""vision.face_edge: a face's shape at its own edge, on drawn residuals and on synthesized scenes."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import face_edge as fe

SIZE = 96
FACE = np.array([-20.0, 30.0, 12.0], np.float32)  # a red face's Lab difference from the plate (|FACE| ~ 38)


def _residual(shapes, noise=1.5, seed=0, blur=1.2):
    """Residual (SIZE, SIZE, 3): ``shapes`` are (mask, colour) drawn in order, blurred, plus seeded noise."""
    res = np.zeros((SIZE, SIZE, 3), np.float32)
    for mask, colour in shapes:
        res[mask] = colour
    res = cv2.GaussianBlur(res, (0, 0), blur)
    return res + np.random.default_rng(seed).normal(0, noise, res.shape).astype(np.float32)


def _ellipse(cx, cy, a, b, angle_deg=0.0):
    m = np.zeros((SIZE, SIZE), np.uint8)
    cv2.ellipse(m, ((cx, cy), (2 * a, 2 * b), angle_deg), 1, -1)
    return m.astype(bool)


def test_round_face_measures_round_at_its_radius():
    for seed in range(5):
        e = fe.face_edge(_residual([(_ellipse(48, 48, 14, 14), FACE)], seed=seed), 48.0, 48.0, 14.0)
        assert e is not None
        assert e.axis_ratio >= 0.95, (seed, e)
        assert abs(e.mean_radius_px - 14.0) < 1.0, (seed, e)
        assert e.ray_share >= 0.9 and e.offset_px < 1.0


def test_tilted_face_measures_its_own_ratio():
    # a face tilted by acos(0.75) ~ 41 deg: b/a 0.75, at any direction
    for seed, ang in enumerate((0.0, 35.0, 90.0, 140.0)):
        e = fe.face_edge(_residual([(_ellipse(48, 48, 14, 10.5, ang), FACE)], seed=seed), 48.0, 48.0, 14.0)
        assert e is not None
        assert 0.70 <= e.axis_ratio <= 0.80, (ang, e)
        assert not fe.round_at_edge(_residual([(_ellipse(48, 48, 14, 10.5, ang), FACE)], seed=seed),
                                    48.0, 48.0, 14.0, 0.80)


def test_face_at_the_bound_is_not_cleared():
    # b/a 0.85, the blob bound itself: its edge reads under EDGE_ROUND_MIN_AXIS_RATIO
    for seed in range(6):
        res = _residual([(_ellipse(48, 48, 14, 11.9, 30.0 * seed), FACE)], seed=seed)
        e = fe.face_edge(res, 48.0, 48.0, 14.0)
        assert e is not None and e.axis_ratio < fe.EDGE_ROUND_MIN_AXIS_RATIO, (seed, e)
        assert not fe.round_at_edge(res, 48.0, 48.0, 14.0, 0.84)


def test_shadow_crescent_is_not_the_face():
    # a dark crescent joined to one side (shadow, side wall): it projects against a lit face's colour
    shadow = _ellipse(48, 44, 14, 14) & ~_ellipse(48, 48, 14, 14)
    res = _residual([(shadow, np.array([-25.0, 0.0, 0.0], np.float32)), (_ellipse(48, 48, 14, 14), FACE)], seed=3)
    e = fe.face_edge(res, 48.0, 47.0, 14.0)
    assert e is not None and e.axis_ratio >= 0.93, e
    assert fe.round_at_edge(res, 48.0, 47.0, 14.0, 0.80)


def test_touching_neighbour_of_its_colour_is_dropped():
    res = _residual([(_ellipse(36, 48, 12, 12), FACE), (_ellipse(60, 48, 12, 12), FACE)], seed=4)
    e = fe.face_edge(res, 36.0, 48.0, 12.0)
    assert e is not None and e.axis_ratio >= 0.9 and e.ray_share < 1.0, e


def test_face_partly_hidden_is_not_round():
    # a face with a third of it under a white face: the rays stopped short stay in the fit
    white = np.array([25.0, -2.0, -4.0], np.float32)
    res = _residual([(_ellipse(48, 48, 14, 14), FACE), (_ellipse(48 + 22, 48, 14, 14), white)], seed=5)
    assert not fe.round_at_edge(res, 46.0, 48.0, 14.0, 0.78)


def test_faint_face_is_not_trusted():
    res = _residual([(_ellipse(48, 48, 14, 14), FACE * (8.0 / float(np.linalg.norm(FACE))))], seed=6)
    e = fe.face_edge(res, 48.0, 48.0, 14.0)
    assert e is not None and e.core_lab < fe.EDGE_ROUND_MIN_CORE_LAB
    assert not fe.round_at_edge(res, 48.0, 48.0, 14.0, 0.80)


def test_bar_blob_and_small_fragment_are_not_cleared():
    res = _residual([(_ellipse(48, 48, 14, 14), FACE)], seed=7)
    assert fe.round_at_edge(res, 48.0, 48.0, 14.0, 0.80)
    assert not fe.round_at_edge(res, 48.0, 48.0, 14.0, 0.60)  # a bar by its blob: a token on edge
    small = _residual([(_ellipse(48, 48, 8, 8), FACE)], seed=7)
    assert not fe.round_at_edge(small, 48.0, 48.0, 14.0, 0.80)  # 0.57 of a face's radius


def test_plate_alone_gives_no_edge():
    assert fe.face_edge(_residual([], seed=8), 48.0, 48.0, 14.0) is None


def test_bad_arguments_raise():
    res = _residual([(_ellipse(48, 48, 14, 14), FACE)])
    with pytest.raises(TypeError, match="residual"):
        fe.face_edge(res.tolist(), 48.0, 48.0, 14.0)
    with pytest.raises(ValueError, match="residual"):
        fe.face_edge(res[..., 0], 48.0, 48.0, 14.0)
    with pytest.raises(ValueError, match="token_r"):
        fe.face_edge(res, 48.0, 48.0, 0.0)
    with pytest.raises(ValueError, match="x"):
        fe.face_edge(res, math.nan, 48.0, 14.0)
    with pytest.raises(ValueError, match="blob_axis_ratio"):
        fe.round_at_edge(res, 48.0, 48.0, 14.0, 1.5)


def _read(seed, size=(640, 480), rule=True, monkeypatch=None):
    from vision.reader import read_frame
    from vision.synth import render_scene

    monkeypatch.setattr(fe, "EDGE_ROUND_RULE", rule)
    scene = render_scene(seed, "outcome", size=size)
    return scene.label, read_frame(scene.image)


def test_scene_face_cut_by_the_threshold_is_read(monkeypatch):
    # fresh four flat tokens 2150656 at 640x480: a red face's blob 0.75 round (the rest 0.92+), its edge 0.96
    label, off = _read(2150656, rule=False, monkeypatch=monkeypatch)
    assert off.verdict == "uncertain" and "not clearly a flat face" in off.reason
    label, on = _read(2150656, rule=True, monkeypatch=monkeypatch)
    assert on.verdict == "outcome" and on.red == label["red"]


def test_scene_face_drawn_out_at_its_edge_stays_uncertain(monkeypatch):
    # fresh four flat tokens 2150629 at 640x480: a red face's blob 0.82 round and its edge only 0.87: not cleared
    label, on = _read(2150629, rule=True, monkeypatch=monkeypatch)
    assert on.verdict == "uncertain" and "not clearly a flat face" in on.reason
