"""The canonical top-down view of the plate and its background model.

After :mod:`vision.plate` has found the plate ellipse, the frame is warped so
that the plate is a circle of ``PLATE_RADIUS_PX`` in a square canvas.  Later
stages measure everything in that view, in pixels or as fractions of the plate
radius.  The plate's own appearance is modelled as a median per ring around
the centre (robust to the few tokens on it, and following the rim's shading);
what differs from it is a token, a stick, a hand or the bowl.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .colour import bgr_to_lab, radial_median_profile
from .plate import plate_to_canonical, rectify
from .types import Ellipse

#: Plate radius in the canonical view, pixels.
PLATE_RADIUS_PX = 128
#: Canvas side, pixels: the plate plus a margin of 0.25 plate radius each side.
CANVAS_PX = 320
#: Pre-smoothing of the canonical view, pixels (sigma).
CANON_BLUR_SIGMA_PX = 1.0
#: Width of one ring of the background model, pixels.
RING_BIN_PX = 2.0
#: Rings inside this fraction of the plate radius share one pooled median.
CENTRE_POOL_FRAC = 0.3
#: Background model covers rings out to this fraction of the plate radius.
MODEL_RADIUS_FRAC = 1.0


@dataclass(frozen=True, eq=False)
class CanonicalView:
    """The plate seen from straight above.

    Attributes
    ----------
    bgr : ndarray, uint8, (CANVAS_PX, CANVAS_PX, 3), BGR
        The rectified frame (smoothed).
    lab : ndarray, float32, (CANVAS_PX, CANVAS_PX, 3), Lab units
    background : ndarray, float32, (CANVAS_PX, CANVAS_PX, 3), Lab units
        The plate model: the per-ring median, constant beyond the plate.
    residual : ndarray, float32, (CANVAS_PX, CANVAS_PX, 3), Lab units
        ``lab - background``, zero outside the plate.
    delta_e : ndarray, float32, (CANVAS_PX, CANVAS_PX)
        Euclidean norm of ``residual`` (CIE76 colour difference).
    radius_px : ndarray, float32, (CANVAS_PX, CANVAS_PX)
        Distance of each pixel from the plate centre, pixels.
    to_canonical : ndarray, float64, (3, 3)
        Source pixels -> canonical pixels.
    plate_radius_px : float
    """

    bgr: np.ndarray
    lab: np.ndarray
    background: np.ndarray
    residual: np.ndarray
    delta_e: np.ndarray
    radius_px: np.ndarray
    to_canonical: np.ndarray
    plate_radius_px: float

    def __post_init__(self) -> None:
        s = self.bgr.shape[0]
        for name in ("lab", "background", "residual"):
            if getattr(self, name).shape != (s, s, 3):
                raise ValueError(f"{name}: expected shape {(s, s, 3)}, got {getattr(self, name).shape}")
        if self.delta_e.shape != (s, s) or self.radius_px.shape != (s, s):
            raise ValueError("delta_e, radius_px: expected the canvas shape")

    @property
    def canvas_px(self) -> int:
        return int(self.bgr.shape[0])

    @property
    def centre(self) -> float:
        return self.canvas_px / 2.0

    def to_source(self, x: float, y: float) -> tuple[float, float]:
        """Map a canonical point back to source pixels."""
        inv = np.linalg.inv(self.to_canonical)
        p = inv @ np.array([x, y, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def source_scale(self) -> float:
        """Source pixels per canonical pixel (geometric mean of the two axes)."""
        inv = np.linalg.inv(self.to_canonical)[:2, :2]
        return float(np.sqrt(abs(np.linalg.det(inv))))

    def ring_colour(self, inner_frac: float, outer_frac: float) -> np.ndarray:
        """Median Lab of the plate between two radii (fractions of the plate radius)."""
        r = self.radius_px / self.plate_radius_px
        sel = (r >= inner_frac) & (r < outer_frac)
        return np.median(self.lab[sel], axis=0)


_RADIUS_CACHE: dict[int, np.ndarray] = {}


def _radius_grid(canvas_px: int) -> np.ndarray:
    grid = _RADIUS_CACHE.get(canvas_px)
    if grid is None:
        yy, xx = np.mgrid[0:canvas_px, 0:canvas_px].astype(np.float32)
        c = canvas_px / 2.0 - 0.5
        grid = np.hypot(xx - c, yy - c)
        grid.setflags(write=False)
        _RADIUS_CACHE[canvas_px] = grid
    return grid


def make_canonical_view(frame: np.ndarray, plate: Ellipse) -> CanonicalView:
    """Warp ``frame`` to the canonical view and model the plate's appearance.

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3), BGR
    plate : Ellipse
        The plate's rim in source pixels.

    Returns
    -------
    CanonicalView
    """
    to_canon = plate_to_canonical(plate, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
    # Shrink a large frame first with area averaging so the warp does not alias.
    shrink = plate.b / (PLATE_RADIUS_PX * 1.5)
    if shrink > 1.5:
        h, w = frame.shape[:2]
        size = (max(8, int(round(w / shrink))), max(8, int(round(h / shrink))))
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        small_to_source = np.diag([w / size[0], h / size[1], 1.0])
        bgr = rectify(small, to_canon @ small_to_source, CANVAS_PX)
    else:
        bgr = rectify(frame, to_canon, CANVAS_PX)
    bgr = cv2.GaussianBlur(bgr, ksize=(0, 0), sigmaX=CANON_BLUR_SIGMA_PX)
    lab = bgr_to_lab(bgr)
    radius = _radius_grid(CANVAS_PX)
    model_r = MODEL_RADIUS_FRAC * PLATE_RADIUS_PX
    inside = radius < model_r
    n_bins = int(np.ceil(model_r / RING_BIN_PX))
    profile = radial_median_profile(lab, radius, inside, RING_BIN_PX, n_bins)
    # The innermost rings are small enough for one token to fill them: pool
    # the central disc into one median, where a token stays a minority.
    centre = radius < CENTRE_POOL_FRAC * PLATE_RADIUS_PX
    n_pool = int(np.ceil(CENTRE_POOL_FRAC * PLATE_RADIUS_PX / RING_BIN_PX))
    profile[:n_pool] = np.median(lab[centre], axis=0)
    ring = np.minimum((radius / RING_BIN_PX).astype(np.int32), n_bins - 1)
    background = profile[ring]
    residual = lab - background
    residual[~inside] = 0.0
    delta_e = np.sqrt((residual * residual).sum(axis=-1))
    return CanonicalView(bgr=bgr, lab=lab, background=background, residual=residual, delta_e=delta_e,
                         radius_px=radius, to_canonical=to_canon, plate_radius_px=float(PLATE_RADIUS_PX))
