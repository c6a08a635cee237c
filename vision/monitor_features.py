"""Cheap per-frame features for the round monitor.

The monitor cannot afford the still-frame reader on every frame, so the state
(bowl on, shaking, still, lifting, clear) is decided from two numbers per
frame, computed on a small grey/colour copy of the frame:

* ``motion``: mean absolute difference (8-bit grey levels) between this frame
  and the previous one, inside the region around the plate (the whole frame
  until the plate is known);
* ``occlusion``: the fraction of the inner plate that differs from a *bare
  plate reference* (a frame where the plate was seen uncovered) by more than
  a pixel threshold (:func:`diff_threshold`: ``noise_k`` times the camera
  noise measured on the still bare plate, within ``[diff_min,
  diff_threshold]``).  The bowl covers most of the plate (occlusion near 1);
  four tokens moving between rounds change well under a fifth of it.

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
        differences (8-bit levels, three channels summed) while the camera
        noise is not known, and at most this once it is (the ceiling).
    diff_min : float
        The pixel threshold never goes below this (8-bit levels, three
        channels summed: about 3 levels a channel, the size of quantisation
        and compression steps).
    noise_k : float
        Once the camera noise is measured (:func:`noise_level`, the mean
        absolute reference difference, 8-bit levels summed, of still frames of
        the bare plate), a pixel differs beyond ``noise_k`` times it.  A bowl
        whose colour is close to the glaze (a white ceramic bowl on a celadon
        or white porcelain plate: about 20 levels summed) is then still seen
        over most of the plate, where the fixed ceiling saw under a fifth of it
        (clips 1300000, 1300024 normal, 640x360 at 25 fps; the bare plate's
        noise there is 1.2-1.5 levels).
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
    diff_min: float = 10.0
    noise_k: float = 6.0
    open_frac: float = 0.35
    inner_frac: float = 0.85
    motion_frac: float = 1.6

    def __post_init__(self) -> None:
        if not 32 <= self.work_width <= 1024:
            raise ValueError(f"work_width: expected 32-1024, got {self.work_width}")
        if not 0 < self.inner_frac <= 1.0 or self.motion_frac < 1.0:
            raise ValueError("inner_frac in (0, 1], motion_frac >= 1 expected")
        if not 0 < self.diff_min <= self.diff_threshold or self.noise_k <= 0:
            raise ValueError("0 < diff_min <= diff_threshold and noise_k > 0 expected")


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


def reference_difference(reference: Small | None, cur: Small) -> np.ndarray | None:
    """Per-pixel sum of absolute BGR differences (8-bit levels) from the reference (None without one)."""
    if reference is None or reference.bgr.shape != cur.bgr.shape:
        return None
    return np.abs(cur.bgr - reference.bgr).sum(axis=2)


def noise_level(diff: np.ndarray | None, mask: np.ndarray | None) -> float:
    """Mean of a reference difference inside ``mask`` (8-bit levels summed; NaN without either)."""
    if diff is None or mask is None or diff.shape != mask.shape or not mask.any():
        return math.nan
    return float(diff[mask].mean())


def diff_threshold(noise: float, settings: FeatureSettings) -> float:
    """The pixel threshold of the occlusion for a camera noise ``noise`` (NaN: not measured yet):
    ``noise_k * noise`` within ``[diff_min, diff_threshold]``."""
    if not math.isfinite(noise):
        return settings.diff_threshold
    return min(settings.diff_threshold, max(settings.diff_min, settings.noise_k * noise))


def occlusion(reference: Small | None, cur: Small, mask: np.ndarray | None, settings: FeatureSettings,
              kernel: np.ndarray | None = None, *, threshold: float | None = None,
              diff: np.ndarray | None = None) -> float:
    """Fraction of the inner plate differing from the bare-plate reference by more than ``threshold``
    (default ``settings.diff_threshold``), opened by ``kernel`` (NaN without a reference).
    ``diff``: :func:`reference_difference` of the two, if already computed."""
    if diff is None:
        diff = reference_difference(reference, cur)
    if diff is None or mask is None or not mask.any():
        return math.nan
    th = settings.diff_threshold if threshold is None else threshold
    d = (diff > th).astype(np.uint8)
    if kernel is not None:
        d = cv2.morphologyEx(d, cv2.MORPH_OPEN, kernel)
    return float(d[mask].mean())


def frame_crc(frame: np.ndarray) -> int:
    """CRC-32 of the frame's bytes: a cheap test for a duplicated buffer."""
    return zlib.crc32(np.ascontiguousarray(frame).data)


__all__ = ["FeatureSettings", "Small", "diff_threshold", "downscale", "ellipse_mask", "frame_crc", "motion", "noise_level",
           "occlusion", "opening_kernel", "reference_difference"]
