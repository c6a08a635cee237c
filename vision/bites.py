"""Faces partly under a neighbour, told by the bite the neighbour takes out of their region.

A face with another face's edge across it leaves a region with a bite on
that side: the part its convex hull adds (``_bite``) lies off the face's
centre, towards the face on it (``_bitten_towards``); a whole face's ragged
edge adds hull all round it, centred on the face.  The token search
(:func:`vision.tokens.find_tokens`) asks this of a weak blob holding one
disc-filter face (``_bitten_by_neighbour``, from ``_weak_overlaps``, which
also makes one overlap of a weak blob holding two or more faces) and of a
clear blob face close beside another (``_bitten_blob_faces``); such a face
becomes ``partial``.  Distances are canonical pixels unless a name ends in
``_radii`` (token radii); a bite's area is in face areas (pi times the token
radius squared).
"""
from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from .blobshape import DISC_AREA_RANGE, is_overlap_pair
from .candidates import Candidate, _Blob

#: A pale blob of one face, bitten on the side of a face this near (centre
#: to centre, radii), is that face partly under its neighbour (:func:`_bitten_by_neighbour`).
BITTEN_MAX_DIST_RADII = 2.1
BITE_MIN_AREA = 0.06
BITE_MIN_OFFSET_RADII = 0.4
BITE_MIN_COSINE = 0.7
#: A clear blob face closer than this to another face (centre to centre,
#: radii), whose convex hull adds at least ``BLOB_BITE_MIN_AREA`` of a face,
#: centred at least ``BLOB_BITE_MIN_OFFSET_RADII`` from the face's centre
#: towards that face (cosine at least ``BLOB_BITE_MIN_COSINE``), is partly
#: under it (:func:`_bitten_blob_faces`).  A whole face's ragged edge adds
#: 0.03-0.07 of a face at 8-20 px radii, but all round it: centred within
#: 0.07 radii of it.  The added part's first moment about the face's centre
#: (its area in faces times its offset in radii) must also be at least
#: ``BLOB_BITE_MIN_MOMENT``: a whole face's ragged edge has one under 0.005,
#: a bite of 0.04 of a face centred 0.25 radii off has 0.01, and so does a
#: smaller bite further off (fresh leaning overlap 857360 at 640x480: a white
#: face 8 % under a red one, 1.88 radii apart, added 0.032 of a face 0.41
#: radii off towards it, moment 0.013, and was read as touching).  The area
#: floor lies under a whole face's ragged edge: whole faces are kept out by
#: the offset and moment bounds, not by it.
BLOB_BITE_MAX_DIST_RADII = 1.95
BLOB_BITE_MIN_AREA = 0.025
BLOB_BITE_MIN_OFFSET_RADII = 0.25
BLOB_BITE_MIN_MOMENT = 0.01
BLOB_BITE_MIN_COSINE = 0.9


def _weak_overlaps(cands: list[Candidate], weak: list["_Blob"], token_r: float) -> list[Candidate]:
    """``cands`` with every two or more disc-filter faces found inside one weak
    blob that is an overlap pair (:func:`is_overlap_pair`) replaced by one
    ``overlap`` candidate of that blob, and the one face found inside a weak
    blob bitten towards a neighbour (:func:`_bitten_by_neighbour`) made
    ``partial``.

    A blob too pale for its shape to be trusted goes to the disc filter
    whole; when it is two faces, one partly on the other, the filter finds
    each off its centre, away from the other (the hidden part of the lower
    face, the guard band around the blob's pixels), as far apart as touching
    faces (fresh scene 125251: two red faces on black lacquer 1.58 radii
    apart, their blob under twice the lacquer's high threshold, found 1.8
    apart and read as four tokens).  One find in an overlap-shaped blob (a
    bowl's highlight, a pale face with its shadow) is left as it is.
    """
    out = list(cands)
    for b in weak:
        inside = [c for c in out if c.found_by == "disc_filter" and c.kind == "faint"
                  and 0 <= int(round(c.y)) < b.mask.shape[0] and 0 <= int(round(c.x)) < b.mask.shape[1]
                  and b.mask[int(round(c.y)), int(round(c.x))]]
        if len(inside) == 1 and _bitten_by_neighbour(b, inside[0], out, token_r):
            out = [replace(c, kind="partial") if c is inside[0] else c for c in out]
            continue
        if len(inside) < 2 or not is_overlap_pair(b.mask, token_r, b.solidity):
            continue
        out = [c for c in out if not any(c is f for f in inside)]
        out.append(Candidate(b.x, b.y, b.equiv_radius, "overlap", b.area, b.axis_ratio, b.solidity, b.contrast,
                             crosses_rim=b.crosses_rim, found_by="blob"))
    return out


def _bitten_by_neighbour(b: "_Blob", find: Candidate, cands: list[Candidate], token_r: float) -> bool:
    """True when weak blob ``b``, holding the one disc-filter face ``find``, is a
    face partly under a neighbour: one face's area (``DISC_AREA_RANGE``), and
    the part its convex hull adds (the bite) at least ``BITE_MIN_AREA`` of a
    face, its centroid ``BITE_MIN_OFFSET_RADII`` or more from ``find``
    towards a face within ``BITTEN_MAX_DIST_RADII`` of it (the cosine of the
    angle between the two directions at least ``BITE_MIN_COSINE``).

    The filter finds such a face off its centre, away from the face on it,
    as far from it as touching faces (fresh scene 130867: a red face 1.51
    radii under a white one on a gold plate, its crescent blob under twice
    the blob threshold, found 1.8 radii from the white and read as four
    separate tokens; its bite 0.2 of a face, 0.97 radii from the find, at
    cosine 0.93 towards the white).  A whole face's ragged edge adds hull
    all round it, centred on the face."""
    rel_area = b.area / (math.pi * token_r ** 2)
    if not (DISC_AREA_RANGE[0] <= rel_area <= DISC_AREA_RANGE[1]):
        return False
    near = [c for c in cands if c is not find and c.kind in ("disc", "faint", "outline", "partial", "overlap")
            and math.hypot(c.x - find.x, c.y - find.y) <= BITTEN_MAX_DIST_RADII * token_r]
    if not near:
        return False
    return _bitten_towards(b.mask, find.x, find.y, [(c.x, c.y) for c in near], token_r,
                           min_area=BITE_MIN_AREA, min_offset_radii=BITE_MIN_OFFSET_RADII, min_cosine=BITE_MIN_COSINE)


def _bitten_towards(mask: np.ndarray, x: float, y: float, near: list[tuple[float, float]], token_r: float, *,
                    min_area: float, min_offset_radii: float, min_cosine: float, min_moment: float = 0.0) -> bool:
    """Whether a region is bitten towards one of the points ``near``.

    The part the region's convex hull adds (:func:`_bite`) must be at least
    ``min_area`` faces, its centroid at least ``min_offset_radii`` token radii
    off (x, y), the two multiplied at least ``min_moment`` (faces times
    radii), and the direction of that centroid within the angle whose cosine
    is ``min_cosine`` of the direction to some point of ``near``.

    Parameters
    ----------
    mask : ndarray, bool, (S, S)
        The region (non-empty).
    x, y : float
        The face's centre as found, canonical pixels.
    near : list of (float, float)
        The neighbours' centres, canonical pixels.
    token_r : float
        Token radius, canonical pixels (> 0).
    min_area, min_offset_radii, min_cosine, min_moment : float
        The bounds above.
    """
    face_px = math.pi * token_r ** 2
    area, offset = _bite(mask, x, y)
    off_px = math.hypot(*offset)
    return (area >= min_area * face_px and off_px >= min_offset_radii * token_r
            and area * off_px >= min_moment * face_px * token_r
            and any(_cosine(offset, (nx - x, ny - y)) >= min_cosine for nx, ny in near))


def _bite(mask: np.ndarray, x: float, y: float) -> tuple[float, tuple[float, float]]:
    """What a region's convex hull adds to it (its bites and ragged edge).

    Parameters
    ----------
    mask : ndarray, bool, (S, S)
        The region (non-empty).
    x, y : float
        A reference point, canonical pixels (the face's centre as found).

    Returns
    -------
    area : float
        Pixels of the hull not in the region.
    offset : (float, float)
        Their centroid minus (x, y), canonical pixels; (0, 0) when there are none.
    """
    pts = cv2.findNonZero(mask.astype(np.uint8))
    hull = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(pts), 1)
    rr, cc = np.nonzero(hull.astype(bool) & ~mask)
    if rr.size == 0:
        return 0.0, (0.0, 0.0)
    return float(rr.size), (float(cc.mean()) - x, float(rr.mean()) - y)


def _cosine(u: tuple[float, float], v: tuple[float, float]) -> float:
    """Cosine of the angle between two 2-vectors (0 when either is zero)."""
    nu, nv = math.hypot(*u), math.hypot(*v)
    return (u[0] * v[0] + u[1] * v[1]) / (nu * nv) if nu > 0 and nv > 0 else 0.0


def _bitten_blob_faces(cands: list[Candidate], blobs: list["_Blob"], token_r: float,
                       flat_kinds: tuple[str, ...]) -> list[Candidate]:
    """``cands`` with every blob face bitten towards a face close beside it
    made ``partial`` (a face partly under that one).

    A face measured whole as one blob (``disc``, with its own angle) within
    ``BLOB_BITE_MAX_DIST_RADII`` of another face, whose convex hull adds at
    least ``BLOB_BITE_MIN_AREA`` of a face with the added part's centroid at
    least ``BLOB_BITE_MIN_OFFSET_RADII`` off its centre (the two multiplied at
    least ``BLOB_BITE_MIN_MOMENT``), towards that face
    (cosine at least ``BLOB_BITE_MIN_COSINE``), has the other face's edge
    across it.  Touching faces meet at a point; a token
    leaning on another hides a lens of it (fresh leaning overlap 720196 at
    640x480: a white face 9.7 % under a white one, their blobs whole and
    1.86 radii apart, past the overlap bound; its hull adds 0.050 of a face
    at cosine 1.00 towards the other).  The faces that may bite are the
    candidates of ``flat_kinds`` (``vision.tokens.FLAT_KINDS``).
    """
    flat = [c for c in cands if c.kind in flat_kinds]
    out = list(cands)
    for i, c in enumerate(out):
        if c.kind != "disc" or not c.whole_blob:
            continue
        near = [(o.x, o.y) for o in flat
                if o is not c and math.hypot(o.x - c.x, o.y - c.y) < BLOB_BITE_MAX_DIST_RADII * token_r]
        own = [b for b in blobs if b.x == c.x and b.y == c.y]
        if not near or len(own) != 1:
            continue
        if _bitten_towards(own[0].mask, c.x, c.y, near, token_r, min_area=BLOB_BITE_MIN_AREA,
                           min_offset_radii=BLOB_BITE_MIN_OFFSET_RADII, min_cosine=BLOB_BITE_MIN_COSINE,
                           min_moment=BLOB_BITE_MIN_MOMENT):
            out[i] = replace(c, kind="partial")
    return out
