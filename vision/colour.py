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
    return cv2.LUT(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab), _LAB_TABLE)


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
