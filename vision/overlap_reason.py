"""Why the reader asks for a rearrange when tokens seem to overlap.

:func:`vision.reader.decide` asks for a rearrange when the token search
found an ``overlap`` (a disc-filter find larger than one face), two flat
faces closer than an overlap's bound, or a ``partial`` (a face cut or not
round) beside four tokens.  :func:`overlap_reason` names which of the three
fired and what was measured, so the supervisor can tell from the reason what
the reader saw; :func:`overlap_verdict` also abstains where the find lies
besides four flat faces already counted (see ``EXTRA_FIND_UNCERTAIN``).
Distances are in token radii, areas in face areas (pi r^2 of the frame's
token radius).
"""
from __future__ import annotations

import math
from typing import Sequence

from .candidates import Candidate
from .tokens import TOKENS_PER_ROUND

#: When the flat faces found already number ``TOKENS_PER_ROUND`` or more and
#: the only evidence of an overlap is a disc-filter find besides them (an
#: ``overlap`` find of the disc filter, or a ``partial``), with no two flat
#: faces close: say ``uncertain`` rather than ``rearrange``.  Two tokens one
#: partly on the other are counted as one flat face and that find, so four
#: flat faces and the find would be five or six tokens: either a token
#: too many (a ``reshake``), or the find is no token (the plate's shading on
#: an over-exposed glaze, a face's shadow or wall).  Neither is a rearrange;
#: abstaining is safe for both.  A find the blob search measured as two
#: faces (``found_by == "blob"``) is strong evidence of its own and keeps its
#: rearrange.  (Fresh scenes 2080000-2080299, outcome 640x480 with
#: exposure_stops 0.5-1: 8 of the 14 generic rearranges were four flat faces
#: and such a find; overlap 800x600, 2081000-2081299: no rearrange of an
#: overlap scene had four flat faces and a disc-filter find only.  A/B on
#: fresh 2084000-2087699: rearranges of four flat separated tokens 33 -> 17
#: over-exposed, 30 -> 20 motion-blurred, 17 -> 14 at 640x480, 13 -> 8 at
#: 1280x720, 8 -> 4 at 1080x1920 on red/wood/beige cloth, five_tokens 20 -> 1;
#: overlap scenes lost 1 of 216 and 1 of 223 right rearranges (to uncertain:
#: the overlapping pair itself read as two faces 1.85 radii apart); no
#: outcome changed anywhere: the rule only abstains.)
EXTRA_FIND_UNCERTAIN = True


def _check_radius(radius_px: float) -> float:
    if not (isinstance(radius_px, (int, float)) and math.isfinite(radius_px) and radius_px > 0):
        raise ValueError(f"radius_px: expected a finite number > 0, got {radius_px!r}")
    return float(radius_px)


def _partial_words(c: Candidate, face_area_px: float) -> str:
    """What a ``partial`` candidate is, in words with its measurement."""
    if c.found_by == "blob":
        return (f"a face cut or not round ({c.area_px / face_area_px:.2f} faces large, axis ratio "
                f"{c.axis_ratio:.2f}, contrast {c.contrast:.1f} Lab units)")
    if c.axis_ratio <= 0.0:
        # vision.tokens hidden_face: a disc-filter peak partly under a blob (no shape measured)
        return f"a face partly under another (contrast {c.contrast:.1f} Lab units)"
    return (f"a find one face large but not round ({c.area_px / face_area_px:.2f} faces, axis ratio "
            f"{c.axis_ratio:.2f}, contrast {c.contrast:.1f} Lab units: upright or steeply tilted?)")


def overlap_reason(overlaps: Sequence[Candidate], close_dists_radii: Sequence[float],
                   partials: Sequence[Candidate], n_tokens: int, radius_px: float) -> str:
    """The reason of decide's generic rearrange, naming the rule that fired.

    Parameters
    ----------
    overlaps : sequence of Candidate
        The ``overlap`` finds (disc-filter finds larger than one face).
    close_dists_radii : sequence of float
        For each pair of flat faces closer than an overlap's bound, the
        smaller of its two distances (by centres, by edges), token radii.
    partials : sequence of Candidate
        The ``partial`` finds.
    n_tokens : int
        Tokens counted (an overlap counts two), >= 0.
    radius_px : float
        The frame's token radius, canonical pixels, > 0.

    Returns
    -------
    str
        ``"tokens overlap: <what was seen>: rearrange without turning any"``;
        the first that applies of: the largest overlap find, the closest
        pair, the most drawn-out partial.

    Raises
    ------
    ValueError
        ``radius_px`` not > 0, ``n_tokens`` negative, or nothing fired.
    """
    r = _check_radius(radius_px)
    if not (isinstance(n_tokens, int) and n_tokens >= 0):
        raise ValueError(f"n_tokens: expected an int >= 0, got {n_tokens!r}")
    face_area = math.pi * r * r
    if overlaps:
        c = max(overlaps, key=lambda o: o.area_px)
        what = (f"a find {c.area_px / face_area:.1f} faces large (axis ratio {c.axis_ratio:.2f}, contrast "
                f"{c.contrast:.1f} Lab units)")
        if len(overlaps) > 1:
            what += f" and {len(overlaps) - 1} more"
    elif close_dists_radii:
        what = f"two faces {min(close_dists_radii):.2f} token radii apart"
        if len(close_dists_radii) > 1:
            what += f" ({len(close_dists_radii)} such pairs)"
    elif partials:
        c = min(partials, key=lambda p: (p.found_by != "blob", p.axis_ratio if p.axis_ratio > 0 else 2.0))
        what = f"{_partial_words(c, face_area)} beside {n_tokens - 1} more tokens"
    else:
        raise ValueError("overlaps, close_dists_radii, partials: expected at least one non-empty")
    return f"tokens overlap: {what}: rearrange without turning any"


def overlap_verdict(overlaps: Sequence[Candidate], close_dists_radii: Sequence[float],
                    partials: Sequence[Candidate], n_tokens: int, n_flat: int, radius_px: float
                    ) -> tuple[str, str, float]:
    """Decide's verdict where tokens seem to overlap: ``rearrange``, or
    ``uncertain`` when the only overlap evidence is a disc-filter find
    besides four whole flat faces (see ``EXTRA_FIND_UNCERTAIN``).

    Parameters
    ----------
    overlaps, close_dists_radii, partials, n_tokens, radius_px
        As for :func:`overlap_reason`.
    n_flat : int
        Flat faces found (``disc``, ``faint``, ``outline``), >= 0.

    Returns
    -------
    verdict : str
        ``"rearrange"`` or ``"uncertain"``.
    reason : str
        What was seen, with its measurement.
    confidence : float
        0.85 for a rearrange (as before), 0.5 for uncertain.

    Raises
    ------
    ValueError
        As :func:`overlap_reason`, or ``n_flat`` negative.
    """
    if not (isinstance(n_flat, int) and n_flat >= 0):
        raise ValueError(f"n_flat: expected an int >= 0, got {n_flat!r}")
    reason = overlap_reason(overlaps, close_dists_radii, partials, n_tokens, radius_px)
    extra_only = (not close_dists_radii and (overlaps or partials)
                  and all(c.found_by != "blob" for c in overlaps))
    if EXTRA_FIND_UNCERTAIN and extra_only and n_flat >= TOKENS_PER_ROUND:
        face_area = math.pi * float(radius_px) ** 2
        if overlaps:
            c = max(overlaps, key=lambda o: o.area_px)
            what = (f"a find {c.area_px / face_area:.1f} faces large (axis ratio {c.axis_ratio:.2f}, contrast "
                    f"{c.contrast:.1f} Lab units)")
        else:
            c = min(partials, key=lambda p: (p.found_by != "blob", p.axis_ratio if p.axis_ratio > 0 else 2.0))
            what = _partial_words(c, face_area)
        return ("uncertain", f"{n_flat} flat faces found and besides them {what}: a token too many, or "
                f"shading or a shadow read as one? check by hand", 0.5)
    return "rearrange", reason, 0.85
