"""The canonical top-down view of the plate and its background model.

After :mod:`vision.plate` has found the plate ellipse, the frame is warped so
that the plate is a circle of ``PLATE_RADIUS_PX`` in a square canvas.  Later
stages measure everything in that view, in pixels or as fractions of the plate
radius.  The plate's own appearance is modelled as a median per ring around
the centre (robust to the few tokens on it, and following the rim's shading);
what differs from it is a token, a stick, a hand or the bowl.  A ring that
tokens fill more than half of would have a token's median; inside the well
such a ring takes the median of its plate pixels instead
(:func:`_levels_where_tokens_dominate`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .cache import cached
from .colour import (_LAB_TABLE, lab_from_codes, radial_median_profile_from_histogram, ring_code_histogram,
                     ring_code_keys)
from .plate import _components_with_stats, fast_median, plate_to_canonical, rectify
from .shrink import halve, halvings_for
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
#: Rings whose median differs from the plate's level carried in from the ring
#: outside by more than ``BACKGROUND_MAX_DELTA_E`` (Lab units), with at least
#: ``BACKGROUND_MIN_PLATE_SHARE`` of their pixels within it of that level, are
#: filled by tokens: they take those pixels' median
#: (:func:`_levels_where_tokens_dominate`).  Walked from
#: ``BACKGROUND_TRACK_MAX_FRAC`` of the plate radius inwards, inside the well
#: where the tokens lie (the rim's bands change colour sharply and are
#: modelled as measured).
BACKGROUND_MAX_DELTA_E = 12.0
BACKGROUND_MIN_PLATE_SHARE = 0.25
BACKGROUND_TRACK_MAX_FRAC = 0.7
#: Rings that tokens cover in part (:func:`_levels_clear_of_tokens`).  A
#: pixel is a token's when it lies more than ``BACKGROUND_MAX_DELTA_E`` from
#: its ring's median, in a region no larger than this many areas of the
#: largest token (radius ``BACKGROUND_TOKEN_MAX_RADIUS_FRAC`` of the plate's,
#: the upper end of ``tokens.DEFAULT_TOKEN_RADIUS_FRAC``): a touching pair.
#: (At four such areas, glare on black lacquer passed for tokens: fresh four
#: flat tokens 374372 at 1280x720, a region of 7,831 px.) ...
BACKGROUND_TOKEN_REGION_MAX_AREAS = 2.0
BACKGROUND_TOKEN_MAX_RADIUS_FRAC = 0.20
#: ... and as compact as tokens are: its area at least this share of its
#: convex hull's (one disc ~0.95, two touching discs 0.88; a lit side's or a
#: glaze band's crescent far less) ...
BACKGROUND_TOKEN_MIN_SOLIDITY = 0.8
#: ... after an opening of this radius (pixels; the arcs a leaning ring
#: leaves between tokens, a few pixels wide, would join them into one region
#: too large and not compact), grown by ``BACKGROUND_TOKEN_MARGIN_PX`` pixels
#: (its blurred edge).
BACKGROUND_TOKEN_OPEN_PX = 2
BACKGROUND_TOKEN_MARGIN_PX = 2
#: A tracked ring with at least this share of its pixels on tokens has a
#: median moved toward them: with a share ``f`` of token pixels on one side,
#: the median is the ``0.5 / (1 - f)`` quantile of the plate's own pixels
#: (f = 0.2: 0.63, a third of the plate's noise; f = 0.45: 0.91, beyond its
#: noise).  Four red tokens side by side at one distance from the centre
#: cover up to half of the rings through them, and the bare plate between
#: them differed from the model by 6-10 Lab: arcs joining the tokens, found
#: as faces partly hidden (fresh forced four flat tokens 369294, 640x480).
BACKGROUND_MAX_TOKEN_SHARE = 0.2
#: Such a ring takes the median of its other pixels when that differs from
#: its own by at least this (Lab units; a smaller lean is below the faint
#: faces' contrast and the suspect floor and is left as measured) ...
BACKGROUND_MIN_CORRECTION_LAB = 5.0
#: ... and when at least this share of those pixels lie within
#: ``BACKGROUND_MAX_DELTA_E`` of it: the plate's own pixels agree on one
#: level (glare on black lacquer, or a lit side, spreads them: no ring model
#: holds there, and the ring is left as measured).
BACKGROUND_MIN_PLATE_FIT = 0.8


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
    rings_cleared : bool
        Whether some ring of the plate model was measured again without the
        tokens that cover it in part (:func:`_levels_clear_of_tokens`);
        False: the rings as measured (:func:`rings_as_measured` has nothing
        to undo).
    """

    bgr: np.ndarray
    lab: np.ndarray
    background: np.ndarray
    residual: np.ndarray
    delta_e: np.ndarray
    radius_px: np.ndarray
    to_canonical: np.ndarray
    plate_radius_px: float
    rings_cleared: bool = False

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

    def in_source_frame(self, xs: np.ndarray, ys: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
        """Which canonical points (``xs``, ``ys``, canvas pixels) map inside the
        source frame (``frame_size`` = (W, H), pixel centres 0 .. W - 1 and
        0 .. H - 1): bool, the shape ``xs`` and ``ys`` broadcast to.

        When the four corners of the points' bounding box map inside the frame
        with a margin (and in front of the camera), every point does: the map
        is projective, so the box's image is the convex quadrilateral of its
        corners' images, and the margin (1e-6 of the terms' size) is far above
        the float64 rounding of any point's sums and quotient (~1e-15 of it).
        Then all True without the per-point arithmetic (the same result).
        """
        inv = np.linalg.inv(self.to_canonical)
        if _all_in_frame(inv, xs, ys, frame_size):
            return np.ones(np.broadcast_shapes(np.shape(xs), np.shape(ys)), dtype=bool)
        sw = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
        sx = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / sw
        sy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / sw
        w, h = frame_size
        return (sx >= 0) & (sx <= w - 1) & (sy >= 0) & (sy <= h - 1)

    def source_scale(self) -> float:
        """Source pixels per canonical pixel (geometric mean of the two axes)."""
        inv = np.linalg.inv(self.to_canonical)[:2, :2]
        return float(np.sqrt(abs(np.linalg.det(inv))))

    def ring_colour(self, inner_frac: float, outer_frac: float) -> np.ndarray:
        """Median Lab of the plate between two radii (fractions of the plate radius)."""
        flat = _ring_flat_indices(self, inner_frac, outer_frac)
        if flat is not None and flat[0].size:
            # the pixels of ``self.lab[sel]`` below, in the same (row-major)
            # order, one contiguous array per channel
            lab = self.lab.reshape(-1)
            channels = [lab[idx] for idx in flat]
        else:
            r = self.radius_px / self.plate_radius_px
            sel = (r >= inner_frac) & (r < outer_frac)
            px = self.lab[sel]
            if px.shape[0] == 0:
                return np.median(px, axis=0)  # NaN, as before
            channels = [np.ascontiguousarray(px[:, c]) for c in range(px.shape[1])]
        # = np.median(px, axis=0), bit for bit (plate.fast_median per channel)
        return np.array([fast_median(ch) for ch in channels], dtype=self.lab.dtype)


def _all_in_frame(inv: np.ndarray, xs: np.ndarray, ys: np.ndarray, frame_size: tuple[int, int]) -> bool:
    """Whether :meth:`CanonicalView.in_source_frame` is surely True everywhere:
    the corners of the bounding box of (``xs``, ``ys``) map, by ``inv``
    (canonical -> source), in front of the camera and inside the frame by a
    margin far above float64 rounding.  False also for an empty, NaN or
    infinite input (the caller then computes every point)."""
    if np.size(xs) == 0 or np.size(ys) == 0:
        return False
    x_lo, x_hi, y_lo, y_hi = float(np.min(xs)), float(np.max(xs)), float(np.min(ys)), float(np.max(ys))
    if not all(math.isfinite(v) for v in (x_lo, x_hi, y_lo, y_hi)):
        return False
    w, h = frame_size
    m = [[float(v) for v in row] for row in inv]
    for x in (x_lo, x_hi):
        for y in (y_lo, y_hi):
            terms = [abs(m[i][0] * x) + abs(m[i][1] * y) + abs(m[i][2]) for i in range(3)]
            margin = 1e-6 * (1.0 + max(terms))
            sw = m[2][0] * x + m[2][1] * y + m[2][2]
            if not sw > margin:
                return False
            sx = (m[0][0] * x + m[0][1] * y + m[0][2]) / sw
            sy = (m[1][0] * x + m[1][1] * y + m[1][2]) / sw
            if not (margin * (1.0 + abs(sx)) <= sx <= w - 1 - margin * (1.0 + abs(sx))
                    and margin * (1.0 + abs(sy)) <= sy <= h - 1 - margin * (1.0 + abs(sy))):
                return False
    return True


#: :func:`_ring_flat_indices` by (canvas side, plate radius, inner and outer fraction).
_RING_FLAT_INDICES: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _ring_flat_indices(view: CanonicalView, inner_frac: float, outer_frac: float
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Flat indices into ``view.lab`` (C order, (S * S * 3,)) of each Lab
    channel of the pixels :meth:`CanonicalView.ring_colour` selects, row-major
    (cached, one intp array per channel).

    None when they cannot be cached: ``view.radius_px`` is not the canvas
    geometry's own grid, ``view.lab`` is not C-contiguous float32, or a
    fraction or the plate radius is not a Python float (a NumPy float64
    compares the float32 radii in another precision).
    """
    geo = _GEOMETRY_CACHE.get(view.canvas_px)
    if (geo is None or view.radius_px is not geo.radius or type(inner_frac) is not float
            or type(outer_frac) is not float or type(view.plate_radius_px) is not float
            or view.lab.dtype != np.float32 or not view.lab.flags.c_contiguous):
        return None

    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r = geo.radius / view.plate_radius_px
        first = np.flatnonzero((r >= inner_frac) & (r < outer_frac)) * 3
        return first, first + 1, first + 2
    return cached(_RING_FLAT_INDICES, (view.canvas_px, view.plate_radius_px, inner_frac, outer_frac), make)


#: Extra samples kept around the warp's footprint in the shrunk frame, pixels
#: (bilinear interpolation reads one pixel beyond the sample's floor).
WARP_FOOTPRINT_MARGIN_PX = 3
#: A large frame is area-shrunk before the warp to about this many shrunk
#: pixels per canvas pixel (the warp's own bilinear shrink)...
WARP_SHRINK = 1.5
#: ...when that takes a shrink by more than this factor; otherwise the warp
#: reads the frame itself (shrinking by up to WARP_SHRINK x AREA_SHRINK_MIN).
AREA_SHRINK_MIN = 1.5


@dataclass(frozen=True, eq=False)
class _CanvasGeometry:
    """Per-canvas constants of the background model (read-only arrays)."""

    radius: np.ndarray      # float32 (S, S): distance from the centre, pixels
    inside: np.ndarray      # bool (S, S): within the model radius
    inside3: np.ndarray     # bool (S, S, 1): ``inside`` for broadcasting over Lab
    centre: np.ndarray      # bool (S, S): within the pooled centre
    ring_flat: np.ndarray   # intp (S * S,): ring index of every pixel
    n_bins: int
    n_pool: int
    box: tuple[slice, slice]  # rows, columns: the bounding box of ``inside``
    ring_keys: np.ndarray   # int32 (box, 3): colour.ring_code_keys of ``inside``'s rings on ``box``
    inside_box: np.ndarray  # uint8 (box): ``inside`` on ``box``, 0 or 1 (an OpenCV mask)
    centre_flat: np.ndarray  # intp (M,): flat indices of ``centre``'s pixels, row-major
    ring_codes3: np.ndarray  # uint8 (S, S, 3): ring index of every pixel, in each channel (a cv2.LUT source)
    ring_pixels: tuple      # n_bins intp arrays: flat indices of each ring's pixels (of ``inside``)
    pool_rings: int         # the first rings, every pixel of them in ``centre`` (and ``inside``)
    pool_rest_flat: np.ndarray  # intp (K,): flat indices of ``centre``'s other pixels, row-major


_GEOMETRY_CACHE: dict[int, _CanvasGeometry] = {}


def _radius_grid(canvas_px: int) -> np.ndarray:
    return _canvas_geometry(canvas_px).radius


def _canvas_geometry(canvas_px: int) -> _CanvasGeometry:
    geo = _GEOMETRY_CACHE.get(canvas_px)
    if geo is None:
        yy, xx = np.mgrid[0:canvas_px, 0:canvas_px].astype(np.float32)
        c = canvas_px / 2.0 - 0.5
        radius = np.hypot(xx - c, yy - c)
        model_r = MODEL_RADIUS_FRAC * PLATE_RADIUS_PX
        n_bins = int(np.ceil(model_r / RING_BIN_PX))
        inside = radius < model_r
        if not 1 <= n_bins <= 256:  # ring_codes3 holds the ring index as an 8-bit code
            raise ValueError(f"MODEL_RADIUS_FRAC, RING_BIN_PX: expected 1..256 rings, got {n_bins}")
        ring = np.minimum((radius / RING_BIN_PX).astype(np.int32), n_bins - 1)
        centre = radius < CENTRE_POOL_FRAC * PLATE_RADIUS_PX
        # the pooled centre as whole rings and the rest of it (for its code histogram, _plate_model)
        pool_rings = 0
        while pool_rings < n_bins and (centre & inside)[ring == pool_rings].all():
            pool_rings += 1
        rows, cols = np.flatnonzero(inside.any(axis=1)), np.flatnonzero(inside.any(axis=0))
        box = (slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1))
        geo = _CanvasGeometry(radius=radius, inside=inside, inside3=inside[..., None],
                              centre=centre,
                              ring_flat=ring.ravel().astype(np.intp), n_bins=n_bins,
                              n_pool=int(np.ceil(CENTRE_POOL_FRAC * PLATE_RADIUS_PX / RING_BIN_PX)),
                              box=box, ring_keys=ring_code_keys(np.where(inside, ring, -1)[box], n_bins),
                              inside_box=inside[box].astype(np.uint8),
                              centre_flat=np.flatnonzero(centre),
                              ring_codes3=np.repeat(ring.astype(np.uint8)[..., None], 3, axis=2),
                              ring_pixels=tuple(np.flatnonzero((ring == i) & inside) for i in range(n_bins)),
                              pool_rings=pool_rings, pool_rest_flat=np.flatnonzero(centre & (ring >= pool_rings)))
        for arr in (geo.radius, geo.inside, geo.inside3, geo.centre, geo.ring_flat, geo.ring_keys, geo.inside_box,
                    geo.centre_flat, geo.ring_codes3, *geo.ring_pixels, geo.pool_rest_flat):
            arr.setflags(write=False)
        _GEOMETRY_CACHE[canvas_px] = geo
    return geo


def _median_from_codes(codes: np.ndarray) -> np.ndarray:
    """``np.median(colour.lab_from_codes(codes), axis=0)``, bit for bit, from the codes.

    Each channel's Lab value is a strictly increasing function of its 8-bit
    code, so the middle value(s) of the Lab values are those of the middle
    code(s); ``np.median`` returns the middle one for an odd count and for an
    even count the mean of the two middle ones (their float32 sum divided by
    the intp 2 in float64, cast back to float32), as here.

    Parameters
    ----------
    codes : ndarray, uint8, (N, 3)
        OpenCV 8-bit Lab codes, N >= 1.

    Returns
    -------
    ndarray, float32, (3,), Lab units
    """
    n = codes.shape[0]
    if n < 1:
        raise ValueError("codes: expected at least one pixel")
    return _median_from_histogram(_code_histogram(codes), n)


def _code_histogram(codes: np.ndarray) -> np.ndarray:
    """int64 (3, 256): each channel's count of every 8-bit code of ``codes`` (N, 3)."""
    # one histogram of the three channels (channel c's codes at c * 256 ...)
    return np.bincount((codes.astype(np.intp) + np.array([0, 256, 512])).ravel(), minlength=768).reshape(3, 256)


def _median_from_histogram(hist: np.ndarray, n: int) -> np.ndarray:
    """:func:`_median_from_codes` of ``n`` >= 1 pixels whose :func:`_code_histogram` is ``hist``."""
    cum = np.cumsum(hist, axis=1)
    hi = np.argmax(cum > n // 2, axis=1)  # the code of the value at sorted index n // 2
    table = _LAB_TABLE[0]  # (256, 3)
    upper = table[hi, np.arange(3)]
    if n % 2 == 1:
        return upper.astype(np.float32)
    lo = np.argmax(cum > n // 2 - 1, axis=1)  # ... at sorted index n // 2 - 1
    pair = np.stack([table[lo, np.arange(3)], upper])  # (2, 3) float32, in sorted order
    return np.true_divide(pair.sum(axis=0), np.intp(2)).astype(np.float32)


def warp_box(to_canonical: np.ndarray, canvas_px: int) -> tuple[float, float, float, float]:
    """The source region read when warping to a ``canvas_px`` canvas.

    Parameters
    ----------
    to_canonical : ndarray, float, (3, 3)
        Affine map from source pixels to canvas pixels (last row 0, 0, 1).
    canvas_px : int
        Side of the square canvas, pixels.

    Returns
    -------
    (x_min, y_min, x_max, y_max) : float
        Source pixels; the canvas corners mapped back (the map is affine, so
        the corners bound every sample).
    """
    if canvas_px <= 0:
        raise ValueError(f"canvas_px: expected > 0, got {canvas_px}")
    inv = np.linalg.inv(np.asarray(to_canonical, dtype=np.float64))
    last = float(canvas_px - 1)
    corners = np.array([[0.0, 0.0, 1.0], [last, 0.0, 1.0], [0.0, last, 1.0], [last, last, 1.0]]).T
    src = inv @ corners
    return float(src[0].min()), float(src[1].min()), float(src[0].max()), float(src[1].max())


def halved_region(frame: np.ndarray, to_canonical: np.ndarray, canvas_px: int, halvings: int,
                  halved: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The part of ``frame`` the warp reads, shrunk by exact halvings.

    Only the warp's source region (:func:`warp_box`, grown by
    ``WARP_FOOTPRINT_MARGIN_PX`` shrunk pixels for the bilinear samples) is
    shrunk, cut on multiples of ``2**halvings`` so that every output pixel is
    the mean of one whole block.  Where the region runs past the frame the
    cut is the frame's edge (less the last ``2**halvings - 1`` pixels at
    most, where the frame is not a whole number of blocks), which the warp's
    border rule replicates as on the whole frame.

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3), BGR
    to_canonical : ndarray, float, (3, 3)
        Affine map from source pixels to canvas pixels.
    canvas_px : int
        Side of the square canvas, pixels.
    halvings : int
        Exact halvings, >= 1.
    halved : ndarray, uint8, (H // 2, W // 2, 3), or None
        ``vision.shrink.halve(frame, 1)`` when already made (the plate
        search's, :attr:`vision.plate.PlateFit.halved`): the region's first
        halving is cut from it instead of made again.  The cut is on even
        pixels and a 2x2 halving is blockwise (each output pixel the rounded
        mean of its own block), so ``small`` is the same, bit for bit.

    Returns
    -------
    small : ndarray, uint8, (h, w, 3), BGR
        (A view of ``halved`` when that is the whole shrink.)
    to_small_canvas : ndarray, float64, (3, 3)
        Affine map from ``small``'s pixels to canvas pixels (pixel centres:
        ``small`` pixel ``j`` is the block of source pixels ``x0 + k j`` to
        ``x0 + k j + k - 1``, centred at ``x0 + k j + (k - 1) / 2``).
    """
    if not isinstance(halvings, (int, np.integer)) or halvings < 1:
        raise ValueError(f"halvings: expected an int >= 1, got {halvings!r}")
    h, w = frame.shape[:2]
    k = 1 << int(halvings)
    x_min, y_min, x_max, y_max = warp_box(to_canonical, canvas_px)
    margin = (WARP_FOOTPRINT_MARGIN_PX + 1) * k

    def cut(lo: float, hi: float, size: int) -> tuple[int, int]:
        a = int(np.clip(math.floor((lo - margin) / k) * k, 0, size))
        b = int(np.clip(math.ceil((hi + margin) / k) * k, 0, size))
        return a, a + (b - a) // k * k

    x0, x1 = cut(x_min, x_max, w)
    y0, y1 = cut(y_min, y_max, h)
    if x1 - x0 < k or y1 - y0 < k:
        raise ValueError(f"to_canonical: the warp reads no whole {k}x{k} block of the {w}x{h} frame")
    if halved is None:
        small = halve(frame[y0:y1, x0:x1], int(halvings))
    else:
        if halved.shape[:2] != (h // 2, w // 2):
            raise ValueError(f"halved: expected the {w}x{h} frame halved, {w // 2}x{h // 2}, "
                             f"got {halved.shape[1]}x{halved.shape[0]}")
        small = halved[y0 // 2:y1 // 2, x0 // 2:x1 // 2]  # k is even: the cut's ends are
        if halvings > 1:
            small = halve(small, int(halvings) - 1)
    off = (k - 1) / 2.0
    small_to_source = np.array([[k, 0.0, x0 + off], [0.0, k, y0 + off], [0.0, 0.0, 1.0]])
    return small, np.asarray(to_canonical, dtype=np.float64) @ small_to_source


def make_canonical_view(frame: np.ndarray, plate: Ellipse, halved: np.ndarray | None = None) -> CanonicalView:
    """Warp ``frame`` to the canonical view and model the plate's appearance.

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3), BGR
    plate : Ellipse
        The plate's rim in source pixels.
    halved : ndarray, uint8, (H // 2, W // 2, 3), or None
        ``vision.shrink.halve(frame, 1)`` when already made (the plate
        search's, :attr:`vision.plate.PlateFit.halved`), for
        :func:`halved_region`: the same view, without halving the frame's
        pixels again.

    Returns
    -------
    CanonicalView
    """
    to_canon = plate_to_canonical(plate, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
    # A large frame is first shrunk by area averaging so that the bilinear
    # warp does not alias: by exact halvings (vision.shrink), the power of two
    # nearest the shrink that leaves WARP_SHRINK shrunk pixels per canvas pixel.
    shrink = plate.b / (PLATE_RADIUS_PX * WARP_SHRINK)
    if shrink > AREA_SHRINK_MIN:
        small, to_small_canvas = halved_region(frame, to_canon, CANVAS_PX, halvings_for(shrink), halved)
        bgr = rectify(small, to_small_canvas, CANVAS_PX)
    else:
        bgr = rectify(frame, to_canon, CANVAS_PX)
    bgr = cv2.GaussianBlur(bgr, ksize=(0, 0), sigmaX=CANON_BLUR_SIGMA_PX)
    lab8 = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    lab = lab_from_codes(lab8)  # = colour.bgr_to_lab(bgr)
    (background, residual, delta_e), cleared = _plate_model(lab, lab8, clear_token_rings=True)
    return CanonicalView(bgr=bgr, lab=lab, background=background, residual=residual, delta_e=delta_e,
                         radius_px=_radius_grid(CANVAS_PX), to_canonical=to_canon,
                         plate_radius_px=float(PLATE_RADIUS_PX), rings_cleared=cleared)


def rings_as_measured(view: CanonicalView) -> CanonicalView:
    """``view`` with its plate model from the ring medians as measured: no
    ring measured again without the tokens that cover it in part
    (:func:`_levels_clear_of_tokens`); rings that tokens fill still take their
    plate pixels' level.  For a view that may show the bowl: a dome's own
    highlights and shading patches are token-sized and compact too, and its
    rings are no plate's.

    Parameters
    ----------
    view : CanonicalView
        From :func:`make_canonical_view`.

    Returns
    -------
    CanonicalView
        ``view`` itself when no ring was measured again (``rings_cleared``
        False, the usual case); else a new view, ``background``, ``residual``
        and ``delta_e`` replaced, everything else the same arrays.
    """
    if not isinstance(view, CanonicalView):
        raise TypeError(f"view: expected CanonicalView, got {type(view).__name__}")
    if not view.rings_cleared:
        return view
    (background, residual, delta_e), _ = _plate_model(view.lab, cv2.cvtColor(view.bgr, cv2.COLOR_BGR2Lab),
                                                      clear_token_rings=False)
    return replace(view, background=background, residual=residual, delta_e=delta_e, rings_cleared=False)


def _plate_model(lab: np.ndarray, lab8: np.ndarray, clear_token_rings: bool
                 ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], bool]:
    """The plate model of a canvas: background, residual and its norm
    (:func:`_model_from_profile`), from its Lab values ``lab`` (float32,
    ``lab_from_codes(lab8)``) and 8-bit codes ``lab8`` (S, S, 3); and whether
    a ring was measured again without its tokens (only with
    ``clear_token_rings``)."""
    geo = _canvas_geometry(CANVAS_PX)
    # = radial_median_profile(lab, radius, geo.inside, RING_BIN_PX, geo.n_bins), from the codes
    hist = ring_code_histogram(lab8[geo.box], geo.ring_keys, geo.n_bins)
    profile = radial_median_profile_from_histogram(hist)
    # The innermost rings are small enough for one token to fill them: pool
    # the central disc into one median, where a token stays a minority.
    # = np.median(lab[geo.centre], axis=0), from the codes: the centre's code
    # histogram is its whole rings' (counted above) plus that of its other
    # pixels (a thin arc of the next ring), the same counts as of its pixels
    pooled = hist[:geo.pool_rings].sum(axis=0) + _code_histogram(lab8.reshape(-1, 3)[geo.pool_rest_flat])
    profile[:geo.n_pool] = _median_from_histogram(pooled, geo.centre_flat.size)
    # Rings that tokens cover in part are measured without them (their
    # median leans toward the tokens' colour); then a ring that tokens fill
    # more than half of (its median a token's) takes its plate pixels' median.
    # (the model of the rings as measured is needed first only to find the tokens' pixels)
    model = _model_from_profile(lab, profile, geo) if clear_token_rings else None
    cleared = None if model is None else _levels_clear_of_tokens(lab, lab8, profile, model[2], geo)
    levels = _levels_where_tokens_dominate(lab, profile if cleared is None else cleared, geo)
    if levels is None:
        levels = cleared
    if levels is None:
        return (model if model is not None else _model_from_profile(lab, profile, geo)), False
    return _model_from_profile(lab, levels, geo), cleared is not None


def _levels_clear_of_tokens(lab: np.ndarray, lab8: np.ndarray, profile: np.ndarray, delta_e: np.ndarray,
                            geo: _CanvasGeometry) -> np.ndarray | None:
    """The ring profile with the rings that tokens cover in part measured
    without them; None when no ring is.

    A ring's median is the plate's while tokens are a small part of the ring.
    When they cover more (``BACKGROUND_MAX_TOKEN_SHARE``), the median leans
    toward their colour and the bare plate in that ring differs from the
    model: arcs of residual join the tokens, and the token search finds
    faces there.  Token pixels are told from the plate's own shading by
    their shape: regions more than ``BACKGROUND_MAX_DELTA_E`` from the ring
    model, no larger than ``BACKGROUND_TOKEN_REGION_MAX_AREAS`` of the
    largest token and compact (``BACKGROUND_TOKEN_MIN_SOLIDITY``), grown by
    ``BACKGROUND_TOKEN_MARGIN_PX``.  A tracked ring (inside
    ``BACKGROUND_TRACK_MAX_FRAC``; the pooled centre too) with that share on
    tokens takes the median of its other pixels when at least
    ``BACKGROUND_MIN_PLATE_SHARE`` of it is left, the median moves by at
    least ``BACKGROUND_MIN_CORRECTION_LAB`` and the pixels left agree on it
    (``BACKGROUND_MIN_PLATE_FIT``).  A ring tokens fill is left to
    :func:`_levels_where_tokens_dominate`.

    Parameters
    ----------
    lab : ndarray, float32, (S, S, 3), Lab units
        The canvas in Lab (``lab_from_codes(lab8)``).
    lab8 : ndarray, uint8, (S, S, 3)
        The canvas's 8-bit Lab codes (``cv2.COLOR_BGR2Lab``).
    profile : ndarray, float32, (n_bins, 3), Lab units
        Per-ring medians (the pooled centre's in its rings).
    delta_e : ndarray, float32, (S, S), Lab units
        Each pixel's distance from its ring's level in ``profile``.
    geo : _CanvasGeometry

    Returns
    -------
    ndarray, float32, (n_bins, 3), or None
        A new profile; None when no ring changes (the usual case).
    """
    n_track = min(int(BACKGROUND_TRACK_MAX_FRAC * PLATE_RADIUS_PX / RING_BIN_PX), geo.n_bins)
    far = (delta_e > BACKGROUND_MAX_DELTA_E).view(np.uint8)
    margin = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * BACKGROUND_TOKEN_MARGIN_PX + 1,) * 2)
    sizes = np.array([p.size for p in geo.ring_pixels[:n_track]])

    def busy(mask: np.ndarray) -> tuple[list[int], bool]:
        """The tracked rings, and whether the pooled centre, have the share of
        their pixels in ``mask`` (flat bool, the canvas) that makes them busy.
        (Pixels past the model radius fall in the last ring, never tracked.)"""
        counts = np.bincount(geo.ring_flat[mask], minlength=geo.n_bins)[:n_track]
        rings = [i for i in range(geo.n_pool, n_track)
                 if sizes[i] and counts[i] / sizes[i] >= BACKGROUND_MAX_TOKEN_SHARE]
        return rings, bool(mask[geo.centre_flat].mean() >= BACKGROUND_MAX_TOKEN_SHARE)

    # token pixels are far ones, grown: no ring with that share of those, nothing to do
    rings, centre = busy(cv2.dilate(far, margin).ravel().view(bool))
    if not rings and not centre:
        return None
    # opened first: the thin arcs a leaning ring leaves between tokens do not
    # join them (on the plate's box: no pixel outside the plate is far)
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * BACKGROUND_TOKEN_OPEN_PX + 1,) * 2)
    # (16-bit labels when they fit: the same labels and statistics, about
    # three times faster on the plate's box)
    _, labels, stats, _ = _components_with_stats(cv2.morphologyEx(far[geo.box], cv2.MORPH_OPEN, opening))
    max_area = BACKGROUND_TOKEN_REGION_MAX_AREAS * math.pi * (BACKGROUND_TOKEN_MAX_RADIUS_FRAC * PLATE_RADIUS_PX) ** 2
    is_token = stats[:, cv2.CC_STAT_AREA] <= max_area
    is_token[0] = False  # the pixels near their ring's level
    for k in np.flatnonzero(is_token):
        x, y, w, h, area = (int(v) for v in stats[k])
        region = (labels[y:y + h, x:x + w] == k).view(np.uint8)
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull_area = cv2.contourArea(cv2.convexHull(np.concatenate(contours)))
        is_token[k] = hull_area > 0 and area >= BACKGROUND_TOKEN_MIN_SOLIDITY * hull_area
    if not is_token.any():
        return None
    on_tokens = np.zeros(far.shape, np.uint8)
    on_tokens[geo.box] = is_token.view(np.uint8)[labels]
    on_tokens = cv2.dilate(on_tokens, margin).ravel().view(bool)
    rings, centre = busy(on_tokens)
    units = [(i, geo.ring_pixels[i]) for i in rings] + ([(None, geo.centre_flat)] if centre else [])
    codes, values = lab8.reshape(-1, 3), lab.reshape(-1, 3)
    out = None
    for ring, pixels in units:
        rest = pixels[~on_tokens[pixels]]
        if rest.size < BACKGROUND_MIN_PLATE_SHARE * pixels.size:
            continue
        level = _median_from_codes(codes[rest])
        if float(np.linalg.norm(level - profile[0 if ring is None else ring])) < BACKGROUND_MIN_CORRECTION_LAB:
            continue
        agree = np.linalg.norm(values[rest] - level, axis=1) <= BACKGROUND_MAX_DELTA_E
        if agree.mean() < BACKGROUND_MIN_PLATE_FIT:
            continue
        if out is None:
            out = profile.copy()
        if ring is None:
            out[:geo.n_pool] = level
        else:
            out[ring] = level
    return out


def _levels_where_tokens_dominate(lab: np.ndarray, profile: np.ndarray, geo: _CanvasGeometry
                                  ) -> np.ndarray | None:
    """The ring profile (n_bins, 3) with the level of every ring that tokens
    fill replaced by its plate pixels' median; None when no ring is replaced.

    Four tokens side by side near the centre can cover more than half a
    ring: its median is then a token's colour, and the bare plate in that
    ring differs from the model like a ring of the opposite colour.  The
    plate's level changes little from one ring to the next, so the rings are
    walked from ``BACKGROUND_TRACK_MAX_FRAC`` of the plate radius inwards
    (the pooled centre last), carrying the level of the ring outside.  A ring
    whose median differs from that level by more than
    ``BACKGROUND_MAX_DELTA_E`` (Lab units) while at least
    ``BACKGROUND_MIN_PLATE_SHARE`` of its pixels lie within it of the level
    is part plate, part tokens: it takes the median of those plate pixels.
    A ring with fewer such pixels is a ring of its own colour (a glaze line,
    a bowl's edge) and keeps its median; the level carried past it stays.
    """
    n_track = min(int(BACKGROUND_TRACK_MAX_FRAC * PLATE_RADIUS_PX / RING_BIN_PX), geo.n_bins)
    if n_track <= geo.n_pool:
        return None
    steps = np.linalg.norm(np.diff(profile[geo.n_pool - 1:n_track], axis=0), axis=1)
    if not (steps > BACKGROUND_MAX_DELTA_E).any():
        return None  # no ring's median jumps (the usual case): the walk would replace nothing
    flat = lab.reshape(-1, 3)
    out = profile.copy()
    level = profile[n_track - 1]
    replaced = False
    units = [(i, geo.ring_pixels[i]) for i in range(n_track - 1, geo.n_pool - 1, -1)]
    units.append((None, geo.centre_flat))
    for ring, pixels in units:
        own = profile[ring if ring is not None else 0]
        if float(np.linalg.norm(own - level)) <= BACKGROUND_MAX_DELTA_E:
            level = own
            continue
        px = flat[pixels]
        near = np.linalg.norm(px - level, axis=1) <= BACKGROUND_MAX_DELTA_E
        if near.mean() < BACKGROUND_MIN_PLATE_SHARE:
            continue
        level = np.median(px[near], axis=0).astype(np.float32)
        if ring is None:
            out[:geo.n_pool] = level
        else:
            out[ring] = level
        replaced = True
    return out if replaced else None


def _model_from_profile(lab: np.ndarray, profile: np.ndarray, geo: _CanvasGeometry
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Background (every pixel its ring's level), residual and its norm, for
    a ring profile (n_bins, 3) of Lab levels: each (S, S, 3) / (S, S) float32,
    0 outside the model radius."""
    # = np.take(profile, geo.ring_flat, axis=0): every pixel's ring's level, by table look-up
    lut = np.zeros((1, 256, 3), np.float32)
    lut[0, :geo.n_bins] = profile
    background = cv2.LUT(geo.ring_codes3, lut)
    # Both are 0 outside ``inside``: computed on its bounding box only.  The
    # masked float32 subtraction by OpenCV (the same IEEE differences as
    # ``np.subtract(..., where=inside)``, the rest left at 0.0).
    residual = np.zeros_like(lab)
    cv2.subtract(lab[geo.box], background[geo.box], dst=residual[geo.box], mask=geo.inside_box)
    # sqrt(r0 * r0 + r1 * r1 + r2 * r2), summed in that order, on contiguous
    # copies of the channels (in place: the same float32 operations)
    r0, r1, r2 = cv2.split(residual[geo.box])
    r0 *= r0
    r0 += np.multiply(r1, r1, out=r1)
    r0 += np.multiply(r2, r2, out=r2)
    delta_e = np.zeros(lab.shape[:2], np.float32)
    np.sqrt(r0, out=delta_e[geo.box])
    return background, residual, delta_e
