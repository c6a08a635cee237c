"""vision.overlap_edges: two faces that overlap, measured by their own edges.

A white token leaning on a white one on a pale-blue plate, with motion blur
(fresh overlap 1907063 at 800x600): every white's blob came out 12-17 %
small and the lower face's centroid lay off its centre, away from the bite,
so the two faces measured 1.96 blob radii apart, passed the close-pair test
and read an outcome.  Their edge-fitted circles are 1.75 of their own radii
apart.

Checklist: known values on drawn residuals (a pale face partly under another
at 1.7 radii, with the upper token's dark side wall along the joint, found
with a token radius measured 12 % small; two whole faces touching at 2.02
radii, and two faces well apart, not found); bad input; real pixels: the
scene reads ``rearrange`` with the rule and an outcome without it.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from drawn_residuals import blob_centre
from vision import overlap_edges
from vision.overlap_edges import edge_overlaps
from vision.reader import read_frame
from vision.synth import render_scene

R = 19.0
S = 200
FACE_L = 20.0
THR = 14.0  # the blob threshold: over half the faces' contrast, as in the case
FAINT = [FACE_L, FACE_L]
WHOLE = [True, True]


def residual(centres: list[tuple[float, float]], upper_wall: bool, blur_px: float = 2.0,
             noise: float = 1.0, seed: int = 0) -> np.ndarray:
    """A (S, S, 3) float32 residual: pale faces of radius ``R`` (L* +20) at
    ``centres``, later ones lying over earlier ones, each with a dark shadow
    ring (L* -5, 3 px) outside it on the plate; with ``upper_wall``, the
    last face's dark side wall (L* -6, 2 px) where it lies over another face.
    Blurred by ``blur_px``, seeded noise of ``noise`` Lab units."""
    yy, xx = np.mgrid[:S, :S].astype(np.float64)
    lum = np.zeros((S, S))
    inside = [np.hypot(xx - x, yy - y) for x, y in centres]
    for d in inside:
        lum[(d >= R) & (d < R + 3) & (lum == 0)] = -5.0
    for d in inside:
        lum[d < R] = FACE_L
    if upper_wall:
        last = inside[-1]
        under = np.zeros((S, S), bool)
        for d in inside[:-1]:
            under |= d < R
        lum[(last >= R) & (last < R + 2) & under] = -6.0
    lum = cv2.GaussianBlur(lum, (0, 0), blur_px)
    rng = np.random.default_rng(seed)
    out = np.zeros((S, S, 3), np.float32)
    out[..., 0] = lum + rng.normal(0.0, noise, lum.shape)
    out[..., 1] = 0.1 * lum + rng.normal(0.0, noise, lum.shape)
    out[..., 2] = -0.3 * lum + rng.normal(0.0, noise, lum.shape)
    return out


def test_overlap_found_by_edges_where_blobs_pass_it():
    c1, c2 = (90.0, 100.0), (90.0 + 1.7 * R, 100.0)
    res = residual([c1, c2], upper_wall=True)
    # the lower face's blob is bitten: its centroid lies off its centre, away from the upper face
    b1 = blob_centre(res, c1[0] - 0.5 * R, c1[1], THR)
    b2 = blob_centre(res, *c2, THR)
    assert b1[0] < c1[0] - 1.0
    small_r = 0.88 * R  # a token radius measured at the blob threshold, inside the blurred edge
    assert np.hypot(b2[0] - b1[0], b2[1] - b1[1]) / small_r > 1.8  # the close-pair test passes them
    found = edge_overlaps(res, [b1, b2], FAINT, WHOLE, [b1, b2], small_r, THR)
    assert len(found) == 1 and (found[0].i, found[0].j) == (0, 1)
    assert 1.55 < found[0].dist_edge_radii < 1.8


@pytest.mark.parametrize("dist_radii", [2.02, 2.6])
def test_whole_faces_not_found(dist_radii):
    c1, c2 = (80.0, 100.0), (80.0 + dist_radii * R, 100.0)
    res = residual([c1, c2], upper_wall=False, seed=1)
    # whole faces: their blobs' centroids are their centres (touching, the two blobs are split apart)
    assert edge_overlaps(res, [c1, c2], FAINT, WHOLE, [c1, c2], 0.88 * R, THR) == []


@pytest.mark.parametrize("contrasts, whole", [([FACE_L, 2.0 * THR], WHOLE), (FAINT, [True, False])])
def test_only_whole_faint_blobs_are_judged(contrasts, whole):
    """A face of contrast at or over twice the threshold has its blob out at its edge; a face not
    measured whole (a faint find, a half of a split blob) is the close-pair test's own."""
    c1, c2 = (90.0, 100.0), (90.0 + 1.7 * R, 100.0)
    res = residual([c1, c2], upper_wall=True)
    b1, b2 = blob_centre(res, c1[0] - 0.5 * R, c1[1], THR), blob_centre(res, *c2, THR)
    with pytest.MonkeyPatch.context() as mp:  # (pairs of whole strong blobs: tests/test_overlap_edges_strong.py)
        mp.setattr(overlap_edges, "EDGE_OVERLAP_STRONG_PAIRS", False)
        assert edge_overlaps(res, [b1, b2], contrasts, whole, [b1, b2], 0.88 * R, THR) == []


def test_bound_is_what_decides():
    c1, c2 = (90.0, 100.0), (90.0 + 1.7 * R, 100.0)
    res = residual([c1, c2], upper_wall=True)
    b1, b2 = blob_centre(res, c1[0] - 0.5 * R, c1[1], THR), blob_centre(res, *c2, THR)
    found = edge_overlaps(res, [b1, b2], FAINT, WHOLE, [b1, b2], 0.88 * R, THR)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(overlap_edges, "EDGE_OVERLAP_MAX_DIST_EDGE_RADII", found[0].dist_edge_radii - 0.01)
        assert edge_overlaps(res, [b1, b2], FAINT, WHOLE, [b1, b2], 0.88 * R, THR) == []


def test_bad_input():
    res = residual([(100.0, 100.0)], upper_wall=False)
    with pytest.raises(ValueError, match="residual"):
        edge_overlaps(res[..., 0], [(100.0, 100.0)], [FACE_L], [True], [], R, THR)
    with pytest.raises(ValueError, match="radius_px"):
        edge_overlaps(res, [(100.0, 100.0)], [FACE_L], [True], [], 0.0, THR)
    with pytest.raises(ValueError, match="blob_threshold_lab"):
        edge_overlaps(res, [(100.0, 100.0)], [FACE_L], [True], [], R, -1.0)
    with pytest.raises(ValueError, match="contrasts, whole"):
        edge_overlaps(res, [(100.0, 100.0)], [], [True], [], R, THR)
    with pytest.raises(ValueError, match="centres"):
        edge_overlaps(res, [(float("nan"), 100.0)], [FACE_L], [True], [], R, THR)


def test_scene_1907063_reads_rearrange_not_outcome():
    scene = render_scene(1907063, "overlap", size=(800, 600), conditions=None)
    assert scene.label["verdict"] == "rearrange"
    on = read_frame(scene.image)
    assert on.verdict == "rearrange", on.reason
    assert "edge radii" in on.reason
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(overlap_edges, "EDGE_OVERLAP_RULE", False)
        off = read_frame(scene.image)
    assert off.verdict == "outcome", off.reason
