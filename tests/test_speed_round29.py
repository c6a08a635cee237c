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


# -- sector_support: the two disc means without ndarray.mean's wrapper -----------------------------------------------


def test_rows_mean_same_as_mean():
    rng = np.random.default_rng(1930200)
    for t in range(400):
        n = int(rng.integers(1, 3000))
        values = (rng.normal(0, 10 ** rng.uniform(-3, 3), (n, 3))).astype(np.float32)
        if t % 5 == 0:
            values[rng.random(n) < 0.3] = -0.0
        if t % 7 == 0:
            values[int(rng.integers(n))] = np.float32(3e38)
        with np.errstate(over="ignore", invalid="ignore"):
            got, ref = discs._rows_mean(values), values.mean(axis=0)
        assert got.dtype == ref.dtype == np.float32
        assert got.tobytes() == ref.tobytes()


def ref_sector_support(residual, x, y, radius_px):
    """``discs.sector_support`` as it was (``ndarray.mean``)."""
    import math
    s = residual.shape[0]
    half = int(math.ceil(discs.DISC_SURROUND_FRAC[1] * radius_px + 1))
    x0, x1 = max(0, int(x) - half), min(s, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(s, int(y) + half + 1)
    if not (float(x).is_integer() and float(y).is_integer() and x1 - x0 == y1 - y0 == 2 * half + 1):
        return discs._sector_support_direct(residual, x, y, radius_px)
    face_idx, ring_idx, face_cols, ring_cols, face_counts, ring_counts = discs._sector_window(radius_px, half)
    if face_idx.size == 0 or ring_idx.size == 0:
        return 0, 0.0
    patch = np.zeros(((2 * half + 1) ** 2 + 1, 3), np.float32)
    patch[:-1].reshape(2 * half + 1, 2 * half + 1, 3)[...] = residual[y0:y1, x0:x1]
    overall = patch[face_idx].mean(axis=0) - patch[ring_idx].mean(axis=0)
    norm = float(np.linalg.norm(overall))
    if norm <= 0:
        return 0, 0.0
    u = overall / norm
    face_means = discs._column_means(patch, face_cols, face_counts)
    ring_means = discs._column_means(patch, ring_cols, ring_counts)
    n = 0
    for k in range(discs.SUPPORT_SECTORS):
        if face_counts[k] > 0 and ring_counts[k] > 0:
            d = face_means[k] - ring_means[k]
            n += int(float(d @ u) >= discs.EDGE_SECTOR_SHARE * norm)
    return n, norm


def test_sector_support_unchanged_on_scenes():
    rng = np.random.default_rng(1930300)
    for view in _views():
        s = view.residual.shape[0]
        for _ in range(60):
            x, y = (float(v) for v in rng.integers(0, s, 2))
            r = float(rng.uniform(3.0, 16.0))
            got = discs.sector_support(view.residual, x, y, r)
            ref = ref_sector_support(view.residual, x, y, r)
            assert got[0] == ref[0] and np.float64(got[1]).tobytes() == np.float64(ref[1]).tobytes()


# -- grids.open_grid: np.ogrid's arrays ------------------------------------------------------------------------------


def test_open_grid_same_as_ogrid():
    from vision.grids import open_grid
    rng = np.random.default_rng(1930400)
    for _ in range(300):
        y0, x0 = (int(v) for v in rng.integers(-5, 320, 2))
        y1, x1 = y0 + int(rng.integers(-2, 60)), x0 + int(rng.integers(-2, 60))
        rr, cc = open_grid(y0, y1, x0, x1)
        ry, rx = np.ogrid[y0:y1, x0:x1]
        assert rr.dtype == ry.dtype and cc.dtype == rx.dtype
        assert rr.shape == ry.shape and cc.shape == rx.shape
        assert np.array_equal(rr, ry) and np.array_equal(cc, rx)
        x, y, r = float(rng.uniform(0, 320)), float(rng.uniform(0, 320)), float(rng.uniform(1, 30))
        a = (cc - x) ** 2 + (rr - y) ** 2 < r ** 2
        b = (rx - x) ** 2 + (ry - y) ** 2 < r ** 2
        assert a.shape == b.shape and np.array_equal(a, b)


# -- the candidates' disc means and faint_extent's face mean by _rows_mean -------------------------------------------


def test_rows_mean_other_dtypes_as_mean():
    rng = np.random.default_rng(1930500)
    for dtype in (np.float64, np.float16, np.int32, np.uint8):
        values = (rng.uniform(0, 100, (37, 3))).astype(dtype)
        got, ref = discs._rows_mean(values), values.mean(axis=0)
        assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()


def test_mean_residual_and_faint_extent_unchanged_on_scenes():
    from vision.candidates import _mean_residual, _patch_around
    from vision.faint_faces import faint_extent

    def ref_mean_residual(residual, x, y, radius_px):
        patch, rr, cc = _patch_around(residual, x, y, radius_px)
        sel = (cc - x) ** 2 + (rr - y) ** 2 < radius_px ** 2
        if not sel.any():
            return np.zeros(3, np.float32)
        return patch[sel].mean(axis=0)

    rng = np.random.default_rng(1930600)
    for view in _views():
        s = view.residual.shape[0]
        for _ in range(40):
            x, y = (float(v) for v in rng.uniform(-3, s + 3, 2))
            if rng.random() < 0.5:
                x, y = float(round(x)), float(round(y))
            r = float(rng.uniform(0.3, 15.0))
            got, ref = _mean_residual(view.residual, x, y, r), ref_mean_residual(view.residual, x, y, r)
            assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()
        # faint_extent's face mean: the old arithmetic through ndarray.mean, patched in
        for _ in range(10):
            x, y = (float(v) for v in rng.integers(20, s - 20, 2))
            r = float(rng.uniform(4.0, 12.0))
            got = faint_extent(view.residual, x, y, r)
            saved = discs._rows_mean
            import vision.faint_faces as ff
            ff._rows_mean = lambda v: v.mean(axis=0)
            try:
                ref = faint_extent(view.residual, x, y, r)
            finally:
                ff._rows_mean = saved
            assert repr(got) == repr(ref)
