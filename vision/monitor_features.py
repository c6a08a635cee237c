"""Cheap per-frame features for the round monitor.

The monitor cannot afford the still-frame reader on every frame, so the state
(bowl on, shaking, still, lifting, clear) is decided from two numbers per
frame, computed on a small grey/colour copy of the frame:

* ``motion``: mean absolute difference (8-bit grey levels) between this frame
  and the previous one, inside the region around the plate (the whole frame
  until the plate is known);
* ``occlusion``: the fraction of the inner plate that differs from a *bare
  plate reference* (a frame where the plate was seen uncovered) by more than
  :attr:`FeatureSettings.diff_threshold`.  The bowl covers most of the plate
  (occlusion near 1); four tokens moving between rounds change well under a
  fifth of it.

Everything here is a pure function of its inputs.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import cv2
import numpy as np

from .types import Ellipse

#: The light blur of the small frame: a 3x3 Gaussian (small-frame pixels), sigma 0 = derived from the size
#: by OpenCV (0.8 small-frame px).
BLUR_KSIZE_PX = (3, 3)
BLUR_SIGMA_PX = 0


@dataclass(frozen=True)
class FeatureSettings:
    """Sizes and thresholds of the cheap features.

    Attributes
    ----------
    work_width : int
        Width, pixels, of the downscaled copy the features use.
    diff_threshold : float
        A reference pixel "differs" beyond this sum of absolute BGR
        differences (8-bit levels, three channels summed).
    inner_frac : float
        The occlusion is measured inside the plate ellipse shrunk to this
        fraction of its axes (the rim and its shadow are left out).
    open_frac : float
        Diameter of the opening disc, fraction of the plate's minor semi-axis.
    motion_frac : float
        The motion is measured inside the plate ellipse grown to this
        fraction of its axes (the bowl and the dealer's hands around it).
    """

    work_width: int = 160
    diff_threshold: float = 25.0
    open_frac: float = 0.35
    inner_frac: float = 0.85
    motion_frac: float = 1.6

    def __post_init__(self) -> None:
        if not 32 <= self.work_width <= 1024:
            raise ValueError(f"work_width: expected 32-1024, got {self.work_width}")
        if not 0 < self.inner_frac <= 1.0 or self.motion_frac < 1.0:
            raise ValueError("inner_frac in (0, 1], motion_frac >= 1 expected")


@dataclass
class Small:
    """A downscaled frame: ``bgr`` (float32), ``grey`` (float32), ``scale`` (small px per source px)."""

    bgr: np.ndarray
    grey: np.ndarray
    scale: float


def downscale(frame: np.ndarray, settings: FeatureSettings) -> Small:
    """The small copy of a BGR uint8 frame (INTER_AREA, light blur)."""
    h, w = frame.shape[:2]
    sw = min(settings.work_width, w)
    sh = max(8, int(round(h * sw / w)))
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, ksize=BLUR_KSIZE_PX, sigmaX=BLUR_SIGMA_PX).astype(np.float32)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return Small(small, grey, sw / w)


def ellipse_mask(shape: tuple[int, int], plate: Ellipse, scale: float, frac: float) -> np.ndarray:
    """Boolean mask of the plate ellipse (source px) scaled by ``frac``, on a small frame."""
    mask = np.zeros(shape, np.uint8)
    cv2.ellipse(mask, (int(round(plate.cx * scale)), int(round(plate.cy * scale))),
                (max(1, int(round(plate.a * scale * frac))), max(1, int(round(plate.b * scale * frac)))),
                plate.angle_deg, 0, 360, 1, thickness=cv2.FILLED)
    return mask.astype(bool)


def motion(prev: Small | None, cur: Small, mask: np.ndarray | None) -> float:
    """Mean absolute grey difference, 8-bit levels (0 for the first frame or a size change)."""
    if prev is None or prev.grey.shape != cur.grey.shape:
        return 0.0
    d = np.abs(cur.grey - prev.grey)
    if mask is not None and mask.any():
        return float(d[mask].mean())
    return float(d.mean())


def opening_kernel(plate: Ellipse, scale: float, settings: FeatureSettings) -> np.ndarray:
    """The disc that opens tokens away (odd size, at least 3 px)."""
    k = max(3, int(round(settings.open_frac * plate.b * scale))) | 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def occlusion(reference: Small | None, cur: Small, mask: np.ndarray | None, settings: FeatureSettings,
              kernel: np.ndarray | None = None) -> float:
    """Fraction of the inner plate differing from the bare-plate reference, opened by ``kernel``
    (NaN without a reference)."""
    if reference is None or mask is None or reference.bgr.shape != cur.bgr.shape or not mask.any():
        return math.nan
    d = (np.abs(cur.bgr - reference.bgr).sum(axis=2) > settings.diff_threshold).astype(np.uint8)
    if kernel is not None:
        d = cv2.morphologyEx(d, cv2.MORPH_OPEN, kernel)
    return float(d[mask].mean())


def frame_crc(frame: np.ndarray) -> int:
    """CRC-32 of the frame's bytes: a cheap test for a duplicated buffer."""
    return zlib.crc32(np.ascontiguousarray(frame).data)


__all__ = ["FeatureSettings", "Small", "downscale", "ellipse_mask", "frame_crc", "motion", "occlusion", "opening_kernel"]
