"""vision.overlap_edges, pairs of whole blobs with a strong face: judged by their edges too.

A pinkish red token leaning on another red (1.72 true radii apart, the one
under 10 % hidden), dark token bodies on a black-lacquer plate, under-exposed,
JPEG quality 44 (2025445 at 1280x720, every condition drawn): the level
of half each clear disc's peak cut inside the faces' shaded, blurred edges,
so the token radius
came out 0.93 of the true one and the two blobs 1.83 of it apart, past the
close-pair bound (1.8); the faces, 2.2-2.3 blob thresholds strong, were
past the faint-pair gate of the edge rule, and the frame read an outcome.
Their edge-fitted centres are 1.66 of their fitted radii (0.99-1.02 of the
true one) apart.

Checklist: drawn residuals (a strong face partly under another at 1.65
radii with the token radius measured small is found; strong faces touching
at 2.02 radii, with a face-coloured side wall that widens the edge fit, and
strong faces well apart, are not; the switch is what decides; a face not
measured whole is left to the close-pair test); real pixels: the case, and
fresh 2057163 (a red leaning on a white, black lacquer, dark bodies, 1280x720),
read ``rearrange`` with the rule and an outcome without it.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scripts.synth_table import draw_conditions
from drawn_residuals import blob_centre
from vision import overlap_edges
from vision.overlap_edges import edge_overlaps
from vision.reader import read_frame
from vision.synth import render_scene

R = 16.0
S = 200
FACE_L = 40.0
THR = 18.0  # the blob threshold: under half the faces' contrast (2.2 thresholds), as in the case
STRONG = [FACE_L, FACE_L]
WHOLE = [True, True]


def residual(centres: list[tuple[float, float]], wall_px: float = 0.0, wall_l: float = 0.0,
             upper_wall: bool = False, blur_px: float = 1.5, noise: float = 1.5, seed: int = 0) -> np.ndarray:
    """A (S, S, 3) float32 residual: faces of radius ``R`` (L* +40, a* +16) at
    ``centres``, later ones over earlier ones; each with a ring ``wall_px`` wide
    of L* ``wall_l`` in the face's colour direction outside it (a side wall in
    the face's own colour); with ``upper_wall``, the last face's dark side wall
    (3 px, a little darker than the plate) where it lies over another face.  The faces'
    outer fifth is shaded by up to a fifth (a bevel).  Blurred by ``blur_px``,
    seeded noise of ``noise`` Lab units."""
    yy, xx = np.mgrid[:S, :S].astype(np.float64)
    lum = np.zeros((S, S))
    dists = [np.hypot(xx - x, yy - y) for x, y in centres]
    for d in dists:
        lum[(d >= R) & (d < R + wall_px) & (lum == 0)] = wall_l
    for d in dists:
        rho = d / R
        lum[d < R] = FACE_L * (1.0 - 0.2 * np.clip((rho[d < R] - 0.8) / 0.2, 0.0, 1.0))
    if upper_wall:
        under = np.zeros((S, S), bool)
        for d in dists[:-1]:
            under |= d < R
        lum[(dists[-1] >= R) & (dists[-1] < R + 3) & under] = -5.0
    lum = cv2.GaussianBlur(lum, (0, 0), blur_px)
    rng = np.random.default_rng(seed)
    out = np.zeros((S, S, 3), np.float32)
    out[..., 0] = lum + rng.normal(0.0, noise, lum.shape)
    out[..., 1] = 0.4 * lum + rng.normal(0.0, noise, lum.shape)
    out[..., 2] = 0.1 * lum + rng.normal(0.0, noise, lum.shape)
    return out


def test_strong_overlap_with_small_token_radius_found():
    # 1.65 radii: the case's faces as seen (the leaning face's centre lies raised towards the one under)
    c1, c2 = (90.0, 100.0), (90.0 + 1.65 * R, 100.0)
    res = residual([c1, c2], upper_wall=True)
    b1, b2 = blob_centre(res, c1[0] - 0.5 * R, c1[1], THR), blob_centre(res, *c2, THR)
    small_r = 0.93 * R  # the token radius as measured on the case's dark plate
    assert np.hypot(b2[0] - b1[0], b2[1] - b1[1]) / small_r > 1.8  # the close-pair test passes them
    found = edge_overlaps(res, [b1, b2], STRONG, WHOLE, [b1, b2], small_r, THR)
    assert [(e.i, e.j) for e in found] == [(0, 1)]
    assert found[0].dist_edge_radii < 1.8
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(overlap_edges, "EDGE_OVERLAP_STRONG_PAIRS", False)
        assert edge_overlaps(res, [b1, b2], STRONG, WHOLE, [b1, b2], small_r, THR) == []


@pytest.mark.parametrize("dist_radii", [2.02, 2.6])
def test_strong_touching_with_face_coloured_wall_not_found(dist_radii):
    """Strong whole faces touching, each with a side wall of its own colour (3 px, 0.6 of its
    contrast) that widens its edge fit about a tenth, or well apart, are not found."""
    c1, c2 = (80.0, 100.0), (80.0 + dist_radii * R, 100.0)
    res = residual([c1, c2], wall_px=3.0, wall_l=0.6 * FACE_L, seed=1)
    found_fr = edge_overlaps(res, [c1, c2], [FACE_L, FACE_L], WHOLE, [c1, c2], 1.1 * R, THR)
    assert found_fr == []


def test_strong_pair_needs_both_whole():
    c1, c2 = (90.0, 100.0), (90.0 + 1.7 * R, 100.0)
    res = residual([c1, c2], upper_wall=True)
    b1, b2 = blob_centre(res, c1[0] - 0.5 * R, c1[1], THR), blob_centre(res, *c2, THR)
    assert edge_overlaps(res, [b1, b2], STRONG, [True, False], [b1, b2], 0.93 * R, THR) == []


@pytest.mark.parametrize("seed, specs", [
    (2025445, []),
    (2057163, [("glaze", "black_lacquer"), ("token_body", "dark"), ("overlap_style", "leaning")]),
])
def test_scene_1280x720_not_an_outcome(seed, specs):
    scene = render_scene(seed, "overlap", size=(1280, 720), conditions=draw_conditions(seed, specs))
    assert scene.label["verdict"] == "rearrange"
    on = read_frame(scene.image)
    assert on.verdict != "outcome", on.reason
    assert on.verdict == "rearrange" and "edge radii" in on.reason, on.reason
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(overlap_edges, "EDGE_OVERLAP_STRONG_PAIRS", False)
        off = read_frame(scene.image)
    assert off.verdict == "outcome", off.reason
