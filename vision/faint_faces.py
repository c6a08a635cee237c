"""A faint face's region, and the token radius measured on faint faces.

A find of the disc filter (:mod:`vision.discs`) is judged by its region:
the pixels around it that differ from the plate the way its centre does, at
half its value (:func:`faint_extent`: area, roundness, and whether it is two
faces side by side).  Where no blob is a clear disc, the same regions at
the radius scan's strongest finds give the frame's token radius
(:func:`_radius_from_faint_faces`).  :mod:`vision.tokens` re-exports these
names.  Distances are canonical pixels, colours the Lab residual of
:class:`vision.canonical.CanonicalView` (Lab units).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .discs import _radius_scan, _rows_mean
from .grids import open_grid

#: A faint disc's own region (see :func:`faint_extent`) may be at most this
#: many face areas; larger is two faces, one partly on the other.
FAINT_MAX_AREA = 1.4
#: A faint face's region must be this round (minor / major); a flat face
#: is a circle in the canonical view, a 12 deg tilt still gives 0.98.
FAINT_MIN_AXIS_RATIO = 0.8
#: A region split into two faint faces side by side must be as wide as a face
#: across its long axis: its variance there at least this share of a disc's
#: (r^2 / 4).  Of 597 regions large enough to split (synthesized scenes
#: 1000-1799 and 6000-6499), the 10 that were two touching faces measured
#: 0.98-1.24 of it; 318 measured below 0.7, none of them a pair of tokens: bands
#: of shading along a bowl's edge or the well's wall (a bowl over the plate,
#: fresh scene 11227, was read as four flat tokens from two such bands).
PAIR_MIN_WIDTH_SHARE = 0.7


def _zeroed_where(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A copy of ``image`` (H, W[, C]) with the pixels where ``mask`` (H, W)
    is non-zero set to 0.0: ``out = image.copy(); out[mask.astype(bool)] = 0.0``,
    bit for bit, by one masked ``cv2.copyTo`` into a new (zero-filled) array."""
    return cv2.copyTo(image, (mask == 0).view(np.uint8))


def faint_extent(residual: np.ndarray, x: float, y: float, radius_px: float, open_px: int = 0
                 ) -> tuple[float, float, float, tuple[float, float], float]:
    """Area and axis ratio of the region around a faint disc that differs from
    the plate the way its centre does.

    The residual within 2.2 radii is projected on the colour direction of the
    face's mean residual; pixels above half the face's value, connected to
    the centre, form the region.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
    x, y : float
        Centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels.
    open_px : int
        When > 0, the pixels above half are first opened (``cv2.MORPH_OPEN``)
        with a disc of this radius, pixels: a band narrower than the disc that
        touches the face is cut off it.  0: no opening.

    Returns
    -------
    area_px : float
        Region area, canonical pixels squared (0 when empty).
    axis_ratio : float
        Minor / major axis of the region's moment ellipse, in [0, 1].
    pair_dist_px : float
        If the region is two faces of ``radius_px`` side by side, the distance
        between their centres (from the variance along the major axis:
        lambda1 = (d / 2)^2 + r^2 / 4); 0 when the region is one face or less,
        or narrower than a face across its long axis (variance below
        ``PAIR_MIN_WIDTH_SHARE`` of a disc's r^2 / 4: a band of shading).
    centroid : (float, float)
        Region centroid, canonical pixels.
    major_angle_rad : float
        Direction of the major axis.
    """
    if not (isinstance(open_px, (int, np.integer)) and open_px >= 0):
        raise ValueError(f"open_px: expected an int >= 0, got {open_px!r}")
    s = residual.shape[0]
    half = int(math.ceil(2.2 * radius_px))
    x0, x1 = max(0, int(x) - half), min(s, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(s, int(y) + half + 1)
    patch = residual[y0:y1, x0:x1]
    rr, cc = open_grid(y0, y1, x0, x1)  # (h, 1) and (1, w): broadcast below
    face = (cc - x) ** 2 + (rr - y) ** 2 < (0.6 * radius_px) ** 2
    empty = (0.0, 0.0, 0.0, (x, y), 0.0)
    if not face.any():
        return empty
    mean = _rows_mean(patch[face])  # = patch[face].mean(axis=0)
    norm = float(np.linalg.norm(mean))
    if norm <= 0:
        return empty
    proj = patch @ (mean / norm)
    region = (proj > 0.5 * norm).astype(np.uint8)
    if open_px > 0:
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * open_px + 1, 2 * open_px + 1))
        region = cv2.morphologyEx(region, cv2.MORPH_OPEN, disc)
    n, labels = cv2.connectedComponents(region, connectivity=8)
    centre_label = labels[min(max(int(round(y)) - y0, 0), y1 - y0 - 1), min(max(int(round(x)) - x0, 0), x1 - x0 - 1)]
    if centre_label == 0:
        return empty
    sel = labels == centre_label
    area = float(sel.sum())
    m = cv2.moments(sel.astype(np.uint8), binaryImage=True)
    if m["m00"] <= 0:
        return empty
    mu20, mu02, mu11 = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
    common = math.sqrt(max((mu20 - mu02) ** 2 + 4 * mu11 ** 2, 0.0))
    l1, l2 = (mu20 + mu02 + common) / 2, (mu20 + mu02 - common) / 2
    ratio = float(math.sqrt(max(l2, 0.0) / l1)) if l1 > 0 else 0.0
    # two faces side by side: larger than one face, and as wide as one across
    # their long axis (a disc's variance, r^2 / 4); a band of shading is thinner
    two_faces = (area > FAINT_MAX_AREA * math.pi * radius_px ** 2
                 and l2 >= PAIR_MIN_WIDTH_SHARE * radius_px ** 2 / 4.0)
    pair = 2.0 * math.sqrt(max(l1 - radius_px ** 2 / 4.0, 0.0)) if two_faces else 0.0
    centroid = (x0 + m["m10"] / m["m00"], y0 + m["m01"] / m["m00"])
    return area, ratio, pair, centroid, 0.5 * math.atan2(2 * mu11, mu20 - mu02)


#: The faint faces measure the token radius when at least this many of the
#: radius scan's four strongest finds are round regions (:func:`_radius_at_half_contrast`).
RADIUS_MIN_ROUND_FACES = 2


def _radius_at_half_contrast(residual: np.ndarray, peaks: list[tuple[int, int]], scan_radius_px: float,
                             lo_px: float, hi_px: float) -> tuple[float, int]:
    """The token radius measured on the faint faces at the radius scan's peaks.

    The disc filter responds alike to any radius from about 0.83 to 1.25 of
    a face's (its disc inside the face, its ring outside), so the scan's best
    radius (``scan_radius_px``) runs small: 0.84 of the true one at the
    median, 0.54-1.23 at 5-95 % (synthesized overlaps at 1280x720, 153
    frames sized from edges), and a single face's region then measured up to
    1.4 face areas, where two faces joined begin.  Each peak's region at half
    its contrast (:func:`faint_extent`, as :func:`vision.blobshape.half_max_radius` measures a
    clear disc) gives that face's radius; the median over the regions round
    enough for one face (axis ratio at least ``FAINT_MIN_AXIS_RATIO``) is the
    token radius.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        The residual the scan ran on.
    peaks : list of (x, y)
        The scan's strongest peaks at ``scan_radius_px``, canonical pixels.
    scan_radius_px : float
        The scan's radius, canonical pixels (> 0).
    lo_px, hi_px : float
        The plausible radius range, canonical pixels.

    Returns
    -------
    radius_px : float
        Canonical pixels, within [lo_px, hi_px]; ``scan_radius_px`` when
        fewer than ``RADIUS_MIN_ROUND_FACES`` regions are round.
    n_round : int
        How many regions were round.
    """
    if not scan_radius_px > 0:
        raise ValueError(f"scan_radius_px: expected > 0, got {scan_radius_px}")
    radii = []
    for x, y in peaks:
        area, ratio, _, _, _ = faint_extent(residual, float(x), float(y), scan_radius_px)
        if area > 0 and ratio >= FAINT_MIN_AXIS_RATIO:
            radii.append(math.sqrt(area / math.pi))
    if len(radii) < RADIUS_MIN_ROUND_FACES:
        return scan_radius_px, len(radii)
    return float(min(max(float(np.median(radii)), lo_px), hi_px)), len(radii)


def _radius_from_faint_faces(residual: np.ndarray, clear: np.ndarray, every_blob: np.ndarray, grow: np.ndarray,
                             allowed: np.ndarray, lo_px: float, hi_px: float) -> float:
    """The token radius where no blob is a clear disc: the disc filter's
    radius scan (:func:`vision.discs._radius_scan`), measured again on the
    faint faces it finds (:func:`_radius_at_half_contrast`); 0 when the scan
    finds nothing.

    The scan runs first on ``residual`` with only the clear blobs taken out
    (``clear``: the reader's blobs at least twice the blob threshold): a pale
    face near the threshold breaks into fragments that are part of it, and
    taking them out took the face out of the scan (four white faces on
    celadon under warm light, fresh 341267 at 1280x720: scanned at the
    smallest radius, no token read).  Where fewer than
    ``RADIUS_MIN_ROUND_FACES`` of its finds are round faces, it runs again
    with every blob (``every_blob``) taken out: fragments that are the faces'
    dark walls or shadows pull the scan to a small radius (white faces on
    white porcelain, fresh 343514).

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        The canonical view's residual.
    clear, every_blob : ndarray, uint8, (S, S)
        Non-zero on the clear blobs' and on every blob's pixels.
    grow : ndarray, uint8
        Structuring element the blobs are grown by before they are taken out.
    allowed : ndarray, bool, (S, S)
        Where a face's centre may lie.
    lo_px, hi_px : float
        The plausible radius range, canonical pixels.

    Returns
    -------
    float
        Canonical pixels; 0 when no scan found a peak.
    """
    token_r = 0.0
    for taken_out in ((clear, every_blob) if np.any(clear != every_blob) else (every_blob,)):
        scanned = _zeroed_where(residual, cv2.dilate(taken_out, grow))
        scan_r, peaks = _radius_scan(scanned, allowed, lo_px, hi_px)
        if scan_r <= 0:
            continue
        measured, n_round = _radius_at_half_contrast(scanned, peaks, scan_r, lo_px, hi_px)
        token_r = measured
        if n_round >= RADIUS_MIN_ROUND_FACES:
            break
    return token_r
