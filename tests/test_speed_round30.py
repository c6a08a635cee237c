"""Speed, the thirtieth round (helper h4): each change gives the bits of the code it replaced.

The replaced functions are kept here verbatim (``ref_*``) and compared bit for
bit with the new ones on the arrays of real frames (synthesized scenes by
seed, read by ``read_frame`` at two sizes) and on adversarial random arrays.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision import canonical, plate
from vision import canonical as C
from vision.colour import radial_median_profile_codes
from vision.plate import (MEDIAN_BAND_HALF_RANKS, MEDIAN_MIN_SIZE, MEDIAN_NARROW_HALF_RANKS, MEDIAN_SAMPLE_SIZE,
                          fast_median)
from vision.reader import read_frame
from vision.synth import render_scene

#: Synthesized scenes (seed, kind), this round's own seeds, read at each size.
SCENES = ((2040000, "outcome"), (2040001, "touching"), (2040002, "overlap"), (2040003, "covered"),
          (2040004, "five_tokens"), (2040005, "upright"))
SIZES = ((1920, 1080), (1280, 720))


def _frames() -> list[np.ndarray]:
    return [render_scene(seed, kind, size=size).image for seed, kind in SCENES for size in SIZES]


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _same_scalar(got, want) -> bool:
    return type(got) is type(want) and np.array_equal(_bits(got), _bits(want))


def ref_fast_median(values: np.ndarray) -> np.floating:
    """``vision.plate.fast_median`` before round 30 (main 285e945), verbatim."""
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind != "f":
        raise TypeError(f"values: expected a 1-D float ndarray, got {type(values).__name__} "
                        f"{getattr(values, 'dtype', '')} {getattr(values, 'shape', '')}")
    n = values.size
    if n < MEDIAN_MIN_SIZE:
        return np.median(values)
    sample = np.sort(values[::n // MEDIAN_SAMPLE_SIZE])
    mid = sample.size // 2
    lo = sample[max(0, mid - MEDIAN_BAND_HALF_RANKS)]
    hi = sample[min(sample.size - 1, mid + MEDIAN_BAND_HALF_RANKS)]
    in_band = values >= lo
    below = n - int(np.count_nonzero(in_band))  # values < lo, and NaN
    not_above = values <= hi
    above = n - int(np.count_nonzero(not_above))  # values > hi, and NaN
    in_band &= not_above
    band_size = int(np.count_nonzero(in_band))
    ranks = (n // 2 - 1, n // 2) if n % 2 == 0 else (n // 2,)
    if below + band_size + above != n or not all(below <= r < below + band_size for r in ranks):
        return np.median(values)
    if lo == hi and lo != 0:
        middle = np.full(len(ranks), lo, dtype=values.dtype)
    else:
        local = [r - below for r in ranks]
        middle = np.compress(in_band, values)
        middle.partition(local)
        middle = middle[local]
    if middle.size == 1:
        return middle[0]
    return values.dtype.type(middle.sum() / np.intp(2))


def _narrow_band_used(values: np.ndarray) -> bool:
    """Whether ``fast_median`` takes its answer from the narrow band (it holds
    the middle and not 0, no NaN)."""
    n = values.size
    if n < MEDIAN_MIN_SIZE:
        return False
    sample = np.sort(values[::n // MEDIAN_SAMPLE_SIZE])
    mid = sample.size // 2
    lo = sample[max(0, mid - MEDIAN_NARROW_HALF_RANKS)]
    hi = sample[min(sample.size - 1, mid + MEDIAN_NARROW_HALF_RANKS)]
    if not (lo > 0 or hi < 0) or np.isnan(values).any():
        return False
    below = int(np.count_nonzero(values < lo))
    band = int(np.count_nonzero((values >= lo) & (values <= hi)))
    ranks = (n // 2 - 1, n // 2) if n % 2 == 0 else (n // 2,)
    return all(below <= r < below + band for r in ranks)


@pytest.fixture(scope="module")
def median_inputs():
    """Every array ``fast_median`` is given while the reader reads the scenes at both sizes."""
    got: list[np.ndarray] = []
    real = plate.fast_median

    def recording(values):
        got.append(values.copy())
        return real(values)
    mp = pytest.MonkeyPatch()
    # (``plate.median_and_noise`` calls it through the plate module itself)
    for mod in (plate, canonical):
        mp.setattr(mod, "fast_median", recording)
    try:
        for seed, kind in SCENES:
            for size in SIZES:
                read_frame(render_scene(seed, kind, size=size).image)
    finally:
        mp.undo()
    assert len(got) > 150
    return got


def test_fast_median_same_bits_on_the_readers_arrays(median_inputs):
    narrow = 0
    for values in median_inputs:
        assert _same_scalar(fast_median(values), ref_fast_median(values))
        narrow += _narrow_band_used(values)
    # both paths are exercised: most arrays by the narrow band, some by the wide one
    assert narrow > len(median_inputs) // 2
    assert narrow < len(median_inputs)


@pytest.mark.parametrize("seed", range(6))
def test_fast_median_same_bits_on_ties_zeros_nan_and_inf(seed):
    """Few distinct values (one-value bands), signed zeros around the middle,
    all-positive and all-negative values (the narrow band's own case), NaN,
    infinities, odd and even counts, both dtypes."""
    rng = np.random.default_rng(2040100 + seed)
    for n in (4096, 4097, 7547, 7548, 24049, 41684):
        for dtype in (np.float32, np.float64):
            codes = rng.integers(0, 256, n)
            table = (np.arange(256) * rng.uniform(0.1, 1.0) - 128 * (seed % 2)).astype(dtype)
            few = table[np.clip(rng.normal(128, rng.uniform(0.3, 20), n).astype(int), 0, 255)]
            signed_zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0).astype(dtype)
            signed_zeros[rng.random(n) < 0.2] = 1.0
            zeros_mid = rng.standard_normal(n).astype(dtype)
            zeros_mid[np.abs(zeros_mid) < 0.3] = -0.0
            zeros_mid[rng.random(n) < 0.1] = 0.0
            positive = np.abs(rng.standard_normal(n)).astype(dtype) + dtype(0.5)
            clustered = (rng.standard_normal(n) * 1e-3 + 2.0).astype(dtype)  # many close values
            sorted_run = np.sort(rng.standard_normal(n)).astype(dtype) + dtype(3.0)  # a strided sample of a ramp
            infs = np.full(n, np.inf, dtype)
            infs[: n // 3] = rng.standard_normal(n // 3)
            cases = [table[codes], few, signed_zeros, zeros_mid, positive, -positive, clustered, sorted_run,
                     infs, -infs, np.full(n, 3.5, dtype)]
            for values in cases:
                values = values.astype(dtype)
                assert _same_scalar(fast_median(values), ref_fast_median(values)), (n, dtype)
                with_nan = values.copy()
                with_nan[rng.integers(0, n)] = np.nan
                assert np.isnan(fast_median(with_nan)) and np.isnan(ref_fast_median(with_nan))


# --- canonical: the pooled centre's median from the rings' code histograms -------------------


def ref_plate_model(lab: np.ndarray, lab8: np.ndarray, clear_token_rings: bool
                    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], bool]:
    """``vision.canonical._plate_model`` before round 30 (main 285e945), verbatim (module names qualified)."""
    geo = C._canvas_geometry(C.CANVAS_PX)
    profile = radial_median_profile_codes(lab8[geo.box], geo.ring_keys, geo.n_bins)
    profile[:geo.n_pool] = C._median_from_codes(lab8.reshape(-1, 3)[geo.centre_flat])
    model = C._model_from_profile(lab, profile, geo) if clear_token_rings else None
    cleared = None if model is None else C._levels_clear_of_tokens(lab, lab8, profile, model[2], geo)
    levels = C._levels_where_tokens_dominate(lab, profile if cleared is None else cleared, geo)
    if levels is None:
        levels = cleared
    if levels is None:
        return (model if model is not None else C._model_from_profile(lab, profile, geo)), False
    return C._model_from_profile(lab, levels, geo), cleared is not None


@pytest.fixture(scope="module")
def plate_model_inputs():
    """Every (lab, lab8, clear_token_rings) the reader models while it reads the scenes at both sizes."""
    got: list[tuple] = []
    real = C._plate_model

    def recording(lab, lab8, clear_token_rings):
        got.append((lab.copy(), lab8.copy(), clear_token_rings))
        return real(lab, lab8, clear_token_rings)
    mp = pytest.MonkeyPatch()
    mp.setattr(C, "_plate_model", recording)
    try:
        for frame in _frames():
            read_frame(frame)
    finally:
        mp.undo()
    assert len(got) >= len(SCENES) * len(SIZES) - 2
    return got


def test_pool_geometry_is_the_centre():
    """The pooled centre's whole rings and the rest of it are exactly its pixels, once each."""
    geo = C._canvas_geometry(C.CANVAS_PX)
    assert 0 < geo.pool_rings <= geo.n_pool
    whole = np.flatnonzero(geo.ring_flat < geo.pool_rings)
    assert np.array_equal(np.sort(np.concatenate([whole, geo.pool_rest_flat])), geo.centre_flat)
    assert geo.inside.ravel()[whole].all()
    assert 0 < geo.pool_rest_flat.size < geo.centre_flat.size // 10  # a thin arc of the next ring


def test_plate_model_same_bits_on_the_readers_canvases(plate_model_inputs):
    for lab, lab8, clear in plate_model_inputs:
        (bg, res, de), cleared = C._plate_model(lab, lab8, clear)
        (rbg, rres, rde), rcleared = ref_plate_model(lab, lab8, clear)
        assert cleared == rcleared
        for got, want in ((bg, rbg), (res, rres), (de, rde)):
            assert got.dtype == want.dtype and np.array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("seed", range(4))
def test_pooled_centre_median_same_bits_on_random_codes(seed):
    """Random canvases of few codes (many ties, even and odd pooled counts do not
    change: the centre's size is fixed) and of full-range codes."""
    rng = np.random.default_rng(2040200 + seed)
    geo = C._canvas_geometry(C.CANVAS_PX)
    s = C.CANVAS_PX
    for spread in (1, 3, 40, 255):
        lab8 = np.clip(rng.normal(128, spread, (s, s, 3)), 0, 255).astype(np.uint8)
        hist = C.ring_code_histogram(lab8[geo.box], geo.ring_keys, geo.n_bins)
        pooled = hist[:geo.pool_rings].sum(axis=0) + C._code_histogram(lab8.reshape(-1, 3)[geo.pool_rest_flat])
        got = C._median_from_histogram(pooled, geo.centre_flat.size)
        want = C._median_from_codes(lab8.reshape(-1, 3)[geo.centre_flat])
        assert np.array_equal(_bits(got), _bits(want))
