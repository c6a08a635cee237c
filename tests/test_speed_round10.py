"""Speed round 10 (branch speed10): each change gives the bits of the code it replaced.

The replaced functions are kept here verbatim (``ref_*``) and compared bit for
bit with the new ones on the arrays of real frames (studio renders and
synthesized scenes, read by ``read_frame``) and on adversarial random arrays.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import canonical, plate, tokens
from vision.io import load_image
from vision.plate import MEDIAN_BAND_HALF_RANKS, MEDIAN_MIN_SIZE, MEDIAN_SAMPLE_SIZE, fast_median
from vision.reader import read_frame
from vision.synth import render_scene

#: Synthesized scenes (seed, kind) beside the studio renders.
SYNTH = ((10100, "outcome"), (10101, "touching"), (10102, "overlap"), (10103, "upright"), (10104, "tilted"),
         (10105, "covered"))


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _frames(studio_dir: Path) -> list[np.ndarray]:
    frames = [load_image(p) for p in sorted(studio_dir.glob("*.jpg"))[::4]]
    frames += [render_scene(seed, kind, size=(1280, 720)).image for seed, kind in SYNTH]
    return frames


@pytest.fixture(scope="module")
def median_inputs(studio_dir):
    """Every array ``fast_median`` is given while the reader reads the frames."""
    got: list[np.ndarray] = []
    real = plate.fast_median

    def recording(values):
        got.append(values.copy())
        return real(values)
    mp = pytest.MonkeyPatch()
    for mod in (plate, canonical, tokens):
        mp.setattr(mod, "fast_median", recording)
    try:
        for f in _frames(studio_dir):
            read_frame(f)
    finally:
        mp.undo()
    assert len(got) > 200
    return got


def ref_fast_median(values: np.ndarray) -> np.floating:
    """``vision.plate.fast_median`` before round 10, verbatim."""
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
    below = int(np.count_nonzero(values < lo))
    above = int(np.count_nonzero(values > hi))
    band = values[(values >= lo) & (values <= hi)]
    ranks = (n // 2 - 1, n // 2) if n % 2 == 0 else (n // 2,)
    # every value is below, in or above the band (no NaN), and the band holds the middle
    if below + band.size + above != n or not all(below <= r < below + band.size for r in ranks):
        return np.median(values)
    local = [r - below for r in ranks]
    middle = np.partition(band, local)[local]
    if middle.size == 1:
        return middle[0]
    return values.dtype.type(middle.sum() / np.intp(2))


def _same_scalar(got, want) -> bool:
    return type(got) is type(want) and np.array_equal(_bits(got), _bits(want))


def test_fast_median_same_bits_on_the_readers_arrays(median_inputs):
    ties = 0
    for values in median_inputs:
        assert _same_scalar(fast_median(values), ref_fast_median(values))
        n = values.size
        if n >= MEDIAN_MIN_SIZE:
            sample = np.sort(values[::n // MEDIAN_SAMPLE_SIZE])
            ties += sample[sample.size // 2 - MEDIAN_BAND_HALF_RANKS] == sample[sample.size // 2 + MEDIAN_BAND_HALF_RANKS]
    assert ties > 20  # the one-value band (ring colours of 8-bit Lab) is exercised


@pytest.mark.parametrize("seed", range(6))
def test_fast_median_same_bits_on_ties_zeros_nan_and_inf(seed):
    """Few distinct values (one-value bands), mixed 0.0 / -0.0 around the
    middle, NaN, infinities, odd and even counts, both dtypes."""
    rng = np.random.default_rng(1000 + seed)
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
            infs = np.full(n, np.inf, dtype)
            infs[: n // 3] = rng.standard_normal(n // 3)
            cases = [table[codes], few, signed_zeros, zeros_mid, infs, -infs, np.full(n, 3.5, dtype)]
            for values in cases:
                values = values.astype(dtype)
                assert _same_scalar(fast_median(values), ref_fast_median(values)), (n, dtype)
                # np.median's own bits up to the sign of a zero (as before)
                assert fast_median(values) == np.median(values), (n, dtype)
                with_nan = values.copy()
                with_nan[rng.integers(0, n)] = np.nan
                assert np.isnan(fast_median(with_nan)) and np.isnan(ref_fast_median(with_nan))
