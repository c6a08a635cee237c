"""The disc filter: a token's face found as a disc that differs from its surround.

The matched filter of :mod:`vision.tokens`: the mean residual over a disc of
the token radius minus the mean over a ring just outside it, on the three Lab
channels of the plate-background residual of
:class:`vision.canonical.CanonicalView`, by DFT (:class:`_DiscFilter`,
:func:`disc_response`); its support in eight sectors around a centre
(:func:`sector_support`); the local maxima of a response (:func:`_peaks`);
and the token radius measured by the strongest four peaks over a range of
radii (:func:`_radius_scan`).  :mod:`vision.tokens` re-exports these
names.  Distances are canonical pixels, contrasts Lab units.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .cache import cached
from .outline import _sectors_sorted

#: Disc filter: the face part (radius fraction) and the surround ring (radius fractions).
DISC_FACE_FRAC = 0.8
DISC_SURROUND_FRAC = (1.2, 1.6)
#: Share of the overall contrast a sector must reach to count.
EDGE_SECTOR_SHARE = 0.35
#: Candidate token radii tried when no clear disc gives the size, fraction of plate radius.
RADIUS_SCAN_STEP = 1.08
#: Scores of the radius scan within this relative difference are a tie (the
#: summed float32 filter peaks differ by rounding alone: four drawn faces of
#: radius 16 scored 38.157566 at 14.3-19.4 px, one radius an ulp higher on
#: one CPU, so the scan's radius moved from the plateau's start to its middle).
RADIUS_SCAN_TIE_REL = 1e-5


#: Window grids of the disc filter by half-size (see :func:`_disc_grid`).
_DISC_GRIDS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _disc_grid(half: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distances and sectors of a (2 half + 1)-square window around its centre pixel.

    A frame's token radius is new, the window's half-size mostly not.

    Returns
    -------
    rho32 : ndarray, float32, (K, K)
        Distance, pixels, from float32 offsets (:func:`_disc_kernel`).
    rho64 : ndarray, float64, (K, K)
        Distance, pixels, from float64 offsets (:func:`_sector_window`).
    sector : ndarray, int32, (K, K)
        Sector 0..7 of :func:`sector_support`.
    All read-only.
    """
    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
        rr, cc = np.mgrid[0:2 * half + 1, 0:2 * half + 1]
        dx, dy = cc - float(half), rr - float(half)
        return np.hypot(xx, yy), np.hypot(dx, dy), sector_of(dx, dy)
    return cached(_DISC_GRIDS, half, make)


def _disc_kernel(radius_px: float) -> np.ndarray:
    """Zero-mean kernel: +mean over the face disc, -mean over the surround ring."""
    half = int(math.ceil(DISC_SURROUND_FRAC[1] * radius_px + 1))
    rho = _disc_grid(half)[0]
    face = (rho < DISC_FACE_FRAC * radius_px).astype(np.float32)
    ring = ((rho >= DISC_SURROUND_FRAC[0] * radius_px) & (rho < DISC_SURROUND_FRAC[1] * radius_px)).astype(np.float32)
    return face / max(face.sum(), 1.0) - ring / max(ring.sum(), 1.0)


#: Spectra of the disc kernel by (radius, DFT size): the radius scan tries the
#: same radii on every frame, and the plate's box has the same size.
_KERNEL_SPECTRA: dict[tuple[float, int, int], np.ndarray] = {}


def _circular_dft_length(start: int, length: int, kernel_half: int, want: tuple[int, int]) -> int:
    """DFT length along one axis for a correlation wanted only on part of the canvas.

    A correlation by DFT of length ``N`` is circular: output index ``i`` (canvas
    ``start + i - kernel_half``) also receives the input wrapped around by
    ``N``.  With the input non-zero on ``length`` samples from ``start`` and a
    kernel of ``2 kernel_half + 1`` samples, the outputs ``i`` with
    ``length + 2 kernel_half - N <= i < N`` receive nothing wrapped: they are
    those of the linear (zero-padded) correlation.  This is the smallest
    ``cv2.getOptimalDFTSize`` that keeps every wanted output clean.

    Parameters
    ----------
    start, length : int
        First index and number of the input's non-zero samples, pixels.
    kernel_half : int
        Half-size of the largest kernel used, pixels.
    want : (int, int)
        Canvas indices ``[lo, hi)`` where the output must be exact.

    Returns
    -------
    int
        The DFT length, at most that of the full linear correlation.
    """
    full = length + 2 * kernel_half  # the linear correlation's length
    lo = max(want[0], start - kernel_half) - start + kernel_half  # output indices, clipped to the support
    hi = min(want[1], start + length + kernel_half) - start + kernel_half
    if hi <= lo:
        return cv2.getOptimalDFTSize(length)
    return cv2.getOptimalDFTSize(max(length, hi, full - lo))


class _DiscFilter:
    """The disc filter of one residual for several radii.

    The residual is non-zero only on the plate, so the correlation is done by
    DFT on the bounding box of its non-zero pixels (zero-padded, linear, not
    circular), and the three channels' forward transforms are computed once
    and shared by every radius tried.  Same result as ``cv2.filter2D`` with a
    zero (BORDER_CONSTANT) border, up to float32 rounding.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
    max_radius_px : float
        Largest radius :meth:`response` will be asked for, canonical pixels.
    window : (int, int, int, int) or None
        ``(y0, y1, x0, x1)``, canvas pixels, end-exclusive: the response is
        needed only there.  The DFTs are then only as large as keeps that
        window free of the circular wrap-around (see
        :func:`_circular_dft_length`), and :meth:`response` is 0 outside it.
        None: everywhere.
    """

    def __init__(self, residual: np.ndarray, max_radius_px: float,
                 window: tuple[int, int, int, int] | None = None) -> None:
        self.shape = residual.shape[:2]
        # The box of the pixels non-zero in any channel (``!= 0``: -0.0 is
        # zero, NaN is not): OpenCV's bounding rectangle of the (H, W * C)
        # bytes of the ``!= 0`` mask, in one scan; its columns divided by C
        # are the pixels' (the rows' and the columns' ``any`` took two
        # slower scans, 0.14 ms against 0.09 on the canvas).
        h, w = self.shape
        self.window = (0, h, 0, w) if window is None else tuple(int(v) for v in window)
        nonzero = np.not_equal(residual, 0).view(np.uint8).reshape(h, -1)
        n_channels = nonzero.shape[1] // w
        bx, by, bw, bh = cv2.boundingRect(nonzero)
        self.empty = bw == 0
        if self.empty:
            return
        self.r0, self.c0 = int(by), int(bx) // n_channels
        crop = residual[self.r0:int(by + bh), self.c0:int(bx + bw - 1) // n_channels + 1]
        self.ch, self.cw = crop.shape[:2]
        half_max = int(math.ceil(DISC_SURROUND_FRAC[1] * max_radius_px + 1))  # as _disc_kernel
        if window is None:
            self.mh = cv2.getOptimalDFTSize(self.ch + 2 * half_max)
            self.mw = cv2.getOptimalDFTSize(self.cw + 2 * half_max)
        else:
            wy0, wy1, wx0, wx1 = self.window
            self.mh = _circular_dft_length(self.r0, self.ch, half_max, (wy0, wy1))
            self.mw = _circular_dft_length(self.c0, self.cw, half_max, (wx0, wx1))
        self.spectra = []
        for c in range(residual.shape[2]):
            pad = np.zeros((self.mh, self.mw), np.float32)
            pad[:self.ch, :self.cw] = crop[..., c]
            self.spectra.append(cv2.dft(pad))  # (no nonzeroRows: that path is ~4x slower)
        # :meth:`response`'s product of spectra and inverse transform, written
        # into these two (mh, mw) buffers for every channel and radius (made
        # on first use) rather than into new arrays each time
        self._product: np.ndarray | None = None
        self._inverse: np.ndarray | None = None

    def response(self, radius_px: float) -> np.ndarray:
        """:func:`disc_response` of the residual at ``radius_px`` (0 outside the window)."""
        out = np.zeros(self.shape, np.float32)
        if self.empty:
            return out
        half = int(math.ceil(DISC_SURROUND_FRAC[1] * radius_px + 1))  # as _disc_kernel
        k = 2 * half + 1
        # The part of the canvas written: the linear correlation's support
        # within the window; every index there must be free of wrap-around.
        h, w = self.shape
        wy0, wy1, wx0, wx1 = self.window
        y0, x0 = max(0, wy0, self.r0 - half), max(0, wx0, self.c0 - half)
        y1 = min(h, wy1, self.r0 + self.ch + half)
        x1 = min(w, wx1, self.c0 + self.cw + half)
        if y1 <= y0 or x1 <= x0:
            return out
        rows = slice(y0 - self.r0 + half, y1 - self.r0 + half)
        cols = slice(x0 - self.c0 + half, x1 - self.c0 + half)
        if (rows.start < self.ch + k - 1 - self.mh or rows.stop > self.mh
                or cols.start < self.cw + k - 1 - self.mw or cols.stop > self.mw):
            raise ValueError(f"radius_px: {radius_px} is larger than this filter was made for")
        key = (float(radius_px), self.mh, self.mw)
        kspec = _KERNEL_SPECTRA.get(key)
        if kspec is None:
            kernel = _disc_kernel(radius_px)
            kpad = np.zeros((self.mh, self.mw), np.float32)
            kpad[:k, :k] = kernel
            kspec = cv2.dft(kpad)
            if len(_KERNEL_SPECTRA) >= 64:
                _KERNEL_SPECTRA.clear()
            _KERNEL_SPECTRA[key] = kspec
        # full[i, j] is the response at canvas (r0 + i - half, c0 + j - half);
        # only the written part of each channel's result is squared and summed
        # (the same float32 operations, in the same order, as on the whole array).
        # The product and the inverse go into the filter's own two buffers
        # (``dst``: the same transforms, written in place; a radius scan's 42
        # products and inverses at 1080p then reuse two arrays that stay in
        # the CPU's cache: about 2 ms less a scan of 14 radii, 16 %).
        if self._product is None:
            self._product = np.empty((self.mh, self.mw), np.float32)  # CCS-packed, as the spectra
            self._inverse = np.empty((self.mh, self.mw), np.float32)
        acc = sq = None
        for spec in self.spectra:
            # the kernel is symmetric, so correlation = convolution
            product = cv2.mulSpectrums(spec, kspec, 0, self._product)
            full = cv2.idft(product, self._inverse, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)[rows, cols]
            if acc is None:
                acc = np.multiply(full, full)
                sq = np.empty_like(acc)
            else:
                acc += np.multiply(full, full, out=sq)
        np.sqrt(acc, out=out[y0:y1, x0:x1])
        return out


def disc_response(residual: np.ndarray, radius_px: float) -> np.ndarray:
    """Face-versus-surround contrast for a disc of ``radius_px`` centred at every pixel.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Colour minus the plate model (masked parts set to 0).
    radius_px : float
        Disc radius, canonical pixels (> 1).

    Returns
    -------
    ndarray, float32, (S, S)
        Euclidean norm over the Lab channels of (mean over the face disc -
        mean over the surround ring), Lab units.
    """
    if radius_px <= 1:
        raise ValueError(f"radius_px: expected > 1, got {radius_px}")
    return _DiscFilter(residual, radius_px).response(radius_px)


#: Window geometry of :func:`sector_support` by (radius, half-size), for a
#: centre on a whole pixel (see :func:`_sector_window`).
_SECTOR_WINDOWS: dict[tuple[float, int], tuple[np.ndarray, ...]] = {}
#: Sectors of :func:`sector_support`.
SUPPORT_SECTORS = 8


def _sector_columns(order: np.ndarray, bounds: np.ndarray, sentinel: int) -> np.ndarray:
    """Each sector's pixels as one column: ``(L, n_sectors)`` flat indices, sector
    ``k``'s pixels ``order[bounds[k]:bounds[k + 1]]`` from the top of column ``k``
    and ``sentinel`` below (L = the largest sector)."""
    counts = np.diff(bounds)
    cols = np.full((max(int(counts.max(initial=0)), 1), counts.size), sentinel, np.int64)
    for k in range(counts.size):
        cols[:counts[k], k] = order[bounds[k]:bounds[k + 1]]
    return cols


def _rows_mean(values: np.ndarray) -> np.ndarray:
    """``values.mean(axis=0)`` of a non-empty (N, C) float32 array, bit for bit.

    ``ndarray.mean`` sums the rows (``np.add.reduce`` over axis 0, float32)
    and divides the sum by the count as an intp (in float64, cast back to
    float32); the same two operations here, without ``mean``'s Python
    wrapper (a few microseconds a call, and :func:`sector_support` takes two
    means a call, hundreds of calls a frame).

    Parameters
    ----------
    values : ndarray, float32 or float64, (N, C), N >= 1
        (Any other dtype: ``values.mean(axis=0)`` itself, which sums
        integers and float16 in a wider type.)

    Returns
    -------
    ndarray, (C,), ``values``' dtype
    """
    if values.dtype != np.float32 and values.dtype != np.float64:
        return values.mean(axis=0)
    total = np.add.reduce(values, axis=0)
    return np.true_divide(total, np.intp(values.shape[0]), out=total, casting="unsafe")


def _column_means(values: np.ndarray, cols: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Every sector's mean at once, with the bits of ``values[idx].mean(axis=0)``.

    Parameters
    ----------
    values : ndarray, float32, (N, C)
        Pixel values; the row that the padding of ``cols`` points to is 0.
    cols : ndarray, int, (L, K)
        Column ``k``: sector ``k``'s rows of ``values`` from the top, then padding
        (see :func:`_sector_columns`).
    counts : ndarray, int, (K,)
        Rows per sector (the rest of its column is padding).

    Returns
    -------
    ndarray, float32, (K, C)
        Row ``k`` is ``values[cols[:counts[k], k]].mean(axis=0)``, bit for bit
        (NaN where ``counts[k]`` is 0).  NumPy sums an (n, C) C-ordered array
        over axis 0 row after row in float32, so the (L, K, C) gather summed
        over axis 0 adds each sector's values in the same order and then only
        +0.0; ``mean`` then divides the float32 sum by the count as an intp (in
        float64, cast to float32), as here.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.true_divide(values[cols].sum(axis=0), counts.astype(np.intp)[:, None]).astype(np.float32)


def _sector_window(radius_px: float, half: int) -> tuple[np.ndarray, ...]:
    """The face disc and surround ring of :func:`sector_support` on a whole window.

    The same arithmetic as :func:`sector_support` on a window that the canvas
    does not clip, centred on a whole pixel (the offsets are then the same
    whole numbers, in the same (2 half + 1)-square array).

    Returns
    -------
    face_idx, ring_idx : ndarray, int64
        Flat indices of the face disc's and the ring's pixels, row-major.
    face_cols, ring_cols : ndarray, int64, (L, 8)
        The same pixels by sector (:func:`_sectors_sorted`), one column per
        sector (:func:`_sector_columns`), padded with the index
        ``(2 half + 1) ** 2`` (one past the window: a zero row is put there).
    face_counts, ring_counts : ndarray, int64, (8,)
        Pixels per sector.
    """
    def make() -> tuple[np.ndarray, ...]:
        _, rho, sector = _disc_grid(half)
        face = rho < DISC_FACE_FRAC * radius_px
        ring = (rho >= DISC_SURROUND_FRAC[0] * radius_px) & (rho < DISC_SURROUND_FRAC[1] * radius_px)
        sentinel = (2 * half + 1) ** 2
        face_order, face_bounds = _sectors_sorted(face, sector, SUPPORT_SECTORS)
        ring_order, ring_bounds = _sectors_sorted(ring, sector, SUPPORT_SECTORS)
        return (np.flatnonzero(face), np.flatnonzero(ring), _sector_columns(face_order, face_bounds, sentinel),
                _sector_columns(ring_order, ring_bounds, sentinel), np.diff(face_bounds), np.diff(ring_bounds))
    return cached(_SECTOR_WINDOWS, (float(radius_px), half), make)


def sector_support(residual: np.ndarray, x: float, y: float, radius_px: float) -> tuple[int, float]:
    """How many of eight sectors around (x, y) show the disc's contrast.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
    x, y : float
        Centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels.

    Returns
    -------
    n_sectors : int
        Sectors whose (face - surround) difference, projected on the overall
        difference's colour direction, reaches ``EDGE_SECTOR_SHARE`` of it.
    contrast : float
        Norm of the overall difference, Lab units.
    """
    s = residual.shape[0]
    half = int(math.ceil(DISC_SURROUND_FRAC[1] * radius_px + 1))
    x0, x1 = max(0, int(x) - half), min(s, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(s, int(y) + half + 1)
    if not (float(x).is_integer() and float(y).is_integer() and x1 - x0 == y1 - y0 == 2 * half + 1
            and residual.dtype == np.float32 and residual.ndim == 3 and residual.shape[2] == 3):
        return _sector_support_direct(residual, x, y, radius_px)
    face_idx, ring_idx, face_cols, ring_cols, face_counts, ring_counts = _sector_window(radius_px, half)
    if face_idx.size == 0 or ring_idx.size == 0:
        return 0, 0.0
    # the window's pixels, then one zero row (the columns' padding)
    patch = np.zeros(((2 * half + 1) ** 2 + 1, 3), np.float32)
    patch[:-1].reshape(2 * half + 1, 2 * half + 1, 3)[...] = residual[y0:y1, x0:x1]
    overall = _rows_mean(patch[face_idx]) - _rows_mean(patch[ring_idx])
    norm = float(np.linalg.norm(overall))
    if norm <= 0:
        return 0, 0.0
    u = overall / norm
    face_means, ring_means = _column_means(patch, face_cols, face_counts), _column_means(patch, ring_cols, ring_counts)
    n = 0
    for k in range(SUPPORT_SECTORS):
        if face_counts[k] > 0 and ring_counts[k] > 0:
            d = face_means[k] - ring_means[k]
            n += int(float(d @ u) >= EDGE_SECTOR_SHARE * norm)
    return n, norm


def sector_of(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The sector (int32, 0 .. ``SUPPORT_SECTORS`` - 1) of each offset
    (``dx``, ``dy``, pixels, x right and y down) from a centre, counted from
    the -x direction: the sectors of :func:`sector_support`."""
    return ((np.arctan2(dy, dx) + math.pi) / (2 * math.pi) * SUPPORT_SECTORS).astype(np.int32) % SUPPORT_SECTORS


def _disc_window(residual: np.ndarray, x: float, y: float, radius_px: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The residual window the disc filter reads around (x, y), clipped to the
    canvas, with each pixel's canvas row and column and the face and ring
    masks: (patch, rr, cc, face, ring), all of the window's shape (patch with
    its 3 channels; a view of ``residual``, not a copy)."""
    s = residual.shape[0]
    half = int(math.ceil(DISC_SURROUND_FRAC[1] * radius_px + 1))
    x0, x1 = max(0, int(x) - half), min(s, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(s, int(y) + half + 1)
    rr, cc = np.mgrid[y0:y1, x0:x1]
    rho = np.hypot(cc - x, rr - y)
    face = rho < DISC_FACE_FRAC * radius_px
    ring = (rho >= DISC_SURROUND_FRAC[0] * radius_px) & (rho < DISC_SURROUND_FRAC[1] * radius_px)
    return residual[y0:y1, x0:x1], rr, cc, face, ring


def _sector_support_direct(residual: np.ndarray, x: float, y: float, radius_px: float) -> tuple[int, float]:
    """:func:`sector_support` with every mask built for this window (a window
    the canvas clips, or a centre between pixels)."""
    patch, rr, cc, face, ring = _disc_window(residual, x, y, radius_px)
    sector = sector_of(cc - x, rr - y)
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
            n += int(float(d @ u) >= EDGE_SECTOR_SHARE * norm)
    return n, norm


def contrast_clear_of(residual: np.ndarray, x: float, y: float, radius_px: float,
                      others: list[tuple[float, float]], hide_px: float) -> tuple[float, float]:
    """The disc filter's contrast at (x, y) on the pixels clear of other tokens.

    Every pixel within ``hide_px`` of a point of ``others`` is left out of
    both the face disc and the surround ring; the contrast is the norm of the
    difference of the two means over what is left.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
    x, y : float
        Centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels (> 0).
    others : list of (float, float)
        Centres of the tokens to leave out, canonical pixels (x, y).
    hide_px : float
        Radius left out around each, canonical pixels (>= 0).

    Returns
    -------
    contrast : float
        Lab units; 0 when the face or the ring is wholly hidden.
    ring_share : float
        Share of the ring's pixels still seen, in [0, 1].
    """
    if not radius_px > 0:
        raise ValueError(f"radius_px: expected > 0, got {radius_px}")
    if not hide_px >= 0:
        raise ValueError(f"hide_px: expected >= 0, got {hide_px}")
    patch, rr, cc, face, ring = _disc_window(residual, x, y, radius_px)
    n_ring = int(ring.sum())
    if n_ring == 0 or not face.any():
        return 0.0, 0.0
    seen = np.ones(face.shape, bool)
    for ox, oy in others:
        seen &= np.hypot(cc - ox, rr - oy) >= hide_px
    face &= seen
    ring &= seen
    share = float(ring.sum()) / n_ring
    if not face.any() or not ring.any():
        return 0.0, share
    return float(np.linalg.norm(patch[face].mean(axis=0) - patch[ring].mean(axis=0))), share


_CROSS3 = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))

#: Neighbourhood geometry of :func:`_peaks` by kernel size (see :func:`_peak_neighbourhood`).
_PEAK_NEIGHBOURHOODS: dict[int, tuple[int, np.ndarray, np.ndarray]] = {}
#: Peaks up to which :func:`_peaks` tests the distance of every pair at once
#: (a (P, P) array); beyond, one by one.
_PEAK_PAIRS_MAX = 2048
#: Candidates checked against their whole elliptical neighbourhood at once
#: (bounds the (candidates, neighbours) array of :func:`_peaks`).
_PEAK_CHECK_CHUNK = 256


def _peak_neighbourhood(k: int) -> tuple[int, np.ndarray, np.ndarray]:
    """The elliptical neighbourhood of :func:`_peaks` for a ``k`` x ``k`` kernel.

    Parameters
    ----------
    k : int
        Kernel size, pixels (odd, >= 3).

    Returns
    -------
    square_half : int
        Half-size, pixels, of the largest square centred in the
        ``cv2.MORPH_ELLIPSE`` structuring element that lies wholly inside it
        (0 when only the centre does).
    dy, dx : ndarray, int64, (M,)
        Offsets, pixels, of the element's non-zero cells from its centre
        (row-major order; ``M`` cells).
    """
    got = _PEAK_NEIGHBOURHOODS.get(k)
    if got is None:
        element = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        c = k // 2
        square_half = 0
        while square_half < c and element[c - square_half - 1:c + square_half + 2,
                                          c - square_half - 1:c + square_half + 2].all():
            square_half += 1
        dy, dx = np.nonzero(element)
        got = (square_half, (dy - c).astype(np.int64), (dx - c).astype(np.int64))
        _PEAK_NEIGHBOURHOODS[k] = got
    return got


def _true_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """``(y0, y1, x0, x1)``, end-exclusive: the bounding box of a 2-D mask's
    true pixels; None when there is none.

    A bool mask's bytes are 0 or 1, so OpenCV's bounding rectangle of the
    non-zero pixels of its 8-bit view is the same box, in one scan (the rows'
    and columns' ``any`` take two).
    """
    if isinstance(mask, np.ndarray) and mask.dtype == bool and mask.ndim == 2 and mask.size:
        x, y, bw, bh = cv2.boundingRect(mask.view(np.uint8))
        if bw == 0:
            return None
        return int(y), int(y) + int(bh), int(x), int(x) + int(bw)
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _peak_kernel_px(min_dist_px: float) -> int:
    """Side, pixels (odd, >= 3), of the neighbourhood of which a peak of
    :func:`_peaks` with ``min_dist_px`` is the maximum."""
    return max(3, int(2 * round(min_dist_px / 2) + 1))


def _peaks(response: np.ndarray, allowed: np.ndarray, min_value: float, min_dist_px: float, *,
           allowed_box: tuple[int, int, int, int] | None = None,
           limit: int | None = None) -> list[tuple[int, int]]:
    """Local maxima of ``response`` on ``allowed``, strongest first, at least ``min_dist_px`` apart.

    Parameters
    ----------
    response : ndarray, float32, (H, W)
    allowed : ndarray, bool, (H, W)
        Where a peak may lie.
    min_value : float
        Smallest peak value.
    min_dist_px : float
        A peak is the maximum of the ``cv2.MORPH_ELLIPSE`` neighbourhood of
        :func:`_peak_kernel_px` pixels; kept peaks are at least this far apart
        (pixels), the stronger kept first.
    allowed_box : (int, int, int, int), optional
        ``(y0, y1, x0, x1)``, end-exclusive: the bounding box of ``allowed``'s
        true pixels, when the caller has it (the radius scan calls this with
        one mask 14 times).
    limit : int, optional
        Only the first ``limit`` peaks of the list are wanted (the radius
        scan reads four): the same peaks as ``_peaks(...)[:limit]``, kept
        strongest first until ``limit`` are, without testing the distance of
        every pair of the weaker ones.  None: every peak.

    Returns
    -------
    list of (x, y), pixels
    """
    k = _peak_kernel_px(min_dist_px)
    # A peak is the maximum of its elliptical neighbourhood (the
    # cv2.MORPH_ELLIPSE element of size k, clipped to the image).  It is in
    # particular the maximum of its 4-neighbourhood and of the largest square
    # inside the ellipse (both cheap, separable or tiny dilations); only the
    # few candidates left are compared with every pixel of their own ellipse.
    # Comparisons only, so the peaks are exactly those of a full dilation.
    # The 4-neighbour test runs on the box of ``allowed`` grown by one pixel
    # (clipped): every allowed pixel has its neighbours there, as on the
    # whole image.
    h, w = response.shape
    if allowed_box is None:
        allowed_box = _true_box(allowed)
        if allowed_box is None:
            return []
    ay0, ay1 = max(0, allowed_box[0] - 1), min(h, allowed_box[1] + 1)
    ax0, ax1 = max(0, allowed_box[2] - 1), min(w, allowed_box[3] + 1)
    grown = response[ay0:ay1, ax0:ax1]
    # candidates, on the grown box only
    cand = ((grown >= cv2.dilate(grown, _CROSS3)) & allowed[ay0:ay1, ax0:ax1] & (grown >= min_value))
    cand_box = _true_box(cand)
    if cand_box is None:
        return []
    cy0, cy1, cx0, cx1 = ay0 + cand_box[0], ay0 + cand_box[1], ax0 + cand_box[2], ax0 + cand_box[3]
    half = k // 2
    y0, y1 = max(0, cy0 - half), min(h, cy1 + half)
    x0, x1 = max(0, cx0 - half), min(w, cx1 + half)
    box = response[y0:y1, x0:x1]
    square_half, dy, dx = _peak_neighbourhood(k)
    # ``inner``: the candidates' own box within ``box`` (no candidate outside it)
    inner = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    sub = cand[cy0 - ay0:cy1 - ay0, cx0 - ax0:cx1 - ax0]
    if square_half > 0:
        square = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * square_half + 1, 2 * square_half + 1))
        sub = sub & (box[inner] >= cv2.dilate(box, square)[inner])
    # row-major, as np.nonzero (cv2.findNonZero scans the rows in order)
    found = cv2.findNonZero(sub.view(np.uint8))
    if found is None:
        return []
    found = found.reshape(-1, 2)  # (x, y) points
    ys = found[:, 1].astype(np.intp) + (cy0 - y0)
    xs = found[:, 0].astype(np.intp) + (cx0 - x0)
    if ys.size:
        # The box padded by the kernel's half-size with -inf (outside the
        # image: never a neighbour), so every offset stays in the array.
        padded = np.full((box.shape[0] + 2 * half, box.shape[1] + 2 * half), -np.inf,
                         np.result_type(box.dtype, np.float32))
        padded[half:-half, half:-half] = box
        flat = padded.ravel()
        offsets = dy * padded.shape[1] + dx
        centres = (ys + half) * padded.shape[1] + (xs + half)
        keep = np.empty(ys.size, bool)
        for i in range(0, ys.size, _PEAK_CHECK_CHUNK):
            c = centres[i:i + _PEAK_CHECK_CHUNK]
            keep[i:i + _PEAK_CHECK_CHUNK] = ~(flat[c[:, None] + offsets[None, :]] > flat[c][:, None]).any(axis=1)
        ys, xs = ys[keep], xs[keep]
    ys, xs = ys + y0, xs + x0
    order = np.argsort(-response[ys, xs])
    if order.size > _PEAK_PAIRS_MAX or (limit is not None and limit < order.size):
        # one by one (strongest first, each against those kept before it),
        # stopping once ``limit`` are kept: the greedy choice of the pairwise
        # test below, whose first ``limit`` peaks depend on the stronger ones only
        kept: list[tuple[int, int]] = []
        if limit is not None and limit <= 0:
            return kept
        for i in order:
            x, y = int(xs[i]), int(ys[i])
            if all((x - kx) ** 2 + (y - ky) ** 2 >= min_dist_px ** 2 for kx, ky in kept):
                kept.append((x, y))
                if limit is not None and len(kept) >= limit:
                    break
        return kept
    # Strongest first, each kept unless closer than min_dist_px to one kept
    # before it: the same test on every pair at once (whole squared distances,
    # exact in int64 and float64).
    xo, yo = xs[order].astype(np.int64), ys[order].astype(np.int64)
    near = (xo[:, None] - xo[None, :]) ** 2 + (yo[:, None] - yo[None, :]) ** 2 < min_dist_px ** 2
    # (``near`` is symmetric: a peak is dropped once one kept before it is near)
    keep = np.zeros(order.size, bool)
    alive = np.ones(order.size, bool)
    for i in range(order.size):
        if alive[i]:
            keep[i] = True
            alive &= ~near[i]
    return [(int(x), int(y)) for x, y in zip(xo[keep], yo[keep])]


#: Peaks of the radius scan are this many candidate radii apart.
_RADIUS_PEAK_DIST_RADII = 1.6


def _radius_scan(residual: np.ndarray, allowed: np.ndarray, lo_px: float, hi_px: float
                 ) -> tuple[float, list[tuple[int, int]]]:
    """The disc filter's radius scan: the radius whose four strongest peaks
    inside ``allowed`` sum highest, and those peaks.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Colour minus the plate model (masked parts set to 0).
    allowed : ndarray, bool, (S, S)
        Where a peak may lie.
    lo_px, hi_px : float
        Radii scanned, canonical pixels: from ``lo_px`` up by factors of
        ``RADIUS_SCAN_STEP`` while at most ``hi_px``.

    Returns
    -------
    radius_px : float
        The best radius, canonical pixels; 0 when no radius has a peak.
    peaks : list of (x, y)
        Its (at most four) strongest peaks, strongest first, canonical
        pixels; empty when none.
    """
    best_r, best_score, best_peaks = 0.0, 0.0, []
    r = lo_px
    # _peaks reads the response only on the box of ``allowed`` grown by its
    # neighbourhood's half-size (at least 1 px): the filter computes it there
    # only, with smaller DFTs (equal up to float32 rounding).
    box = _true_box(allowed)
    if box is None:
        return 0.0, []  # no peak anywhere (every radius scores 0)
    grow = max(1, _peak_kernel_px(_RADIUS_PEAK_DIST_RADII * hi_px) // 2)
    window = (box[0] - grow, box[1] + grow, box[2] - grow, box[3] + grow)
    filt = _DiscFilter(residual, hi_px, window)
    while r <= hi_px:
        resp = filt.response(r)
        # (_peaks lists the strongest first; only the first four are read)
        top = _peaks(resp, allowed, 0.0, _RADIUS_PEAK_DIST_RADII * r, allowed_box=box, limit=4)
        score = float(sum(resp[y, x] for x, y in top))
        # a later radius wins only by more than float32 rounding: on a plateau
        # the first radius stands, whatever the CPU's DFT rounds last
        if score > best_score * (1.0 + RADIUS_SCAN_TIE_REL):
            best_r, best_score, best_peaks = r, score, top
        r *= RADIUS_SCAN_STEP
    return best_r, best_peaks
