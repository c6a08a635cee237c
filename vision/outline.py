"""The outline filter: a pale face on a pale plate found by its edge.

A white token on a white plate barely differs from the plate in colour, but
its edge (the side wall, its shadow, the bevel of the face) is a thin circle
darker than both the face inside and the plate outside.  These are the pure
functions that measure such circles on the plate-background L* residual of
:class:`vision.canonical.CanonicalView`, and the rule that decides when one
counts; :func:`vision.tokens.find_tokens` uses them.  Distances are canonical
pixels, lightness in CIE L* units (0-100).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .cache import cached
from .exact_reduce import pairwise_layout, percentile_linear, segment_means_f32
from .plate import median_and_noise

#: Outline filter (see :func:`outline_response`): a pale face on a pale plate
#: shows its edge (the side wall, the shadow, the bevel of the face) as a thin
#: darker circle.  The ring is this many pixels either side of the radius ...
OUTLINE_HALF_WIDTH_PX = 1.5
#: ... compared with the face inside and the plate outside, from this
#: fraction of the radius inwards to this fraction outwards, leaving a gap of
#: this many pixels either side of the ring.
OUTLINE_SIDES_FRAC = (0.45, 1.5)
OUTLINE_GAP_PX = 2.5
#: An outline counts when the filter is this many times its own robust noise
#: level above the plate's median ...
OUTLINE_MIN_Z = 7.0
#: ... the ring is this much darker than its sides (L units) ...
OUTLINE_MIN_CONTRAST_L = 1.5
#: ... darker than both sides in at least this many of OUTLINE_SECTORS
#: sectors around the centre (a closed circle, not a crack or a shading edge) ...
OUTLINE_SECTORS = 16
OUTLINE_MIN_SECTORS = 15
#: ... and evenly so: the lower quartile of the sectors' contrasts is at least
#: this share of the mean (one dark arc, such as the plate's own well edge
#: left over by the ring model, does not make a circle).
OUTLINE_MIN_EVENNESS = 0.3
#: An outline that fails those tests but is dark in at least this many
#: sectors and this strong (L units) is still evidence of a token (a side
#: wall seen as a crescent, say): reported as a suspect.
OUTLINE_SUSPECT_MIN_SECTORS = 12
OUTLINE_SUSPECT_MIN_CONTRAST_L = 3.0
#: A sector of the circle is measured when at least this share of its ring
#: is visible (not under a token already counted; see :func:`outline_support`) ...
OUTLINE_MIN_VISIBLE_SHARE = 0.5
#: ... and up to this many sectors not measured count as dark when every
#: measured one is (a touching neighbour hides about three; a circle hidden
#: more cannot close).
OUTLINE_MAX_UNMEASURED_SECTORS = 4
#: The outline is looked for at these multiples of the frame's token radius
#: (the face's edge lies a little inside the half-contrast radius of a red face).
OUTLINE_RADIUS_FACTORS = (0.9, 1.0, 1.1)
#: An outline whose centre is closer than this many token radii to a stronger
#: one overlaps it: kept only as a suspect.
OUTLINE_MIN_CENTRE_DIST_RADII = 1.8
#: Kept candidates are blanked out to this many token radii before the outline search.
OUTLINE_KEPT_MASK_RADII = 1.3


@dataclass(frozen=True)
class OutlineRule:
    """When a dark outline counts as a pale face (see :func:`outline_support`).

    A studio profile may set these from its calibration frames; the defaults
    hold for any studio.

    Attributes
    ----------
    min_z : float
        Outline filter response, in units of its own robust noise on the plate.
    min_contrast_l : float
        Ring darker than its sides by this much, L units.
    min_sectors : int
        Sectors (of ``OUTLINE_SECTORS``) where the ring is darker than its sides.
    min_evenness : float
        Lower-quartile sector contrast over the mean contrast.
    """

    min_z: float = OUTLINE_MIN_Z
    min_contrast_l: float = OUTLINE_MIN_CONTRAST_L
    min_sectors: int = OUTLINE_MIN_SECTORS
    min_evenness: float = OUTLINE_MIN_EVENNESS

    def __post_init__(self) -> None:
        if not (math.isfinite(self.min_z) and self.min_z > 0):
            raise ValueError(f"min_z: expected a finite value > 0, got {self.min_z}")
        if not (math.isfinite(self.min_contrast_l) and self.min_contrast_l > 0):
            raise ValueError(f"min_contrast_l: expected a finite value > 0, got {self.min_contrast_l}")
        if not (isinstance(self.min_sectors, int) and 1 <= self.min_sectors <= OUTLINE_SECTORS):
            raise ValueError(f"min_sectors: expected an int in [1, {OUTLINE_SECTORS}], got {self.min_sectors!r}")
        if not (math.isfinite(self.min_evenness) and -1.0 <= self.min_evenness <= 1.0):
            raise ValueError(f"min_evenness: expected a value in [-1, 1], got {self.min_evenness}")


DEFAULT_OUTLINE_RULE = OutlineRule()


def _sectors_sorted(member: np.ndarray, sector: np.ndarray, n_sectors: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices of a window's member pixels grouped by sector, row-major within each.

    Parameters
    ----------
    member : ndarray, bool, (K, L)
    sector : ndarray, int, (K, L)
        Each pixel's sector, 0 .. ``n_sectors - 1``.
    n_sectors : int

    Returns
    -------
    order : ndarray, int64, (N,)
        Flat indices (into the ``K * L`` window) of the ``N`` member pixels,
        by sector and, within a sector, in row-major order: a sector's pixels
        gathered by ``order[bounds[k]:bounds[k + 1]]`` are exactly (values and
        order) those selected by the mask ``member & (sector == k)``.
    bounds : ndarray, int64, (n_sectors + 1,)
        Where each sector's run starts in ``order``.
    """
    idx = np.flatnonzero(member)
    sec = sector.ravel()[idx]
    order = idx[np.argsort(sec, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(sec, minlength=n_sectors))]).astype(np.int64)
    return order, bounds


#: :func:`_outline_masks` by radius (the three outline radii of a frame recur
#: in every call for that frame); the derived kernel and sector order by radius.
_OUTLINE_MASKS: dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
_OUTLINE_KERNELS: dict[float, np.ndarray] = {}
_OUTLINE_SECTOR_ORDERS: dict[float, tuple[np.ndarray, ...]] = {}
#: Radii kept by each of these caches before it is emptied.
_OUTLINE_CACHE_RADII = 64


def _outline_kernel(radius_px: float) -> np.ndarray:
    """Mean over the sides minus mean over the ring of :func:`_outline_masks`,
    as a correlation kernel (float32, (K, K), read-only)."""
    def make() -> np.ndarray:
        ring, sides, _ = _outline_masks(radius_px)
        return (sides.astype(np.float32) / max(int(sides.sum()), 1)
                - ring.astype(np.float32) / max(int(ring.sum()), 1))
    return cached(_OUTLINE_KERNELS, float(radius_px), make, _OUTLINE_CACHE_RADII)


def _outline_sector_order(radius_px: float) -> tuple[np.ndarray, ...]:
    """The pixels of :func:`_outline_masks`' ring and sides, for :func:`outline_support`.

    Returns
    -------
    ring_idx, sides_idx : ndarray, int64
        Flat indices (into the (K, K) window) of the ring's and the sides'
        pixels, row-major.
    ring_order, ring_bounds, sides_order, sides_bounds : ndarray, int64
        The same pixels by sector (:func:`_sectors_sorted`).
    """
    def make() -> tuple[np.ndarray, ...]:
        ring, sides, sector = _outline_masks(radius_px)
        return (np.flatnonzero(ring), np.flatnonzero(sides), *_sectors_sorted(ring, sector, OUTLINE_SECTORS),
                *_sectors_sorted(sides, sector, OUTLINE_SECTORS))
    return cached(_OUTLINE_SECTOR_ORDERS, float(radius_px), make, _OUTLINE_CACHE_RADII)


def _outline_masks(radius_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The outline ring, its two sides and each pixel's sector, on a square
    window centred on the disc (all (K, K); bool, bool, int32; read-only,
    shared by every call with the same radius)."""
    return cached(_OUTLINE_MASKS, float(radius_px), lambda: _outline_masks_uncached(radius_px),
                  _OUTLINE_CACHE_RADII)


#: :func:`_outline_grid` by half-size (a frame's three radii are new, their
#: windows' half-sizes mostly not).
_OUTLINE_GRIDS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _outline_grid(half: int) -> tuple[np.ndarray, np.ndarray]:
    """Distance from the centre and sector of every pixel of a (2 half + 1)-square window.

    Returns
    -------
    rho : ndarray, float32, (K, K)
        Pixels.
    sector : ndarray, int32, (K, K)
        0 .. ``OUTLINE_SECTORS - 1``.
    Both read-only.
    """
    def make() -> tuple[np.ndarray, np.ndarray]:
        yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
        sector = ((np.arctan2(yy, xx) + math.pi) / (2 * math.pi) * OUTLINE_SECTORS).astype(np.int32) % OUTLINE_SECTORS
        return np.hypot(xx, yy), sector
    return cached(_OUTLINE_GRIDS, half, make, _OUTLINE_CACHE_RADII)


def _outline_masks_uncached(radius_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_outline_masks`, computed."""
    half = int(math.ceil(OUTLINE_SIDES_FRAC[1] * radius_px + 1))
    rho, sector = _outline_grid(half)
    ring = np.abs(rho - radius_px) < OUTLINE_HALF_WIDTH_PX
    inner = (rho > OUTLINE_SIDES_FRAC[0] * radius_px) & (rho < radius_px - OUTLINE_GAP_PX)
    outer = (rho > radius_px + OUTLINE_GAP_PX) & (rho < OUTLINE_SIDES_FRAC[1] * radius_px)
    return ring, inner | outer, sector


#: The last lightness :func:`outline_response` was given (a copy), its
#: non-zero box, and its spectrum at the last DFT size: the outline search
#: filters one image at three radii, so the box and the forward transform are
#: shared when the input is the same (compared value for value).
_OUTLINE_SPECTRUM: dict[str, object] = {}
#: Kernel spectra of :func:`outline_response` by (radius, DFT rows, DFT columns).
_OUTLINE_KERNEL_SPECTRA: dict[tuple[float, int, int], np.ndarray] = {}


def _lightness_spectrum(lightness: np.ndarray, k: int, memo: dict | None = None
                        ) -> tuple[int, int, int, int, np.ndarray] | None:
    """The DFT of the non-zero box of ``lightness``, zero-padded for a ``k`` x ``k`` kernel.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S)
    k : int
        Kernel size, pixels (odd).
    memo : dict or None
        Where the box and the last spectrum are kept: a caller's own dict,
        used only with this same ``lightness`` (unchanged), which then need
        not be compared with the last one (:func:`best_outline_z`: one image,
        three radii); None: the module's ``_OUTLINE_SPECTRUM``.

    Returns
    -------
    (r0, c0, ch, cw, spectrum) or None
        The box's top-left corner and size, pixels, and its spectrum
        (``cv2.dft`` of the box in the top-left corner of a zero
        (``getOptimalDFTSize(ch + k - 1)``, ``getOptimalDFTSize(cw + k - 1)``)
        array, CCS-packed float32); None when every pixel is 0.
    """
    # The same image as the last call (value for value): its box, and its
    # spectrum if the DFT size is the same too.  A new image: its box, and
    # the cache starts over with a copy of it.
    if memo is None:
        memo = _OUTLINE_SPECTRUM
        last = memo.get("input")
        new_image = not (last is not None and last.shape == lightness.shape and np.array_equal(last, lightness))
    else:
        new_image = "box" not in memo
    if new_image:
        rows = np.flatnonzero(lightness.any(axis=1))
        box = None
        if rows.size:
            cols = np.flatnonzero(lightness.any(axis=0))
            r0, c0 = int(rows[0]), int(cols[0])
            box = (r0, c0, int(rows[-1]) + 1 - r0, int(cols[-1]) + 1 - c0)
        memo.clear()
        memo.update(box=box)
        if memo is _OUTLINE_SPECTRUM:
            memo.update(input=lightness.copy())
    box = memo["box"]
    if box is None:
        return None
    r0, c0, ch, cw = box
    mh, mw = cv2.getOptimalDFTSize(ch + k - 1), cv2.getOptimalDFTSize(cw + k - 1)
    if memo.get("size") != (mh, mw):
        pad = np.zeros((mh, mw), np.float32)
        pad[:ch, :cw] = lightness[r0:r0 + ch, c0:c0 + cw]
        # (no nonzeroRows: that path is ~4x slower)
        memo.update(size=(mh, mw), spectrum=cv2.dft(pad))
    return r0, c0, ch, cw, memo["spectrum"]


def outline_response(lightness: np.ndarray, radius_px: float, *, _memo: dict | None = None) -> np.ndarray:
    """How much darker a circle of ``radius_px`` is than both its sides, centred at every pixel.

    The correlation is done by DFT on the bounding box of the non-zero pixels
    (zero-padded, linear, not circular; the image's transform is shared by
    calls on the same image).  Same result as ``cv2.filter2D`` with a zero
    (``BORDER_CONSTANT``) border, up to float32 rounding.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units (CIE L*, 0-100 scale)
        Lightness minus the plate model (masked parts set to 0).
    radius_px : float
        Circle radius, canonical pixels (> 2).
    _memo : dict or None
        :func:`best_outline_z`'s own memo of this (float32) image's box and
        spectrum (see :func:`_lightness_spectrum`); None: the module's.

    Returns
    -------
    ndarray, float32, (S, S)
        Mean over the sides (a band inside and a band outside the circle)
        minus mean over the thin ring, L units: positive for a dark outline.
    """
    if lightness.ndim != 2:
        raise ValueError(f"lightness: expected a 2-D array, got shape {lightness.shape}")
    if radius_px <= 2:
        raise ValueError(f"radius_px: expected > 2, got {radius_px}")
    lightness = lightness.astype(np.float32, copy=False)
    kernel = _outline_kernel(radius_px)
    k = kernel.shape[0]
    half = k // 2
    out = np.zeros(lightness.shape, np.float32)
    got = _lightness_spectrum(lightness, k, _memo)
    if got is None:
        return out
    r0, c0, ch, cw, spectrum = got
    mh, mw = spectrum.shape
    key = (float(radius_px), mh, mw)
    kspec = _OUTLINE_KERNEL_SPECTRA.get(key)
    if kspec is None:
        kpad = np.zeros((mh, mw), np.float32)
        kpad[:k, :k] = kernel
        kspec = cv2.dft(kpad)
        if len(_OUTLINE_KERNEL_SPECTRA) >= _OUTLINE_CACHE_RADII:
            _OUTLINE_KERNEL_SPECTRA.clear()
        _OUTLINE_KERNEL_SPECTRA[key] = kspec
    # The kernel is symmetric (a function of the distance from its centre),
    # so correlation = convolution; full[i, j] is the response at canvas
    # (r0 + i - half, c0 + j - half).
    full = cv2.idft(cv2.mulSpectrums(spectrum, kspec, 0), flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
    h, w = lightness.shape
    y0, x0 = max(0, r0 - half), max(0, c0 - half)
    y1, x1 = min(h, r0 + ch + half), min(w, c0 + cw + half)
    out[y0:y1, x0:x1] = full[y0 - r0 + half:y1 - r0 + half, x0 - c0 + half:x1 - c0 + half]
    return out


#: Kernel spectra of :func:`outline_responses_in_box` by (radius, DFT rows,
#: DFT columns): the kernel centred on the origin, wrapped.
_OUTLINE_WRAPPED_SPECTRA: dict[tuple[float, int, int], np.ndarray] = {}


def outline_responses_in_box(lightness: np.ndarray, box: tuple[int, int, int, int],
                             radii_px: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    """:func:`outline_response` at the pixels of ``box`` only, for several radii.

    The values are those of the whole canvas's filter (outside the canvas
    the lightness is 0, as there), up to float32 rounding: the box grown by
    the largest kernel's half-size (zero where it leaves the canvas) is
    transformed once, and each radius's response is read where its kernel
    lies inside that crop, so the DFT's wrap-around never reaches it (no
    padding for a linear correlation is needed).  A few suspects' look at a
    circle near them then costs a fraction of a filter of the whole canvas.

    Parameters
    ----------
    lightness : ndarray, float32, (H, W), L units
        As for :func:`outline_response`.
    box : (int, int, int, int)
        ``(y0, y1, x0, x1)``, end-exclusive, inside the canvas, not empty.
    radii_px : tuple of float
        Circle radii, canonical pixels (each > 2).

    Returns
    -------
    tuple of ndarray, float32, (y1 - y0, x1 - x0)
        One response per radius, in order.
    """
    if lightness.ndim != 2:
        raise ValueError(f"lightness: expected a 2-D array, got shape {lightness.shape}")
    h, w = lightness.shape
    y0, y1, x0, x1 = box
    if not (0 <= y0 < y1 <= h and 0 <= x0 < x1 <= w):
        raise ValueError(f"box: expected a non-empty box inside {lightness.shape}, got {box}")
    if min(radii_px) <= 2:
        raise ValueError(f"radii_px: expected each > 2, got {radii_px}")
    kernels = [_outline_kernel(r) for r in radii_px]
    m = max(k.shape[0] for k in kernels) // 2
    bh, bw = y1 - y0, x1 - x0
    mh, mw = cv2.getOptimalDFTSize(bh + 2 * m), cv2.getOptimalDFTSize(bw + 2 * m)
    pad = np.zeros((mh, mw), np.float32)
    # the grown box (rows y0 - m .. y1 + m) at the top-left, the canvas part copied in
    cy0, cy1, cx0, cx1 = max(0, y0 - m), min(h, y1 + m), max(0, x0 - m), min(w, x1 + m)
    pad[cy0 - (y0 - m):cy1 - (y0 - m), cx0 - (x0 - m):cx1 - (x0 - m)] = lightness[cy0:cy1, cx0:cx1]
    spectrum = cv2.dft(pad)
    out = []
    for radius, kernel in zip(radii_px, kernels):
        key = (float(radius), mh, mw)
        kspec = _OUTLINE_WRAPPED_SPECTRA.get(key)
        if kspec is None:
            # the kernel's centre at (0, 0), the rest wrapped round: a
            # circular convolution with it is the correlation (the kernel is
            # symmetric) where no offset wraps
            half = kernel.shape[0] // 2
            kpad = np.zeros((mh, mw), np.float32)
            kpad[:half + 1, :half + 1] = kernel[half:, half:]
            kpad[:half + 1, mw - half:] = kernel[half:, :half]
            kpad[mh - half:, :half + 1] = kernel[:half, half:]
            kpad[mh - half:, mw - half:] = kernel[:half, :half]
            kspec = cv2.dft(kpad)
            if len(_OUTLINE_WRAPPED_SPECTRA) >= _OUTLINE_CACHE_RADII:
                _OUTLINE_WRAPPED_SPECTRA.clear()
            _OUTLINE_WRAPPED_SPECTRA[key] = kspec
        full = cv2.idft(cv2.mulSpectrums(spectrum, kspec, 0), flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        out.append(full[m:m + bh, m:m + bw].copy())
    return tuple(out)


def strongest_in_window(windows: tuple[np.ndarray, ...], within: np.ndarray, origin: tuple[int, int]
                        ) -> tuple[float, int, int, int]:
    """The strongest response where ``within`` allows, over several radii' windows.

    Parameters
    ----------
    windows : tuple of ndarray, float32, (h, w)
        One outline response per radius, cut to the same window of the canvas.
    within : ndarray, bool, (h, w)
        Where a centre may lie.
    origin : (int, int)
        ``(y0, x0)``, the window's top-left pixel on the canvas.

    Returns
    -------
    (float, int, int, int)
        ``(value, cy, cx, index)``: the largest value (-inf where ``within``
        is empty), its centre in canvas pixels and the index of its window.
        Ties go to the earlier radius, then to the first pixel in row order.
    """
    y0, x0 = origin
    best = (-np.inf, y0, x0, 0)
    for i, resp in enumerate(windows):
        window = np.where(within, resp, -np.inf)
        k = int(np.argmax(window))
        if window.flat[k] > best[0]:
            best = (float(window.flat[k]), y0 + k // window.shape[1], x0 + k % window.shape[1], i)
    return best


def best_outline_z(lightness: np.ndarray, region: np.ndarray, radii_px: tuple[float, ...]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The strongest :func:`outline_response` over several radii, in units of each radius's own noise.

    Each radius's response is turned into a z-score by its median and robust
    spread (1.4826 x MAD) over ``region``; a radius with no spread is skipped.
    A pixel keeps the largest z and the first radius giving it.  The masked
    updates are ``cv2.copyTo`` into the running arrays (the same elements as
    NumPy's masked assignment, several times faster on a noisy mask).

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units
        As for :func:`outline_response`.
    region : ndarray, bool, (S, S)
        Where the noise is measured (at least one pixel).
    radii_px : tuple of float
        Circle radii, canonical pixels (each > 2), at most 127.

    Returns
    -------
    best_z : ndarray, float32, (S, S)
        The largest z over the radii; -inf where none is larger (or every
        radius was skipped).
    best_k : ndarray, int8, (S, S)
        Index into ``radii_px`` of the radius giving ``best_z`` (0 where none).
    """
    if len(radii_px) > 127:
        raise ValueError(f"radii_px: expected at most 127 radii (int8 indices), got {len(radii_px)}")
    best_z = np.full(lightness.shape, -np.inf, np.float32)
    best_k = np.zeros(lightness.shape, np.int8)
    # One image for every radius: its box and spectrum kept here, without
    # comparing it with the last image each time (as ``outline_response``
    # alone must).
    lightness = lightness.astype(np.float32, copy=False)
    memo: dict = {}
    for k, radius in enumerate(radii_px):
        resp = outline_response(lightness, radius, _memo=memo)
        vals = resp[region]
        med, noise = median_and_noise(vals)
        med = float(med)
        if noise <= 0:
            continue
        z = (resp - med) / noise  # float32, as best_z: cv2.copyTo writes into best_z itself
        better = (z > best_z).view(np.uint8)
        # = best_z[better] = z[better]; best_k[better] = k
        cv2.copyTo(z, better, best_z)
        if k:  # (best_k starts at 0)
            cv2.copyTo(np.full(best_k.shape, k, np.int8), better, best_k)
    return best_z, best_k


def shadow_side_contrast(lightness: np.ndarray, x: int, y: int, radius_px: float,
                         hidden: np.ndarray | None = None) -> float:
    """How much darker than its sides the darker half of a circle is.

    A pale face lit from one side shows its outline (side wall, shadow) on
    its shadow side only: the mean over the whole circle halves that
    contrast; this is the mean over the half of the ``OUTLINE_SECTORS``
    sectors where the ring is darkest against its sides.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units
    x, y : int
        Centre, canonical pixels.
    radius_px : float
        Circle radius, canonical pixels (> 2).
    hidden : ndarray, bool, (S, S), optional
        As for :func:`outline_support`: sectors mostly hidden are not
        measured (the half is then taken of the measured ones).

    Returns
    -------
    float
        Mean of the ``OUTLINE_SECTORS // 2`` largest sector contrasts (sides
        minus ring), L units; 0 when the window leaves the canvas.

    Raises
    ------
    ValueError
        ``lightness`` not 2-D, or ``radius_px`` not above 2.
    """
    if np.ndim(lightness) != 2:
        raise ValueError(f"lightness: expected a 2-D array, got shape {np.shape(lightness)}")
    if not radius_px > 2:
        raise ValueError(f"radius_px: expected > 2, got {radius_px}")
    if hidden is not None and (hidden.shape != lightness.shape or hidden.dtype != bool):
        raise ValueError(f"hidden: expected a bool array of shape {lightness.shape}, got {hidden.dtype} "
                         f"{hidden.shape}")
    window = _outline_window(lightness, x, y, radius_px)
    if window is None:
        return 0.0
    seen = None
    if hidden is not None:
        half = window[1]
        seen = ~hidden[y - half:y + half + 1, x - half:x + half + 1].ravel()
        if seen.all():
            seen = None
    per_sector, _ = _sector_contrasts(window[0], radius_px, seen)
    if not per_sector:
        return 0.0
    top = sorted(per_sector, reverse=True)[:OUTLINE_SECTORS // 2]
    return float(np.mean(top))


def _outline_window(lightness: np.ndarray, x: int, y: int, radius_px: float
                    ) -> tuple[np.ndarray, int] | None:
    """The lightness around (x, y) that the outline tests read, raveled
    (float32, ((2 half + 1) ** 2,)), and its half-size; None when that window
    leaves the canvas."""
    half = int(math.ceil(OUTLINE_SIDES_FRAC[1] * radius_px + 1))  # as _outline_masks
    s = lightness.shape[0]
    if x - half < 0 or y - half < 0 or x + half + 1 > s or y + half + 1 > s:
        return None
    return lightness[y - half:y + half + 1, x - half:x + half + 1].ravel(), half


def _sector_layout(radius_px: float) -> tuple:
    """The ring's then the sides' pixels of :func:`_outline_masks`, sector by
    sector, for :func:`_sector_contrasts` (read-only, cached by radius).

    Returns
    -------
    order : ndarray, int64, (N,)
        Window indices: the ring's 16 sectors, then the sides' 16 (each
        sector row-major, :func:`_sectors_sorted`).
    counts : ndarray, intp, (2 * OUTLINE_SECTORS,)
        Pixels per sector, in that order.
    segment : ndarray, intp, (N,)
        Each pixel's place in ``counts``.
    blocks, rest : ndarray or None
        :func:`vision.exact_reduce.pairwise_layout` of ``counts`` (None: a
        sector too large for it).
    """
    def make() -> tuple:
        _, _, ring_order, ring_bounds, sides_order, sides_bounds = _outline_sector_order(radius_px)
        order = np.concatenate([ring_order, sides_order])
        counts = np.concatenate([np.diff(ring_bounds), np.diff(sides_bounds)]).astype(np.intp)
        segment = np.repeat(np.arange(counts.size), counts)
        layout = pairwise_layout(counts)
        return (order, counts, segment) + ((None, None) if layout is None else layout)
    return cached(_OUTLINE_SECTOR_LAYOUTS, float(radius_px), make, _OUTLINE_CACHE_RADII)


#: :func:`_sector_layout` by radius.
_OUTLINE_SECTOR_LAYOUTS: dict[float, tuple] = {}


def _sector_contrasts(patch: np.ndarray, radius_px: float, seen: np.ndarray | None
                      ) -> tuple[list[float], int]:
    """Sides minus ring mean (L units) of each of ``OUTLINE_SECTORS`` sectors of
    a window from :func:`_outline_window`, for the sectors measured, and how
    many sectors were not measured (less than ``OUTLINE_MIN_VISIBLE_SHARE`` of
    their ring or sides in ``seen``, bool like ``patch``; None: all seen).

    Each sector's mean is ``ndarray.mean`` of its pixels (the same values in
    the same order as the boolean-mask selection), bit for bit, for all
    sectors at once (:func:`vision.exact_reduce.segment_means_f32`)."""
    order, counts, segment, blocks, rest = _sector_layout(radius_px)
    layout = None if blocks is None else (blocks, rest)
    n = OUTLINE_SECTORS
    present = (counts[:n] > 0) & (counts[n:] > 0)  # a sector with no ring or no sides pixel is skipped
    if seen is None:
        measured, unmeasured = present, 0
    else:
        keep = seen[order]
        order = order[keep]
        kept = np.bincount(segment[keep], minlength=2 * n)
        visible = ((kept[:n] >= OUTLINE_MIN_VISIBLE_SHARE * counts[:n])
                   & (kept[n:] >= OUTLINE_MIN_VISIBLE_SHARE * counts[n:]))
        measured = present & visible
        unmeasured = int((present & ~visible).sum())
        counts, layout = kept, pairwise_layout(kept)
    means = segment_means_f32(patch[order], counts, layout).astype(np.float64)
    return (means[n:] - means[:n])[measured].tolist(), unmeasured


def outline_contrast(lightness: np.ndarray, x: int, y: int, radius_px: float) -> float:
    """The ``contrast`` of :func:`outline_support` with nothing hidden, alone
    (the same number, computed the same way, without the sectors): a caller
    that needs a circle at least so dark can drop a faint one cheaply.

    Returns
    -------
    float
        Mean of the sides minus mean of the ring, L units; 0.0 when the
        window leaves the canvas.
    """
    window = _outline_window(lightness, x, y, radius_px)
    if window is None:
        return 0.0
    patch, _ = window
    ring_idx, sides_idx = _outline_sector_order(radius_px)[:2]
    return float(patch[sides_idx].mean() - patch[ring_idx].mean())


def outline_support(lightness: np.ndarray, x: int, y: int, radius_px: float,
                    hidden: np.ndarray | None = None) -> tuple[int, float, float]:
    """How many of ``OUTLINE_SECTORS`` sectors show the circle darker than its sides.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units
    x, y : int
        Centre, canonical pixels.
    radius_px : float
    hidden : ndarray, bool, (S, S), optional
        Pixels that say nothing about this circle (a token already counted
        lies there).  A sector with less than ``OUTLINE_MIN_VISIBLE_SHARE``
        of its ring or of its sides visible is not measured: it stays out of
        the contrast and the evenness.  When 1 to
        ``OUTLINE_MAX_UNMEASURED_SECTORS`` sectors are not measured and every
        measured sector is dark, the unmeasured ones count as dark too;
        otherwise only the measured dark sectors count (a circle hidden more,
        or not dark all round where it is seen, cannot close).  None: every
        pixel is seen (the same numbers as an all-False mask).

    Returns
    -------
    n_sectors : int
        Sectors whose ring is darker than their sides, with the unmeasured
        ones as above (0 when the window leaves the canvas).
    contrast : float
        Mean of the sides minus mean of the ring over the whole circle (its
        visible pixels), L units.
    evenness : float
        Lower quartile of the measured sectors' contrasts over ``contrast``
        (0 when ``contrast`` is not positive).
    """
    if hidden is not None and (hidden.shape != lightness.shape or hidden.dtype != bool):
        raise ValueError(f"hidden: expected a bool array of shape {lightness.shape}, got {hidden.dtype} "
                         f"{hidden.shape}")
    window = _outline_window(lightness, x, y, radius_px)
    if window is None:
        return 0, 0.0, 0.0
    patch, half = window
    ring_idx, sides_idx = _outline_sector_order(radius_px)[:2]
    seen = None
    if hidden is not None:
        seen = ~hidden[y - half:y + half + 1, x - half:x + half + 1].ravel()
        if seen.all():
            seen = None
    if seen is not None:
        ring_idx, sides_idx = ring_idx[seen[ring_idx]], sides_idx[seen[sides_idx]]
        if ring_idx.size == 0 or sides_idx.size == 0:
            return 0, 0.0, 0.0
    contrast = float(patch[sides_idx].mean() - patch[ring_idx].mean())
    per_sector, unmeasured = _sector_contrasts(patch, radius_px, seen)
    if not per_sector:
        return 0, contrast, 0.0
    # = float(np.percentile(per_sector, 25)), bit for bit
    evenness = percentile_linear(per_sector, 25) / contrast if contrast > 0 else 0.0
    dark = sum(v > 0 for v in per_sector)
    if 0 < unmeasured <= OUTLINE_MAX_UNMEASURED_SECTORS and dark == len(per_sector):
        dark += unmeasured
    return dark, contrast, evenness
