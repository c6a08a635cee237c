"""A face joined to the well wall's glaze arc is that face, not an object.

On a glossy plate (black lacquer above all) seen at an angle, the light's
highlight on the well's wall is a thin, bright arc along the rim, about 0.78-0.9
of the plate radius out.  Alone it is dropped as the plate's own
(:func:`vision.blobshape.is_rim_arc`).  A token lying against the wall
touches that arc, and the two become one blob that reaches past the rim
crossing (``vision.tokens.RIM_CROSSING_FRAC``) and is larger or longer than a face:
an ``object`` ("something larger than a token across the rim"), and the
reading abstains.  Fresh tilted black lacquer at 800x600 (1711000-1711399):
54 of 400 frames abstained so.

:func:`without_rim_arcs` takes the arc off such a blob, and the search then
judges what is left as it judges any blob:

* the blob is opened with a disc ``FACE_CORE_OPEN_RADII`` token radii across:
  a face (two radii across) stays, a wall arc (at most
  ``vision.blobshape.RIM_ARC_MAX_THICKNESS_FRAC`` of the plate radius thick,
  0.6-0.8 token radii) and a stick (4-8 px of the 128 px plate radius) do
  not; exactly one part must stay, of at most ``FACE_CORE_MAX_AREA`` face
  areas (a hand stays whole, far larger);
* what the opening took away, beyond ``FACE_CORE_GROW_PX`` of that part and
  in pieces of ``ARC_PIECE_MIN_PX`` pixels or more, must be, all together, a
  thin, even arc along the rim (:func:`vision.blobshape.is_rim_arc`: beyond
  0.7 of the plate radius, a band at most 0.09 of it thick, at least three
  token radii long, no bump).  A straight stick leaving a face near the wall
  is no such arc: it runs out across the radii (a band thicker than 0.09),
  or, laid along the wall, it is a chord, whose distance from the centre
  bends by far more than the bump bound over a few token radii.

Measured (arc taken off, fresh tilted black lacquer 1740000-1740129 at
800x600, 10 blobs): the arc 0.80-0.82 plate radii in, band 0.058-0.075,
4.6-11.2 token radii long, largest bump 0.018-0.115 radii (bound
``RIM_ARC_MAX_BUMP_RADII`` 0.12).  Rod and hand blobs with one face-sized
part (stick kind, black lacquer, 1742000-1742199, 14 such blobs): bands
0.06-0.50; the two within the band bound (a rod over a token, 1742130: band
0.080, 7.3 radii long; a hand over one, 1742187: 0.070, 5.7) are kept by
their bumps alone, 0.19 and 0.14 radii: a thin margin over the arcs' 0.115.
In both the rod or hand also makes a blob too large to be split (3.2 and 6.0
faces) and the reading abstains on it; the rod reaching in from the cloth
(``vision.reader.plate_intrusions``) is a further, separate stop.

Taken off, the arc's pixels are left to the plate; the blob's other pixels
(the face, with any crumbs smaller than a piece) are measured again as one
blob.  Anything that does not pass stays the blob it was.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import cv2
import numpy as np

from .blobshape import is_rim_arc
from .candidates import _Blob

#: Switch: False keeps every blob as found (the object abstention as before).
FACE_OFF_RIM_ARC = True
#: Diameter of the opening disc, token radii: a face (2 radii across) survives
#: it, the wall's arc (0.6-0.8 radii thick where it is widest, measured 7-15 px
#: at token radii 14-20 px) and a stick (0.03-0.06 plate radii) do not.
FACE_CORE_OPEN_RADII = 1.0
#: The part that survives the opening may be at most this many face areas
#: (pi r^2 of the frame's token radius): a face with its wall or shadow, or
#: two faces touching, which the search judges on its own rules; a hand's
#: palm is far larger and stays an object.
FACE_CORE_MAX_AREA = 2.4
#: What the opening took away counts as arc only beyond this many pixels from
#: the surviving part (the face's own blurred edge, cut by the opening, stays
#: with the face).
FACE_CORE_GROW_PX = 2
#: Pieces of the taken-away part smaller than this (pixels) are crumbs of
#: the face's edge, kept with it; larger ones must all be arc.
ARC_PIECE_MIN_PX = 8


def face_off_rim_arc(region: np.ndarray, radius_frac: np.ndarray, plate_radius_px: float,
                     token_radius_px: float) -> np.ndarray | None:
    """The region without the wall's glaze arc joined to it, or None.

    Parameters
    ----------
    region : ndarray, bool, (S, S)
        One blob's pixels in the canonical view.
    radius_frac : ndarray, float, (S, S)
        Each pixel's distance from the plate centre, fractions of the plate radius.
    plate_radius_px : float
        The plate radius, canonical pixels (> 0).
    token_radius_px : float
        The frame's token radius, canonical pixels (> 0).

    Returns
    -------
    ndarray, bool, (S, S), or None
        The region's pixels less the arc, when the region is one face-sized
        part (see the module docstring) joined to pieces that together are a
        rim arc; None otherwise (the region stays as it is).
    """
    if region.shape != radius_frac.shape:
        raise ValueError(f"region: expected shape {radius_frac.shape}, got {region.shape}")
    if not (plate_radius_px > 0 and token_radius_px > 0):
        raise ValueError(f"plate_radius_px, token_radius_px: expected > 0, got {plate_radius_px}, {token_radius_px}")
    face_area_px = math.pi * token_radius_px ** 2
    mask = np.ascontiguousarray(region, dtype=bool).view(np.uint8)
    d = max(3, int(round(FACE_CORE_OPEN_RADII * token_radius_px)) | 1)
    core = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)))
    n, _, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    if n != 2 or stats[1, cv2.CC_STAT_AREA] > FACE_CORE_MAX_AREA * face_area_px:
        return None
    g = 2 * FACE_CORE_GROW_PX + 1
    near = cv2.dilate(core, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (g, g)))
    rest = mask & (1 - near)
    m, labels, rstats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
    pieces = [i for i in range(1, m) if rstats[i, cv2.CC_STAT_AREA] >= ARC_PIECE_MIN_PX]
    if not pieces:
        return None
    arc = np.isin(labels, pieces)
    if not is_rim_arc(arc, radius_frac, token_radius_px / plate_radius_px):
        return None
    return region & ~arc


def without_rim_arcs(blobs: Sequence[_Blob], radius_frac: np.ndarray, plate_radius_px: float,
                     token_radius_px: float, measure: Callable[[np.ndarray], list[_Blob]]) -> list[_Blob]:
    """``blobs`` with each that reaches past the rim crossing (``crosses_rim``)
    and is a face joined to the wall's arc (:func:`face_off_rim_arc`)
    replaced by that face, measured again by ``measure`` (the token search's
    blob measurement of a uint8 mask; the replacement is taken only when it
    gives exactly one blob).  Unchanged when ``FACE_OFF_RIM_ARC`` is False."""
    if not FACE_OFF_RIM_ARC:
        return list(blobs)
    out = []
    for b in blobs:
        if b.crosses_rim:
            face = face_off_rim_arc(b.mask, radius_frac, plate_radius_px, token_radius_px)
            if face is not None:
                found = measure(face.view(np.uint8))
                if len(found) == 1:
                    b = found[0]
        out.append(b)
    return out
