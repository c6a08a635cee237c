"""A find beyond the four faces, far fainter than they are: check it, do not reshake.

On a dark glaze (black lacquer) the well's wall is a band of the glaze lit
unevenly: lighter where it faces the light, darker in its shading, and the
plate model (ring medians, a first harmonic of the angle) follows it only
in part.  The disc filter and the ring filter then find a disc-sized patch of
it, or of a face's shadow on the glaze beside it, as a pale face or an
outline: a contrast of 2-11 Lab units (2026-12-05: ten false fifth finds of
``synth_table --seeds 1716000:1716400 --kind outcome --condition
glaze=black_lacquer``), where the four faces of the same frames stand
24-81 Lab units out.  Counted, they made a valid round ``reshake``, "5 tokens
on the plate, not 4".

A fifth token is not known to be absent there either (a real fifth token may be
faint), so such a frame is not read: it is ``uncertain``, "check for a fifth
token", which a round with a real fifth token may also be.  No find is dropped
and no count changes: a frame this rule judges was never an outcome.
"""
from __future__ import annotations

from collections.abc import Sequence

from .candidates import Candidate

#: On: a frame whose finds beyond the four strongest faces are all faint finds
#: (:data:`FAINT_EXTRA_KINDS`) far fainter than those four is ``uncertain``
#: (check for a fifth token) rather than ``reshake``.  Off: ``reshake`` as before.
FAINT_EXTRA_UNCERTAIN = True

#: The kinds of find an extra may be: the disc filter's pale faces and the
#: ring filter's outlines (a blob is a clear mark of the token's own size).
FAINT_EXTRA_KINDS = ("faint", "outline")

#: An extra is far fainter than the faces when its contrast is under this share
#: of the contrast of the weakest of the four strongest faces (ratio, no unit).
#: The false finds measured 0.05-0.40 of it (2.5-10.9 Lab units against
#: 24.2-80.6); see the module docstring.
FAINT_EXTRA_MAX_REL_CONTRAST = 0.5

#: Tokens in a round.
TOKENS_PER_ROUND = 4


def faint_extras(flat: Sequence[Candidate], tokens_per_round: int = TOKENS_PER_ROUND
                 ) -> tuple[list[Candidate], float]:
    """The finds beyond the strongest ``tokens_per_round`` faces when every one
    of them is a faint find far fainter than those faces.

    Parameters
    ----------
    flat : sequence of Candidate
        The flat faces found (kinds ``disc``, ``faint``, ``outline``).
    tokens_per_round : int
        Faces in a round.

    Returns
    -------
    (list of Candidate, float)
        The extras (empty when there are none, or when any extra is a blob, of
        another kind, or at least :data:`FAINT_EXTRA_MAX_REL_CONTRAST` of the
        weakest strong face's contrast) and that weakest strong face's
        contrast, Lab units (NaN when there are not more faces than a round).
    """
    if len(flat) <= tokens_per_round:
        return [], float("nan")
    ranked = sorted(flat, key=lambda c: c.contrast, reverse=True)
    weakest = ranked[tokens_per_round - 1].contrast
    extras = ranked[tokens_per_round:]
    if all(c.kind in FAINT_EXTRA_KINDS and c.contrast < FAINT_EXTRA_MAX_REL_CONTRAST * weakest for c in extras):
        return extras, weakest
    return [], weakest
