"""Colour conversions and robust statistics shared by the stages.

Units: "Lab units" below are CIE L*a*b* units (L* 0..100, a*, b* about
-128..127), computed with OpenCV's 8-bit conversion from BGR uint8 and
rescaled (L* = L8 * 100 / 255, a* = a8 - 128, b* = b8 - 128).
"""
from __future__ import annotations

import cv2
import numpy as np

_LAB_SCALE = np.array([100.0 / 255.0, 1.0, 1.0], dtype=np.float32)
_LAB_OFFSET = np.array([0.0, -128.0, -128.0], dtype=np.float32)
#: Every 8-bit Lab code (0..255) of each channel in Lab units, float32, (1, 256, 3):
#: the table ``cv2.LUT`` applies (the same float32 product and sum per code).
_LAB_TABLE = (np.arange(256, dtype=np.float32)[:, None] * _LAB_SCALE + _LAB_OFFSET).reshape(1, 256, 3)
_LAB_TABLE.setflags(write=False)
#: Histogram bins per ring and channel in :func:`radial_median_profile` (0.5 Lab units each).
_MEDIAN_LEVELS = 512


def bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 (H, W, 3) -> CIE Lab float32 (H, W, 3) in Lab units."""
    if bgr.dtype != np.uint8 or bgr.ndim != 3 or bgr.shape[2] != 3:
        raise ValueError(f"bgr: expected uint8 (H, W, 3), got {bgr.dtype} {bgr.shape}")
    return lab_from_codes(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab))


def lab_from_codes(lab8: np.ndarray) -> np.ndarray:
    """OpenCV's 8-bit Lab codes uint8 (H, W, 3) -> CIE Lab float32 (H, W, 3) in Lab units."""
    if lab8.dtype != np.uint8 or lab8.ndim != 3 or lab8.shape[2] != 3:
        raise ValueError(f"lab8: expected uint8 (H, W, 3), got {lab8.dtype} {lab8.shape}")
    return cv2.LUT(lab8, _LAB_TABLE)


def lab_to_bgr(lab: np.ndarray) -> np.ndarray:
    """CIE Lab (H, W, 3) in Lab units -> BGR uint8 (H, W, 3): the inverse of :func:`bgr_to_lab`.

    Lab values are turned into OpenCV's 8-bit Lab codes by the same scale and
    offset :func:`lab_from_codes` applies (rounded, clipped to 0-255), then
    converted by OpenCV, so a colour the reader measured comes back as the
    camera's levels within the 8-bit conversion's rounding.

    Parameters
    ----------
    lab : ndarray, float, (H, W, 3)
        L* (0-100), a*, b* (about -128..127).

    Returns
    -------
    ndarray, uint8, (H, W, 3), BGR
    """
    lab = np.asarray(lab)
    if lab.ndim != 3 or lab.shape[2] != 3 or not np.issubdtype(lab.dtype, np.floating):
        raise ValueError(f"lab: expected float (H, W, 3), got {lab.dtype} {lab.shape}")
    codes = np.clip(np.round((lab.astype(np.float64) - _LAB_OFFSET) / _LAB_SCALE), 0, 255).astype(np.uint8)
    if codes.size == 0:
        return codes
    return cv2.cvtColor(codes, cv2.COLOR_Lab2BGR)


def radial_median_profile(lab: np.ndarray, radius_px: np.ndarray, mask: np.ndarray, bin_px: float,
                          n_bins: int) -> np.ndarray:
    """Median of each Lab channel over rings of equal distance from the centre.

    Parameters
    ----------
    lab : ndarray, float32, (H, W, 3), Lab units
    radius_px : ndarray, float32, (H, W)
        Distance of each pixel from the plate centre, pixels.
    mask : ndarray, bool, (H, W)
        Pixels that take part.
    bin_px : float
        Ring width, pixels.
    n_bins : int
        Number of rings; pixels beyond the last ring fall into it.

    Returns
    -------
    ndarray, float32, (n_bins, 3)
        Per-ring medians (quantised to 0.5 Lab units); empty rings copy their
        inner neighbour.
    """
    bins = np.minimum((radius_px[mask] / bin_px).astype(np.int32), n_bins - 1)
    base = bins * _MEDIAN_LEVELS
    values = lab[mask]  # (N, 3), gathered once for the three channels
    out = np.zeros((n_bins, 3), dtype=np.float32)
    # Histogram median: quantise each channel to 0.5 units over its range.
    for c in range(3):
        v = values[:, c]
        lo = float(v.min()) if v.size else 0.0
        q = np.clip(((v - lo) * 2.0).astype(np.int32), 0, _MEDIAN_LEVELS - 1)
        hist = np.bincount(base + q, minlength=n_bins * _MEDIAN_LEVELS).reshape(n_bins, _MEDIAN_LEVELS)
        cum = np.cumsum(hist, axis=1)
        total = cum[:, -1]
        idx = np.argmax(cum >= (total[:, None] + 1) // 2, axis=1)
        prof = lo + idx.astype(np.float32) / 2.0
        empty = total == 0
        for i in np.flatnonzero(empty):
            prof[i] = prof[i - 1] if i > 0 else lo
        out[:, c] = prof
    return out


#: 8-bit Lab codes per channel.
_LAB_CODES = 256


def ring_code_keys(ring: np.ndarray, n_bins: int) -> np.ndarray:
    """Histogram keys of :func:`radial_median_profile_codes` for every pixel and channel.

    Parameters
    ----------
    ring : ndarray, int, (H, W)
        Ring index of each pixel, 0 .. ``n_bins - 1``; -1 for a pixel that
        does not take part.
    n_bins : int
        Number of rings.

    Returns
    -------
    ndarray, int32, (H, W, 3)
        ``(ring * 3 + channel) * 256``: adding a pixel's 8-bit code gives its
        (ring, channel, code) bin; ``n_bins * 3 * 256`` (past the last bin)
        for a pixel that does not take part.
    """
    if ring.ndim != 2 or n_bins < 1 or ring.max(initial=-1) >= n_bins or ring.min(initial=0) < -1:
        raise ValueError(f"ring: expected (H, W) indices in -1 .. {n_bins - 1}")
    keys = (ring.astype(np.int32)[..., None] * 3 + np.arange(3, dtype=np.int32)) * _LAB_CODES
    keys[ring < 0] = n_bins * 3 * _LAB_CODES
    return keys


def radial_median_profile_codes(lab8: np.ndarray, keys: np.ndarray, n_bins: int) -> np.ndarray:
    """:func:`radial_median_profile` of ``bgr_to_lab``'s output, from its 8-bit Lab codes.

    The same result, bit for bit, as ``radial_median_profile(cv2.LUT(lab8,
    _LAB_TABLE), radius_px, mask, bin_px, n_bins)`` when ``keys`` gives each
    pixel of ``mask`` its ring ``min(int(radius_px / bin_px), n_bins - 1)``:
    each channel's Lab value is a strictly increasing function of its code, so
    the histogram median is found on a histogram of codes (one
    ``np.bincount`` for the three channels, 256 bins per ring and channel) and
    its 0.5-unit level is that of the median code, computed with the same
    float32 arithmetic as for a pixel.

    Parameters
    ----------
    lab8 : ndarray, uint8, (H, W, 3)
        ``cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)``.
    keys : ndarray, int32, (H, W, 3)
        :func:`ring_code_keys` of the pixels' rings.
    n_bins : int
        Number of rings.

    Returns
    -------
    ndarray, float32, (n_bins, 3)
        Per-ring medians (quantised to 0.5 Lab units); empty rings copy their
        inner neighbour.
    """
    return radial_median_profile_from_histogram(ring_code_histogram(lab8, keys, n_bins))


def ring_code_histogram(lab8: np.ndarray, keys: np.ndarray, n_bins: int) -> np.ndarray:
    """Every ring's histogram of 8-bit Lab codes, per channel (the counts
    :func:`radial_median_profile_codes` takes its medians from).

    Parameters
    ----------
    lab8, keys, n_bins
        As for :func:`radial_median_profile_codes`.

    Returns
    -------
    ndarray, int64, (n_bins, 3, 256)
        ``[ring, channel, code]``: pixels of that ring with that code.
    """
    if lab8.dtype != np.uint8 or lab8.ndim != 3 or lab8.shape[2] != 3:
        raise ValueError(f"lab8: expected uint8 (H, W, 3), got {lab8.dtype} {lab8.shape}")
    if keys.shape != lab8.shape:
        raise ValueError(f"keys: expected shape {lab8.shape}, got {keys.shape}")
    n_keys = n_bins * 3 * _LAB_CODES
    hist = np.bincount((keys + lab8).ravel(), minlength=n_keys + _LAB_CODES)[:n_keys]
    return hist.reshape(n_bins, 3, _LAB_CODES)


def radial_median_profile_from_histogram(hist: np.ndarray) -> np.ndarray:
    """:func:`radial_median_profile_codes` from the rings' code histograms.

    Parameters
    ----------
    hist : ndarray, int, (n_bins, 3, 256)
        :func:`ring_code_histogram`.

    Returns
    -------
    ndarray, float32, (n_bins, 3)
        As :func:`radial_median_profile_codes`.
    """
    if hist.ndim != 3 or hist.shape[1:] != (3, _LAB_CODES):
        raise ValueError(f"hist: expected (n_bins, 3, {_LAB_CODES}), got {hist.shape}")
    n_bins = hist.shape[0]
    cum = np.cumsum(hist, axis=2)
    total = cum[:, :, -1]
    # Median code per ring and channel: the first whose count reaches half.
    med_code = np.argmax(cum >= (total[:, :, None] + 1) // 2, axis=2)
    # Each channel's lowest code taking part (its Lab value is the minimum).
    present = hist.sum(axis=0) > 0  # (3, 256)
    out = np.zeros((n_bins, 3), dtype=np.float32)
    for c in range(3):
        table = _LAB_TABLE[0, :, c]
        lo = float(table[int(np.argmax(present[c]))]) if present[c].any() else 0.0
        # The 0.5-unit level of every code, as radial_median_profile computes it per pixel.
        level = np.clip(((table - lo) * 2.0).astype(np.int32), 0, _MEDIAN_LEVELS - 1)
        prof = lo + level[med_code[:, c]].astype(np.float32) / 2.0
        empty = total[:, c] == 0
        for i in np.flatnonzero(empty):
            prof[i] = prof[i - 1] if i > 0 else lo
        out[:, c] = prof
    return out
