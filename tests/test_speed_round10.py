"""Speed round 8 (the tenth round, branch speed10): each change gives the bits of the code it replaced.

The replaced functions are kept here verbatim (``ref_*``) and compared bit for
bit with the new ones on the arrays of real frames (studio renders and
synthesized scenes, read by ``read_frame``) and on adversarial random arrays.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision import canonical, outline, outline_faces, plate
from vision import shading as S
from vision.canonical import CanonicalView, make_canonical_view
from vision.io import load_image
from vision.plate import MEDIAN_BAND_HALF_RANKS, MEDIAN_MIN_SIZE, MEDIAN_SAMPLE_SIZE, fast_median, find_plate
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
    # (``plate.median_and_noise`` calls it through the plate module itself)
    for mod in (plate, canonical):
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
            mid = sample.size // 2
            ties += sample[mid - MEDIAN_BAND_HALF_RANKS] == sample[mid + MEDIAN_BAND_HALF_RANKS]
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


# --- shading: the band tables by cv2.LUT, delta E without einsum -------------------------------


def ref_shading_at_plate(residual: np.ndarray, delta_e: np.ndarray, max_delta_e: float, geo
                      ) -> np.ndarray:
    """``vision.shading._shading_at_plate`` before round 10, verbatim (module names qualified)."""
    values = residual[geo.box].reshape(-1, 3)
    use = (geo.cell >= 0) & (delta_e[geo.box].ravel() <= max_delta_e)
    keys = np.where(use, geo.cell, geo.n_bands * S.SHADING_ANGLE_CELLS)  # the left-out pixels' bin past the cells
    design = np.stack([np.ones(S.SHADING_ANGLE_CELLS), geo.cell_cos, geo.cell_sin], axis=1)
    coef = S._cell_fit(keys, values, geo.n_bands, design, geo.cell_px)[..., 1:]
    coef = np.ascontiguousarray(coef.reshape(geo.n_bands, 6), dtype=np.float32)
    # Per pixel, at = coef[lo] + frac * (coef[hi] - coef[lo]) and per channel
    # at_cos * cos + at_sin * sin, the same float32 operations as on (N, 6)
    # rows: ``hi`` is ``lo``'s next band (the last its own), so the difference
    # is taken once per band; each coefficient is handled as a contiguous plane.
    step = (np.take(coef, np.minimum(np.arange(geo.n_bands) + 1, geo.n_bands - 1), axis=0) - coef).T.copy()
    planes = coef.T.copy()
    frac, cos, sin = geo.frac[:, 0], geo.cos[:, 0], geo.sin[:, 0]
    out = np.empty((geo.lo.size, 3), np.float32)
    for c in range(3):
        b = np.take(planes[2 * c], geo.lo)
        b += frac * np.take(step[2 * c], geo.lo)
        s = np.take(planes[2 * c + 1], geo.lo)
        s += frac * np.take(step[2 * c + 1], geo.lo)
        b *= cos
        b += np.multiply(s, sin, out=s)
        out[:, c] = b
    return out


def ref_without_shading(view: CanonicalView, max_delta_e: float = S.SHADING_MAX_DELTA_E) -> CanonicalView:
    """``vision.shading.without_shading`` before round 10, verbatim (module names qualified)."""
    if not isinstance(view, CanonicalView):
        raise TypeError(f"view: expected CanonicalView, got {type(view).__name__}")
    if not max_delta_e > 0:
        raise ValueError(f"max_delta_e: expected > 0, got {max_delta_e}")
    geo = S._geometry(view.residual.shape[0], float(view.plate_radius_px))
    shade = ref_shading_at_plate(view.residual, view.delta_e, float(max_delta_e), geo)
    residual, background, delta_e = view.residual.copy(), view.background.copy(), view.delta_e.copy()
    shade = shade.reshape(residual[geo.box].shape)
    residual[geo.box] -= shade
    background[geo.box] += shade
    r = residual[geo.box]
    delta_e[geo.box] = np.sqrt(np.einsum("ijk,ijk->ij", r, r))
    return replace(view, residual=residual, background=background, delta_e=delta_e)


@pytest.fixture(scope="module")
def views(studio_dir):
    out = []
    for f in _frames(studio_dir):
        fit = find_plate(f)
        if fit.found:
            out.append(make_canonical_view(f, fit.ellipse))
    assert len(out) >= 20
    return out


def test_shading_same_bits_as_before(views):
    for view in views:
        geo = S._geometry(view.residual.shape[0], float(view.plate_radius_px))
        assert geo.lo_codes is not None
        for max_delta_e in (S.SHADING_MAX_DELTA_E, 4.0):
            got = S._shading_at_plate(view.residual, view.delta_e, max_delta_e, geo)
            want = ref_shading_at_plate(view.residual, view.delta_e, max_delta_e, geo)
            assert np.array_equal(_bits(got), _bits(want))
        got, want = S.without_shading(view), ref_without_shading(view)
        for name in ("residual", "background", "delta_e", "lab", "radius_px"):
            assert np.array_equal(_bits(getattr(got, name)), _bits(getattr(want, name))), name
        assert got.bgr is want.bgr and got.plate_radius_px == want.plate_radius_px


def test_at_band_below_same_as_take_and_without_codes(views):
    rng = np.random.default_rng(7)
    geo = S._geometry(views[0].residual.shape[0], float(views[0].plate_radius_px))
    table = (rng.standard_normal(geo.n_bands) * 10).astype(np.float32)
    table[0] = -0.0
    got = S._at_band_below(table, geo)
    assert got.flags.writeable and got.shape == geo.lo.shape
    assert np.array_equal(_bits(got), _bits(np.take(table, geo.lo)))
    no_codes = replace(geo, lo_codes=None)  # more than 256 bands: np.take itself
    assert np.array_equal(_bits(S._at_band_below(table, no_codes)), _bits(np.take(table, geo.lo)))


@pytest.mark.parametrize("seed", range(4))
def test_delta_e_sum_of_squares_is_einsums(seed):
    """einsum's float32 sum of three squares, as ``without_shading`` now forms it."""
    rng = np.random.default_rng(seed)
    r = (rng.standard_normal((200, 300, 3)) * 10.0 ** rng.uniform(-3, 3, (200, 300, 3))).astype(np.float32)
    r = r[5:190, 7:290]  # strided, as the plate's box
    sq = np.multiply(r[..., 0], r[..., 0])
    sq += np.multiply(r[..., 1], r[..., 1])
    sq += np.multiply(r[..., 2], r[..., 2])
    assert np.array_equal(_bits(np.sqrt(sq)), _bits(np.sqrt(np.einsum("ijk,ijk->ij", r, r))))


# --- the outline search's best radius: masked copies by cv2.copyTo ------------------------------


def ref_best_outline_z(lightness, region, token_r):
    """The radius loop of ``vision.tokens._outline_faces`` before round 10, verbatim."""
    best_z = np.full(lightness.shape, -np.inf, np.float32)
    best_k = np.zeros(lightness.shape, np.int8)  # index into OUTLINE_RADIUS_FACTORS
    for k, factor in enumerate(outline.OUTLINE_RADIUS_FACTORS):
        resp = outline.outline_response(lightness, factor * token_r)
        vals = resp[region]
        med = float(ref_fast_median(vals))  # = np.median, bit for bit
        noise = 1.4826 * float(ref_fast_median(np.abs(vals - med)))
        if noise <= 0:
            continue
        z = (resp - med) / noise
        better = z > best_z
        # = best_z[better] = z[better]; best_k[better] = k (no compaction)
        np.copyto(best_z, z, where=better)
        best_k[better] = k
    return best_z, best_k


@pytest.fixture(scope="module")
def outline_inputs(studio_dir):
    """The (lightness, region, radii) the outline search of ``read_frame`` gives ``best_outline_z``."""
    got = []
    real = outline_faces.best_outline_z

    def recording(lightness, region, radii_px):
        got.append((lightness.copy(), region.copy(), radii_px))
        return real(lightness, region, radii_px)
    mp = pytest.MonkeyPatch()
    mp.setattr(outline_faces, "best_outline_z", recording)
    try:
        for f in _frames(studio_dir):
            read_frame(f)
    finally:
        mp.undo()
    assert len(got) >= 20
    return got


def test_best_outline_z_same_bits_as_before(outline_inputs):
    for lightness, region, radii in outline_inputs:
        token_r = radii[1]  # the factors are (0.9, 1.0, 1.1)
        assert radii == tuple(f * token_r for f in outline.OUTLINE_RADIUS_FACTORS)
        got_z, got_k = outline.best_outline_z(lightness, region, radii)
        want_z, want_k = ref_best_outline_z(lightness, region, token_r)
        assert got_z.dtype == want_z.dtype and got_k.dtype == want_k.dtype
        assert np.array_equal(_bits(got_z), _bits(want_z)) and np.array_equal(got_k, want_k)
        assert np.count_nonzero(got_k == 1) and np.count_nonzero(got_k == 2)  # every radius wins somewhere


def _plain_best_z(lightness, region, radii):
    """The old loop's masked assignments, for any radii."""
    best_z = np.full(lightness.shape, -np.inf, np.float32)
    best_k = np.zeros(lightness.shape, np.int8)
    for k, radius in enumerate(radii):
        resp = outline.outline_response(lightness, radius)
        vals = resp[region]
        med = float(np.median(vals))
        noise = 1.4826 * float(np.median(np.abs(vals - med)))
        if noise <= 0:
            continue
        z = (resp - med) / noise
        better = z > best_z
        best_z[better] = z[better]
        best_k[better] = k
    return best_z, best_k


def test_best_outline_z_flat_radius_nan_and_ties():
    """A response with no spread is skipped (z stays -inf); a NaN z never
    wins; a radius repeated ties and the first keeps every pixel."""
    z, k = outline.best_outline_z(np.zeros((64, 64), np.float32), np.ones((64, 64), bool), (5.0, 6.0))
    assert np.all(z == -np.inf) and not k.any()
    rng = np.random.default_rng(3)
    light = rng.standard_normal((96, 96)).astype(np.float32)
    region = rng.random((96, 96)) < 0.5
    for radii in ((5.0, 5.0, 6.0), (4.5, 5.0, 5.5, 7.0)):
        got_z, got_k = outline.best_outline_z(light, region, radii)
        want_z, want_k = _plain_best_z(light, region, radii)
        assert np.array_equal(_bits(got_z), _bits(want_z)) and np.array_equal(got_k, want_k)
    assert not np.any(outline.best_outline_z(light, region, (5.0, 5.0, 6.0))[1] == 1)
    light[40, 40] = np.nan  # spreads through the DFT: NaN z around it stays -inf
    got_z, got_k = outline.best_outline_z(light, np.ones((96, 96), bool) & ~np.isnan(light), (5.0, 6.0))
    want_z, want_k = _plain_best_z(light, np.ones((96, 96), bool) & ~np.isnan(light), (5.0, 6.0))
    assert np.array_equal(_bits(got_z), _bits(want_z)) and np.array_equal(got_k, want_k)
    with pytest.raises(ValueError, match="radii_px"):
        outline.best_outline_z(light, region, tuple([5.0] * 128))
