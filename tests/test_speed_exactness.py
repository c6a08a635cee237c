"""The speed work's shortcuts give the same bytes as the plain computations they replace.

No timing here (speed is measured by ``bench/bench_reader.py``); these tests pin
the invariants the faster code relies on, so a change in OpenCV or NumPy that
breaks one shows up as a failure rather than as changed readings.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.colour import bgr_to_lab, radial_median_profile
from vision.plate import CLOTH_BORDER_FRAC, CLOTH_MIN_SPREAD_LAB, cloth_deviation
from vision.synth import render_scene


def _textured(h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    return cv2.GaussianBlur(img, ksize=(0, 0), sigmaX=1.5)


def test_bgr_to_lab_equals_the_formula_for_every_code():
    rng = np.random.default_rng(3)
    bgr = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
    lab8 = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    assert all(np.unique(lab8[..., c]).size > 100 for c in range(3))
    want = lab8.astype(np.float32) * np.array([100.0 / 255.0, 1.0, 1.0], np.float32) \
        + np.array([0.0, -128.0, -128.0], np.float32)
    got = bgr_to_lab(bgr)
    assert got.dtype == np.float32 and np.array_equal(got, want)


def _cloth_deviation_plain(small_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cloth model written directly on the interleaved Lab frame (before the speed work)."""
    lab = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    h, w = lab.shape[:2]
    band = max(3, int(round(CLOTH_BORDER_FRAC * min(h, w))))
    border = np.zeros((h, w), dtype=bool)
    border[:band] = border[-band:] = True
    border[:, :band] = border[:, -band:] = True
    xs = np.arange(w, dtype=np.float32) / np.float32(w)
    ys = np.arange(h, dtype=np.float32) / np.float32(h)
    by, bx = np.nonzero(border)
    xb, yb = xs[bx], ys[by]
    design = np.stack([np.ones_like(xb), xb, yb, xb * xb, xb * yb, yb * yb], axis=-1).astype(np.float64)
    coefs = np.linalg.solve(design.T @ design, design.T @ lab[by, bx].astype(np.float64)).astype(np.float32)
    residual = np.empty_like(lab)
    xy = np.outer(ys, xs)
    for c in range(3):
        c0, c1, c2, c3, c4, c5 = coefs[:, c]
        surface = (c0 + c1 * xs + c3 * (xs * xs))[None, :] + (c2 * ys + c5 * (ys * ys))[:, None] + c4 * xy
        residual[..., c] = lab[..., c] - surface
    rb = np.abs(residual[by, bx])
    spread = 1.4826 * np.array([np.median(rb[:, c]) for c in range(3)], dtype=np.float32)
    spread = np.maximum(spread, np.asarray(CLOTH_MIN_SPREAD_LAB, dtype=np.float32))
    u0, u1, u2 = (residual[..., c] / spread[c] for c in range(3))
    return np.sqrt(u0 * u0 + u1 * u1 + u2 * u2), u0


@pytest.mark.parametrize("seed", [5, 17])
def test_cloth_deviation_equals_the_plain_computation(seed):
    scene = render_scene(seed, "outcome", size=(960, 540))
    small = cv2.resize(scene.image, (569, 320), interpolation=cv2.INTER_AREA)
    dev, light = cloth_deviation(small)
    want_dev, want_light = _cloth_deviation_plain(small)
    assert dev.dtype == np.float32 and np.array_equal(dev, want_dev)
    assert np.array_equal(light, want_light)


def _radial_median_plain(lab, radius, mask, bin_px, n_bins):
    bins = np.minimum((radius[mask] / bin_px).astype(np.int32), n_bins - 1)
    out = np.zeros((n_bins, 3), dtype=np.float32)
    for c in range(3):
        v = lab[..., c][mask]
        lo = float(v.min())
        q = np.clip(((v - lo) * 2.0).astype(np.int32), 0, 511)
        hist = np.bincount(bins * 512 + q, minlength=n_bins * 512).reshape(n_bins, 512)
        cum = np.cumsum(hist, axis=1)
        total = cum[:, -1]
        prof = lo + np.argmax(cum >= (total[:, None] + 1) // 2, axis=1).astype(np.float32) / 2.0
        for i in range(n_bins):
            if total[i] == 0:
                prof[i] = prof[i - 1] if i > 0 else lo
        out[:, c] = prof
    return out


def test_radial_median_profile_equals_the_plain_computation():
    lab = bgr_to_lab(_textured(96, 96, seed=9))
    yy, xx = np.mgrid[0:96, 0:96].astype(np.float32)
    radius = np.hypot(xx - 47.5, yy - 47.5)
    mask = (radius < 40) & ~((radius > 20) & (radius < 24))  # an empty ring in the middle
    got = radial_median_profile(lab, radius, mask, 2.0, 22)
    assert np.array_equal(got, _radial_median_plain(lab, radius, mask, 2.0, 22))
    assert math.isfinite(float(got.sum()))


@pytest.mark.parametrize("seed", range(8))
def test_fast_median_same_bits_as_np_median(seed):
    """Both dtypes, odd and even counts, ties, infinities, NaN, sorted input,
    arrays too small for the band, and bands that miss the middle."""
    from vision.plate import fast_median

    rng = np.random.default_rng(seed)
    for n in (1, 2, 7, 4095, 4096, 4097, 22000, 41001):
        for dtype in (np.float32, np.float64):
            base = rng.standard_normal(n) * rng.uniform(0.1, 50)
            cases = [base, np.abs(base), np.round(base), np.sort(base), np.sort(base)[::-1], np.zeros(n),
                     np.where(rng.random(n) < 0.5, 1.0, 2.0)]
            with_inf = base.copy()
            with_inf[:: 7] = np.inf
            cases.append(with_inf)
            skewed = base.copy()
            skewed[: n // 3] = -1e6  # the sample's middle lies away from the true middle only by chance
            cases.append(skewed)
            for values in cases:
                values = values.astype(dtype)
                got, want = fast_median(values), np.median(values)
                assert type(got) is type(want) and np.array_equal(got, want), (n, dtype)
            nan = base.astype(dtype)
            nan[n // 2] = np.nan
            assert np.isnan(fast_median(nan))
    with pytest.raises(TypeError, match="values"):
        fast_median(np.zeros((4, 4), np.float32))
    with pytest.raises(TypeError, match="values"):
        fast_median(np.zeros(5000, np.int32))


def _not_cloth_plain(deviation, lightness):
    from vision.plate import CLOTH_DEVIATION_UNITS, SHADOW_MAX_CHROMA_UNITS

    chroma = np.sqrt(np.maximum(deviation * deviation - lightness * lightness, 0.0))
    return ((deviation > CLOTH_DEVIATION_UNITS)
            & ((lightness > 0) | (chroma > SHADOW_MAX_CHROMA_UNITS))).astype(np.uint8)


@pytest.mark.parametrize("seed", range(4))
def test_not_cloth_mask_equals_the_plain_computation(seed):
    """Random maps, values right at the chroma limit, NaN and infinities."""
    from vision.plate import _SHADOW_MIN_CHROMA_SQ, SHADOW_MAX_CHROMA_UNITS, not_cloth_mask

    rng = np.random.default_rng(seed)
    light = (rng.standard_normal((120, 90)) * 12).astype(np.float32)
    chroma = rng.uniform(0, 8, light.shape).astype(np.float32)
    dev = np.sqrt(light * light + chroma * chroma).astype(np.float32)
    # pixels whose d^2 - l^2 lies within a few ulps of the limit's square
    edge = np.float32(_SHADOW_MIN_CHROMA_SQ)
    for i, steps in enumerate(range(-3, 4)):
        x = edge
        for _ in range(abs(steps)):
            x = np.nextafter(x, np.float32(np.inf if steps > 0 else 0))
        light[0, i] = -1.0
        dev[0, i] = np.sqrt(np.float32(1.0) + x)
    dev[1, :4] = [np.nan, np.inf, 9.0, np.inf]
    light[1, :4] = [-1.0, -np.inf, np.nan, np.inf]
    dev[2] = 9.0  # deviation just above CLOTH_DEVIATION_UNITS, lightness negative
    got, want = not_cloth_mask(dev, light), _not_cloth_plain(dev, light)
    assert got.dtype == np.uint8 and got.shape == want.shape and np.array_equal(got, want)
    assert 0 < int(got.sum()) < got.size
    # the threshold itself: sqrt(v) > limit exactly from _SHADOW_MIN_CHROMA_SQ on
    x = edge
    for _ in range(5):
        x = np.nextafter(x, np.float32(0))
    for _ in range(10):
        assert bool(np.sqrt(x) > np.float32(SHADOW_MAX_CHROMA_UNITS)) == bool(x >= edge)
        x = np.nextafter(x, np.float32(np.inf))
    # the mask of a real frame
    small = cv2.resize(render_scene(seed + 30, "outcome", size=(960, 540)).image, (569, 320),
                       interpolation=cv2.INTER_AREA)
    d, l = cloth_deviation(small)
    assert np.array_equal(not_cloth_mask(d, l), _not_cloth_plain(d, l))


@pytest.mark.parametrize("k", [1, 3, 5, 7, 9, 13, 19, 25, 31, 41, 61])
def test_open_ellipse_equals_morphology_ex(k):
    """Random blobs and noise, touching every border of the image."""
    from vision.plate import _ellipse_rects, _open_ellipse

    rng = np.random.default_rng(k)
    mask = np.zeros((97, 131), np.uint8)
    cv2.ellipse(mask, (60, 45), (70, 40), 15, 0, 360, 1, -1)  # cut by every edge
    mask[rng.random(mask.shape) < 0.05] ^= 1
    mask[:, :3] = 1
    want = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    got = _open_ellipse(mask, k)
    assert got.dtype == np.uint8 and np.array_equal(got, want)
    assert _ellipse_rects(k) is not None  # the fast path is the one tested


@pytest.mark.parametrize("seed", range(4))
def test_components_with_stats_same_as_32_bit_labels(seed):
    """Dense noise (thousands of components, near the provisional-label bound),
    blobs, an empty mask, and a shape too large for 16-bit labels."""
    from vision.plate import _components_with_stats

    rng = np.random.default_rng(seed)
    for shape, density in (((320, 569), 0.3), ((320, 569), 0.5), ((511, 511), 0.25), ((97, 131), 0.6),
                           ((320, 900), 0.3), ((40, 40), 0.0)):
        mask = (rng.random(shape) < density).astype(np.uint8)
        if seed % 2:
            cv2.circle(mask, (shape[1] // 2, shape[0] // 2), min(shape) // 3, 1, -1)
        n, labels, stats, cents = _components_with_stats(mask)
        want = cv2.connectedComponentsWithStats(mask, connectivity=8)
        assert n == want[0] and np.array_equal(labels, want[1])
        assert np.array_equal(stats, want[2]) and np.array_equal(cents, want[3])
        fits = ((shape[0] + 1) // 2) * ((shape[1] + 1) // 2) + 1 < 65536
        assert labels.dtype == (np.uint16 if fits else np.int32)


@pytest.mark.parametrize("seed", [4, 11])
def test_ring_colour_equals_np_median(seed):
    """``CanonicalView.ring_colour`` (fast_median per channel) gives the bits of
    ``np.median(lab[ring], axis=0)`` on real views (rings of some thousand
    pixels, where the selection path runs, and a thin one)."""
    from vision.canonical import make_canonical_view
    from vision.plate import find_plate

    scene = render_scene(seed, "outcome", size=(960, 540))
    view = make_canonical_view(scene.image, find_plate(scene.image).ellipse)
    r = view.radius_px / view.plate_radius_px
    for lo, hi in ((0.0, 0.3), (0.6, 0.75), (0.88, 0.96), (0.1, 0.13), (0.5, 0.5001)):
        sel = (r >= lo) & (r < hi)
        want = np.median(view.lab[sel], axis=0) if sel.any() else None
        got = view.ring_colour(lo, hi)
        if want is None:
            assert np.isnan(got).all()
            continue
        assert got.dtype == want.dtype and np.array_equal(got, want), (lo, hi)


@pytest.mark.parametrize("shape", [(320, 569), (320, 427), (320, 240), (9, 11), (40, 23), (6, 6)])
def test_border_pixels_same_as_the_flat_gather(shape):
    from vision.plate import _border_geometry, _border_pixels
    h, w = shape
    geo = _border_geometry(h, w)
    image = _textured(h, w, 4)
    assert np.array_equal(_border_pixels(image, geo), image.reshape(-1, 3)[geo.flat])
    plane = np.random.default_rng(5).standard_normal((h, w)).astype(np.float32)
    got = _border_pixels(plane, geo)
    assert got.dtype == np.float32 and np.array_equal(got, plane.ravel()[geo.flat])
    if min(h, w) >= 20:  # the cloth model on a narrow frame too
        dev, light = cloth_deviation(image)
        want_dev, want_light = _cloth_deviation_plain(image)
        assert np.array_equal(dev, want_dev) and np.array_equal(light, want_light)


def test_median_over_axis_0_same_bits_as_per_column():
    """``faces.classify_face`` takes a face's absolute a*, b*, L* from
    ``np.median(face, axis=0)`` instead of three ``np.median(face[:, c])``."""
    rng = np.random.default_rng(9)
    scene = render_scene(21, "outcome", size=(960, 540))
    lab = bgr_to_lab(scene.image).reshape(-1, 3)
    for i in range(400):
        n = int(rng.integers(3, 600))
        face = lab[rng.integers(0, lab.shape[0], n)] if i % 2 else (rng.standard_normal((n, 3)) * 9).astype(np.float32)
        if i % 3 == 0:
            face = np.round(face)  # ties
        both = np.median(face, axis=0)
        for c in range(3):
            assert both[c].view(np.uint32) == np.float32(np.median(face[:, c])).view(np.uint32)


def test_fast_median_band_selection_same_bits_on_scattered_bands():
    """fast_median's band (``np.compress``, partitioned in place) on values
    whose middle band is scattered through the array, with ties: np.median's
    bits.  (Signed zeros are left out: on an array mixing 0.0 and -0.0 the
    band's selection may return the other zero than np.median, before and
    after this change alike.)"""
    from vision.plate import fast_median
    rng = np.random.default_rng(11)
    for i in range(60):
        n = int(rng.integers(4096, 40000))
        values = (rng.standard_normal(n).astype(np.float32), rng.integers(0, 4, n).astype(np.float32),
                  rng.standard_normal(n), (rng.integers(0, 256, n) / 2.0))[i % 4]
        got, want = fast_median(values), np.median(values)
        assert got.dtype == want.dtype and np.array([got]).tobytes() == np.array([want]).tobytes()
