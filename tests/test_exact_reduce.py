"""NumPy's reductions redone for many segments at once give NumPy's own bits.

``vision.exact_reduce`` reproduces ``np.add.reduce`` / ``ndarray.mean`` of
float32 segments and ``np.percentile`` (linear); the outline test's sector
means and the ring colours of the canonical view use it or cached indices.
Each is compared bit for bit with the plain NumPy computation (or the code it
replaced, kept verbatim) on random arrays and on the arrays of real frames.
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import outline as O
from vision.canonical import make_canonical_view
from vision.exact_reduce import (PAIRWISE_BLOCK_VALUES, pairwise_layout, percentile_linear, segment_means_f32,
                                 segment_sums_f32)
from vision.io import load_image
from vision.plate import find_plate
from vision.shading import without_shading
from vision.synth import render_scene

REPO = Path(__file__).resolve().parent.parent
#: Synthesized scenes (seed, kind) beside the studio samples.
SYNTH = ((9200, "outcome"), (9201, "touching"), (9202, "overlap"), (9203, "upright"))


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.fixture(scope="module")
def views():
    frames = [load_image(p) for p in sorted((REPO / "samples" / "studio").glob("*.jpg"))[::3]]
    frames += [render_scene(seed, kind, size=(1280, 720)).image for seed, kind in SYNTH]
    out = []
    for f in frames:
        plate = find_plate(f)
        if plate.found:
            out.append(make_canonical_view(f, plate.ellipse))
    assert len(out) >= 6
    return out


def _random_segments(rng, max_count):
    counts = rng.integers(0, max_count, int(rng.integers(1, 40)))
    n = int(counts.sum())
    values = (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)).astype(np.float32)
    values[rng.random(n) < 0.1] = -0.0
    values[rng.random(n) < 0.1] = 0.0
    return values, counts


def _numpy_segments(values, counts, fn):
    ends = np.cumsum(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty segment
        return np.array([fn(values[e - c:e]) for e, c in zip(ends, counts)], dtype=np.float32)


@pytest.mark.parametrize("seed", range(6))
def test_segment_sums_and_means_same_bits_on_random_values(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        # up to and past the pairwise block (past it: NumPy's own sum per segment)
        values, counts = _random_segments(rng, 40 if seed % 2 else PAIRWISE_BLOCK_VALUES + 60)
        assert np.array_equal(_bits(segment_sums_f32(values, counts)),
                              _bits(_numpy_segments(values, counts, np.add.reduce)))
        assert np.array_equal(_bits(segment_means_f32(values, counts)),
                              _bits(_numpy_segments(values, counts, np.mean)))


def test_pairwise_layout_places_every_value_once():
    counts = np.array([0, 1, 7, 8, 9, 16, 23, 128])
    blocks, rest = pairwise_layout(counts)
    total = int(counts.sum())
    used = np.concatenate([blocks.ravel(), rest.ravel()])
    assert np.array_equal(np.sort(used[used < total]), np.arange(total))
    assert pairwise_layout(np.array([3, PAIRWISE_BLOCK_VALUES + 1])) is None
    with pytest.raises(ValueError):
        pairwise_layout(np.array([-1]))
    with pytest.raises(ValueError):
        segment_sums_f32(np.zeros(3, np.float64), np.array([3]))


def test_percentile_linear_same_bits():
    rng = np.random.default_rng(7)
    for i in range(3000):
        n = int(rng.integers(1, 20))
        d = [float(v) for v in (rng.standard_normal(n) * 3).astype(np.float32)]
        if i % 4 == 0:
            d = [float(round(v)) for v in d]  # ties and zeros
        if i % 50 == 0:
            d[0] = math.nan
        for q in (0, 2, 5, 25, 50, 90, 95, 98, 100):
            want = np.percentile(d, q)
            assert _bits(np.float64(percentile_linear(d, q))) == _bits(want)


def ref_sector_contrasts(patch, radius_px, seen):
    """``outline._sector_contrasts`` before the round-9 speed work, verbatim."""
    _, _, ring_order, ring_bounds, sides_order, sides_bounds = O._outline_sector_order(radius_px)
    per_sector, unmeasured = [], 0
    for k in range(O.OUTLINE_SECTORS):
        ring_k = ring_order[ring_bounds[k]:ring_bounds[k + 1]]
        sides_k = sides_order[sides_bounds[k]:sides_bounds[k + 1]]
        if ring_k.size == 0 or sides_k.size == 0:
            continue
        if seen is not None:
            ring_seen, sides_seen = ring_k[seen[ring_k]], sides_k[seen[sides_k]]
            if (ring_seen.size < O.OUTLINE_MIN_VISIBLE_SHARE * ring_k.size
                    or sides_seen.size < O.OUTLINE_MIN_VISIBLE_SHARE * sides_k.size):
                unmeasured += 1
                continue
            ring_k, sides_k = ring_seen, sides_seen
        per_sector.append(float(patch[sides_k].mean()) - float(patch[ring_k].mean()))
    return per_sector, unmeasured


def test_sector_contrasts_and_outline_support_same_bits(views):
    rng = np.random.default_rng(3)
    checked = 0
    for view in views:
        lightness = without_shading(view).residual[..., 0].copy()
        s = lightness.shape[0]
        hidden = np.zeros(lightness.shape, bool)
        for _ in range(4):
            cv2.circle(hidden.view(np.uint8), (int(rng.integers(60, 260)), int(rng.integers(60, 260))),
                       int(rng.integers(5, 30)), 1, cv2.FILLED)
        for _ in range(60):
            r = float(rng.uniform(4, 30))  # small sectors (< 8 values) to large ones (NumPy's own sums)
            x, y = int(rng.integers(0, s)), int(rng.integers(0, s))
            window = O._outline_window(lightness, x, y, r)
            if window is None:
                continue
            patch, half = window
            for mask in (None, hidden):
                seen = None if mask is None else ~mask[y - half:y + half + 1, x - half:x + half + 1].ravel()
                got = O._sector_contrasts(patch, r, seen)
                want = ref_sector_contrasts(patch, r, seen)
                assert got[1] == want[1]
                assert np.array_equal(_bits(np.array(got[0], np.float64)), _bits(np.array(want[0], np.float64)))
                support = O.outline_support(lightness, x, y, r, mask)
                per_sector = want[0]
                if per_sector:  # the support's evenness is the plain percentile of these
                    d = np.asarray(per_sector)
                    contrast = support[1]
                    evenness = float(np.percentile(d, 25)) / contrast if contrast > 0 else 0.0
                    assert _bits(np.float64(support[2])) == _bits(np.float64(evenness))
                checked += 1
    assert checked > 200


def test_ring_colour_same_bits_as_boolean_selection(views):
    for view in views:
        r = view.radius_px / view.plate_radius_px
        for inner, outer in ((0.0, 0.3), (0.6, 0.75), (0.88, 0.96), (0.2, 0.21)):
            want = np.median(view.lab[(r >= inner) & (r < outer)], axis=0)
            got = view.ring_colour(inner, outer)
            assert got.dtype == want.dtype and np.array_equal(_bits(got), _bits(want))
        # a NumPy float fraction compares in float64: the uncached selection, as before
        inner = np.float64(0.6)
        want = np.median(view.lab[(r >= inner) & (r < 0.75)], axis=0)
        assert np.array_equal(_bits(view.ring_colour(inner, 0.75)), _bits(want))


@pytest.mark.parametrize("seed", range(4))
def test_nanmedian_last_axis_same_bits(seed):
    from vision.exact_reduce import nanmedian_last_axis
    rng = np.random.default_rng(seed)
    for i in range(300):
        shape = (int(rng.integers(1, 4)), int(rng.integers(1, 30)), int(rng.integers(1, 40)))
        a = np.abs(rng.standard_normal(shape)) * 10.0 ** rng.uniform(-3, 3)
        if i % 3 == 0:
            a = np.round(a)  # ties and zeros
        a[rng.random(shape) < rng.uniform(0, 0.9)] = np.nan
        if i % 7 == 0:
            a[..., 0] = np.inf  # NumPy's own path
        if i % 11 == 0:
            a[rng.random(shape) < 0.2] = -0.0  # NumPy's own path
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows (NumPy's own path)
            want = np.nanmedian(a, axis=-1, keepdims=True)
            got = nanmedian_last_axis(a)
        assert got.shape == want.shape and np.array_equal(_bits(got), _bits(want))


def ref_shading_at_plate(residual, delta_e, max_delta_e, geo):
    """``shading._shading_at_plate`` before the round-9 speed work, verbatim
    (with the previous ``_cell_fit`` and ``np.nanmedian`` in the fit)."""
    from vision import shading as S

    def robust_harmonic(means, ok, design):
        n_min = S.SHADING_MIN_CELL_SHARE * means.shape[-1]
        w = np.broadcast_to(ok, means.shape).astype(np.float64)
        coef = S._fit(means, w, design)
        dev = np.abs(means - coef @ design.T)
        dev_ok = np.where(w > 0, dev, np.nan)
        dev_ok[~(w > 0).any(axis=-1)] = 0.0
        scale = 1.4826 * np.nanmedian(dev_ok, axis=-1, keepdims=True)
        keep = (w > 0) & (dev <= np.maximum(S.SHADING_OUTLIER_SIGMAS * scale, S.SHADING_MIN_OUTLIER_LAB))
        coef = S._fit(means, keep.astype(np.float64), design)
        coef[keep.sum(axis=-1) < n_min] = 0.0
        return coef

    def cell_fit(cells, flat, n_bands, design, cell_px):
        n_cells = n_bands * S.SHADING_ANGLE_CELLS
        counts_b = np.bincount(cells, minlength=n_cells).reshape(n_bands, S.SHADING_ANGLE_CELLS)
        ok = (counts_b >= S.SHADING_MIN_CELL_PX) & (counts_b >= S.SHADING_MIN_CELL_COVER * cell_px)
        sums = np.stack([np.bincount(cells, weights=flat[:, ch], minlength=n_cells) for ch in range(3)])
        means = sums.reshape(3, n_bands, S.SHADING_ANGLE_CELLS) / np.maximum(counts_b, 1)
        return robust_harmonic(means, ok, design).transpose(1, 0, 2)

    values = residual[geo.box].reshape(-1, 3)
    use = (geo.cell >= 0) & (delta_e[geo.box].ravel() <= max_delta_e)
    cells = geo.cell[use]
    flat = values[use]
    design = np.stack([np.ones(S.SHADING_ANGLE_CELLS), geo.cell_cos, geo.cell_sin], axis=1)
    coef = cell_fit(cells, flat, geo.n_bands, design, geo.cell_px)[..., 1:]
    coef = np.ascontiguousarray(coef.reshape(geo.n_bands, 6), dtype=np.float32)
    at = np.take(coef, geo.lo, axis=0)
    at += geo.frac * (np.take(coef, geo.hi, axis=0) - at)
    return at[:, 0::2] * geo.cos + at[:, 1::2] * geo.sin


def test_shading_at_plate_same_bits(views):
    from vision import shading as S
    for view in views:
        geo = S._geometry(view.residual.shape[0], float(view.plate_radius_px))
        for max_delta_e in (4.0, S.SHADING_MAX_DELTA_E, 30.0):
            want = ref_shading_at_plate(view.residual, view.delta_e, max_delta_e, geo)
            got = S._shading_at_plate(view.residual, view.delta_e, max_delta_e, geo)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(_bits(got), _bits(want))
