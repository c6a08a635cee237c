"""A faint face's centre from a circle fitted to its edge.

The disc filter finds a faint face where its face disc and surround ring
differ most.  Beside another face the surround ring runs onto that face, so
the peak lies off the face's centre, away from its neighbour; a faint face
partly under another (only its far part showing) is found further out still.
Two faces that overlap then measure as far apart as touching ones (fresh
forced overlap 342939 at 1280x720: a white face partly under a red one,
1.77 true radii apart, found 2.01 token radii apart and read as an outcome).

Here the face's own edge gives its centre: along rays from the peak, the
point where the face's colour (the residual projected on its core's colour
direction) falls to half the core's; rays towards a neighbour are left out;
a circle is fitted to the points by least squares, then once more without
the points far off it.  The reader holds two faces to overlap when either
their peaks or their edges' centres are closer than the overlap bound
(``vision.reader.OVERLAP_MAX_CENTRE_DIST_RADII``): the fit can only add an
overlap, never take one away, and no other test reads it.  The halves of a
blob split in two are fitted the same way: the half under a leaning token
has its centroid off its face's centre, away from the bite.

Distances are canonical pixels; colours are the Lab residual of
:class:`vision.canonical.CanonicalView` (Lab units).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .grids import open_grid

#: Rays cast from the peak, evenly spaced over the full turn.
FIT_RAYS = 48
#: Rays within this angle of the direction to a neighbouring face are left
#: out (the neighbour's own edge, or the part of the face under it).
FIT_SKIP_HALF_ANGLE_DEG = 60.0
#: The core whose mean colour sets the face's direction and contrast: this
#: fraction of the token radius around the peak.
FIT_CORE_RADII = 0.5
#: The edge is where the projected residual falls below this share of the
#: core's (half contrast, as the token radius is measured).
FIT_EDGE_LEVEL = 0.5
#: Each ray is sampled from ... to ... token radii from the peak ...
FIT_REACH_RADII = (0.3, 1.8)
#: ... every this many pixels.
FIT_STEP_PX = 0.25
#: A fit needs this many edge points (after the outliers are left out).
FIT_MIN_EDGES = 8
#: Points further off the first circle than this many times the median
#: distance (and at least ``FIT_OUTLIER_MIN_PX``) are left out of the second.
FIT_OUTLIER_FACTOR = 2.5
FIT_OUTLIER_MIN_PX = 0.5


@dataclass(frozen=True)
class EdgeFit:
    """A circle fitted to a face's edge, canonical pixels.

    ``x``, ``y``, ``radius_px`` and ``rms_px`` are NaN and ``n_edges`` is 0
    when no circle was fitted (:attr:`fitted` is False).
    """

    x: float
    y: float
    radius_px: float
    n_edges: int
    rms_px: float

    def __post_init__(self) -> None:
        if not (isinstance(self.n_edges, (int, np.integer)) and self.n_edges >= 0):
            raise ValueError(f"n_edges: expected an int >= 0, got {self.n_edges!r}")
        values = (self.x, self.y, self.radius_px, self.rms_px)
        if self.n_edges and not all(math.isfinite(v) for v in values):
            raise ValueError(f"x, y, radius_px, rms_px: expected finite values for a fit, got {values}")

    @property
    def fitted(self) -> bool:
        return self.n_edges > 0


NO_FIT = EdgeFit(math.nan, math.nan, math.nan, 0, math.nan)


def _circle(points: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (algebraic fit) through ``points`` (N, 2) float64 -> (cx, cy, radius)."""
    a = np.c_[2.0 * points[:, 0], 2.0 * points[:, 1], np.ones(len(points))]
    b = (points ** 2).sum(axis=1)
    sol = np.linalg.lstsq(a, b, rcond=None)[0]
    cx, cy = float(sol[0]), float(sol[1])
    return cx, cy, math.sqrt(max(float(sol[2]) + cx * cx + cy * cy, 0.0))


def fit_face_edge(residual: np.ndarray, x: float, y: float, radius_px: float,
                  others: list[tuple[float, float]] | tuple = ()) -> EdgeFit:
    """Fit a circle to the edge of the face found at (x, y).

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Colour minus the plate model.
    x, y : float
        Where the face was found (a disc-filter peak), canonical pixels.
    radius_px : float
        Token radius, canonical pixels (> 0).
    others : sequence of (x, y)
        Centres of the faces beside it, canonical pixels: rays towards them
        are left out.

    Returns
    -------
    EdgeFit
        :data:`NO_FIT` (not fitted) when the core has no colour of its own
        or fewer than ``FIT_MIN_EDGES`` rays find the edge.
    """
    if not (isinstance(residual, np.ndarray) and residual.ndim == 3 and residual.shape[2] == 3):
        raise ValueError(f"residual: expected an (S, S, 3) array, got {getattr(residual, 'shape', type(residual))}")
    if not (math.isfinite(radius_px) and radius_px > 0):
        raise ValueError(f"radius_px: expected a finite value > 0, got {radius_px}")
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"x, y: expected finite values, got ({x}, {y})")
    h, w = residual.shape[:2]
    reach = FIT_REACH_RADII[1] * radius_px + 2.0
    x0, x1 = max(0, int(math.floor(x - reach))), min(w, int(math.ceil(x + reach)) + 1)
    y0, y1 = max(0, int(math.floor(y - reach))), min(h, int(math.ceil(y + reach)) + 1)
    if x0 >= x1 or y0 >= y1:
        return NO_FIT
    patch = np.ascontiguousarray(residual[y0:y1, x0:x1], dtype=np.float32)
    rr, cc = open_grid(y0, y1, x0, x1)  # (h, 1) and (1, w): broadcast below
    core = (cc - x) ** 2 + (rr - y) ** 2 < (FIT_CORE_RADII * radius_px) ** 2
    if not core.any():
        return NO_FIT
    mean = patch[core].mean(axis=0, dtype=np.float64)
    contrast = float(np.linalg.norm(mean))
    if not contrast > 0:
        return NO_FIT
    proj = (patch @ (mean / contrast).astype(np.float32)).astype(np.float32)

    theta = np.linspace(0.0, 2.0 * math.pi, FIT_RAYS, endpoint=False)
    if len(others):
        towards = np.array([math.atan2(oy - y, ox - x) for ox, oy in others])
        off = np.abs((theta[:, None] - towards[None, :] + math.pi) % (2.0 * math.pi) - math.pi)
        theta = theta[(off >= math.radians(FIT_SKIP_HALF_ANGLE_DEG)).all(axis=1)]
    if theta.size < FIT_MIN_EDGES:
        return NO_FIT
    rho = np.arange(FIT_REACH_RADII[0] * radius_px, FIT_REACH_RADII[1] * radius_px, FIT_STEP_PX)
    map_x = (x - x0 + np.cos(theta)[:, None] * rho[None, :]).astype(np.float32)
    map_y = (y - y0 + np.sin(theta)[:, None] * rho[None, :]).astype(np.float32)
    prof = cv2.remap(proj, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=math.nan)
    level = FIT_EDGE_LEVEL * contrast
    above = prof >= level  # NaN (off the canvas) is never above
    first_below = np.argmax(~above, axis=1)  # 0 where the ray starts below or never falls below
    # an edge: the ray starts on the face and falls below the level on the
    # canvas (a ray that leaves the canvas first finds none)
    ok = above[:, 0] & (first_below > 0) & np.isfinite(prof[np.arange(theta.size), first_below])
    if int(ok.sum()) < FIT_MIN_EDGES:
        return NO_FIT
    k = np.flatnonzero(ok)
    i = first_below[k]
    a, b = prof[k, i - 1].astype(np.float64), prof[k, i].astype(np.float64)
    frac = np.where(a != b, (a - level) / np.where(a != b, a - b, 1.0), 0.0)
    dist = rho[i - 1] + frac * (rho[i] - rho[i - 1])
    points = np.c_[x + dist * np.cos(theta[k]), y + dist * np.sin(theta[k])]
    cx, cy, rad = _circle(points)
    off = np.abs(np.hypot(points[:, 0] - cx, points[:, 1] - cy) - rad)
    keep = off <= max(FIT_OUTLIER_FACTOR * float(np.median(off)), FIT_OUTLIER_MIN_PX)
    if int(keep.sum()) < FIT_MIN_EDGES:
        return NO_FIT
    cx, cy, rad = _circle(points[keep])
    off = np.abs(np.hypot(points[keep, 0] - cx, points[keep, 1] - cy) - rad)
    if not all(math.isfinite(v) for v in (cx, cy, rad)):
        return NO_FIT
    return EdgeFit(cx, cy, rad, int(keep.sum()), float(np.sqrt(np.mean(off ** 2))))
