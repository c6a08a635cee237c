"""Stage 1: find the plate and rectify it to a canonical top-down view.

The plate is found as the large, elliptical region that does not look like
the cloth.  The cloth's colour is learnt from the frame border: a quadratic
surface per CIE Lab channel (to follow the lighting gradient) plus a robust
spread, so a pixel's deviation from the cloth is measured in units of the
cloth's own texture noise.  Nothing here depends on the plate's glaze or the
cloth's colour, only on the two being different.

Colour space: frames are BGR uint8; Lab is OpenCV's 8-bit Lab (L, a, b in
0..255, a and b offset by 128).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import shrink
from .shrink import area_shrink, halvings_within
from .types import Ellipse

#: Height, pixels, of the downscaled frame the plate is searched in: its
#: shorter side (a portrait frame's width) with PLATE_WORK_ON_SHORT_SIDE.
PLATE_WORK_HEIGHT_PX = 320
#: Scale the frame so that its shorter side is PLATE_WORK_HEIGHT_PX (True), or
#: its height as until the thirty-first round (False; the same for a landscape
#: frame).  A 720x1280 portrait frame was searched at 180x320, a plate 30 % of
#: its width 54 working pixels across, where the opening that strips what
#: touches the plate rounds a card's corners into an ellipse's (a card on the
#: cloth filled 0.87 of its ellipse at 180x320, 0.81 at 569x320).
PLATE_WORK_ON_SHORT_SIDE = True
#: The frame's last shrink to the working size is by at least this factor
#: (exact halvings do the rest): a frame is halved while the halved frame
#: stays at least this factor times the working size in both width and
#: height (:func:`vision.shrink.area_shrink`), so 1920x1080 is halved once and
#: 3840x2160 twice, then shrunk from 540 rows; 1280x720 is shrunk in one step.
#: OpenCV's general area shrink of 1080 rows to 320 took 7.9 ms on one core
#: this round (7.7-9.7 over the rounds), a halving 0.5 and the shrink from 540
#: rows 2.9.  The plate fit moves by about 0.2 px, and readings move with it
#: both ways: at 2.0 against 1.5, 6,200 fresh 1920x1080 and 3840x2160 scenes
#: read 6 more right at 1.5 (thirteenth round, 3,000: -6; sixteenth, 3,200:
#: +12), 0 wrong outcomes on either side.
WORK_LAST_SHRINK_MIN = 1.5
#: Gaussian blur applied to the downscaled frame, pixels (sigma).
PLATE_BLUR_SIGMA_PX = 2.0
#: Width of the frame border used to learn the cloth, fraction of the short side.
CLOTH_BORDER_FRAC = 0.04
#: Smallest robust spread per Lab channel (L, a, b), 8-bit Lab units; keeps a
#: perfectly flat cloth from making every pixel an outlier.
CLOTH_MIN_SPREAD_LAB = (3.0, 1.5, 1.5)
#: A pixel is "not cloth" beyond this many cloth spreads.
CLOTH_DEVIATION_UNITS = 8.0
#: A shadow on the cloth changes its chroma by less than this (cloth spreads).
SHADOW_MAX_CHROMA_UNITS = 4.0
#: The plate's minor axis must span at least this fraction of the frame's
#: shorter side (the design range is 30-80 % of it, tilt shortens one axis).
PLATE_MIN_MINOR_FRAC = 0.18
#: Measure PLATE_MIN_MINOR_FRAC against the shorter side (True), or against
#: the frame height as until the thirty-first round (False; the same for a
#: landscape frame).  In a portrait frame the height is the longer side: a
#: plate 30 % of a 720x1280 frame's width, seen at 35 deg, spans 13 % of its
#: height and was refused as too small (24 of 300 fresh four-flat scenes at
#: 720x1280, 2094400-2094699, read `no_plate` so).
PLATE_MIN_MINOR_OF_SHORT_SIDE = True
#: The plate outline may not be flatter than this (b / a); 40 deg of camera
#: tilt gives 0.77, perspective a little less.
PLATE_MIN_AXIS_RATIO = 0.55
#: Fraction of the fitted ellipse the region must fill.
PLATE_MIN_FILL = 0.85
#: Opening radius, fraction of the region's equivalent radius, that strips
#: tokens, sticks and hands attached to the plate's outline before the fit.
PLATE_OPEN_FRAC = 0.12


#: :func:`fast_median` selects on a band this many sample ranks either side of the
#: sample's middle (the sample holds about ``MEDIAN_SAMPLE_SIZE`` values) ...
MEDIAN_BAND_HALF_RANKS = 24
MEDIAN_SAMPLE_SIZE = 512
#: A narrower band, this many sample ranks either side, is tried first (its
#: partition a third of the wide one's); kept only when it holds the middle and
#: not the value 0 (then every value in it has one bit pattern per value, so
#: the middle order statistics are the same bits as from the wide band), else
#: the wide band as before.  On the bench frames at 1920x1080 (1,671 arrays,
#: 4,600-42,000 values) it held the middle of most, and the medians took
#: 1.55 ms a frame against 1.75-1.95 (CPU time, a loaded machine).
MEDIAN_NARROW_HALF_RANKS = 8
#: ... for arrays of at least this many values (smaller ones: ``np.median``).
MEDIAN_MIN_SIZE = 4096


def fast_median(values: np.ndarray) -> np.floating:
    """``np.median(values)`` of a 1-D float array, bit for bit, by selection on a band.

    A sorted sample of every ``n // MEDIAN_SAMPLE_SIZE``-th value gives a band
    ``[lo, hi]`` around the middle; the values below it are counted, and the
    middle order statistic(s) are selected (``np.partition``) among the few
    values inside it.  When the band misses the middle (or any value is NaN,
    or the array is small) it is ``np.median`` itself.  The result is the
    same element(s) combined the same way: the middle value for an odd count;
    for an even count the two middle values' float sum divided by the intp 2
    (``np.mean``'s arithmetic).  A band of one non-zero value (``lo == hi``:
    8-bit colours, many ties) holds only copies of ``lo``'s bits, so the middle
    value(s) are ``lo`` without a selection (a zero band may mix 0.0 and -0.0:
    selected as above).  A narrow band (``MEDIAN_NARROW_HALF_RANKS``) is tried
    first and used when it holds the middle and not 0: the middle values are
    then the wide band's, whose values differ in bits only where they differ
    in value (no zero, no NaN in it).

    Parameters
    ----------
    values : ndarray, float32 or float64, (N,)

    Returns
    -------
    numpy float scalar of ``values.dtype``
    """
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind != "f":
        raise TypeError(f"values: expected a 1-D float ndarray, got {type(values).__name__} "
                        f"{getattr(values, 'dtype', '')} {getattr(values, 'shape', '')}")
    n = values.size
    if n < MEDIAN_MIN_SIZE:
        return np.median(values)
    sample = np.sort(values[::n // MEDIAN_SAMPLE_SIZE])
    mid = sample.size // 2
    ranks = (n // 2 - 1, n // 2) if n % 2 == 0 else (n // 2,)
    for half_ranks in (MEDIAN_NARROW_HALF_RANKS, MEDIAN_BAND_HALF_RANKS):
        lo = sample[max(0, mid - half_ranks)]
        hi = sample[min(sample.size - 1, mid + half_ranks)]
        wide = half_ranks == MEDIAN_BAND_HALF_RANKS
        if not wide and not (lo > 0 or hi < 0):
            continue  # a narrow band that may hold 0.0 and -0.0: the wide band, as before
        # Two comparisons: ``below`` and ``above`` count the complements (a NaN
        # is in both, so with any NaN the three counts add up to more than n)
        in_band = values >= lo
        below = n - int(np.count_nonzero(in_band))  # values < lo, and NaN
        not_above = values <= hi
        above = n - int(np.count_nonzero(not_above))  # values > hi, and NaN
        in_band &= not_above
        band_size = int(np.count_nonzero(in_band))
        # every value is below, in or above the band (no NaN), and the band holds the middle
        if below + band_size + above == n and all(below <= r < below + band_size for r in ranks):
            break
        if wide or below + band_size + above != n:  # (with a NaN every band fails)
            return np.median(values)
    if lo == hi and lo != 0:
        middle = np.full(len(ranks), lo, dtype=values.dtype)
    else:
        local = [r - below for r in ranks]
        # the band's values in order (``np.compress``: the elements of
        # ``values[in_band]``, about a fifth faster on a band scattered through
        # the array), partitioned in place (``np.partition`` partitions a copy)
        middle = np.compress(in_band, values)
        middle.partition(local)
        middle = middle[local]
    if middle.size == 1:
        return middle[0]
    return values.dtype.type(middle.sum() / np.intp(2))


@dataclass(frozen=True, eq=False)
class PlateFit:
    """Result of :func:`find_plate`.

    Attributes
    ----------
    ellipse : Ellipse or None
        The plate's outer rim in source pixels; None when no plate was found.
    fill : float
        Fraction of the ellipse covered by the region (0 when not found).
    contrast : float
        Median deviation from the cloth inside the plate, in cloth spreads.
    reason : str
        Why no plate was accepted, or a short description of the fit.
    cloth_deviation, cloth_lightness : ndarray, float32, (h, w)
        The deviation-from-cloth maps of the downscaled frame (see
        :func:`cloth_deviation`), for looking at things off the plate.
    work_scale : float
        Downscaled pixels per source pixel.
    frame_size : (int, int)
        The source frame's (width, height), pixels.
    not_cloth : ndarray, uint8, (h, w), or None
        ``not_cloth_mask(cloth_deviation, cloth_lightness)`` as the search
        computed it (read-only), for looking off the plate without computing
        it again; None: not kept (it must be computed from the two maps; a
        copy of the fit with other maps must set it to None).
    halved : ndarray, uint8, (H // 2, W // 2, 3), BGR, or None
        The source frame halved once (``vision.shrink.halve(frame, 1)``,
        read-only) when the search shrank it by exact halvings, for
        :func:`vision.canonical.make_canonical_view` to cut its region from
        instead of halving the frame's pixels again; None otherwise.
    """

    ellipse: Ellipse | None
    fill: float
    contrast: float
    reason: str
    cloth_deviation: np.ndarray = field(repr=False)
    cloth_lightness: np.ndarray = field(repr=False)
    work_scale: float
    frame_size: tuple[int, int]
    not_cloth: np.ndarray | None = field(default=None, repr=False)
    halved: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.fill <= 1.0 + 1e-6:
            raise ValueError(f"fill: expected [0, 1], got {self.fill}")
        size = self.frame_size
        if not (isinstance(size, tuple) and len(size) == 2
                and all(isinstance(v, numbers.Integral) and v > 0 for v in size)):
            raise ValueError(f"frame_size: expected (width, height) as ints > 0, got {size!r}")

    @property
    def found(self) -> bool:
        return self.ellipse is not None


@dataclass(frozen=True, eq=False)
class _BorderGeometry:
    """Per-size constants of the cloth model (read-only arrays)."""

    flat: np.ndarray     # intp (N,): flat indices of the border band, row-major
    band: int            # the band's width, pixels (each side)
    design: np.ndarray   # float64 (N, 6): 1, x, y, x^2, xy, y^2 at the border pixels
    normal: np.ndarray   # float64 (6, 6): design.T @ design
    xs: np.ndarray       # float32 (W,): x / W
    ys: np.ndarray       # float32 (H,): y / H
    xy: np.ndarray       # float32 (H, W): outer(ys, xs)


_BORDER_CACHE: dict[tuple[int, int], _BorderGeometry] = {}


#: 1.4826 times a median absolute deviation estimates a normal
#: distribution's standard deviation (the robust noise used throughout).
MAD_TO_SIGMA = 1.4826


def median_and_noise(values: np.ndarray) -> tuple[np.floating, float]:
    """The median of ``values`` and their robust noise about it.

    Parameters
    ----------
    values : ndarray, float, (N,)
        1-D, as for :func:`fast_median`.

    Returns
    -------
    median : numpy float scalar
        ``np.median(values)`` (by :func:`fast_median`, the same bits), in
        ``values``' dtype.
    noise : float
        ``MAD_TO_SIGMA`` times the median of ``|values - median|``.
    """
    median = fast_median(values)
    return median, MAD_TO_SIGMA * float(fast_median(np.abs(values - median)))


def _border_geometry(h: int, w: int) -> _BorderGeometry:
    geo = _BORDER_CACHE.get((h, w))
    if geo is None:
        band = max(3, int(round(CLOTH_BORDER_FRAC * min(h, w))))
        border = np.zeros((h, w), dtype=bool)
        border[:band] = border[-band:] = True
        border[:, :band] = border[:, -band:] = True
        xs = np.arange(w, dtype=np.float32) / np.float32(w)
        ys = np.arange(h, dtype=np.float32) / np.float32(h)
        by, bx = np.nonzero(border)
        xb, yb = xs[bx], ys[by]
        design = np.stack([np.ones_like(xb), xb, yb, xb * xb, xb * yb, yb * yb], axis=-1).astype(np.float64)
        geo = _BorderGeometry(flat=(by * w + bx).astype(np.intp), band=band, design=design, normal=design.T @ design,
                              xs=xs, ys=ys, xy=np.outer(ys, xs))
        for arr in (geo.flat, geo.design, geo.normal, geo.xs, geo.ys, geo.xy):
            arr.setflags(write=False)
        if len(_BORDER_CACHE) > 16:
            _BORDER_CACHE.clear()
        _BORDER_CACHE[(h, w)] = geo
    return geo


def _border_pixels(image: np.ndarray, geo: _BorderGeometry) -> np.ndarray:
    """The border band's pixels of ``image`` (H, W[, C]), row-major: the same
    values in the same order as ``image.reshape(H * W, -1)[geo.flat]``
    (squeezed for a 2-D image), from four slices instead of a gather.

    Row by row: a top (or bottom) band row whole, a middle row's left band
    then its right band.  A frame too small for four separate bands takes
    the gather.
    """
    h, w = image.shape[:2]
    b = geo.band
    if h <= 2 * b or w <= 2 * b:
        return image.reshape((h * w,) + image.shape[2:])[geo.flat]
    middle = np.concatenate([image[b:h - b, :b], image[b:h - b, w - b:]], axis=1)
    tail = image.shape[2:]
    return np.concatenate([image[:b].reshape((-1,) + tail), middle.reshape((-1,) + tail),
                           image[h - b:].reshape((-1,) + tail)])


def cloth_deviation(small_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel deviation from the cloth learnt on the frame border.

    Parameters
    ----------
    small_bgr : ndarray, uint8, (H, W, 3), BGR
        A (downscaled, blurred) frame.

    Returns
    -------
    deviation : ndarray, float32, (H, W)
        Euclidean distance in Lab from the cloth surface, each channel in units
        of the cloth's robust spread (1.4826 x MAD).
    lightness : ndarray, float32, (H, W)
        The signed L part of it (negative: darker than the cloth, a shadow).
    """
    if small_bgr.dtype != np.uint8 or small_bgr.ndim != 3 or small_bgr.shape[2] != 3:
        raise ValueError(f"small_bgr: expected uint8 (H, W, 3), got {small_bgr.dtype} {small_bgr.shape}")
    h, w = small_bgr.shape[:2]
    geo = _border_geometry(h, w)
    lab8 = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2Lab)
    # Least squares on the border pixels by the normal equations (float64,
    # 6 x 6), then the quadratic surface evaluated separably: no (H, W, 6)
    # design matrix over the whole frame.  Each Lab channel is then handled
    # as its own contiguous plane.
    border_lab = _border_pixels(lab8, geo).astype(np.float64)  # = lab8.reshape(-1, 3)[geo.flat]
    coefs = np.linalg.solve(geo.normal, geo.design.T @ border_lab).astype(np.float32)  # (6, 3)
    xs, ys, xy = geo.xs, geo.ys, geo.xy
    units = []
    scratch = np.empty((h, w), np.float32)
    for c, plane in enumerate(cv2.split(lab8)):
        c0, c1, c2, c3, c4, c5 = coefs[:, c]
        row = c0 + c1 * xs + c3 * (xs * xs)
        col = c2 * ys + c5 * (ys * ys)
        # surface = (row + col) + c4 * xy, then residual = plane - surface:
        # the same float32 operations in the same order, in one buffer (the
        # 8-bit plane converted exactly by the subtraction itself)
        residual = np.add(row[None, :], col[:, None])
        residual += np.multiply(c4, xy, out=scratch)
        np.subtract(plane, residual, out=residual)
        # = fast_median(np.abs(residual.ravel()[geo.flat]))
        spread = np.float32(MAD_TO_SIGMA) * fast_median(np.abs(_border_pixels(residual, geo)))
        spread = max(spread, np.float32(CLOTH_MIN_SPREAD_LAB[c]))
        residual /= spread
        units.append(residual)
    u0, u1, u2 = units
    # sqrt((u0 u0 + u1 u1) + u2 u2) in float32, in place (u1 and u2 are not returned)
    deviation = np.multiply(u0, u0)
    deviation += np.multiply(u1, u1, out=u1)
    deviation += np.multiply(u2, u2, out=u2)
    return np.sqrt(deviation, out=deviation), u0


def _smallest_square_above(limit: float) -> np.float32:
    """The smallest float32 ``x`` with ``np.sqrt(x) > limit`` in float32.

    ``np.sqrt`` is correctly rounded, hence non-decreasing, so for float32
    ``x``: ``np.sqrt(x) > limit`` exactly when ``x >= _smallest_square_above(limit)``.
    """
    if not (math.isfinite(limit) and limit >= 0):
        raise ValueError(f"limit: expected a finite value >= 0, got {limit}")
    lim = np.float32(limit)
    x = np.float32(max(0.0, float(lim) * float(lim) * (1 - 1e-6)))
    while not np.sqrt(x) > lim:
        x = np.nextafter(x, np.float32(np.inf))
    return x


#: ``sqrt(max(v, 0)) > SHADOW_MAX_CHROMA_UNITS`` in float32 exactly when ``v >=`` this.
_SHADOW_MIN_CHROMA_SQ = _smallest_square_above(SHADOW_MAX_CHROMA_UNITS)


def cloth_chroma(deviation: np.ndarray, lightness: np.ndarray) -> np.ndarray:
    """The colour part of a deviation from the cloth: ``sqrt(max(d^2 - l^2, 0))``.

    Parameters
    ----------
    deviation, lightness : ndarray, float, (...)
        From :func:`cloth_deviation` (the whole deviation and its lightness
        part), cloth spreads; the result is computed in their dtype.

    Returns
    -------
    ndarray, (...)
        Cloth spreads: what a shadow, darker but of the cloth's chromaticity,
        keeps near 0 (``SHADOW_MAX_CHROMA_UNITS``).
    """
    return np.sqrt(np.maximum(deviation * deviation - lightness * lightness, 0.0))


def not_cloth_mask(deviation: np.ndarray, lightness: np.ndarray) -> np.ndarray:
    """Pixels that are neither cloth nor a shadow cast on the cloth.

    A shadow is darker than the cloth but keeps its chromaticity, so a pixel
    counts only when it is brighter than the cloth or its colour (not just its
    lightness) differs.

    Parameters
    ----------
    deviation, lightness : ndarray, float32, (H, W)
        From :func:`cloth_deviation`, cloth spreads.

    Returns
    -------
    ndarray, uint8, (H, W), values 0 or 1
    """
    if deviation.dtype != np.float32 or lightness.dtype != np.float32:
        # the squared chroma threshold below holds for float32 arithmetic
        chroma = cloth_chroma(deviation, lightness)
        return ((deviation > CLOTH_DEVIATION_UNITS)
                & ((lightness > 0) | (chroma > SHADOW_MAX_CHROMA_UNITS))).astype(np.uint8)
    # chroma = sqrt(max(d^2 - l^2, 0)) > SHADOW_MAX_CHROMA_UNITS, without the
    # sqrt: the same float32 d^2 - l^2 compared with the smallest float32
    # square above the limit (NaN compares False either way)
    chroma_sq = np.multiply(deviation, deviation)
    chroma_sq -= np.multiply(lightness, lightness)
    mask = chroma_sq >= _SHADOW_MIN_CHROMA_SQ
    mask |= lightness > 0
    mask &= deviation > CLOTH_DEVIATION_UNITS
    return mask.view(np.uint8)


#: :func:`_ellipse_rects` by kernel size.
_ELLIPSE_RECTS: dict[int, tuple[tuple[int, int], ...] | None] = {}


def _ellipse_rects(k: int) -> tuple[tuple[int, int], ...] | None:
    """``cv2.MORPH_ELLIPSE`` of size ``k`` x ``k`` as a union of centred rectangles.

    Parameters
    ----------
    k : int
        Kernel size, pixels (odd, >= 1).

    Returns
    -------
    tuple of (half_width, half_height), pixels, or None
        One rectangle per distinct row width (the tallest band of rows at
        least that wide); None if their union were not exactly the element
        (then the element is used as it is).
    """
    got = _ELLIPSE_RECTS.get(k, False)
    if got is False:
        element = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        c = k // 2
        half_widths = [int(np.flatnonzero(row).max()) - c if row.any() else -1 for row in element]
        rects = []
        for hw in sorted({w for w in half_widths if w >= 0}):
            hh = max(abs(dy - c) for dy, w in enumerate(half_widths) if w >= hw)
            rects.append((hw, hh))
        union = np.zeros_like(element)
        for hw, hh in rects:
            union[c - hh:c + hh + 1, c - hw:c + hw + 1] = 1
        got = tuple(rects) if np.array_equal(union, element) else None
        _ELLIPSE_RECTS[k] = got
    return got


def _open_ellipse(mask: np.ndarray, k: int) -> np.ndarray:
    """``cv2.morphologyEx(mask, cv2.MORPH_OPEN, <MORPH_ELLIPSE k x k>)`` of a 0/1 mask, bit for bit.

    For a flat structuring element that is a union of sets, erosion is the
    minimum of the erosions by each set and dilation the maximum of the
    dilations; the ellipse is a union of a few centred rectangles (see
    :func:`_ellipse_rects`), whose erosions and dilations OpenCV does
    separably.  Pixels beyond the image never count, in both (OpenCV's
    default morphology border).

    Parameters
    ----------
    mask : ndarray, uint8, (H, W)
    k : int
        Kernel size, pixels (odd, >= 1).

    Returns
    -------
    ndarray, uint8, (H, W)
    """
    rects = _ellipse_rects(k)
    if rects is None or len(rects) < 2:
        return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    kernels = [cv2.getStructuringElement(cv2.MORPH_RECT, (2 * hw + 1, 2 * hh + 1)) for hw, hh in rects]
    eroded = cv2.erode(mask, kernels[0])
    for kernel in kernels[1:]:
        cv2.bitwise_and(eroded, cv2.erode(mask, kernel), dst=eroded)
    opened = cv2.dilate(eroded, kernels[0])
    for kernel in kernels[1:]:
        cv2.bitwise_or(opened, cv2.dilate(eroded, kernel), dst=opened)
    return opened


#: Labels a 16-bit label image can hold (0 .. 65535).
_U16_LABELS = 1 << 16


def _components_with_stats(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)``, with 16-bit labels when they fit.

    OpenCV's labelling keeps its provisional labels in the label image's type,
    at most ``((h + 1) // 2) * ((w + 1) // 2) + 1`` of them for 8-connectivity
    (one per 2 x 2 block); when that bound fits in 16 bits the same algorithm
    runs on ``CV_16U`` labels (about twice as fast: half the memory written)
    and gives the same labels, stats and centroids.

    Parameters
    ----------
    mask : ndarray, uint8, (H, W)

    Returns
    -------
    n, labels, stats, centroids
        As ``cv2.connectedComponentsWithStats``; ``labels`` is uint16 or int32.
    """
    h, w = mask.shape[:2]
    if ((h + 1) // 2) * ((w + 1) // 2) + 1 < _U16_LABELS:
        return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U)
    return cv2.connectedComponentsWithStats(mask, connectivity=8)


#: A float32 histogram counts exactly up to this many pixels (its integer part).
_F32_EXACT_COUNT = 1 << 24


def _components_with_areas(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The count, labels and areas of :func:`_components_with_stats`, without its other statistics.

    OpenCV labels with the same algorithm whether or not it gathers
    statistics (they only watch the scan), so ``cv2.connectedComponents``
    gives the same labels; its statistics (every pixel's box and centroid
    sums, the background's too) cost about four times the labelling.  The
    areas are then counted: with one component, the mask's non-zero pixels
    (the rest is the background); with more, a histogram of the labels
    (``cv2.calcHist`` on unit bins: whole counts, exact in float32 below
    2**24 pixels).  Labels that do not fit in 16 bits (or a frame too large
    for exact float32 counts) take the statistics as before.

    Parameters
    ----------
    mask : ndarray, uint8, (H, W)

    Returns
    -------
    n : int
        Labels, the background's included.
    labels : ndarray, uint16 or int32, (H, W)
        As :func:`_components_with_stats`.
    areas : ndarray, int32, (n,)
        ``stats[:, cv2.CC_STAT_AREA]`` of :func:`_components_with_stats`.
    """
    h, w = mask.shape[:2]
    if ((h + 1) // 2) * ((w + 1) // 2) + 1 >= _U16_LABELS or mask.size >= _F32_EXACT_COUNT:
        n, labels, stats, _ = _components_with_stats(mask)
        return n, labels, stats[:, cv2.CC_STAT_AREA].copy()
    n, labels = cv2.connectedComponents(mask, connectivity=8, ltype=cv2.CV_16U)
    if n <= 2:
        inside = cv2.countNonZero(mask)
        return n, labels, np.array([mask.size - inside, inside][:n], np.int32)
    counts = cv2.calcHist([labels], [0], None, [n], [0, n])
    return n, labels, counts.reshape(n).astype(np.int32)


def _component_box(mask: np.ndarray, labels: np.ndarray, n: int, i: int) -> tuple[int, int, int, int]:
    """``stats[i]``'s left, top, width and height of :func:`_components_with_stats`, pixels.

    The bounding rectangle of the component's pixels (with one component,
    of the mask's non-zero pixels).

    Parameters
    ----------
    mask : ndarray, uint8, (H, W)
    labels : ndarray, uint16 or int32, (H, W)
        Its labels (:func:`_components_with_areas`).
    n : int
        Labels, the background's included.
    i : int
        The component, 1 .. n - 1.
    """
    if not 1 <= i < n:
        raise ValueError(f"i: expected a component 1 .. {n - 1}, got {i}")
    pixels = mask if n == 2 else cv2.compare(labels, i, cv2.CMP_EQ)
    x, y, bw, bh = cv2.boundingRect(pixels)
    return int(x), int(y), int(bw), int(bh)


def _component_centroid(labels: np.ndarray, i: int, area: int) -> tuple[float, float]:
    """``centroids[i]`` of :func:`_components_with_stats`: the mean column and row of a component's pixels.

    OpenCV sums the pixels' columns and rows as whole numbers and divides each
    sum by the area in double precision; here the sums are whole numbers too
    (per-column and per-row pixel counts weighted by the index), and Python
    divides two whole numbers below 2**53 with the rounding of that double
    division (both are exact doubles; the quotient is rounded once).

    Parameters
    ----------
    labels : ndarray, uint16 or int32, (H, W)
    i : int
        The component, >= 1.
    area : int
        Its pixel count (> 0).

    Returns
    -------
    (x, y) : float
        Pixels.
    """
    if not area > 0:
        raise ValueError(f"area: expected > 0, got {area}")
    pixels = labels == i
    per_col = np.count_nonzero(pixels, axis=0)
    per_row = np.count_nonzero(pixels, axis=1)
    sum_x = int(np.dot(per_col.astype(np.int64), np.arange(per_col.size, dtype=np.int64)))
    sum_y = int(np.dot(per_row.astype(np.int64), np.arange(per_row.size, dtype=np.int64)))
    return sum_x / int(area), sum_y / int(area)


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, color=1, thickness=cv2.FILLED)
    return out


def _ellipse_area(e: tuple) -> float:
    (_, _), (d1, d2), _ = e
    return math.pi * d1 * d2 / 4.0


def _grown_box(box: tuple[int, int, int, int], grow_px: int, width: int, height: int) -> tuple[int, int, int, int]:
    """A connected component's bounding box ``(left, top, width, height)``
    grown by ``grow_px`` on every side and clipped to the frame: ``(x0, y0,
    x1, y1)``, end-exclusive, pixels."""
    x, y, bw, bh = box
    return (max(0, x - grow_px), max(0, y - grow_px), min(width, x + bw + grow_px), min(height, y + bh + grow_px))


def find_plate(frame: np.ndarray) -> PlateFit:
    """Find the plate as an ellipse.

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3), BGR
        The camera frame.

    Returns
    -------
    PlateFit
        ``ellipse`` in source pixels, or None with the reason.
    """
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame: expected BGR uint8 (H, W, 3), got {getattr(frame, 'dtype', type(frame))} "
                         f"{getattr(frame, 'shape', '')}")
    h, w = frame.shape[:2]
    scale = PLATE_WORK_HEIGHT_PX / (min(w, h) if PLATE_WORK_ON_SHORT_SIDE else h)
    # a large frame is halved first (exact halvings, see vision.shrink), then
    # area-shrunk by at least WORK_LAST_SHRINK_MIN: nearly the same area
    # average, several times faster
    work_size = ((max(8, int(round(w * scale))), max(8, int(round(h * scale)))) if PLATE_WORK_ON_SHORT_SIDE and w < h
                 else (max(8, int(round(w * scale))), PLATE_WORK_HEIGHT_PX))
    halved = None
    if work_size[0] <= w and work_size[1] <= h:
        # the first halving kept (PlateFit.halved): the canonical view cuts
        # its region from it.  area_shrink of the halved frame makes one
        # halving fewer, so ``small`` is the same as area_shrink of the frame
        if min(halvings_within(w, math.ceil(work_size[0] * WORK_LAST_SHRINK_MIN)),
               halvings_within(h, math.ceil(work_size[1] * WORK_LAST_SHRINK_MIN))) >= 1:
            halved = shrink.halve(frame, 1)
            halved.setflags(write=False)
        small = area_shrink(frame if halved is None else halved, work_size, last_min_factor=WORK_LAST_SHRINK_MIN)
    else:  # a frame smaller than the working size is enlarged
        small = cv2.resize(frame, work_size, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, ksize=(0, 0), sigmaX=PLATE_BLUR_SIGMA_PX)
    dev, dev_l = cloth_deviation(small)
    not_cloth = not_cloth_mask(dev, dev_l)
    not_cloth.setflags(write=False)  # kept in the PlateFit
    mask = cv2.morphologyEx(not_cloth, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, labels, areas = _components_with_areas(mask)
    sh, sw = mask.shape
    # the side the plate's size is judged against, and its name for the reason
    side_px, side_name = (sw, "width") if PLATE_MIN_MINOR_OF_SHORT_SIDE and sw < sh else (sh, "height")
    min_minor_px = PLATE_MIN_MINOR_FRAC * side_px
    min_area_px = math.pi * (min_minor_px / 2.0) ** 2 * 0.8
    best: tuple[float, tuple, float, float] | None = None
    reasons = []
    for i in np.argsort(-areas[1:]) + 1:
        if areas[i] < min_area_px:
            break
        # Work on the component's bounding box grown by more than the opening
        # kernel's radius (clipped to the frame): erosion and dilation of the
        # component never reach past it, and where it is clipped the crop's
        # edge is the frame's edge, so every pixel comes out as on the whole
        # frame.  The kernel grows with the filled area, at most the box's.
        box = _component_box(mask, labels, n, int(i))
        bw, bh = box[2], box[3]
        k_max = max(3, int(2 * round(PLATE_OPEN_FRAC * math.sqrt(bw * bh / math.pi)) + 1))
        x0, y0, x1, y1 = _grown_box(box, k_max // 2 + 1, sw, sh)
        region = _fill_holes((labels[y0:y1, x0:x1] == i).astype(np.uint8))
        eq_radius = math.sqrt(region.sum() / math.pi)
        k = max(3, int(2 * round(PLATE_OPEN_FRAC * eq_radius) + 1))
        region = _open_ellipse(region, k)
        m2, lab2, areas2 = _components_with_areas(region)
        if m2 < 2:
            continue
        region = (lab2 == 1 + int(np.argmax(areas2[1:]))).astype(np.uint8)
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
        hull = cv2.convexHull(max(contours, key=cv2.contourArea))
        if len(hull) < 5:
            continue
        fit = cv2.fitEllipse(hull)
        (ecx, ecy), (d1, d2), ang = fit
        minor, major = min(d1, d2), max(d1, d2)
        fill = float(region.sum()) / max(_ellipse_area(fit), 1.0)
        if minor < min_minor_px:
            reasons.append(f"region too small ({minor / side_px:.0%} of frame {side_name})")
            continue
        if minor / major < PLATE_MIN_AXIS_RATIO:
            reasons.append(f"region not round enough (axis ratio {minor / major:.2f})")
            continue
        if fill < PLATE_MIN_FILL:
            reasons.append(f"region not elliptical (fills {fill:.0%} of its ellipse)")
            continue
        contrast = float(fast_median(dev[y0:y1, x0:x1][region > 0]))
        score = _ellipse_area(fit) * min(fill, 1.0)
        if best is None or score > best[0]:
            best = (score, fit, fill, contrast)
    if best is None:
        why = "; ".join(dict.fromkeys(reasons)) if reasons else "nothing on the table differs from the cloth"
        return PlateFit(ellipse=None, fill=0.0, contrast=0.0, reason=f"no plate found: {why}",
                        cloth_deviation=dev, cloth_lightness=dev_l, work_scale=scale, frame_size=(w, h),
                        not_cloth=not_cloth, halved=halved)
    _, ((ecx, ecy), (d1, d2), ang), fill, contrast = best
    inv = 1.0 / scale
    # OpenCV's RotatedRect angle belongs to the first axis (width, d1).
    ellipse = Ellipse.from_axes(ecx * inv, ecy * inv, d1 / 2 * inv, d2 / 2 * inv, ang)
    return PlateFit(ellipse=ellipse, fill=min(fill, 1.0), contrast=contrast,
                    reason=f"plate fitted (fills {fill:.0%} of its ellipse, contrast {contrast:.0f} cloth spreads)",
                    cloth_deviation=dev, cloth_lightness=dev_l, work_scale=scale, frame_size=(w, h),
                    not_cloth=not_cloth, halved=halved)


def plate_to_canonical(ellipse: Ellipse, *, plate_radius_px: float, canvas_px: int) -> np.ndarray:
    """Affine map from source pixels to the canonical top-down plate view.

    The plate ellipse becomes a circle of radius ``plate_radius_px`` centred in
    a square canvas of ``canvas_px``.

    Returns
    -------
    ndarray, float64, (3, 3)
        Homogeneous matrix (last row 0, 0, 1) mapping source (x, y) to canonical.
    """
    if plate_radius_px <= 0 or canvas_px <= 0:
        raise ValueError(f"plate_radius_px, canvas_px: expected > 0, got {plate_radius_px}, {canvas_px}")
    t = math.radians(ellipse.angle_deg)
    c, s = math.cos(t), math.sin(t)
    rot = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]], dtype=np.float64)
    scale = np.diag([plate_radius_px / ellipse.a, plate_radius_px / ellipse.b, 1.0])
    unrot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)
    to_origin = np.array([[1, 0, -ellipse.cx], [0, 1, -ellipse.cy], [0, 0, 1]], dtype=np.float64)
    to_canvas = np.array([[1, 0, canvas_px / 2.0], [0, 1, canvas_px / 2.0], [0, 0, 1]], dtype=np.float64)
    # rotate the major axis onto x, squash to a circle, rotate back so the
    # canonical view keeps the camera's orientation.
    return to_canvas @ unrot @ scale @ rot @ to_origin


def rectify(frame: np.ndarray, to_canonical: np.ndarray, canvas_px: int) -> np.ndarray:
    """Warp the frame into the canonical view.

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3), BGR
    to_canonical : ndarray, (3, 3)
        From :func:`plate_to_canonical`.
    canvas_px : int
        Side of the square output.

    Returns
    -------
    ndarray, uint8, (canvas_px, canvas_px, 3), BGR.  Pixels outside the frame
    are replicated from its border.
    """
    return cv2.warpAffine(frame, to_canonical[:2], (canvas_px, canvas_px), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
