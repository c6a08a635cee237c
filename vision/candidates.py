"""What the token search finds, and the measurements of the residual around a find that its modules share.

:class:`Candidate` is one token candidate as :func:`vision.tokens.find_tokens`
hands it on (:mod:`vision.tokens` re-exports it); ``_Blob`` is one region of
its blob mask, with its shape.  The helpers read the plate-background
residual of :class:`vision.canonical.CanonicalView` (Lab units) over a disc
around a point: its mean (``_mean_residual``), whether a find's face part
differs from the plate (``_face_differs``), and the disc set to the plate's
level (``_blank``).  Distances are canonical pixels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .discs import DISC_FACE_FRAC, _rows_mean
from .grids import open_grid


@dataclass(frozen=True)
class Candidate:
    """A token candidate in canonical pixels.

    Attributes
    ----------
    x, y : float
        Centre, canonical pixels.
    radius : float
        Radius of the face outline (for a blob the equivalent-area radius of
        the part attributed to this candidate), canonical pixels.
    kind : str
        ``disc`` (one flat face), ``faint`` (a pale disc found by the disc
        filter), ``outline`` (a pale disc found by its dark outline only),
        ``upright`` (a thin bar or narrow ellipse), ``overlap`` (two faces, one
        on the other), ``partial`` (a face partly hidden), ``object``
        (larger than tokens: stick, hand, bowl).
    area_px : float
        Blob area (pi r^2 for a faint disc), canonical pixels squared.
    axis_ratio : float
        Minor / major axis of the fitted ellipse, in (0, 1].
    solidity : float
        Area / convex-hull area, in (0, 1].
    contrast : float
        Mean colour difference from the plate (blobs) or edge contrast (faint
        discs), Lab units.
    crosses_rim : bool
        Part of it lies beyond the plate's rim.
    found_by : str
        The detector that found it: ``blob``, ``disc_filter`` or ``outline``.
    angle_deg : float
        Direction of the blob's major axis, degrees in [0, 180) in the
        canonical view, from +x towards +y (x to the right, y down: clockwise
        on screen); NaN where no blob's own
        shape was measured (faint and outline finds, halves of a split blob,
        a face measured again as a whole).
    """

    x: float
    y: float
    radius: float
    kind: str
    area_px: float
    axis_ratio: float
    solidity: float
    contrast: float
    crosses_rim: bool = False
    found_by: str = "blob"
    angle_deg: float = math.nan

    KINDS = ("disc", "faint", "outline", "upright", "overlap", "partial", "object")
    DETECTORS = ("blob", "disc_filter", "outline")

    @property
    def whole_blob(self) -> bool:
        """Measured whole as one blob, with its own shape (not a faint or
        outline find, nor a half of a split blob or a face cut at half contrast)."""
        return self.found_by == "blob" and not math.isnan(self.angle_deg)

    def __post_init__(self) -> None:
        if self.kind not in self.KINDS:
            raise ValueError(f"kind: expected one of {self.KINDS}, got {self.kind!r}")
        if self.found_by not in self.DETECTORS:
            raise ValueError(f"found_by: expected one of {self.DETECTORS}, got {self.found_by!r}")
        if not (self.radius > 0 and math.isfinite(self.x) and math.isfinite(self.y)):
            raise ValueError(f"x, y, radius: expected finite values and radius > 0, got {self.x}, {self.y}, "
                             f"{self.radius}")
        if not (math.isnan(self.angle_deg) or 0.0 <= self.angle_deg < 180.0):
            raise ValueError(f"angle_deg: expected NaN or a value in [0, 180), got {self.angle_deg}")


@dataclass(frozen=True)
class _Blob:
    x: float
    y: float
    area: float
    major: float
    minor: float
    angle_deg: float
    solidity: float
    contrast: float
    crosses_rim: bool
    mask: np.ndarray  # bool, canvas shape

    @property
    def equiv_radius(self) -> float:
        return math.sqrt(self.area / math.pi)

    @property
    def axis_ratio(self) -> float:
        return self.minor / self.major if self.major > 0 else 0.0


def _patch_around(residual: np.ndarray, x: float, y: float, radius_px: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The square of ``residual`` reaching ``radius_px`` around (x, y),
    clipped to the canvas, with its pixels' rows and columns (``rr, cc``:
    int, (h, 1) and (1, w), broadcasting to the square's (h, w) as
    ``np.mgrid`` spells them out, with the same values)."""
    s = residual.shape[0]
    half = int(math.ceil(radius_px))
    x0, x1 = max(0, int(x) - half), min(s, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(s, int(y) + half + 1)
    rr, cc = open_grid(y0, y1, x0, x1)
    return residual[y0:y1, x0:x1], rr, cc


def _mean_residual(residual: np.ndarray, x: float, y: float, radius_px: float) -> np.ndarray:
    """Mean Lab residual (3,) over the disc of ``radius_px`` around (x, y); zeros when empty."""
    patch, rr, cc = _patch_around(residual, x, y, radius_px)
    sel = (cc - x) ** 2 + (rr - y) ** 2 < radius_px ** 2
    if not sel.any():
        return np.zeros(3, np.float32)
    return _rows_mean(patch[sel])  # = patch[sel].mean(axis=0)


def _blank(image: np.ndarray, x: float, y: float, radius_px: float) -> None:
    """Set the disc of ``radius_px`` around (x, y) to zero, in place (an array
    the token search owns, never the caller's view)."""
    cv2.circle(image, (int(round(x)), int(round(y))), int(round(radius_px)),
               color=(0.0,) * (image.shape[2] if image.ndim == 3 else 1), thickness=cv2.FILLED)


def _face_differs(residual: np.ndarray, x: float, y: float, radius_px: float, contrast: float,
                  min_share: float) -> bool:
    """True when the face part of a disc-filter find differs from the plate by
    at least ``min_share`` of the filter's contrast: a face does; a band of
    plate shading crossing only the surround ring does not."""
    core = _mean_residual(residual, x, y, DISC_FACE_FRAC * radius_px)
    return float(np.linalg.norm(core)) >= min_share * contrast
