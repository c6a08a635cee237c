"""Finds beyond four faces, far paler than they are on a darker plate: check them, do not reshake.

On a dark glaze (black lacquer) the well's wall is a band of the glaze lit
unevenly: lighter where it faces the light, darker in its shading, and the
plate model (ring medians, a first harmonic of the angle) follows it only
in part.  The disc filter and the ring filter then find a disc-sized patch of
it, or of a face's shadow on the glaze beside it, as a pale face or an
outline: their face part (mean residual over 0.6 token radii) differs from
the plate by 9.3-19.9 Lab units (2026-12-05: the false fifth finds of ten
scenes of ``synth_table --seeds 1716000:1716400 --kind outcome --condition
glaze=black_lacquer --condition kelvin=2700:3800``), where the four faces of
the same frames, each lighter than the lacquer, have a median of 46.4-92.1
(shares 0.12-0.42).  Counted, they made a valid round ``reshake``, "5 tokens
on the plate, not 4".

A fifth token is not known to be absent there either (a real fifth token may be
faint), so such a frame is not read: it is ``uncertain``, "check for a fifth
token", which a round with a real fifth token may also be.  No find is dropped
and no count changes: a frame this rule judges was never an outcome.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .candidates import Candidate, _mean_residual
from .tokens import RED_AMONG_FAINT_MIN_DELTA_A, TOKENS_PER_ROUND

#: On: a frame whose finds beyond four faces are all faint finds
#: (:data:`FAINT_EXTRA_KINDS`) far paler than those faces, on a plate darker
#: than each of them, is ``uncertain`` (check for a fifth token) rather than
#: ``reshake``.  Off: ``reshake`` as before.
FAINT_EXTRA_UNCERTAIN = True

#: The kinds of find an extra may be: the disc filter's pale faces and the
#: ring filter's outlines (a blob is a clear mark of the token's own size).
FAINT_EXTRA_KINDS = ("faint", "outline")

#: A find's own colour is the mean residual over this share of the token
#: radius around its centre (its face part), Lab units.
FAINT_EXTRA_CORE_RADII = 0.6

#: An extra is far paler than the faces when its own colour difference from
#: the plate is under this share of the faces' median (ratio, no unit).  The
#: filters' contrasts do not compare (a ring's depth for an outline, a disc
#: against its surround for a faint find), the face part's colour does.
#: False finds of 2026-12-05 measured 0.2-0.4 of it; real fifth tokens on the
#: same lacquer 0.3-1.0 (those under the share also abstain, never an outcome).
FAINT_EXTRA_MAX_REL_CORE = 0.5

#: An extra at least this much redder than the plate (a* residual of its face
#: part, Lab units) may be a red face in dim light, paler than white faces
#: beside it (fifth tokens of 2026-12-05, 640x480: a* +10.8 to +28.1): it stays
#: counted.  The false finds were the glaze's own colour (a* -1.2 to +2.0).
FAINT_EXTRA_MAX_DELTA_A = RED_AMONG_FAINT_MIN_DELTA_A


def faint_extras(flat: Sequence[Candidate], residual: np.ndarray, token_r: float,
                 tokens_per_round: int = TOKENS_PER_ROUND) -> tuple[list[Candidate], float, float]:
    """The finds beyond the ``tokens_per_round`` faces most unlike the plate,
    when the plate is darker than each of those faces and every extra is a
    faint find far paler than they are.

    Parameters
    ----------
    flat : sequence of Candidate
        The flat faces found (kinds ``disc``, ``faint``, ``outline``), canonical pixels.
    residual : ndarray, float32, (H, W, 3)
        The searched view's residual (Lab units).
    token_r : float
        The frame's token radius, canonical pixels.
    tokens_per_round : int
        Faces in a round.

    Returns
    -------
    (list of Candidate, float, float)
        The extras (empty when there are none, when a face is not lighter than
        the plate, or when any extra is a blob, of another kind, at least
        :data:`FAINT_EXTRA_MAX_REL_CORE` of the faces' median colour
        difference, or at least :data:`FAINT_EXTRA_MAX_DELTA_A` redder than the plate), the largest extra's colour difference and the faces'
        median, Lab units (NaN when there are not more faces than a round).
    """
    nan = float("nan")
    if len(flat) <= tokens_per_round:
        return [], nan, nan
    cores = [_mean_residual(residual, c.x, c.y, FAINT_EXTRA_CORE_RADII * token_r) for c in flat]
    norms = [float(np.linalg.norm(core)) for core in cores]
    order = sorted(range(len(flat)), key=lambda i: norms[i], reverse=True)
    faces, extras = order[:tokens_per_round], order[tokens_per_round:]
    median = float(np.median([norms[i] for i in faces]))
    largest = norms[extras[0]]
    lighter = all(float(cores[i][0]) > 0.0 for i in faces)
    if lighter and all(flat[i].kind in FAINT_EXTRA_KINDS and norms[i] < FAINT_EXTRA_MAX_REL_CORE * median
                       and float(cores[i][1]) < FAINT_EXTRA_MAX_DELTA_A for i in extras):
        return [flat[i] for i in extras], largest, median
    return [], largest, median
