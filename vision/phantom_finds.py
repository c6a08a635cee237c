"""Disc-filter ``overlap`` and ``partial`` finds too faint to be any face.

The faint-disc filter (:mod:`vision.tokens`) reports a region larger than a
face as an ``overlap`` and a find beside a blob whose colour differs from it as
a face ``partial``-ly under that blob; either makes :func:`vision.reader.decide`
ask for a rearrange.  On frames whose four clear faces (blobs) are read right,
such finds also come from the plate itself: the shading of the well's wall,
a token's shadow and the plate between tokens (fresh ``outcome`` scene
1975057 at 640x480, black lacquer: four whole clear discs of both colours,
the weakest 50.5 Lab, and a disc-filter ``overlap`` of 6.1 Lab at the foot of
the well's wall, 2.2 radii from a disc, where no token lies).

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

Measured (A/B, rule on vs off, fresh seeds): outcome 640x480 249 vs 247 right
of 400, 1280x720 189 vs 187 of 300, 1024x768 194 vs 194 of 300; five_tokens
640x480 242 vs 241 of 300 (1983014 rearrange -> reshake); overlap 640x480 272
vs 272 of 400 and 1280x720 220 vs 220 of 300, three_tokens 640x480 223 of 300,
touching 1024x768 63 of 200 and a natural mix at 1024x768 143 of 200,
unchanged.  No wrong outcome added.  ``bench/check_same.py``: two frames
change, both to their labels (synth 7013 outcome and 7017 touching,
rearrange -> outcome 2 red; phantom partials at 0.07 and 0.09 of the floor
base); the studio renders: no reading changes.  On 300 overlap scenes at 640x480 no frame had four clear faces (a face
partly under another is no whole blob), and the true faces found as disc-filter
overlap/partial on both-colour frames measured 0.80 or more of the weakest clear
face (three times the floor); phantoms 0.12-0.48.  Most of the ``rearrange``
readings of separated tokens stay: a true face whose faint region measures
not round or too large (about 18 of 30 at 640x480), phantoms on frames whose
clear faces are of one colour, and phantoms on bright glazes (gold, L* 88)
where the room below the ceiling (12 L) sets the floor.
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
#: find too faint to be a suspect cannot be a face partly hidden either.  The
#: phantoms it dropped on fresh scenes measured 0.12-0.23 of that (1975057 6.1
#: of 50.5 Lab; 1983014, five_tokens, 5.1 of a 22.3 room); true faces found as
#: disc-filter overlap/partial on both-colour overlap scenes 0.80 or more.
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
