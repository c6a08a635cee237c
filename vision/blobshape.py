"""Blob shape: what one region of the canonical view is, measured on its pixels.

The shape measurements of :func:`vision.tokens.find_tokens`, on a region's
pixels (a blob of the plate-background residual of
:class:`vision.canonical.CanonicalView`) and, where a level is cut, its
colour difference from the plate:

* a thin, even arc along the plate's rim or the well's wall, their own
  highlight or shadow, not an object (:func:`is_rim_arc`);
* the token radius, measured at half a blob's own contrast
  (:func:`half_max_radius`);
* two touching faces split by 2-means on the pixels' coordinates
  (:func:`split_pair`), and the width of the waist that joins them
  (:func:`pair_neck_width`: touching faces meet at a point, a face resting
  on another is joined to it by its side wall);
* two faces joined into one blob by their edges, cut apart at half its
  contrast (:func:`faces_at_half_contrast`), and one face whose blob takes in
  its shadow or side wall, seen as one at half its contrast
  (:func:`face_at_half_contrast`);
* two faces, one partly on the other (:func:`is_overlap_pair`).

The bounds on one face's area and on a pair's (``SPECK_MAX_AREA``,
``DISC_AREA_RANGE``, ``TOUCHING_MIN_DIST_RADII``, ``PAIR_*``) are defined
here, and :mod:`vision.tokens` imports them (so a test that sets one must
set it where the code that reads it lives).  Positions and radii passed
in are canonical pixels unless a name ends in ``_frac`` (a fraction of the
plate radius); each constant's comment gives its unit (face areas: pi r^2 of
the frame's token radius; token radii; pixels).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .discs import _true_box

#: A blob smaller than this many face areas is a speck (glare, a chip in the
#: glaze), not a token; a dark one at least this large stops an outcome.
SPECK_MAX_AREA = 0.12
SPECK_SUSPECT_MIN_AREA = 0.04
#: Area of a single face relative to pi r^2 of the frame's token radius.
DISC_AREA_RANGE = (0.6, 1.45)
#: Two faint faces whose centres are at least this many radii apart touch;
#: closer, one lies partly on the other.
TOUCHING_MIN_DIST_RADII = 1.85
#: A region of two touching faces covers at most this many face areas ...
PAIR_MAX_AREA = 2.4
#: ... each half of it this many (a pale face measures smaller than a red one) ...
PAIR_HALF_AREA = (0.5, 1.3)
#: ... and their centres are at most this many radii apart.
PAIR_MAX_DIST_RADII = 2.4
#: A solid region of two faces' area whose 2-means halves are from this many
#: radii to less than ``TOUCHING_MIN_DIST_RADII`` apart is one face partly on
#: another (:func:`is_overlap_pair`); nearer, one face with its shadow.
OVERLAP_PAIR_DIST_RADII = 1.2
OVERLAP_PAIR_MIN_SOLIDITY = 0.85
#: A blob that is a thin arc along the rim (the rim's glaze, a highlight or
#: shadow on the rim or on the well's wall below it, or the rim's edge where
#: the ellipse fit is a pixel off) is not an object: its pixels lie beyond
#: this fraction of the plate radius (a plate's well ends at about 0.75-0.85
#: of its rim, and the ellipse is fitted to the rim's outer edge) ...
RIM_ARC_MIN_RADIUS_FRAC = 0.7
#: ... within a band this thin (fraction of the plate radius; a token's face
#: is at least 0.14 across, so an arc this thin can hide none) ...
RIM_ARC_MAX_THICKNESS_FRAC = 0.09
#: ... and it follows the rim for at least this many token radii (a token
#: standing on edge is a bar about two radii long) ...
RIM_ARC_MIN_LENGTH_RADII = 3.0
#: ... evenly: cut into pieces one token radius long, no piece reaches further
#: in or out than the pieces near it by more than this (token radii; a
#: token's side wall is 0.2-0.3 radii thick: a token on edge lying against
#: the arc bulges it by that much) ...
RIM_ARC_MAX_BUMP_RADII = 0.12
#: ... "near": the pieces this many away on either side (first, last), not
#: the adjacent ones, which a bar two radii long partly covers too; their
#: median follows a crescent's taper.
RIM_ARC_BUMP_SPAN_PIECES = (2, 3)
#: Pieces with fewer pixels than this are not measured (the arc's ragged ends).
RIM_ARC_MIN_PIECE_PX = 8


def axis_angle_diff_deg(a_deg: float, b_deg: float) -> float:
    """Difference of two axis directions (an axis at 0 deg is the one at
    180 deg), degrees in [0, 90]."""
    return abs((a_deg - b_deg + 90.0) % 180.0 - 90.0)


def is_rim_arc(region: np.ndarray, radius_frac: np.ndarray, token_radius_frac: float) -> bool:
    """True when a region is a thin, even arc along the plate's rim or the
    well's wall inside it (their own highlight or shadow).

    Parameters
    ----------
    region : ndarray, bool, (S, S)
        The region's pixels in the canonical view.
    radius_frac : ndarray, float, (S, S)
        Each pixel's distance from the plate centre, fractions of the plate radius.
    token_radius_frac : float
        The frame's token radius, fraction of the plate radius (> 0).

    Returns
    -------
    bool
        The 5th percentile of the region's radii is at least
        ``RIM_ARC_MIN_RADIUS_FRAC``, the 5th-95th percentile band at most
        ``RIM_ARC_MAX_THICKNESS_FRAC`` thick, the arc it spans around the
        centre is at least ``RIM_ARC_MIN_LENGTH_RADII`` token radii long, and
        it is even along its length (:func:`_arc_is_even`).  False for an
        empty region.
    """
    if region.shape != radius_frac.shape:
        raise ValueError(f"region: expected shape {radius_frac.shape}, got {region.shape}")
    if not token_radius_frac > 0:
        raise ValueError(f"token_radius_frac: expected > 0, got {token_radius_frac}")
    # = np.nonzero(region) (cv2.findNonZero scans the rows in order: the same
    # pixels in the same order, as int32)
    found = cv2.findNonZero(np.ascontiguousarray(region if region.dtype == bool else region != 0).view(np.uint8))
    if found is None or found.shape[0] < 3:
        return False
    found = found.reshape(-1, 2)  # (x, y) points
    rr, cc = found[:, 1], found[:, 0]
    rho = radius_frac[rr, cc]
    # The 5th percentile lies between the order statistics i and i + 1, i =
    # floor(0.05 (n - 1)), and NumPy's linear interpolation never exceeds
    # the (i + 1)-th: with more than i + 2 values under the bound (compared
    # in float64, as the percentile is), it is under it, as np.percentile
    # below would say, without that call (most regions lie well inside).
    # (NaN: left to np.percentile.)
    n_inner = int(np.count_nonzero(rho < np.float64(RIM_ARC_MIN_RADIUS_FRAC)))
    if n_inner >= int(0.05 * (rho.size - 1)) + 3 and not np.isnan(rho).any():
        return False
    lo, hi = np.percentile(rho, [5, 95])
    if lo < RIM_ARC_MIN_RADIUS_FRAC or hi - lo > RIM_ARC_MAX_THICKNESS_FRAC:
        return False
    c = radius_frac.shape[0] / 2.0 - 0.5
    theta = np.arctan2(rr - c, cc - c)
    order = np.sort(theta)
    gaps = np.diff(np.concatenate([order, order[:1] + 2 * math.pi]))
    widest = int(np.argmax(gaps))
    middle = float(np.median(rho))
    length_frac = (2 * math.pi - float(gaps[widest])) * middle
    if length_frac < RIM_ARC_MIN_LENGTH_RADII * token_radius_frac:
        return False
    # arc length from the arc's first end (past the widest gap), token radii
    start = order[(widest + 1) % order.size]
    along = ((theta - start) % (2 * math.pi)) * middle / token_radius_frac
    return _arc_is_even(along, rho / token_radius_frac)


def _arc_is_even(along: np.ndarray, across: np.ndarray) -> bool:
    """True when an arc has no bump: cut into pieces one token radius long
    (``along``: each pixel's arc length from the arc's end, token radii),
    no piece of ``RIM_ARC_MIN_PIECE_PX`` or more pixels reaches further in or
    out (2nd and 98th percentile of ``across``: each pixel's distance from the
    plate centre, token radii) than the median of the pieces
    ``RIM_ARC_BUMP_SPAN_PIECES`` away on either side, by more than
    ``RIM_ARC_MAX_BUMP_RADII``.  The pieces right beside it are skipped: a
    token two radii long covers parts of three pieces, and its neighbours'
    share of it would hide half the bump.  A crescent's smooth taper passes.
    False when no piece is large enough."""
    piece = along.astype(np.int64)
    n_pieces = int(piece.max()) + 1 if piece.size else 0
    inner = np.full(n_pieces, np.nan)
    outer = np.full(n_pieces, np.nan)
    order = np.argsort(piece, kind="stable")
    piece, across = piece[order], across[order]
    starts = np.flatnonzero(np.r_[True, np.diff(piece) != 0])
    for k, part in zip(piece[starts], np.split(across, starts[1:])):
        if part.size >= RIM_ARC_MIN_PIECE_PX:
            inner[k], outer[k] = np.percentile(part, [2, 98])
    if np.isnan(inner).all():
        return False
    lo, hi = RIM_ARC_BUMP_SPAN_PIECES
    for k in np.flatnonzero(~np.isnan(inner)):
        around = [j for d in range(lo, hi + 1) for j in (k - d, k + d) if 0 <= j < n_pieces]
        nb_in = inner[around][~np.isnan(inner[around])]
        nb_out = outer[around][~np.isnan(outer[around])]
        if nb_in.size == 0:
            continue
        if (float(np.median(nb_in)) - inner[k] > RIM_ARC_MAX_BUMP_RADII
                or outer[k] - float(np.median(nb_out)) > RIM_ARC_MAX_BUMP_RADII):
            return False
    return True


def _half_peak(values: np.ndarray) -> float:
    """Half a blob's own peak colour difference: its 90th percentile of
    ``values`` (the blob's ``delta_e``, Lab units), halved.  The token radius
    is measured at this level (:func:`half_max_radius`) and two joined faces
    are cut at it (:func:`faces_at_half_contrast`)."""
    return 0.5 * float(np.percentile(values, 90))


#: The region :func:`half_max_radius` measures must be as round as one face:
#: a minor/major axis ratio (moment ellipse) of at least this.  Cut at half
#: a blob's own peak, a clear face's region can run into a face touching it
#: whose contrast is over that level, though under the blob threshold's cut
#: (fresh scene 1374880 at 800x600, five tokens on black lacquer, blob
#: threshold 46.2: a white face's blob of 619 px (14.0 px, the true face
#: 15.2) measured 21.3 px at its half peak, 36.5, its region (axis ratio
#: 0.50) joined with the dark-red fifth face touching it, 44 at its centre:
#: every face was then judged at 1.4 times its size, the fifth's disc peak
#: 1.3 radii from the white's blob taken for its wall, its blob a speck, and
#: four read as an outcome; measured 14.5 px, the fifth is an upright and
#: five are found).  Two touching faces measure about 0.5; one face, seen
#: tilted, 0.72 or more (``vision.tokens.DISC_MIN_AXIS_RATIO``, which a blob
#: must pass to be measured).  A region that fails gives the blob's own
#: equivalent radius.  A/B on fresh seeds at 800x600 (five tokens, fifth
#: touching, painted rings, 1395000-1395399; four flat on painted rings,
#: 1396000-1396399): 0 wrong either side; 5 and 3 verdicts changed, each from
#: a wrong rearrange (or an abstention) to right (or an abstention).
HALF_MAX_MIN_AXIS_RATIO = 0.72
#: Switch for that test; False: the half-peak region is measured whatever its shape, as before.
HALF_MAX_ONE_FACE = True


def half_max_radius(delta_e: np.ndarray, blob: np.ndarray) -> float:
    """Radius of a blob measured at half its own contrast.

    A blob cut at a fixed threshold measures small when its contrast is
    near that threshold; cut at half of its own peak (the 90th percentile of
    its colour difference) a pale face and a red face measure alike.

    Parameters
    ----------
    delta_e : ndarray, float32, (S, S), Lab units
    blob : ndarray, bool, (S, S)

    Returns
    -------
    float
        Equivalent-area radius, pixels, of the region above half the blob's
        peak that contains the blob (within a window of twice its size).
    """
    # The blob's pixels from its bounding box (the same row-major order as
    # ``np.nonzero`` on the whole canvas, at a fraction of the cost).
    b_rows = np.flatnonzero(blob.any(axis=1))
    if b_rows.size == 0:
        return 0.0
    b_cols = np.flatnonzero(blob.any(axis=0))
    by0, bx0 = int(b_rows[0]), int(b_cols[0])
    rr, cc = np.nonzero(blob[by0:int(b_rows[-1]) + 1, bx0:int(b_cols[-1]) + 1])
    rr += by0
    cc += bx0
    level = _half_peak(delta_e[rr, cc])
    eq = math.sqrt(rr.size / math.pi)
    pad = int(math.ceil(eq)) + 2
    s = delta_e.shape[0]
    y0, y1 = max(0, rr.min() - pad), min(s, rr.max() + pad + 1)
    x0, x1 = max(0, cc.min() - pad), min(s, cc.max() + pad + 1)
    region = (delta_e[y0:y1, x0:x1] > level).astype(np.uint8)
    n, labels = cv2.connectedComponents(region, connectivity=8)
    inside = labels[blob[y0:y1, x0:x1]]
    inside = inside[inside > 0]
    if inside.size == 0:
        return eq
    main = np.bincount(inside).argmax()
    rr, cc = np.nonzero(labels == main)
    if HALF_MAX_ONE_FACE and _axis_ratio(np.stack([cc, rr], axis=1)) < HALF_MAX_MIN_AXIS_RATIO:
        # not one face's disc: at half the blob's peak its region took in a
        # face touching it (see ``HALF_MAX_MIN_AXIS_RATIO``): the blob's own size
        return eq
    return math.sqrt(float(rr.size) / math.pi)


def _two_means(region: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The region's pixels divided into two groups by 2-means on their
    coordinates (deterministic start: split at the centroid across the major
    axis of the second moments): (points (N, 2) float32 x, y; labels (N,)
    0/1; centres (2, 2) x, y), or None for fewer than two pixels."""
    rr, cc = np.nonzero(region)
    if rr.size < 2:
        return None
    pts = np.stack([cc, rr], axis=1).astype(np.float32)
    centred = pts - pts.mean(axis=0)
    _, vecs = np.linalg.eigh(centred.T @ centred)
    start = (centred @ vecs[:, -1] > 0).astype(np.int32).reshape(-1, 1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    _, labels, centres = cv2.kmeans(pts, 2, start, criteria, attempts=1, flags=cv2.KMEANS_USE_INITIAL_LABELS)
    return pts, labels.ravel(), centres


def split_pair(region: np.ndarray, radius_px: float) -> list[tuple[tuple[float, float], float]] | None:
    """Split a region into two touching faces, or say it is not two touching faces.

    The region's pixels are divided into two groups by 2-means on their
    coordinates (:func:`_two_means`): two touching discs divide at their
    common tangent, so each group's centroid is a disc's centre.

    Parameters
    ----------
    region : ndarray, bool, (S, S)
    radius_px : float
        The frame's token radius, canonical pixels.

    Returns
    -------
    ``[((x, y), area_px, axis_ratio), ...]`` (two items) when both halves are one face
    each (area ``PAIR_HALF_AREA`` of a face) and their centres at least
    ``TOUCHING_MIN_DIST_RADII`` radii apart; None otherwise (one face, an
    overlap, or more than two).
    """
    n = int(np.count_nonzero(region))
    face_area = math.pi * radius_px ** 2
    if n < 2 * PAIR_HALF_AREA[0] * face_area or n > 2 * PAIR_HALF_AREA[1] * face_area:
        return None
    pts, labels, centres = _two_means(region)
    areas = [float((labels == k).sum()) for k in (0, 1)]
    dist = float(np.hypot(*(centres[0] - centres[1])))
    if dist < TOUCHING_MIN_DIST_RADII * radius_px or dist > PAIR_MAX_DIST_RADII * radius_px:
        return None
    if not all(PAIR_HALF_AREA[0] * face_area <= a <= PAIR_HALF_AREA[1] * face_area for a in areas):
        return None
    return [((float(centres[k][0]), float(centres[k][1])), areas[k], _axis_ratio(pts[labels == k]))
            for k in (0, 1)]


#: Two faces split from one blob as touching (:func:`split_pair`) whose waist
#: (:func:`pair_neck_width`) is at least this many token radii wide are one
#: partly on the other.  Touching faces meet at a point, their waist widened
#: only by the blur: 265 pairs of forced touching scenes (1280x720,
#: 173200-173699) measured 0.03-1.84, 99th percentile 1.47.  A face resting
#: on another, displaced by the camera's tilt to where touching faces lie
#: (its face one token thickness higher) and joined to it by its side wall,
#: measured 1.62-1.80 (161528, 193362, 203832: wrong outcomes, split at
#: 1.86-1.93 radii).
PAIR_MAX_NECK_RADII = 1.55
#: Two strong faces a little apart can be one blob at the blob threshold, far
#: below their own contrast: their blurred edges, shadows or side walls join
#: them, and the blob is too large for :func:`split_pair` (halves of 1.4-2.5
#: face areas) or longer than an object's bound.  Cut at half the blob's own
#: peak (as the token radius is measured, :func:`half_max_radius`), such a
#: blob is two round faces (:func:`faces_at_half_contrast`): each
#: ``HALF_CONTRAST_FACE_AREA`` face areas (one face measured so: 0.88-1.27 on
#: forced four flat tokens 150000-151499 at 640x480), at least
#: ``HALF_CONTRAST_MIN_AXIS_RATIO`` round and ``HALF_CONTRAST_MIN_SOLIDITY``
#: solid, ``TOUCHING_MIN_DIST_RADII`` or more apart, joined by a waist under
#: ``PAIR_MAX_NECK_RADII``, with every pixel of the blob within
#: ``HALF_CONTRAST_MAX_REACH_RADII`` token radii of them (the rest is their
#: edge, not a third face or a face partly under one).  A face resting on
#: another stays one region at half its contrast (the top face covers their
#: overlap) or leaves a crescent that is not round (forced overlaps
#: 211500-212499: none of 510 such blobs passed).
HALF_CONTRAST_FACE_AREA = (0.75, 1.3)
HALF_CONTRAST_MIN_AXIS_RATIO = 0.85
HALF_CONTRAST_MIN_SOLIDITY = 0.9
HALF_CONTRAST_MAX_REACH_RADII = 0.5
#: Where :func:`pair_neck_width` looks for a pair's narrowest waist: from this
#: fraction of the way between the two centres to one minus it, at this many
#: places; and the step along each cross-line, pixels.
NECK_SPAN_FRAC = 0.35
NECK_PLACES = 13
NECK_STEP_PX = 0.5


def pair_neck_width(region: np.ndarray, c0: tuple[float, float], c1: tuple[float, float],
                    radius_px: float) -> float:
    """Width of the waist joining two faces of one region, in token radii.

    Across the line from ``c0`` to ``c1``, at ``NECK_PLACES`` places from
    ``NECK_SPAN_FRAC`` of the way to ``1 - NECK_SPAN_FRAC``, the region's run
    through the line is measured both ways from it (``NECK_STEP_PX`` steps);
    the narrowest is the waist.  Two touching faces meet at one point, so
    their waist is narrow (blur widens it); a face resting on another is
    joined to it by more.

    Parameters
    ----------
    region : ndarray, bool, (S, S)
    c0, c1 : (float, float)
        The two faces' centres, canonical pixels (x, y).
    radius_px : float
        The frame's token radius, canonical pixels (> 0).

    Returns
    -------
    float
        The waist's width / ``radius_px``; 0 when some cross-line's place on
        the line is outside the region.
    """
    if not radius_px > 0:
        raise ValueError(f"radius_px: expected > 0, got {radius_px}")
    p0, p1 = np.asarray(c0, np.float64), np.asarray(c1, np.float64)
    length = float(np.hypot(*(p1 - p0)))
    if length <= 0:
        return 0.0
    axis = (p1 - p0) / length
    perp = np.array([-axis[1], axis[0]])
    steps = np.arange(0.0, 4.0 * radius_px + NECK_STEP_PX, NECK_STEP_PX)  # (K,)
    h, w = region.shape
    narrowest = math.inf
    for t in np.linspace(NECK_SPAN_FRAC, 1.0 - NECK_SPAN_FRAC, NECK_PLACES):
        mid = p0 + t * (p1 - p0)
        run = 0.0
        for sgn in (1.0, -1.0):
            pts = mid[None, :] + sgn * steps[:, None] * perp[None, :]
            xs, ys = np.rint(pts[:, 0]).astype(np.intp), np.rint(pts[:, 1]).astype(np.intp)
            inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            hit = np.zeros(steps.size, bool)
            hit[inside] = region[ys[inside], xs[inside]]
            # samples on the region from the line outwards, until the first off it
            run += (int(np.argmin(hit)) if not hit.all() else steps.size) * NECK_STEP_PX
        narrowest = min(narrowest, run)  # 0 where the place on the line is off the region
    return float(narrowest / radius_px)


def _half_contrast_cut(region: np.ndarray, delta_e: np.ndarray, radius_px: float):
    """Checks the arguments of the half-contrast cuts and cuts ``region`` at
    half its peak (:func:`_half_peak`) within a window padded by
    ``HALF_CONTRAST_MAX_REACH_RADII``: None for an empty region, else
    ``(x0, y0, blob, labels, stats, centroids, parts)`` with the window's
    origin, the blob in it, OpenCV's connected components of the cut and
    the labels of those of at least ``SPECK_MAX_AREA`` faces."""
    if not (isinstance(region, np.ndarray) and region.dtype == bool):
        raise ValueError(f"region: expected a bool array, got {getattr(region, 'dtype', type(region))}")
    if region.shape != delta_e.shape:
        raise ValueError(f"region: expected shape {delta_e.shape}, got {region.shape}")
    if not radius_px > 0:
        raise ValueError(f"radius_px: expected > 0, got {radius_px}")
    box = _true_box(region)
    if box is None:
        return None
    pad = int(math.ceil(HALF_CONTRAST_MAX_REACH_RADII * radius_px)) + 2
    y0, x0 = max(0, box[0] - pad), max(0, box[2] - pad)
    y1, x1 = min(region.shape[0], box[1] + pad), min(region.shape[1], box[3] + pad)
    blob = region[y0:y1, x0:x1]
    de = delta_e[y0:y1, x0:x1]
    core = (blob & (de > _half_peak(de[blob]))).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(core, connectivity=8)
    face_area = math.pi * radius_px ** 2
    parts = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= SPECK_MAX_AREA * face_area]
    return x0, y0, blob, labels, stats, centroids, parts


def _round_face_part(part: np.ndarray, area: float, radius_px: float) -> float | None:
    """The axis ratio of a region of the cut (uint8 0/1) when it is one round,
    solid face (``HALF_CONTRAST_FACE_AREA`` faces, ``HALF_CONTRAST_MIN_AXIS_RATIO``,
    ``HALF_CONTRAST_MIN_SOLIDITY`` as a blob's: polygon over hull polygon); else None."""
    face_area = math.pi * radius_px ** 2
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    hull_area = cv2.contourArea(cv2.convexHull(outline))
    rr, cc = np.nonzero(part)
    ratio = _axis_ratio(np.column_stack([cc, rr]))
    if (HALF_CONTRAST_FACE_AREA[0] * face_area <= area <= HALF_CONTRAST_FACE_AREA[1] * face_area
            and ratio >= HALF_CONTRAST_MIN_AXIS_RATIO
            and hull_area > 0 and cv2.contourArea(outline) / hull_area >= HALF_CONTRAST_MIN_SOLIDITY):
        return ratio
    return None


def _within_reach(blob: np.ndarray, faces: np.ndarray, radius_px: float) -> bool:
    """True when every pixel of ``blob`` (bool) lies within
    ``HALF_CONTRAST_MAX_REACH_RADII`` token radii of ``faces`` (uint8 0/1, the
    same window): the rest of the blob is their edge, shadow or side wall."""
    away = cv2.distanceTransform(1 - faces, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    return float(away[blob].max()) <= HALF_CONTRAST_MAX_REACH_RADII * radius_px


def faces_at_half_contrast(region: np.ndarray, delta_e: np.ndarray, radius_px: float
                           ) -> list[tuple[tuple[float, float], float, float]] | None:
    """Two round faces inside one blob, seen by cutting it at half its own contrast.

    Parameters
    ----------
    region : ndarray, bool, (S, S)
        The blob's pixels.
    delta_e : ndarray, float32, (S, S), Lab units
        Colour difference from the plate model.
    radius_px : float
        The frame's token radius (measured at half the faces' contrast),
        canonical pixels (> 0).

    Returns
    -------
    ``[((x, y), area_px, axis_ratio), ...]`` (two items, in pixels of the
    cut) when the blob's pixels above half its peak (90th percentile) form
    exactly two regions of ``HALF_CONTRAST_FACE_AREA`` faces (smaller ones
    under ``SPECK_MAX_AREA`` ignored), each round and solid, at least
    ``TOUCHING_MIN_DIST_RADII`` apart, joined in the blob by a waist under
    ``PAIR_MAX_NECK_RADII`` (:func:`pair_neck_width`), and every pixel of the
    blob lies within ``HALF_CONTRAST_MAX_REACH_RADII`` token radii of them;
    None otherwise (also for an empty region).
    """
    cut = _half_contrast_cut(region, delta_e, radius_px)
    if cut is None:
        return None
    x0, y0, blob, labels, stats, centroids, parts = cut
    if len(parts) != 2:
        return None
    faces = []
    kept = np.zeros(labels.shape, np.uint8)
    for k in parts:
        area = float(stats[k, cv2.CC_STAT_AREA])
        part = (labels == k).astype(np.uint8)
        ratio = _round_face_part(part, area, radius_px)
        if ratio is None:
            return None
        kept |= part
        faces.append(((float(centroids[k][0]) + x0, float(centroids[k][1]) + y0), area, ratio))
    (ax, ay), (bx, by) = faces[0][0], faces[1][0]
    if math.hypot(ax - bx, ay - by) < TOUCHING_MIN_DIST_RADII * radius_px:
        return None
    if not _within_reach(blob, kept, radius_px):  # the rest of the blob is their edge
        return None
    if pair_neck_width(region, faces[0][0], faces[1][0], radius_px) >= PAIR_MAX_NECK_RADII:
        return None
    return faces


def face_at_half_contrast(region: np.ndarray, delta_e: np.ndarray, radius_px: float
                          ) -> tuple[tuple[float, float], float, float] | None:
    """One round face inside a blob too large for one, seen by cutting the
    blob at half its own contrast: a face with its shadow or side wall.

    Parameters
    ----------
    region : ndarray, bool, (S, S)
        The blob's pixels.
    delta_e : ndarray, float32, (S, S), Lab units
        Colour difference from the plate model.
    radius_px : float
        The frame's token radius (measured at half the faces' contrast),
        canonical pixels (> 0).

    Returns
    -------
    ``((x, y), area_px, axis_ratio)`` (canonical pixels) when the blob's
    pixels above half its peak (90th percentile) form exactly one region of
    ``HALF_CONTRAST_FACE_AREA`` faces (smaller ones under ``SPECK_MAX_AREA``
    ignored), at least ``HALF_CONTRAST_MIN_AXIS_RATIO`` round and
    ``HALF_CONTRAST_MIN_SOLIDITY`` solid, and every pixel of the blob lies
    within ``HALF_CONTRAST_MAX_REACH_RADII`` token radii of it (the rest is
    its edge, its shadow or its side wall, not a second face); None
    otherwise (also for an empty region).
    """
    cut = _half_contrast_cut(region, delta_e, radius_px)
    if cut is None:
        return None
    x0, y0, blob, labels, stats, centroids, parts = cut
    if len(parts) != 1:
        return None
    k = parts[0]
    area = float(stats[k, cv2.CC_STAT_AREA])
    part = (labels == k).astype(np.uint8)
    ratio = _round_face_part(part, area, radius_px)
    if ratio is None:
        return None
    if not _within_reach(blob, part, radius_px):
        return None
    return (float(centroids[k][0]) + x0, float(centroids[k][1]) + y0), area, ratio


def is_overlap_pair(region: np.ndarray, radius_px: float, solidity: float) -> bool:
    """True when a region is two faces, one partly on the other.

    More than ``DISC_AREA_RANGE[1]`` of one face, solid (``solidity`` at least
    ``OVERLAP_PAIR_MIN_SOLIDITY``: a pale face's fragments are ragged), and
    its 2-means halves (:func:`_two_means`) each one face's area
    (``PAIR_HALF_AREA``) with centres from ``OVERLAP_PAIR_DIST_RADII`` to
    less than ``TOUCHING_MIN_DIST_RADII`` radii apart: closer than touching
    faces divide, farther than one face with its shadow or side wall.

    Parameters
    ----------
    region : ndarray, bool, (S, S)
    radius_px : float
        The frame's token radius, canonical pixels.
    solidity : float
        The region's area over its convex hull's, in [0, 1].
    """
    n = int(np.count_nonzero(region))
    face_area = math.pi * radius_px ** 2
    if (n <= DISC_AREA_RANGE[1] * face_area or n > 2 * PAIR_HALF_AREA[1] * face_area
            or solidity < OVERLAP_PAIR_MIN_SOLIDITY):
        return False
    _, labels, centres = _two_means(region)
    dist = float(np.hypot(*(centres[0] - centres[1])))
    areas = [float((labels == k).sum()) for k in (0, 1)]
    return (OVERLAP_PAIR_DIST_RADII * radius_px <= dist < TOUCHING_MIN_DIST_RADII * radius_px
            and all(PAIR_HALF_AREA[0] * face_area <= a <= PAIR_HALF_AREA[1] * face_area for a in areas))


def _axis_ratio(points: np.ndarray) -> float:
    """Minor / major axis of the moment ellipse of (x, y) points, in [0, 1]."""
    if points.shape[0] < 3:
        return 0.0
    cov = np.cov(points.T.astype(np.float64))
    lo, hi = np.linalg.eigvalsh(cov)
    return float(math.sqrt(max(lo, 0.0) / hi)) if hi > 0 else 0.0
