"""Two faces read as one: a token lying mostly on another, found as a single drawn-out face.

A token pushed onto another and lying nearly on it (centres under one token
radius apart) hides all of the lower face but a crescent.  At a small token
size (7 px radius at 640x360) the crescent and the upper face make one blob,
a little larger than a face and drawn out along the line of their centres;
it is no longer round enough, nor large enough, to be taken for an overlap
(``vision.blobshape.DISC_AREA_RANGE``, where the token size measured on the
discs, the pair among them, is itself inflated by it), and is kept as one
flat face.  The frame then counts one token short and reads ``reshake``
where the truth is a rearrange (clips 1300124 and 1300128
``overlap_rearrange`` at 640x360: the pair read as one face 1.18 and 1.15
face areas large, axis ratio 0.72 and 0.79, the other faces 0.91-0.93).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .candidates import Candidate

#: A flat blob face at least this many face areas (pi r^2 of the frame's
#: token radius, canonical view) and drawn out (see below) is taken for two
#: faces, one partly on the other, when the count is one short for each such
#: face.  A face seen whole is at most a face large (a measured disc's area
#: scatters 0.75-1.10 face areas about the frame's size, which is their
#: mean); a tilted or standing token's face is foreshortened, smaller than
#: one.  The merged pairs of clips 1300124 and 1300128 measured 1.18 and 1.15.
MERGED_PAIR_MIN_AREA_FACES = 1.1
#: ... and at least this many times the median area of the frame's other whole
#: blob discs (at least one needed): the frame's token size is their mean, so
#: a frame whose faces all measure large (fresh scene 1650161, three tokens at
#: 1280x720: three faces of 1.15-1.18 face areas, one of axis ratio 0.84) has
#: none larger than the others.  The merged pairs: 1.47 and 1.34 times the
#: others' median; 1650161's drawn-out face 1.02.
MERGED_PAIR_MIN_AREA_OF_OTHERS = 1.25
#: ... and its minor / major axis ratio, canonical view, is below this (a flat
#: face there is a circle; ``vision.reader.OUTCOME_MIN_AXIS_RATIO``, 0.85, the
#: outcome's own bound, is the value used).  The merged pairs: 0.72 and 0.79.
MERGED_PAIR_MAX_AXIS_RATIO = 0.85
#: Off: a count one short is a ``reshake``, whatever the shape of the faces counted.
MERGED_PAIR_REARRANGE = True


def merged_pairs(flat: Sequence[Candidate], token_radius_px: float,
                 drawn_out_alike: Callable[[Candidate, list[Candidate]], bool]) -> list[Candidate]:
    """The flat faces that may be two tokens, one lying mostly on the other.

    Parameters
    ----------
    flat : sequence of Candidate
        The frame's flat faces (canonical view pixels).
    token_radius_px : float
        The frame's token radius, canonical view pixels; > 0.
    drawn_out_alike : callable
        ``(face, flat) -> bool``: the face is drawn out the way the frame's
        other faces are (the camera's blur, not the face's shape); such a
        face is not taken for a pair.

    Returns
    -------
    list of Candidate
        Whole blob discs (shape measured on the blob itself) at least
        ``MERGED_PAIR_MIN_AREA_FACES`` face areas large and
        ``MERGED_PAIR_MIN_AREA_OF_OTHERS`` times the median of the other
        whole blob discs (none: no pair), and less round than
        ``MERGED_PAIR_MAX_AXIS_RATIO``, not drawn out alike; empty when
        ``MERGED_PAIR_REARRANGE`` is off or the radius is not positive.
    """
    if not MERGED_PAIR_REARRANGE or not token_radius_px > 0:
        return []
    face_area = math.pi * token_radius_px ** 2
    flat = list(flat)
    blobs = [c for c in flat if c.kind == "disc" and c.whole_blob]
    out = []
    for c in blobs:
        others = [o.area_px for o in blobs if o is not c]
        if (others and c.area_px >= MERGED_PAIR_MIN_AREA_FACES * face_area
                and c.area_px >= MERGED_PAIR_MIN_AREA_OF_OTHERS * float(np.median(others))
                and c.axis_ratio < MERGED_PAIR_MAX_AXIS_RATIO and not drawn_out_alike(c, flat)):
            out.append(c)
    return out


__all__ = ["MERGED_PAIR_MAX_AXIS_RATIO", "MERGED_PAIR_MIN_AREA_FACES", "MERGED_PAIR_MIN_AREA_OF_OTHERS", "MERGED_PAIR_REARRANGE",
           "merged_pairs"]
