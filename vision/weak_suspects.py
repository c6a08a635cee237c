"""Suspects far weaker than every counted face, on a frame whose faces stand out clearly.

The token search keeps disc-like evidence it neither counts nor explains as
a *suspect* (:mod:`vision.tokens`), and a frame with four tokens counted and
a suspect left is ``uncertain`` ("check for a fifth token").  On fresh
four-flat scenes (``synth_table --kind outcome``, 640x480, seeds
2000000-2000399 and 2110000-2110399) most such suspects were nothing a token
makes: plate texture and chroma noise (black lacquer's speckle, celadon's
mottling, JPEG's colour blocks), the bare plate in the pocket between two
faces, or the well's wall; their face part differed from the plate around
them by 1-5 Lab units.

A fifth token is red or white.  Lying flat on the same plate under the same
light, its face differs from the plate beside it about as a counted face of
its colour does.  So where the four counted faces read both colours and each
of them differs from the plate around it by :data:`MIN_FACE_DIFF_LAB` or
more (the two colours are then measured far above the noise), a suspect
whose own face part differs from the plate around it by less than
:data:`MAX_SHARE_OF_WEAKEST` of the weakest counted face's difference, and
so does no face-sized patch within a token radius of it (probes,
:data:`PROBE_RADII`: its peak may lie off a real face's centre), is no token
of either colour, and is explained away.  Nothing is counted and no
find is dropped from the search: the rule only lets a frame whose suspects
are all so explained go on to the reader's other tests.

Not judged (they stay suspects): a suspect within
:data:`MIN_DIST_FROM_COUNTED_RADII` of a counted face (that face itself is in
doubt, e.g. an outline beside a standing token's bar,
:mod:`vision.faint_beside_bar`); one of disc contrast
:data:`MAX_SUSPECT_CONTRAST_LAB` or more (a speck of a token's colour, a side
wall with no face); one whose plate ring is mostly hidden by counted tokens
or lies off the plate (:data:`MIN_RING_SHARE`).  On frames whose whites
barely differ from the plate (white porcelain, cream: 1.5-5.6 Lab) nothing is
judged: there a real fifth white measured 0.24 of the counted whites' own
difference (fresh five-token scene 2111057, 640x480).

Measured (``ab_table``, rule on against off, 200 fresh scenes a set, seeds
2115000-2119799): outcome 640x480 118 vs 116 right, dark glazes (black
lacquer, celadon, gold, pale blue) 640x480 125 vs 124 and 1024x768 123 vs
122, touching on dark glazes 1024x768 79 vs 77; no change on outcome
1280x720 and pale glazes, touching, tilted, overlap, upright, stick, three
and five tokens (these also on dark glazes, and fifths at the wall or
touching another); 0 wrong outcomes either side.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["WEAK_SUSPECTS_EXPLAINED", "face_difference", "unexplained_suspects"]

#: On: suspects far weaker than every counted face (see the module's text)
#: are explained away on a frame of four counted faces of both colours.
#: Off: every suspect stops an outcome, as before.
WEAK_SUSPECTS_EXPLAINED = True

#: A find's own colour: the mean residual over this share of the token radius
#: around its centre (its face part, clear of its edge and wall), token radii.
CORE_RADII = 0.6
#: The plate around a find: the ring between these distances from its
#: centre, token radii (beyond its own edge and wall, 1.0-1.3).
PLATE_RING_RADII = (1.3, 2.0)
#: Counted faces are left out of the plate ring to this distance from their
#: centres, token radii: a face with its side wall and shadow.
TOKEN_HIDE_RADII = 1.6
#: The core of a find is measured clear of the counted faces too, to this
#: distance from their centres, token radii: a face with its side wall
#: (a probe beside a face must not measure that face).
CORE_HIDE_RADII = 1.3
#: At least this share of the core's pixels must be left clear of them.
MIN_CORE_SHARE = 0.5
#: A suspect is judged at its own centre and at probes around it, token
#: radii from it (eight directions at each distance): its peak may lie off a
#: real face's centre, and no face-sized patch within a radius of the
#: suspect may differ from the plate around it by the share.
PROBE_RADII = (0.5, 1.0)
PROBE_DIRECTIONS = 8
#: Pixels of the plate ring beyond this share of the plate radius are left
#: out too: the rim and the cloth are not the plate beside a face.
PLATE_MAX_RADIUS_FRAC = 0.95
#: At least this share of the plate ring's pixels must be left to measure
#: the plate around a find (else the find is not judged).
MIN_RING_SHARE = 0.5
#: Each counted face must differ from the plate around it by at least this
#: much, Lab units (norm of its core's mean minus the plate ring's): then
#: both colours are measured far above the noise and a fifth face of either
#: colour would show a like difference.  Whites on black lacquer, celadon,
#: gold and pale blue measured 17.9-92; whites on white porcelain and cream
#: 1.5-5.6, where the rule stays off.
MIN_FACE_DIFF_LAB = 12.0
#: A suspect whose own difference from the plate around it is under this
#: share of the weakest counted face's is no face.  False suspects on frames
#: of both colours whose faces all passed :data:`MIN_FACE_DIFF_LAB` measured
#: 0.011-0.11 of it (black lacquer, gold; fresh four-flat scenes 2110000-
#: 2110399 at 640x480); real fifth tokens found only as suspects, on frames
#: of both colours, 0.295 and more (0.295: a fifth at the foot of the well's
#: wall on celadon, whose whites differed by only 6.6, 2111519), and the
#: pale fifths of :mod:`vision.faint_extra` (black lacquer, warm light) 0.3 or
#: more of the faces' median: half the least real share.
MAX_SHARE_OF_WEAKEST = 0.15
#: A suspect of this disc contrast or more is not judged, Lab units: the
#: search's marks of a token's colour too small to be one (20 or more) and
#: its side walls with no face (15 L or more darker than the plate) stay.
MAX_SUSPECT_CONTRAST_LAB = 12.0
#: A suspect this near a counted face's centre, token radii, is that face
#: put in doubt; it is not judged.
MIN_DIST_FROM_COUNTED_RADII = 1.0

COLOURS = ("red", "white")


def face_difference(residual: np.ndarray, radius_px: np.ndarray, plate_radius_px: float, x: float, y: float,
                    token_r: float, hidden: Sequence[tuple[float, float]]) -> float | None:
    """How much the face part at (x, y) differs from the plate around it.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Residual from the plate model, canonical pixels.
    radius_px : ndarray, float32, (S, S)
        Each pixel's distance from the plate centre, canonical pixels.
    plate_radius_px : float
        The plate radius, canonical pixels (> 0).
    x, y : float
        Centre, canonical pixels.
    token_r : float
        The frame's token radius, canonical pixels (> 0).
    hidden : sequence of (float, float)
        Centres of the tokens left out of the plate ring (to
        :data:`TOKEN_HIDE_RADII`) and of the core (to
        :data:`CORE_HIDE_RADII`), canonical pixels.

    Returns
    -------
    float or None
        Norm of the core's mean residual (:data:`CORE_RADII`) minus the
        plate ring's (:data:`PLATE_RING_RADII`), Lab units; None when less
        than :data:`MIN_RING_SHARE` of the ring or :data:`MIN_CORE_SHARE`
        of the core is left.
    """
    if not isinstance(residual, np.ndarray) or residual.ndim != 3 or residual.shape[2] != 3:
        raise ValueError(f"residual: expected an (S, S, 3) array, got {getattr(residual, 'shape', type(residual))}")
    if not isinstance(radius_px, np.ndarray) or radius_px.shape != residual.shape[:2]:
        raise ValueError(f"radius_px: expected shape {residual.shape[:2]}, got {getattr(radius_px, 'shape', None)}")
    if not plate_radius_px > 0:
        raise ValueError(f"plate_radius_px: expected > 0, got {plate_radius_px}")
    if not token_r > 0:
        raise ValueError(f"token_r: expected > 0, got {token_r}")
    reach = PLATE_RING_RADII[1] * token_r
    h, w = residual.shape[:2]
    x0, x1 = max(int(math.floor(x - reach)), 0), min(int(math.ceil(x + reach)) + 1, w)
    y0, y1 = max(int(math.floor(y - reach)), 0), min(int(math.ceil(y + reach)) + 1, h)
    if x0 >= x1 or y0 >= y1:
        return None
    rr, cc = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(cc - x, rr - y)
    patch = residual[y0:y1, x0:x1]
    core_all = d < CORE_RADII * token_r
    core = core_all.copy()
    ring_all = (d >= PLATE_RING_RADII[0] * token_r) & (d < reach)
    ring = ring_all & (radius_px[y0:y1, x0:x1] < PLATE_MAX_RADIUS_FRAC * plate_radius_px)
    for hx, hy in hidden:
        dist = np.hypot(cc - hx, rr - hy)
        ring &= dist >= TOKEN_HIDE_RADII * token_r
        core &= dist >= CORE_HIDE_RADII * token_r
    # the full ring's pixel count, also where the canvas cuts it
    n_full = math.pi * (reach ** 2 - (PLATE_RING_RADII[0] * token_r) ** 2)
    if not core.any() or core.sum() < MIN_CORE_SHARE * core_all.sum() or ring.sum() < MIN_RING_SHARE * n_full:
        return None
    diff = patch[core].astype(np.float64).mean(axis=0) - patch[ring].astype(np.float64).mean(axis=0)
    return float(np.linalg.norm(diff))


def unexplained_suspects(residual: np.ndarray, radius_px: np.ndarray, plate_radius_px: float,
                         suspects: Sequence[tuple[float, float, float]], faces_xy: Sequence[tuple[float, float]],
                         face_colours: Sequence[str | None], token_r: float) -> list[tuple[float, float, float]]:
    """The suspects not explained away as far weaker than every counted face.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Residual from the plate model, canonical pixels.
    radius_px : ndarray, float32, (S, S)
        Each pixel's distance from the plate centre, canonical pixels.
    plate_radius_px : float
        The plate radius, canonical pixels (> 0).
    suspects : sequence of (x, y, contrast)
        The search's suspects: canonical pixels, disc contrast in Lab units.
    faces_xy : sequence of (float, float)
        Centres of the counted flat faces, canonical pixels.
    face_colours : sequence of str or None
        Each counted face's reading (``red``, ``white``, anything else
        undecided), aligned with ``faces_xy``.
    token_r : float
        The frame's token radius, canonical pixels.

    Returns
    -------
    list of (x, y, contrast)
        ``suspects`` in order, less those explained away; all of them when the
        rule is off, when ``token_r`` is not positive, or when the counted
        faces are not four of both colours each differing from the plate
        around it by :data:`MIN_FACE_DIFF_LAB` or more.
    """
    if len(faces_xy) != len(face_colours):
        raise ValueError(f"face_colours: expected {len(faces_xy)} entries (one per face), got {len(face_colours)}")
    suspects = list(suspects)
    if (not WEAK_SUSPECTS_EXPLAINED or not suspects or not token_r > 0 or len(faces_xy) != 4
            or any(c not in COLOURS for c in face_colours) or set(face_colours) != set(COLOURS)):
        return suspects
    faces = [(float(fx), float(fy)) for fx, fy in faces_xy]
    diffs = []
    for i, (fx, fy) in enumerate(faces):
        d = face_difference(residual, radius_px, plate_radius_px, fx, fy, token_r, faces[:i] + faces[i + 1:])
        if d is None or d < MIN_FACE_DIFF_LAB:
            return suspects
        diffs.append(d)
    bound = MAX_SHARE_OF_WEAKEST * min(diffs)
    probes = [(0.0, 0.0)] + [(k * token_r * math.cos(2 * math.pi * i / PROBE_DIRECTIONS),
                               k * token_r * math.sin(2 * math.pi * i / PROBE_DIRECTIONS))
                              for k in PROBE_RADII for i in range(PROBE_DIRECTIONS)]
    kept = []
    for x, y, c in suspects:
        near = min(math.hypot(x - fx, y - fy) for fx, fy in faces)
        explained = c < MAX_SUSPECT_CONTRAST_LAB and near >= MIN_DIST_FROM_COUNTED_RADII * token_r
        if explained:
            # the suspect's own centre must be measured; a probe with too little
            # left clear of the counted faces (beside one of them) is skipped
            own = face_difference(residual, radius_px, plate_radius_px, x, y, token_r, faces)
            around = [face_difference(residual, radius_px, plate_radius_px, x + dx, y + dy, token_r, faces)
                      for dx, dy in probes[1:]]
            explained = own is not None and all(d < bound for d in [own] + [d for d in around if d is not None])
        if not explained:
            kept.append((x, y, c))
    return kept
