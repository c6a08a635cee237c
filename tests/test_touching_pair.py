"""vision.touching_pair: two faces read as touching by circles fitted to their own edges.

Two pale faces touching on a pale plate were read ``rearrange`` or
``uncertain`` (found 1.7-2.0 frame radii apart, one faint); each face's own
edge fit on the rays away from its neighbour gives two whole circles two of
their own radii apart.  A face partly under another keeps its own circle on
its far side, so an overlap measures its true offset and is not released.

Checklist: known values on drawn residuals (touching pair, overlapping pair
drawn one over the other, a cut or ragged face, a pair outside the measured
range), the switch, bad inputs, and real pixels (a fresh touching scene on
white porcelain read as an outcome only with the rule; a fresh leaning
overlap on cream that measures like a touching pair still not an outcome).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.touching_pair as tp
from vision.reader import read_frame
from vision.synth import render_scene

S = 200
R = 14.0
PALE = (6.0, -1.0, 4.0)  # a faint white face's difference from a white plate (Lab units)
SCALE = 8  # sub-pixel drawing: cv2 shift bits


def draw_disc(res: np.ndarray, cx: float, cy: float, radius: float, colour) -> None:
    cv2.circle(res, (int(round(cx * SCALE)), int(round(cy * SCALE))), int(round(radius * SCALE)), colour,
               thickness=cv2.FILLED, lineType=cv2.LINE_AA, shift=3)


def pair_residual(dist_radii: float, seed: int, cut: float = 0.0) -> tuple[np.ndarray, tuple, tuple]:
    """Two pale faces ``dist_radii`` token radii apart, the second drawn over the
    first, blurred and with noise; ``cut`` token radii of the first face's far
    side cleared (a ragged, not round, outline)."""
    rng = np.random.default_rng(seed)
    res = np.zeros((S, S, 3), np.float32)
    a = (S / 2 - dist_radii * R / 2, S / 2 + 3.0)
    b = (a[0] + dist_radii * R * math.cos(-0.2), a[1] + dist_radii * R * math.sin(-0.2))
    draw_disc(res, *a, R, PALE)
    draw_disc(res, *b, R, PALE)
    if cut:
        res[:, : int(a[0] - R + cut * R)] = 0.0
    res = cv2.GaussianBlur(res, (0, 0), 1.0)
    res += rng.normal(0.0, 0.4, res.shape).astype(np.float32)
    return res, a, b


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_touching_pair_measures_two_own_radii_and_reads_touching(seed):
    res, a, b = pair_residual(2.02, seed)
    m = tp.measure_pair(res, a, b, [], R)
    assert 1.95 <= m.own_dist_radii <= 2.1
    assert 0.9 <= m.radius_a <= 1.1 and 0.9 <= m.radius_b <= 1.1
    assert m.edge_share_a >= 0.8 and m.edge_share_b >= 0.8
    assert m.touching


@pytest.mark.parametrize("dist", [1.5, 1.75, 1.85])
def test_overlapping_pair_measures_its_offset_and_is_not_touching(dist):
    res, a, b = pair_residual(dist, 7)
    m = tp.measure_pair(res, a, b, [], R)
    assert abs(m.own_dist_radii - dist) < 0.08
    assert not m.touching


def test_a_face_found_off_its_centre_still_measures_by_its_edge():
    # the finder puts a faint face's peak off its centre, away from its neighbour
    res, a, b = pair_residual(2.02, 4)
    away = (a[0] - 0.25 * R, a[1])
    m = tp.measure_pair(res, away, b, [], R)
    assert 1.95 <= m.own_dist_radii <= 2.1 and m.touching


def test_a_cut_face_is_not_a_whole_outline():
    res, a, b = pair_residual(2.02, 5, cut=0.5)
    m = tp.measure_pair(res, a, b, [], R)
    assert not m.touching


def test_touching_pairs_measures_only_the_range_and_obeys_the_switch(monkeypatch):
    res, a, b = pair_residual(2.02, 6)
    pairs = [(a, b, 1.85), (a, b, 1.6), (a, b, 2.05)]
    assert tp.touching_pairs(res, pairs, [a, b], R, 2.0) == [True, False, False]
    monkeypatch.setattr(tp, "TOUCHING_PAIR_RULE", False)
    assert tp.touching_pairs(res, pairs, [a, b], R, 2.0) == [False, False, False]


def test_bad_inputs_raise():
    res, a, b = pair_residual(2.02, 8)
    with pytest.raises(ValueError, match="residual"):
        tp.measure_pair(res[..., 0], a, b, [], R)
    with pytest.raises(ValueError, match="radius_px"):
        tp.measure_pair(res, a, b, [], 0.0)
    with pytest.raises(ValueError, match="radius_px"):
        tp.touching_pairs(res, [], [], math.nan, 2.0)
    with pytest.raises(ValueError, match="a"):
        tp.measure_pair(res, (math.nan, 1.0), b, [], R)
    with pytest.raises(ValueError, match="reach_radii"):
        tp.measure_pair(res, a, b, [], R, reach_radii=-1.0)


def _pale(seed: int, kind: str, size: tuple[int, int], **extra) -> np.ndarray:
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from synth_table import draw_conditions, parse_condition
    specs = [parse_condition("glaze=white_porcelain,cream")] + [parse_condition(f"{k}={v}") for k, v in extra.items()]
    return render_scene(seed, kind, size=size, conditions=draw_conditions(seed, specs))


def test_touching_whites_on_white_porcelain_read_as_an_outcome_only_with_the_rule(monkeypatch):
    # fresh touching scene 2100062 at 1280x720: a faint face 1.99 radii from another by edges
    scene = _pale(2100062, "touching", (1280, 720))
    assert scene.label["verdict"] == "outcome"
    on = read_frame(scene.image)
    assert (on.verdict, on.red) == ("outcome", scene.label["red"])
    monkeypatch.setattr(tp, "TOUCHING_PAIR_RULE", False)
    off = read_frame(scene.image)
    assert off.verdict == "uncertain" and "faint" in off.reason


def test_a_leaning_overlap_that_looks_like_touching_is_not_an_outcome():
    # fresh leaning overlap 2100259 at 1024x768 (offset 1.73 true radii, 1.825 of its own radii by the fits)
    scene = _pale(2100259, "overlap", (1024, 768), overlap_style="raised,leaning")
    assert scene.label["verdict"] == "rearrange"
    assert read_frame(scene.image).verdict != "outcome"


def test_small_fits_two_own_radii_apart_but_under_two_frame_radii_are_not_touching(monkeypatch):
    # two faces drawn 0.91 of the frame's radius, a hair apart: two of their own radii apart,
    # only 1.87 of the frame's; the frame bound (TOUCH_MIN_FRAME_DIST_RADII) holds them
    small = 0.91 * R
    rng = np.random.default_rng(11)
    res = np.zeros((S, S, 3), np.float32)
    a = (S / 2 - 1.025 * small, S / 2)
    b = (S / 2 + 1.025 * small, S / 2)
    draw_disc(res, *a, small, PALE)
    draw_disc(res, *b, small, PALE)
    res = cv2.GaussianBlur(res, (0, 0), 1.0) + rng.normal(0.0, 0.4, res.shape).astype(np.float32)
    m = tp.measure_pair(res, a, b, [], R)
    assert m.own_dist_radii >= tp.TOUCH_MIN_OWN_DIST_RADII
    assert 1.8 <= m.frame_dist_radii < tp.TOUCH_MIN_FRAME_DIST_RADII
    assert not m.touching
    monkeypatch.setattr(tp, "TOUCH_MIN_FRAME_DIST_RADII", 1.8)
    assert m.touching
