"""The token stage's faster code gives the same results as the plain code it replaced.

Each reference below is the implementation before the speed work (round 3),
kept verbatim; the current function must agree with it exactly (bit for bit,
or the same peaks in the same order) on the intermediate images of real
frames: the studio samples and synthesized scenes.  No timing here (speed is
measured by ``bench/bench_reader.py``).
"""
from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import tokens as T
from vision.canonical import make_canonical_view
from vision.io import load_image
from vision.plate import find_plate
from vision.synth import render_scene

REPO = Path(__file__).resolve().parent.parent
#: Synthesized scenes (seed, kind) beside the studio samples.
SYNTH = ((9100, "outcome"), (9101, "touching"), (9102, "overlap"), (9103, "upright"), (9104, "offplate"),
         (9105, "five_tokens"), (9106, "tilted"))


def _views():
    frames = [load_image(p) for p in sorted((REPO / "samples" / "studio").glob("*.jpg"))]
    frames += [render_scene(seed, kind, size=(1280, 720)).image for seed, kind in SYNTH]
    views = []
    for f in frames:
        plate = find_plate(f)
        if plate.found:
            views.append(make_canonical_view(f, plate.ellipse))
    return views


@pytest.fixture(scope="module")
def views():
    vs = _views()
    assert len(vs) >= 10
    return vs


def _masked_residual(view):
    """The residual with the blobs (and a guard around them) set to 0, as find_tokens makes it."""
    mask, _ = T._blob_mask(view)
    guard = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    claimed = cv2.dilate(mask, guard).astype(bool)
    residual = view.residual.copy()
    residual[claimed] = 0.0
    return residual


# ---------------------------------------------------------------- references

def ref_peaks(response, allowed, min_value, min_dist_px):
    cross3 = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    k = max(3, int(2 * round(min_dist_px / 2) + 1))
    cand = ((response >= cv2.dilate(response, cross3)) & allowed & (response >= min_value))
    rows, cols = np.flatnonzero(cand.any(axis=1)), np.flatnonzero(cand.any(axis=0))
    if rows.size == 0:
        return []
    half = k // 2
    h, w = response.shape
    y0, y1 = max(0, int(rows[0]) - half), min(h, int(rows[-1]) + half + 1)
    x0, x1 = max(0, int(cols[0]) - half), min(w, int(cols[-1]) + half + 1)
    dil = cv2.dilate(response[y0:y1, x0:x1], cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    sub = cand[y0:y1, x0:x1] & (response[y0:y1, x0:x1] >= dil)
    ys, xs = np.nonzero(sub)
    ys, xs = ys + y0, xs + x0
    order = np.argsort(-response[ys, xs])
    kept = []
    for i in order:
        x, y = int(xs[i]), int(ys[i])
        if all((x - kx) ** 2 + (y - ky) ** 2 >= min_dist_px ** 2 for kx, ky in kept):
            kept.append((x, y))
    return kept


# ---------------------------------------------------------------- tests

def test_peaks_same_as_full_elliptical_dilation(views):
    n_peaks = 0
    for view in views:
        residual = _masked_residual(view)
        allowed = view.radius_px < T.FAINT_SEARCH_RADIUS_FRAC * view.plate_radius_px
        for r in (9.0, 14.5, 21.0, 25.6):
            resp = T.disc_response(residual, r)
            for min_value, dist in ((0.0, 1.6 * r), (3.0, 1.5 * r), (0.0, 2.0)):
                got = T._peaks(resp, allowed, min_value, dist)
                assert got == ref_peaks(resp, allowed, min_value, dist)
                n_peaks += len(got)
    assert n_peaks > 0


@pytest.mark.parametrize("seed", range(6))
def test_peaks_same_on_plateaus_and_edges(seed):
    """Quantized noise (many equal neighbours) and peaks at the image edge."""
    rng = np.random.default_rng(seed)
    resp = cv2.GaussianBlur(rng.random((60, 80)).astype(np.float32), ksize=(0, 0), sigmaX=2.0)
    resp = np.round(resp * 20).astype(np.float32) / 20
    resp[:12, :3] = resp.max() + 1  # a plateau touching the border
    allowed = rng.random(resp.shape) < 0.9
    for dist in (2.0, 5.0, 13.0, 30.0):
        assert T._peaks(resp, allowed, 0.0, dist) == ref_peaks(resp, allowed, 0.0, dist)
    assert T._peaks(resp, np.zeros_like(allowed), 0.0, 5.0) == []
