"""Speed work of the twenty-ninth round: each change gives the bits of the code it replaced.

The replaced code is kept here (``ref_*``) and compared with the new code on
the canonical views of synthesized scenes (seeds 1930000 on) and on random
inputs.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from vision import discs
from vision.canonical import make_canonical_view
from vision.plate import find_plate
from vision.reader import without_shading
from vision.synth import render_scene

SEEDS = tuple(range(1930000, 1930008))


@functools.lru_cache(maxsize=None)
def _view(seed: int):
    """The shading-free canonical view of one synthesized scene (None: no plate)."""
    frame = render_scene(seed).image
    plate = find_plate(frame)
    if not plate.found:
        return None
    return without_shading(make_canonical_view(frame, plate.ellipse, plate.halved))


def _views():
    views = [v for v in (_view(s) for s in SEEDS) if v is not None]
    assert len(views) >= 5
    return views


# -- _peaks(..., limit=k): the first k peaks of the full list ------------------------------------------------------


def test_peaks_limit_same_as_prefix_on_scenes():
    for view in _views():
        allowed = view.radius_px < 0.8 * view.plate_radius_px
        for radius in (5.0, 7.3, 11.0):
            resp = discs.disc_response(view.residual, radius)
            for min_value in (0.0, float(np.median(resp[allowed]))):
                full = discs._peaks(resp, allowed, min_value, 1.6 * radius)
                for k in (0, 1, 3, 4, 7, len(full), len(full) + 2):
                    assert discs._peaks(resp, allowed, min_value, 1.6 * radius, limit=k) == full[:k]


def test_peaks_limit_same_as_prefix_on_noise_and_ties():
    rng = np.random.default_rng(1930100)
    for t in range(60):
        shape = (int(rng.integers(20, 90)), int(rng.integers(20, 90)))
        resp = rng.normal(size=shape).astype(np.float32)
        if t % 3 == 0:  # plateaus and ties
            resp = np.round(resp * 2) / 2
        allowed = rng.random(shape) < 0.9
        dist = float(rng.uniform(1.5, 9.0))
        full = discs._peaks(resp, allowed, 0.0, dist)
        for k in (1, 2, 4, max(1, len(full) // 2), len(full)):
            assert discs._peaks(resp, allowed, 0.0, dist, limit=k) == full[:k]


def test_radius_scan_unchanged():
    # the scan with the limit against the scan reading the full list
    def ref_radius_scan(residual, allowed, lo_px, hi_px):
        best_r, best_score, best_peaks = 0.0, 0.0, []
        r = lo_px
        box = discs._true_box(allowed)
        if box is None:
            return 0.0, []
        grow = max(1, discs._peak_kernel_px(discs._RADIUS_PEAK_DIST_RADII * hi_px) // 2)
        window = (box[0] - grow, box[1] + grow, box[2] - grow, box[3] + grow)
        filt = discs._DiscFilter(residual, hi_px, window)
        while r <= hi_px:
            resp = filt.response(r)
            peaks = discs._peaks(resp, allowed, 0.0, discs._RADIUS_PEAK_DIST_RADII * r, allowed_box=box)
            top = peaks[:4]
            score = float(sum(resp[y, x] for x, y in top))
            if score > best_score * (1.0 + discs.RADIUS_SCAN_TIE_REL):
                best_r, best_score, best_peaks = r, score, top
            r *= discs.RADIUS_SCAN_STEP
        return best_r, best_peaks

    for view in _views()[:4]:
        allowed = view.radius_px < 0.7 * view.plate_radius_px
        assert discs._radius_scan(view.residual, allowed, 4.0, 14.0) == ref_radius_scan(view.residual, allowed, 4.0, 14.0)

