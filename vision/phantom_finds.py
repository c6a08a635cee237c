"""Disc-filter ``overlap`` and ``partial`` finds too faint to be any face.

The faint-disc filter (:mod:`vision.tokens`) reports a region larger than a
face as an ``overlap`` and a find beside a blob whose colour differs from it as
a face ``partial``-ly under that blob; either makes :func:`vision.reader.decide`
ask for a rearrange.  On frames whose four clear faces (blobs) are read right,
such finds also come from the plate itself: the shading of the well's wall,
a token's shadow and the plate between tokens (fresh ``outcome`` scenes
1975057, 1975102, 1975157 at 640x480: four whole clear discs of both colours,
40-75 Lab, and one disc-filter find of 6-13 Lab 1.7-2.4 radii from a disc,
where no token lies).

A face, whole or partly hidden, shows its own colour: on a frame whose clear
faces show both colours, a fifth face of either colour differs from the plate
about as much as the counted faces of its colour do (they share its plate and
light).  This is the floor the search already sets for a suspect
(``tokens.BOTH_COLOURS_SUSPECT_REL_CONTRAST``: a quarter of the weakest clear
face, or of the room the plate leaves below the sensor's ceiling).  A
disc-filter ``overlap`` or ``partial`` find under that floor, on a frame with
at least four clear whole faces besides it, is no face: not even a suspect.
It is dropped, and the frame is read from the rest (the close-pair and every
other rule of ``decide`` still apply to those faces).  Nothing is dropped
where the clear faces show one colour only: a face of the other colour (a
white on a white plate beside red discs) may differ from the plate by little.
"""

from __future__ import annotations

import math

import numpy as np

from .candidates import Candidate
from .tokens import BOTH_COLOURS_SUSPECT_REL_CONTRAST, LIGHTNESS_CEILING_L, _both_colours_contrast

#: Switch for the rule; False: every find is kept, as before.
DROP_PHANTOM_FINDS = True
#: The candidate kinds the rule may drop, each only when the disc filter found it
#: (a blob's region is a face's own, measured, not a filter's response).
PHANTOM_KINDS = ("overlap", "partial")
#: A find whose contrast (Lab units, the disc filter's face-minus-ring difference)
#: is under this share of the weakest clear face's (the same measure), or of the
#: plate's room below the ceiling, is no face.  The search's own floor for a
#: suspect on such frames (``tokens.BOTH_COLOURS_SUSPECT_REL_CONTRAST``): a
#: find too faint to be a suspect cannot be a face partly hidden either.  Seen
#: on fresh outcome scenes at 640x480: phantoms 0.10-0.21 of the weakest clear
#: face (1975057 6.1 / 47.3 Lab, 1975102 12.9 / 61.7, 1975157 9.9 / 46.5).
PHANTOM_MAX_REL_CONTRAST = BOTH_COLOURS_SUSPECT_REL_CONTRAST
#: At least this many clear whole faces (``disc`` candidates found as blobs)
#: besides the find: four whole faces are a round, and the find would be a
#: fifth token (or the frame's count holds without it).
PHANTOM_MIN_WHOLE_FACES = 4


def phantom_finds(residual: np.ndarray, background: np.ndarray, cands: list[Candidate],
                  token_r: float) -> list[Candidate]:
    """The disc-filter ``overlap`` and ``partial`` finds too faint to be a face.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Residual from the plate model with the blobs in (canonical pixels).
    background : ndarray, float32, (S, S, 3), Lab units
        The plate model (its L* sets the room below the sensor's ceiling).
    cands : list of Candidate
        Every candidate of the search, canonical pixels.
    token_r : float
        The frame's token radius, canonical pixels, > 0.

    Returns
    -------
    list of Candidate
        The finds of ``cands`` (the same objects) that are no face: kind in
        ``PHANTOM_KINDS``, found by the disc filter, contrast under
        ``PHANTOM_MAX_REL_CONTRAST`` of the weakest clear face (or of the
        room below the ceiling where less), on a frame whose clear faces show
        both colours, with ``PHANTOM_MIN_WHOLE_FACES`` clear faces or more.
        Empty when the rule is off or nothing qualifies.

    Raises
    ------
    ValueError
        ``residual`` or ``background`` not (S, S, 3), or ``token_r`` not > 0.
    """
    residual = np.asarray(residual)
    background = np.asarray(background)
    if residual.ndim != 3 or residual.shape[2] != 3 or residual.shape[0] != residual.shape[1]:
        raise ValueError(f"residual: expected shape (S, S, 3), got {residual.shape}")
    if background.shape != residual.shape:
        raise ValueError(f"background: expected shape {residual.shape}, got {background.shape}")
    if not (isinstance(token_r, (int, float)) and math.isfinite(token_r) and token_r > 0):
        raise ValueError(f"token_r: expected a positive number of pixels, got {token_r!r}")
    if not DROP_PHANTOM_FINDS:
        return []
    finds = [c for c in cands if c.kind in PHANTOM_KINDS and c.found_by == "disc_filter"]
    if not finds:
        return []
    clear = [c for c in cands if c.kind == "disc" and c.found_by == "blob"]
    if len(clear) < PHANTOM_MIN_WHOLE_FACES:
        return []
    weakest = _both_colours_contrast(residual.astype(np.float32, copy=False), list(cands), float(token_r))
    if weakest <= 0:
        return []
    s = background.shape[0]
    out = []
    for c in finds:
        xi, yi = min(max(int(round(c.x)), 0), s - 1), min(max(int(round(c.y)), 0), s - 1)
        room = LIGHTNESS_CEILING_L - float(background[yi, xi, 0])
        if c.contrast < PHANTOM_MAX_REL_CONTRAST * min(weakest, room):
            out.append(c)
    return out
