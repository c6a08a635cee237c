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

from vision import blobshape as B
from vision import discs as D
from vision import outline as O
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


def ref_sector_support(residual, x, y, radius_px):
    s = residual.shape[0]
    half = int(math.ceil(T.DISC_SURROUND_FRAC[1] * radius_px + 1))
    x0, x1 = max(0, int(x) - half), min(s, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(s, int(y) + half + 1)
    rr, cc = np.mgrid[y0:y1, x0:x1]
    dx, dy = cc - x, rr - y
    rho = np.hypot(dx, dy)
    sector = ((np.arctan2(dy, dx) + math.pi) / (2 * math.pi) * 8).astype(np.int32) % 8
    face = rho < T.DISC_FACE_FRAC * radius_px
    ring = (rho >= T.DISC_SURROUND_FRAC[0] * radius_px) & (rho < T.DISC_SURROUND_FRAC[1] * radius_px)
    patch = residual[y0:y1, x0:x1]
    if not face.any() or not ring.any():
        return 0, 0.0
    overall = patch[face].mean(axis=0) - patch[ring].mean(axis=0)
    norm = float(np.linalg.norm(overall))
    if norm <= 0:
        return 0, 0.0
    u = overall / norm
    n = 0
    for k in range(8):
        f, g = face & (sector == k), ring & (sector == k)
        if f.any() and g.any():
            d = patch[f].mean(axis=0) - patch[g].mean(axis=0)
            n += int(float(d @ u) >= T.EDGE_SECTOR_SHARE * norm)
    return n, norm


def ref_outline_masks(radius_px):
    half = int(math.ceil(T.OUTLINE_SIDES_FRAC[1] * radius_px + 1))
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    rho = np.hypot(xx, yy)
    ring = np.abs(rho - radius_px) < T.OUTLINE_HALF_WIDTH_PX
    inner = (rho > T.OUTLINE_SIDES_FRAC[0] * radius_px) & (rho < radius_px - T.OUTLINE_GAP_PX)
    outer = (rho > radius_px + T.OUTLINE_GAP_PX) & (rho < T.OUTLINE_SIDES_FRAC[1] * radius_px)
    sector = ((np.arctan2(yy, xx) + math.pi) / (2 * math.pi) * T.OUTLINE_SECTORS).astype(np.int32) % T.OUTLINE_SECTORS
    return ring, inner | outer, sector


def ref_outline_response(lightness, radius_px):
    ring, sides, _ = ref_outline_masks(radius_px)
    kernel = sides.astype(np.float32) / max(int(sides.sum()), 1) - ring.astype(np.float32) / max(int(ring.sum()), 1)
    return cv2.filter2D(lightness.astype(np.float32, copy=False), ddepth=-1, kernel=kernel,
                        borderType=cv2.BORDER_CONSTANT)


def ref_outline_support(lightness, x, y, radius_px):
    ring, sides, sector = ref_outline_masks(radius_px)
    half = ring.shape[0] // 2
    s = lightness.shape[0]
    if x - half < 0 or y - half < 0 or x + half + 1 > s or y + half + 1 > s:
        return 0, 0.0, 0.0
    patch = lightness[y - half:y + half + 1, x - half:x + half + 1]
    contrast = float(patch[sides].mean() - patch[ring].mean())
    per_sector = []
    for k in range(T.OUTLINE_SECTORS):
        f, g = ring & (sector == k), sides & (sector == k)
        if f.any() and g.any():
            per_sector.append(float(patch[g].mean()) - float(patch[f].mean()))
    if not per_sector:
        return 0, contrast, 0.0
    d = np.asarray(per_sector)
    evenness = float(np.percentile(d, 25)) / contrast if contrast > 0 else 0.0
    return int((d > 0).sum()), contrast, evenness


def ref_nonzero_box(residual):
    nz = np.any(residual != 0, axis=2)
    return np.flatnonzero(nz.any(axis=1)), np.flatnonzero(nz.any(axis=0))


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


def _token_radii(view):
    """Radii as find_tokens uses them: the plate's range and a few between."""
    R = view.plate_radius_px
    lo, hi = T.DEFAULT_TOKEN_RADIUS_FRAC[0] * R, T.DEFAULT_TOKEN_RADIUS_FRAC[1] * R
    return (lo, math.sqrt(lo * hi), 0.13 * R + 0.123, hi)


def test_sector_support_same_bits(views):
    n = 0
    for view in views:
        residual = _masked_residual(view)
        allowed = view.radius_px < T.SUSPECT_SEARCH_RADIUS_FRAC * view.plate_radius_px
        for r in _token_radii(view):
            resp = T.disc_response(residual, r)
            centres = [(float(x), float(y)) for x, y in T._peaks(resp, allowed, 0.0, 1.5 * r)[:12]]
            centres += [(3.0, 160.0), (316.0, 5.0), (150.5, 160.25)]  # clipped, between pixels
            for x, y in centres:
                got, want = T.sector_support(residual, x, y, r), ref_sector_support(residual, x, y, r)
                assert got[0] == want[0] and got[1] == want[1]
                n += got[0]
    assert n > 0


def test_outline_masks_response_and_support(views):
    n = 0
    for view in views:
        lightness = view.residual[..., 0].copy()
        for r in _token_radii(view):
            for a, b in zip(O._outline_masks(r), ref_outline_masks(r)):
                assert a.dtype == b.dtype and np.array_equal(a, b)
            resp = T.outline_response(lightness, r)
            want = ref_outline_response(lightness, r)
            # by DFT on the plate's box rather than cv2.filter2D's tiles: equal up to float32 rounding
            assert resp.dtype == np.float32 and resp.shape == want.shape
            assert np.abs(resp - want).max() <= 1e-5 * np.abs(want).max()
            region = view.radius_px < T.FAINT_SEARCH_RADIUS_FRAC * view.plate_radius_px
            centres = T._peaks(resp, region, -np.inf, 1.5 * r)[:12] + [(2, 100), (160, 160)]
            for x, y in centres:
                got, want = T.outline_support(lightness, x, y, r), ref_outline_support(lightness, x, y, r)
                assert got == want
                n += got[0]
    assert n > 0


def test_disc_filter_box_same_as_any_nonzero(views):
    for view in views[:4]:
        residual = _masked_residual(view)
        for edit in (None, "negzero", "nan"):
            r = residual.copy()
            if edit == "negzero":
                r[:40] = -0.0
            elif edit == "nan":
                r[:40] = 0.0
                r[5, 300, 1] = np.nan
            rows, cols = ref_nonzero_box(r)
            f = T._DiscFilter(r, 20.0)
            assert (f.r0, f.c0, f.r0 + f.ch - 1, f.c0 + f.cw - 1) == (rows[0], cols[0], rows[-1], cols[-1])
    empty = T._DiscFilter(np.zeros((50, 50, 3), np.float32), 5.0)
    assert empty.empty and not empty.response(5.0).any()


def ref_blob_mask(view):
    r_frac = view.radius_px / view.plate_radius_px
    inside = r_frac < T.BLOB_SEARCH_RADIUS_FRAC
    de = view.delta_e[inside]
    noise = 1.4826 * float(np.median(np.abs(de - np.median(de))))
    threshold = max(T.BLOB_MIN_DELTA_E, float(np.median(de)) + T.BLOB_NOISE_UNITS * noise)
    mask = ((view.delta_e > threshold) & inside).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    return mask, threshold


def test_blob_mask_same(views):
    for view in views:
        mask, threshold = T._blob_mask(view)
        want_mask, want_threshold = ref_blob_mask(view)
        assert threshold == want_threshold and np.array_equal(mask, want_mask)


def test_outline_response_shared_spectrum_is_pure(views):
    """The forward transform shared between calls never changes a result:
    each call gives the bits of a call with every cache emptied."""
    def fresh(lightness, r):
        O._OUTLINE_SPECTRUM.clear()
        O._OUTLINE_KERNEL_SPECTRA.clear()
        return T.outline_response(lightness, r)

    for view in views[:5]:
        lightness = view.residual[..., 0].copy()
        r = 0.13 * view.plate_radius_px
        wants = {f: fresh(lightness, f * r) for f in T.OUTLINE_RADIUS_FACTORS}
        for f in T.OUTLINE_RADIUS_FACTORS[::-1] + T.OUTLINE_RADIUS_FACTORS:
            assert np.array_equal(T.outline_response(lightness, f * r), wants[f])
        # the same array changed in place is a new image
        cv2.circle(lightness, (160, 160), 20, color=0.0, thickness=cv2.FILLED)
        assert np.array_equal(T.outline_response(lightness, r), fresh(lightness, r))
    empty = np.zeros((64, 64), np.float32)
    assert not T.outline_response(empty, 5.0).any()


class RefDiscFilter:
    """tokens._DiscFilter before round 3 (with the old non-zero box)."""

    def __init__(self, residual, max_radius_px):
        self.shape = residual.shape[:2]
        rows, cols = ref_nonzero_box(residual)
        self.r0, self.c0 = int(rows[0]), int(cols[0])
        crop = residual[self.r0:int(rows[-1]) + 1, self.c0:int(cols[-1]) + 1]
        self.ch, self.cw = crop.shape[:2]
        k_max = 2 * int(math.ceil(T.DISC_SURROUND_FRAC[1] * max_radius_px + 1)) + 1
        self.mh = cv2.getOptimalDFTSize(self.ch + k_max - 1)
        self.mw = cv2.getOptimalDFTSize(self.cw + k_max - 1)
        self.spectra = []
        for c in range(residual.shape[2]):
            pad = np.zeros((self.mh, self.mw), np.float32)
            pad[:self.ch, :self.cw] = crop[..., c]
            self.spectra.append(cv2.dft(pad, nonzeroRows=self.ch))

    def response(self, radius_px):
        out = np.zeros(self.shape, np.float32)
        kernel = T._disc_kernel(radius_px)
        k = kernel.shape[0]
        half = k // 2
        kpad = np.zeros((self.mh, self.mw), np.float32)
        kpad[:k, :k] = kernel
        kspec = cv2.dft(kpad, nonzeroRows=k)
        acc = None
        for spec in self.spectra:
            full = cv2.idft(cv2.mulSpectrums(spec, kspec, 0), flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
            acc = full * full if acc is None else acc + full * full
        h, w = self.shape
        y0, x0 = max(0, self.r0 - half), max(0, self.c0 - half)
        y1 = min(h, self.r0 + self.ch - 1 + half + 1)
        x1 = min(w, self.c0 + self.cw - 1 + half + 1)
        out[y0:y1, x0:x1] = np.sqrt(acc[y0 - self.r0 + half:y1 - self.r0 + half,
                                        x0 - self.c0 + half:x1 - self.c0 + half])
        return out


def _assert_close_response(got, want):
    """Equal up to float32 rounding: the forward transforms are no longer told
    the padding is zero (``nonzeroRows``), a different (faster) code path with
    other rounding."""
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.abs(got - want).max() <= 2e-5 * max(float(np.abs(want).max()), 1e-6)


def test_disc_filter_same_up_to_rounding(views):
    worst = 0.0
    for view in views:
        residual = _masked_residual(view)
        radii = _token_radii(view)
        new, ref = T._DiscFilter(residual, max(radii)), RefDiscFilter(residual, max(radii))
        for r in radii + radii:
            got, want = new.response(r), ref.response(r)
            _assert_close_response(got, want)
            worst = max(worst, float(np.abs(got - want).max() / np.abs(want).max()))
        r = radii[2]
        _assert_close_response(T.disc_response(residual, r), RefDiscFilter(residual, r).response(r))
    assert worst > 0.0  # (not the same code: a test that compared a thing with itself would pass too)


def test_peaks_one_by_one_beyond_pair_limit(views, monkeypatch):
    view = views[0]
    residual = _masked_residual(view)
    allowed = view.radius_px < T.FAINT_SEARCH_RADIUS_FRAC * view.plate_radius_px
    resp = T.disc_response(residual, 12.0)
    want = ref_peaks(resp, allowed, 0.0, 6.0)
    monkeypatch.setattr(D, "_PEAK_PAIRS_MAX", 0)  # (the disc filter module's own limit)
    assert T._peaks(resp, allowed, 0.0, 6.0) == want and len(want) > 4


def ref_radius_from_discs(residual, allowed, lo_px, hi_px):
    """tokens._radius_from_discs before round 4 (whole-canvas disc filter)."""
    best_r, best_score = 0.0, 0.0
    r = lo_px
    filt = RefDiscFilter(residual, hi_px)
    while r <= hi_px:
        resp = filt.response(r)
        peaks = ref_peaks(resp, allowed, 0.0, 1.6 * r)
        score = float(sum(sorted((resp[y, x] for x, y in peaks), reverse=True)[:4]))
        if score > best_score:
            best_r, best_score = r, score
        r *= T.RADIUS_SCAN_STEP
    return best_r


def test_radius_scan_same_radius(views):
    """The scan's smaller (windowed) DFTs pick the same radius as the whole-canvas filter."""
    R = views[0].plate_radius_px
    lo, hi = T.DEFAULT_TOKEN_RADIUS_FRAC[0] * R, T.DEFAULT_TOKEN_RADIUS_FRAC[1] * R
    for view in views:
        residual = _masked_residual(view)
        allowed = view.radius_px < T.FAINT_SEARCH_RADIUS_FRAC * view.plate_radius_px
        assert T._radius_scan(residual, allowed, lo, hi)[0] == ref_radius_from_discs(residual, allowed, lo, hi)
    assert T._radius_scan(residual, np.zeros_like(allowed), lo, hi) == (0.0, [])


@pytest.mark.parametrize("seed", range(4))
def test_disc_filter_window_same_up_to_rounding(seed):
    """Inside its window the windowed filter is the whole-canvas one (up to
    float32 rounding; its DFTs are smaller); outside it is 0."""
    rng = np.random.default_rng(seed)
    residual = np.zeros((160, 160, 3), np.float32)
    y0, x0 = rng.integers(0, 40, 2)
    residual[y0:y0 + 100, x0:x0 + 90] = rng.normal(0, 5, (100, 90, 3)).astype(np.float32)
    wy0, wx0 = rng.integers(-5, 60, 2)
    window = (int(wy0), int(wy0 + rng.integers(20, 110)), int(wx0), int(wx0 + rng.integers(20, 110)))
    whole, part = T._DiscFilter(residual, 12.0), T._DiscFilter(residual, 12.0, window)
    assert part.mh <= whole.mh and part.mw <= whole.mw
    inside = np.zeros((160, 160), bool)
    inside[max(0, window[0]):window[1], max(0, window[2]):window[3]] = True
    for r in (4.0, 7.3, 12.0):
        got, want = part.response(r), whole.response(r)
        assert not got[~inside].any()
        assert np.abs(got[inside] - want[inside]).max() <= 2e-5 * np.abs(want).max()
    with pytest.raises(ValueError, match="radius_px"):
        part.response(30.0)


@pytest.mark.parametrize("seed", range(5))
def test_column_means_same_bits_as_sliced_means(seed):
    """The padded-column sector means of sector_support are each slice's ``mean(axis=0)``, bit for bit."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        n = int(rng.integers(1, 600))
        values = np.zeros((n + 1, 3), np.float32)
        values[:n] = rng.standard_normal((n, 3)) * rng.uniform(0.01, 80) + rng.uniform(-30, 30)
        order = rng.permutation(n)[:int(rng.integers(1, n + 1))]
        cuts = np.sort(rng.integers(0, order.size + 1, 7))
        bounds = np.concatenate([[0], cuts, [order.size]]).astype(np.int64)
        got = T._column_means(values, T._sector_columns(order, bounds, n), np.diff(bounds))
        for k in range(8):
            if bounds[k + 1] > bounds[k]:
                want = values[order[bounds[k]:bounds[k + 1]]].mean(axis=0)
                assert got[k].dtype == want.dtype and np.array_equal(got[k], want)


@pytest.mark.parametrize("seed", range(3))
def test_sector_support_same_on_random_residuals(seed):
    rng = np.random.default_rng(seed)
    residual = cv2.GaussianBlur(rng.normal(0, 4, (120, 120, 3)).astype(np.float32), ksize=(0, 0), sigmaX=2.0)
    n_total = 0
    for _ in range(150):
        r = float(rng.uniform(3, 20))
        x, y = (float(v) for v in rng.integers(0, 120, 2))
        got, want = T.sector_support(residual, x, y, r), ref_sector_support(residual, x, y, r)
        assert got[0] == want[0] and got[1] == want[1]
        n_total += got[0]
    assert n_total > 0


def ref_half_max_radius(delta_e, blob):
    """tokens.half_max_radius before round 4 (np.nonzero on the whole canvas)."""
    rr, cc = np.nonzero(blob)
    if rr.size == 0:
        return 0.0
    peak = float(np.percentile(delta_e[rr, cc], 90))
    eq = math.sqrt(rr.size / math.pi)
    pad = int(math.ceil(eq)) + 2
    s = delta_e.shape[0]
    y0, y1 = max(0, rr.min() - pad), min(s, rr.max() + pad + 1)
    x0, x1 = max(0, cc.min() - pad), min(s, cc.max() + pad + 1)
    region = (delta_e[y0:y1, x0:x1] > 0.5 * peak).astype(np.uint8)
    n, labels = cv2.connectedComponents(region, connectivity=8)
    inside = labels[blob[y0:y1, x0:x1]]
    inside = inside[inside > 0]
    if inside.size == 0:
        return eq
    main = np.bincount(inside).argmax()
    return math.sqrt(float((labels == main).sum()) / math.pi)


def test_half_max_radius_same(views, monkeypatch):
    # the reference measures the half-peak region whatever its shape (the
    # one-face test, blobshape.HALF_MAX_ONE_FACE, came later)
    monkeypatch.setattr(B, "HALF_MAX_ONE_FACE", False)
    n = 0
    for view in views:
        mask, _ = T._blob_mask(view)
        for b in T._blobs(view, mask, 5.0):
            assert B.half_max_radius(view.delta_e, b.mask) == ref_half_max_radius(view.delta_e, b.mask)
            n += 1
        edge = np.zeros(mask.shape, bool)
        edge[0, 5:9] = edge[1, 6] = edge[-1, -1] = True  # touching the canvas edge
        assert B.half_max_radius(view.delta_e, edge) == ref_half_max_radius(view.delta_e, edge)
    assert n > 0
    assert B.half_max_radius(views[0].delta_e, np.zeros(mask.shape, bool)) == 0.0


def ref_blobs(view, mask, min_area_px):
    """tokens._blobs before round 4 (contrast and rim test on the whole canvas)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    r_frac = view.radius_px / view.plate_radius_px
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if area < min_area_px or len(cnt) < 5:
            continue
        filled = np.zeros(mask.shape, np.uint8)
        cv2.drawContours(filled, [cnt], -1, color=1, thickness=cv2.FILLED)
        sel = filled.astype(bool)
        out.append((float(view.delta_e[sel].mean()), bool((r_frac[sel] > T.RIM_CROSSING_FRAC).any()), sel))
    return out


def test_blobs_same(views):
    n = 0
    for view in views:
        mask, _ = T._blob_mask(view)
        got, want = T._blobs(view, mask, 5.0), ref_blobs(view, mask, 5.0)
        assert len(got) == len(want)
        for b, (contrast, crosses, sel) in zip(got, want):
            assert b.contrast == contrast and b.crosses_rim == crosses
            assert b.mask.dtype == np.bool_ and np.array_equal(b.mask, sel)
            n += 1
    assert n > 0


def ref_disc_kernel(radius_px):
    """tokens._disc_kernel before round 4 (its own grid every call)."""
    half = int(math.ceil(T.DISC_SURROUND_FRAC[1] * radius_px + 1))
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    rho = np.hypot(xx, yy)
    face = (rho < T.DISC_FACE_FRAC * radius_px).astype(np.float32)
    ring = ((rho >= T.DISC_SURROUND_FRAC[0] * radius_px) & (rho < T.DISC_SURROUND_FRAC[1] * radius_px)
            ).astype(np.float32)
    return face / max(face.sum(), 1.0) - ring / max(ring.sum(), 1.0)


def test_disc_kernel_same_bits():
    for r in np.linspace(1.5, 30.0, 97):
        got, want = T._disc_kernel(float(r)), ref_disc_kernel(float(r))
        assert got.dtype == want.dtype and np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_peaks_with_the_callers_allowed_box(views):
    for view in views[:5]:
        residual = _masked_residual(view)
        allowed = view.radius_px < T.FAINT_SEARCH_RADIUS_FRAC * view.plate_radius_px
        box = T._true_box(allowed)
        for r in (9.0, 17.0, 25.6):
            resp = T.disc_response(residual, r)
            assert T._peaks(resp, allowed, 0.0, 1.6 * r, allowed_box=box) == ref_peaks(resp, allowed, 0.0, 1.6 * r)
    assert T._true_box(np.zeros((5, 5), bool)) is None


def test_zeroed_where_same_bits_as_boolean_assignment(views):
    rng = np.random.default_rng(11)
    for view in views:
        mask, _ = T._blob_mask(view)
        grown = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
        noise = (rng.random(mask.shape) < 0.05).astype(np.uint8)
        for image in (view.residual, view.residual[..., 0].copy()):
            wall = view.radius_px >= 0.8 * view.plate_radius_px  # a bool mask, as faces_against_wall's
            for m in (mask, grown, noise, np.zeros_like(mask), np.ones_like(mask), wall):
                want = image.copy()
                want[m.astype(bool)] = 0.0
                got = T._zeroed_where(image, m)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
                assert got.flags.writeable and not np.shares_memory(got, image)


def test_is_rim_arc_same_as_with_np_nonzero(views):
    """``blobshape.is_rim_arc`` finds the region's pixels by ``cv2.findNonZero``:
    the same pixels in the same order as ``np.nonzero``."""
    rng = np.random.default_rng(12)
    for view in views:
        regions = []
        mask, _ = T._blob_mask(view)
        n, labels = cv2.connectedComponents(mask)
        regions += [labels == i for i in range(1, n)]
        for _ in range(4):  # arcs along the rim, some thin enough to be one
            arc = np.zeros(mask.shape, np.uint8)
            cv2.ellipse(arc, (160, 160), (120, 120), 0, float(rng.uniform(0, 360)), float(rng.uniform(0, 360)), 1,
                        int(rng.integers(1, 6)))
            regions.append(arc.astype(bool))
        for region in regions:
            rr, cc = np.nonzero(region)
            found = cv2.findNonZero(region.view(np.uint8))
            if found is None:
                assert rr.size == 0
                continue
            found = found.reshape(-1, 2)
            assert np.array_equal(found[:, 1], rr) and np.array_equal(found[:, 0], cc)
        rfrac = view.radius_px / view.plate_radius_px
        for region in regions:
            for token_frac in (0.05, 0.08):
                assert B.is_rim_arc(region, rfrac, token_frac) == ref_is_rim_arc(region, rfrac, token_frac)


def ref_is_rim_arc(region, radius_frac, token_radius_frac):
    """``blobshape.is_rim_arc`` before round 9 (``np.nonzero``), verbatim but for the checks."""
    rr, cc = np.nonzero(region)
    if rr.size < 3:
        return False
    rho = radius_frac[rr, cc]
    lo, hi = np.percentile(rho, [5, 95])
    if lo < B.RIM_ARC_MIN_RADIUS_FRAC or hi - lo > B.RIM_ARC_MAX_THICKNESS_FRAC:
        return False
    c = radius_frac.shape[0] / 2.0 - 0.5
    theta = np.arctan2(rr - c, cc - c)
    order = np.sort(theta)
    gaps = np.diff(np.concatenate([order, order[:1] + 2 * math.pi]))
    widest = int(np.argmax(gaps))
    middle = float(np.median(rho))
    length_frac = (2 * math.pi - float(gaps[widest])) * middle
    if length_frac < B.RIM_ARC_MIN_LENGTH_RADII * token_radius_frac:
        return False
    start = order[(widest + 1) % order.size]
    along = ((theta - start) % (2 * math.pi)) * middle / token_radius_frac
    return B._arc_is_even(along, rho / token_radius_frac)
