"""Two touching faces whose blob stays one region at half its contrast.

Two flat faces that touch, with their side walls and shadows, make one blob
of 2.4-2.8 face areas and 4.6-5.3 token radii long: too large for
:func:`vision.blobshape.split_pair` (its halves take in the walls and
shadows, over ``PAIR_HALF_AREA``, or the shadows widen its waist past
``PAIR_MAX_NECK_RADII``) and longer than an object's bound.  Cut at half the
blob's own peak (:func:`vision.blobshape._half_contrast_cut`) the shadows
fall away, but the two faces stay joined where they touch (their blurred
edges there are above half their contrast), so
:func:`vision.blobshape.faces_at_half_contrast`, which wants two regions,
finds one; and the blob was taken for a stick, a hand or the bowl.

:func:`touching_lobes` reads that one region (the *core*) as two faces when
it is two round lobes of one face each, as far apart as touching faces and
joined by a narrow waist: a stick's core is a bar (its 2-means halves are
long and thin), a hand's is ragged, and a token beside a stick leaves a half
that is not round.  The candidates it gives are halves of a blob
(``angle_deg`` NaN), so the reader's bounds on such halves (their waist at
half their value, their distance by their edges) still apply.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .blobshape import (PAIR_MAX_DIST_RADII, PAIR_MAX_NECK_RADII, TOUCHING_MIN_DIST_RADII, _axis_ratio,
                        _half_contrast_cut, _two_means, _within_reach, pair_neck_width)

#: The joined core (the blob's pixels above half its peak, one region) of
#: two touching faces covers this many face areas (pi r^2 of the frame's
#: token radius): two faces, each with the part of its side wall that is
#: over half its contrast.
LOBES_CORE_AREA_FACES = (1.7, 2.8)
#: Each 2-means half of the core (one lobe) covers this many face areas: one
#: face, with its side wall (the wall seen on a tilted camera adds up to
#: about 0.4 of a face).
LOBE_AREA_FACES = (0.75, 1.45)
#: Each lobe is at least this round (minor / major axis of its moment
#: ellipse; a flat face seen whole is 0.85 or more, the half of a bar 4.5
#: radii long and 1-2 wide 0.45-0.9) ...
LOBE_MIN_AXIS_RATIO = 0.85
#: ... and this solid (its area over its convex hull's): a face is convex,
#: a hand's or a shadow's part is not.
LOBE_MIN_SOLIDITY = 0.9
#: Each lobe holds a whole face disc: the disc of this many token radii
#: around the lobe's centroid lies inside the core (a face's own round
#: core; a bar's half, narrower than a face, does not hold it).
LOBE_CORE_DISC_RADII = 0.7


def _lobe_shape(core: np.ndarray, lobe: np.ndarray, centre: tuple[float, float], radius_px: float
                ) -> float | None:
    """The axis ratio of one lobe (uint8 0/1, in the core's window) when it
    is one round, solid face holding its own face disc; else None."""
    face_area = math.pi * radius_px ** 2
    area = float(lobe.sum())
    if not LOBE_AREA_FACES[0] * face_area <= area <= LOBE_AREA_FACES[1] * face_area:
        return None
    rr, cc = np.nonzero(lobe)
    ratio = _axis_ratio(np.column_stack([cc, rr]))
    if ratio < LOBE_MIN_AXIS_RATIO:
        return None
    contours, _ = cv2.findContours(lobe, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    hull_area = cv2.contourArea(cv2.convexHull(outline))
    if not (hull_area > 0 and cv2.contourArea(outline) / hull_area >= LOBE_MIN_SOLIDITY):
        return None
    disc = np.zeros(core.shape, np.uint8)
    cv2.circle(disc, (int(round(centre[0])), int(round(centre[1]))),
               max(1, int(round(LOBE_CORE_DISC_RADII * radius_px))), 1, thickness=-1)
    if (disc.astype(bool) & ~core.astype(bool)).any():
        return None
    return ratio


def touching_lobes(region: np.ndarray, delta_e: np.ndarray, radius_px: float
                   ) -> list[tuple[tuple[float, float], float, float]] | None:
    """Two touching faces in a blob whose core at half contrast is one region.

    Parameters
    ----------
    region, delta_e, radius_px
        As for :func:`vision.blobshape.faces_at_half_contrast`: the blob's
        pixels (bool), the colour difference from the plate (Lab units, the
        same shape) and the token radius measured on clear discs (canonical
        pixels, > 0).

    Returns
    -------
    ``[((x, y), area_px, axis_ratio), ...]`` (two items, canonical pixels,
    each lobe's centroid and area) when the blob's pixels above half its
    peak form exactly one region (pieces under ``SPECK_MAX_AREA`` faces
    ignored) of ``LOBES_CORE_AREA_FACES`` faces whose 2-means halves are
    each one round face (:func:`_lobe_shape`), their centroids
    ``TOUCHING_MIN_DIST_RADII`` to ``PAIR_MAX_DIST_RADII`` apart, joined by
    a waist under ``PAIR_MAX_NECK_RADII`` (:func:`pair_neck_width` on the
    core), and every pixel of the blob lies within
    ``HALF_CONTRAST_MAX_REACH_RADII`` token radii of the core; None
    otherwise (also for an empty region).

    Raises
    ------
    ValueError
        ``region`` not a bool array of ``delta_e``'s shape, or ``radius_px``
        not > 0 (from :func:`vision.blobshape._half_contrast_cut`).
    """
    cut = _half_contrast_cut(region, delta_e, radius_px)
    if cut is None:
        return None
    x0, y0, blob, labels, stats, _centroids, parts = cut
    if len(parts) != 1:
        return None
    face_area = math.pi * radius_px ** 2
    core = (labels == parts[0]).astype(np.uint8)
    if not LOBES_CORE_AREA_FACES[0] * face_area <= float(core.sum()) <= LOBES_CORE_AREA_FACES[1] * face_area:
        return None
    if not _within_reach(blob, core, radius_px):
        return None  # more than the faces' edge, shadow and side wall
    means = _two_means(core.astype(bool))
    if means is None:
        return None
    pts, lab, centres = means
    c0, c1 = (float(centres[0][0]), float(centres[0][1])), (float(centres[1][0]), float(centres[1][1]))
    dist = math.hypot(c0[0] - c1[0], c0[1] - c1[1])
    if not TOUCHING_MIN_DIST_RADII * radius_px <= dist <= PAIR_MAX_DIST_RADII * radius_px:
        return None
    if pair_neck_width(core.astype(bool), c0, c1, radius_px) >= PAIR_MAX_NECK_RADII:
        return None
    faces = []
    for k, c in ((0, c0), (1, c1)):
        lobe = np.zeros(core.shape, np.uint8)
        sel = pts[lab == k].astype(np.intp)
        lobe[sel[:, 1], sel[:, 0]] = 1
        ratio = _lobe_shape(core, lobe, c, radius_px)
        if ratio is None:
            return None
        faces.append(((c[0] + x0, c[1] + y0), float(lobe.sum()), ratio))
    return faces
