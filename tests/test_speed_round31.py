"""Speed, the thirty-first round (helper h4): each change gives the bits of the code it replaced.

The replaced functions are kept here verbatim (``ref_*``) and compared bit for
bit with the new ones on the arrays of real frames (synthesized scenes by
seed, as the reader makes them at two sizes) and on drawn arrays.
"""
from __future__ import annotations

import math
from fractions import Fraction

import cv2
import numpy as np
import pytest

from vision import discs, plate, shrink
from vision.reader import read_frame
from vision.plate import CLOTH_MIN_SPREAD_LAB, MAD_TO_SIGMA, _border_geometry, _border_pixels, fast_median
from vision.synth import render_scene

#: Synthesized scenes (seed, kind), this round's own seeds, read at each size.
SCENES = ((2140000, "outcome"), (2140001, "touching"), (2140002, "overlap"), (2140003, "covered"),
          (2140004, "five_tokens"), (2140005, "no_plate"))
SIZES = ((1920, 1080), (1280, 720))


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    return [render_scene(seed, kind, size=size).image for seed, kind in SCENES for size in SIZES]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return (a.dtype == b.dtype and a.shape == b.shape
            and np.array_equal(a.view(np.uint8), b.view(np.uint8)))


# --- plate.cloth_deviation: the surface, residual and norm in fewer buffers ---------------

def ref_cloth_deviation(small_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``vision.plate.cloth_deviation`` before round 31 (main 93db743), verbatim."""
    if small_bgr.dtype != np.uint8 or small_bgr.ndim != 3 or small_bgr.shape[2] != 3:
        raise ValueError(f"small_bgr: expected uint8 (H, W, 3), got {small_bgr.dtype} {small_bgr.shape}")
    h, w = small_bgr.shape[:2]
    geo = _border_geometry(h, w)
    lab8 = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2Lab)
    border_lab = _border_pixels(lab8, geo).astype(np.float64)  # = lab8.reshape(-1, 3)[geo.flat]
    coefs = np.linalg.solve(geo.normal, geo.design.T @ border_lab).astype(np.float32)  # (6, 3)
    xs, ys, xy = geo.xs, geo.ys, geo.xy
    units = []
    for c, plane in enumerate(cv2.split(lab8)):
        c0, c1, c2, c3, c4, c5 = coefs[:, c]
        row = c0 + c1 * xs + c3 * (xs * xs)
        col = c2 * ys + c5 * (ys * ys)
        surface = row[None, :] + col[:, None]
        surface += c4 * xy
        residual = plane.astype(np.float32)
        residual -= surface
        # = fast_median(np.abs(residual.ravel()[geo.flat]))
        spread = np.float32(MAD_TO_SIGMA) * fast_median(np.abs(_border_pixels(residual, geo)))
        spread = max(spread, np.float32(CLOTH_MIN_SPREAD_LAB[c]))
        residual /= spread
        units.append(residual)
    u0, u1, u2 = units
    return np.sqrt(u0 * u0 + u1 * u1 + u2 * u2), u0


def _plate_inputs(frames: list[np.ndarray], monkeypatch) -> list[np.ndarray]:
    """The (shrunk, blurred) frames ``find_plate`` hands to ``cloth_deviation``."""
    seen: list[np.ndarray] = []
    real = plate.cloth_deviation

    def spy(small: np.ndarray):
        seen.append(small.copy())
        return real(small)

    monkeypatch.setattr(plate, "cloth_deviation", spy)
    for frame in frames:
        plate.find_plate(frame)
    monkeypatch.setattr(plate, "cloth_deviation", real)
    return seen


def test_cloth_deviation_bits_on_frames(frames, monkeypatch):
    smalls = _plate_inputs(frames, monkeypatch)
    assert len(smalls) == len(frames)
    for small in smalls:
        got, want = plate.cloth_deviation(small), ref_cloth_deviation(small)
        assert len(got) == 2
        for g, w in zip(got, want):
            assert _same_bits(g, w)
    # the scenes' plates do stand out of the cloth (the comparison is of real maps)
    assert max(float(plate.cloth_deviation(s)[0].max()) for s in smalls) > plate.CLOTH_DEVIATION_UNITS


@pytest.mark.parametrize("seed", range(2140010, 2140016))
def test_cloth_deviation_bits_on_drawn_arrays(seed):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(24, 200)), int(rng.integers(24, 260))
    kind = seed % 3
    if kind == 0:  # noise
        small = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif kind == 1:  # flat cloth (every spread at its floor) with a disc
        small = np.full((h, w, 3), rng.integers(0, 256, 3), np.uint8)
        cv2.circle(small, (w // 2, h // 2), min(h, w) // 4, tuple(int(v) for v in rng.integers(0, 256, 3)), -1)
    else:  # a lighting gradient
        yy, xx = np.mgrid[0:h, 0:w]
        small = np.clip(np.stack([40 + 150 * xx / w, 60 + 120 * yy / h, 90 + 0.3 * xx], axis=-1)
                        + rng.normal(0, 3, (h, w, 3)), 0, 255).astype(np.uint8)
    got, want = plate.cloth_deviation(small), ref_cloth_deviation(small)
    for g, x in zip(got, want):
        assert _same_bits(g, x)


def test_cloth_deviation_keeps_its_argument_checks():
    with pytest.raises(ValueError, match="small_bgr"):
        plate.cloth_deviation(np.zeros((20, 20), np.uint8))


# --- shrink._area_resize: the float32 shrink in strips of whole periods of rows -----------

def ref_area_resize(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``vision.shrink._area_resize`` before round 31 (main 93db743), verbatim."""
    h, w = image.shape[:2]
    out_w, out_h = size
    if w % out_w == 0 and h % out_h == 0:  # OpenCV's integer-factor path
        return cv2.resize(image, (out_w, out_h), interpolation=cv2.INTER_AREA)
    sums = cv2.resize(image.astype(np.float32), (out_w, out_h), interpolation=cv2.INTER_AREA)
    return cv2.convertScaleAbs(sums).reshape(sums.shape)


def _work_size(image: np.ndarray) -> tuple[int, int]:
    h, w = image.shape[:2]
    return max(8, int(round(w * plate.PLATE_WORK_HEIGHT_PX / h))), plate.PLATE_WORK_HEIGHT_PX


def test_area_resize_bits_on_frames(frames):
    # what the plate search shrinks: a 1080p frame once halved (540 rows, 7
    # strips), a 720p frame as it is (12 strips)
    n_strips = set()
    for frame in frames:
        image = shrink.halve(frame, 1) if frame.shape[0] >= 1080 else frame
        size = _work_size(image)
        n_strips.add(len(shrink._row_strips(image.shape[0], size[1], image.shape[1] * 3 * 4)))
        got = shrink._area_resize(image, size)
        assert _same_bits(got, ref_area_resize(image, size))
        assert _same_bits(got, cv2.resize(image, size, interpolation=cv2.INTER_AREA))
    assert min(n_strips) > 1  # every frame was shrunk in several strips


@pytest.mark.parametrize("strip_bytes", [1, 5_000, 200_000])
def test_area_resize_bits_on_drawn_arrays(strip_bytes, monkeypatch):
    # shrinks whose row factor is a binary fraction (strips) and others (one
    # strip), 1, 3 and 4 channels and a single plane, small strip budgets
    # (a strip of one period)
    monkeypatch.setattr(shrink, "AREA_STRIP_BYTES", strip_bytes)
    rng = np.random.default_rng(2140020 + strip_bytes)
    n = split = 0
    while n < 40:
        if n % 4 == 3:  # any factor
            h = int(rng.integers(20, 700))
            out_h = int(rng.integers(2, h + 1))
        else:  # p / 2**a rows per output row
            q = 2 ** int(rng.integers(0, 6))
            p = int(rng.integers(q + 1, 4 * q + 2))
            if math.gcd(p, q) != 1:
                continue
            g = int(rng.integers(1, max(2, 700 // p)))
            h, out_h = p * g, q * g
        w = int(rng.integers(8, 400))
        out_w = int(rng.integers(2, w + 1))
        if w % out_w == 0 and h % out_h == 0:
            continue
        shape = [(h, w), (h, w, 1), (h, w, 3), (h, w, 4)][n % 4]
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        if n % 2:
            image = cv2.GaussianBlur(image, (0, 0), 1.5).reshape(shape)
        split += len(shrink._row_strips(h, out_h, w * (shape[2] if len(shape) == 3 else 1) * 4)) > 1
        got = shrink._area_resize(image, (out_w, out_h))
        assert _same_bits(got, ref_area_resize(image, (out_w, out_h)))
        n += 1
    assert split >= 20


def test_row_strips_cover_whole_periods():
    for h, out_h, row_bytes in ((540, 320, 960 * 12), (720, 320, 1280 * 12), (480, 320, 640 * 12),
                                (1000, 320, 100), (1079, 320, 100), (700, 321, 100), (640, 640, 10)):
        strips = shrink._row_strips(h, out_h, row_bytes)
        assert strips[0][0] == 0 and strips[0][2] == 0
        assert strips[-1][1] == h and strips[-1][3] == out_h
        for (_, y1, _, o1), (y0, _, o0, _) in zip(strips, strips[1:]):
            assert (y0, o0) == (y1, o1)
        exact = Fraction(1.0 / (out_h / h)) == Fraction(h, out_h)
        if not exact:
            assert strips == [(0, h, 0, out_h)]
        for y0, y1, o0, o1 in strips:  # each strip shrinks by the same factor, from a period's start
            assert Fraction(y1 - y0, o1 - o0) == Fraction(h, out_h)
            assert Fraction(y0, 1) == Fraction(o0, 1) * Fraction(h, out_h)
    # 1080p's halved rows: periods of 27 rows to 16, several per strip
    assert len(shrink._row_strips(540, 320, 960 * 12)) > 1
    assert shrink._row_strips(1079, 320, 100) == [(0, 1079, 0, 320)]


# --- discs._DiscFilter.response: products and inverses into the filter's own buffers ------

def ref_response(filt: discs._DiscFilter, radius_px: float) -> np.ndarray:
    """``vision.discs._DiscFilter.response`` before round 31 (main 93db743), verbatim
    (``self`` renamed ``filt``)."""
    out = np.zeros(filt.shape, np.float32)
    if filt.empty:
        return out
    half = int(math.ceil(discs.DISC_SURROUND_FRAC[1] * radius_px + 1))  # as _disc_kernel
    k = 2 * half + 1
    h, w = filt.shape
    wy0, wy1, wx0, wx1 = filt.window
    y0, x0 = max(0, wy0, filt.r0 - half), max(0, wx0, filt.c0 - half)
    y1 = min(h, wy1, filt.r0 + filt.ch + half)
    x1 = min(w, wx1, filt.c0 + filt.cw + half)
    if y1 <= y0 or x1 <= x0:
        return out
    rows = slice(y0 - filt.r0 + half, y1 - filt.r0 + half)
    cols = slice(x0 - filt.c0 + half, x1 - filt.c0 + half)
    if (rows.start < filt.ch + k - 1 - filt.mh or rows.stop > filt.mh
            or cols.start < filt.cw + k - 1 - filt.mw or cols.stop > filt.mw):
        raise ValueError(f"radius_px: {radius_px} is larger than this filter was made for")
    key = (float(radius_px), filt.mh, filt.mw)
    kspec = discs._KERNEL_SPECTRA.get(key)
    if kspec is None:
        kernel = discs._disc_kernel(radius_px)
        kpad = np.zeros((filt.mh, filt.mw), np.float32)
        kpad[:k, :k] = kernel
        kspec = cv2.dft(kpad)
        if len(discs._KERNEL_SPECTRA) >= 64:
            discs._KERNEL_SPECTRA.clear()
        discs._KERNEL_SPECTRA[key] = kspec
    acc = sq = None
    for spec in filt.spectra:
        full = cv2.idft(cv2.mulSpectrums(spec, kspec, 0), flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)[rows, cols]
        if acc is None:
            acc = np.multiply(full, full)
            sq = np.empty_like(acc)
        else:
            acc += np.multiply(full, full, out=sq)
    np.sqrt(acc, out=out[y0:y1, x0:x1])
    return out


def _disc_filters(frames: list[np.ndarray], monkeypatch) -> list[tuple]:
    """The (residual, max radius, window) of every disc filter the reader makes on ``frames``."""
    made: list[tuple] = []
    real_init = discs._DiscFilter.__init__

    def spy(self, residual, max_radius_px, window=None):
        made.append((residual.copy(), float(max_radius_px), window))
        real_init(self, residual, max_radius_px, window)

    monkeypatch.setattr(discs._DiscFilter, "__init__", spy)
    for frame in frames:
        read_frame(frame)
    monkeypatch.setattr(discs._DiscFilter, "__init__", real_init)
    return made


def test_disc_filter_bits_on_frames(frames, monkeypatch):
    made = _disc_filters(frames, monkeypatch)
    assert any(window is not None for _, _, window in made)  # the radius scan's windowed filters too
    assert any(window is None for _, _, window in made)
    n_compared = 0
    for residual, max_r, window in made:
        filt = discs._DiscFilter(residual, max_r, window)
        outs = []
        # several radii on one filter (its buffers reused), the largest last
        for r in (0.6 * max_r, 0.8 * max_r, max_r):
            if r <= 1:
                continue
            got, want = filt.response(r), ref_response(filt, r)
            assert _same_bits(got, want)
            outs.append((got, want))
            n_compared += 1
        # a later call leaves the responses returned before as they were
        for got, want in outs:
            assert _same_bits(got, want)
    assert n_compared >= 3 * len(frames)
    # and the reader's own entry point
    residual = made[0][0]
    assert _same_bits(discs.disc_response(residual, 5.0), ref_response(discs._DiscFilter(residual, 5.0), 5.0))


def test_disc_filter_bits_on_drawn_arrays():
    rng = np.random.default_rng(2140030)
    for trial in range(6):
        s = int(rng.integers(60, 200))
        residual = np.zeros((s, s, 3), np.float32)
        y0, x0 = int(rng.integers(0, s // 3)), int(rng.integers(0, s // 3))
        residual[y0:y0 + s // 2, x0:x0 + s // 2] = rng.normal(0, 8, (s // 2, s // 2, 3)).astype(np.float32)
        window = None if trial % 2 else (y0, y0 + s // 3, x0, x0 + s // 3)
        filt = discs._DiscFilter(residual, 9.0, window)
        for r in (9.0, 4.5, 6.0):
            assert _same_bits(filt.response(r), ref_response(filt, r))
    empty = discs._DiscFilter(np.zeros((40, 40, 3), np.float32), 5.0)
    assert _same_bits(empty.response(5.0), ref_response(empty, 5.0))
    with pytest.raises(ValueError, match="radius_px"):
        discs._DiscFilter(residual, 4.0, (0, 10, 0, 10)).response(30.0)
