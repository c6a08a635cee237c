"""Is a count of other than four sure?  A face whose region holds two tokens.

Two tokens of one colour overlapping (or touching) on a plate of nearly
their colour (a white leaning on a white on a white porcelain plate) can be
found as one face: the detectors find the upper face, and the crescent of
the lower face beside it, as pale as the upper one, is no find of its own
(its disc-filter peak is suppressed by the stronger one, its blob is joined
to the face's).  The count is then three, and the reader would say
``reshake``, a wrong game action on a round whose result is already decided
(an overlap is a ``rearrange`` without turning any face).

The evidence is in the residual around the face: the region of the face's
own colour difference (the residual projected on the face's mean residual
direction, at half the face's level) that holds the face is as large as two
tokens and drawn out along the line of their centres, and no other counted
token lies in it.  A single whole face's region is one face large and round
(its side wall and shadow are another colour direction: darker, not of the
face's tint); a missing token (a true three-token round) leaves none.

All distances are canonical-view pixels; areas are in faces (pi r^2 of the
frame's token radius), lengths in token radii.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Radius of the disc over which the face's own residual (its colour
#: difference from the plate, Lab) is averaged, token radii: the face's core,
#: clear of its edge, wall and shadow.
CORE_RADIUS_RADII = 0.6
#: The face's region: residual projected on the face's direction at least
#: this share of the face's own projected level.
REGION_LEVEL_SHARE = 0.5
#: Faces whose own level (projected residual over the core, Lab units) is
#: under this are not measured: the region of so faint a face is the plate's
#: texture as much as the face.
MIN_FACE_LEVEL_LAB = 3.0
#: The region is opened by a disc of this radius, token radii, so a thin arc
#: (the well's edge, a wall's highlight) touching the face is not taken in.
OPEN_RADIUS_RADII = 0.25
#: Only this far from the face's centre is looked at, token radii (two
#: tokens overlapping lie within 2 radii; their region within 3).
WINDOW_RADII = 3.5
#: A counted token's centre within this many radii of the region's pixels
#: makes it a region shared with that token (touching faces both counted).
OTHER_TOKEN_REACH_RADII = 0.5


@dataclass(frozen=True)
class FaceRegion:
    """The region of one face's colour difference around it.

    Attributes
    ----------
    x, y : float
        The face's centre, canonical pixels.
    area_faces : float
        Region area, faces (pi r^2).
    length_radii : float
        Full major-axis length of the region's moment ellipse (4 sqrt of the
        larger eigenvalue), token radii: 2 for one round face.
    axis_ratio : float
        Minor / major axis of the moment ellipse, in (0, 1].
    offset_radii : float
        Distance of the region's centroid from the face's centre, token radii.
    shared : bool
        Another counted token lies in the region.
    level_lab : float
        The face's own projected level, Lab units.
    """

    x: float
    y: float
    area_faces: float
    length_radii: float
    axis_ratio: float
    offset_radii: float
    shared: bool
    level_lab: float


def face_region(residual: np.ndarray, x: float, y: float, token_r: float,
                others: Sequence[tuple[float, float]] = ()) -> FaceRegion | None:
    """Measure the region of a face's own colour difference around it.

    Parameters
    ----------
    residual : ndarray, float32, (H, W, 3)
        Canonical view residual (Lab minus the plate model), Lab units.
    x, y : float
        The face's centre, canonical pixels.
    token_r : float
        The frame's token radius, canonical pixels; > 0.
    others : sequence of (x, y)
        Centres of the other counted tokens, canonical pixels.

    Returns
    -------
    FaceRegion or None
        None when the face's level is under ``MIN_FACE_LEVEL_LAB`` or no
        region holds the centre.
    """
    if not isinstance(residual, np.ndarray) or residual.ndim != 3 or residual.shape[2] != 3:
        raise ValueError(f"residual: expected an (H, W, 3) array, got {getattr(residual, 'shape', type(residual))}")
    if not (math.isfinite(token_r) and token_r > 0):
        raise ValueError(f"token_r: expected a positive radius, got {token_r!r}")
    h, w = residual.shape[:2]
    half = int(math.ceil(WINDOW_RADII * token_r))
    x0, y0 = max(0, int(x) - half), max(0, int(y) - half)
    x1, y1 = min(w, int(x) + half + 1), min(h, int(y) + half + 1)
    win = residual[y0:y1, x0:x1].astype(np.float64)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    core = d2 <= (CORE_RADIUS_RADII * token_r) ** 2
    if not core.any():
        return None
    u = win[core].mean(axis=0)
    level = float(np.linalg.norm(u))
    if level < MIN_FACE_LEVEL_LAB:
        return None
    proj = win @ (u / level)
    mask = ((proj >= REGION_LEVEL_SHARE * level) & (d2 <= (WINDOW_RADII * token_r) ** 2)).astype(np.uint8)
    k = max(1, int(round(OPEN_RADIUS_RADII * token_r)))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    if n < 2:
        return None
    ids = labels[core & (mask > 0)]
    if ids.size == 0:
        return None
    lab = int(np.bincount(ids).argmax())
    region = labels == lab
    ys, xs = np.nonzero(region)
    ys = ys + y0
    xs = xs + x0
    area = float(xs.size)
    cx, cy = float(xs.mean()), float(ys.mean())
    if xs.size >= 3:
        cov = np.cov(np.vstack([xs, ys]))
        ev = np.sort(np.linalg.eigvalsh(cov))
        major, minor = math.sqrt(max(ev[1], 0.0)), math.sqrt(max(ev[0], 0.0))
    else:
        major = minor = 0.0
    reach2 = (OTHER_TOKEN_REACH_RADII * token_r) ** 2
    shared = False
    for ox, oy in others:
        if ((xs - ox) ** 2 + (ys - oy) ** 2).min() <= reach2:
            shared = True
            break
    return FaceRegion(x=float(x), y=float(y), area_faces=area / (math.pi * token_r ** 2),
                      length_radii=4.0 * major / token_r, axis_ratio=minor / major if major > 0 else 1.0,
                      offset_radii=math.hypot(cx - x, cy - y) / token_r, shared=shared, level_lab=level)


#: The region of a face holding two tokens is at least this many faces large.
#: Two faces overlapping with centres d radii apart cover 2 - lens faces:
#: 1.61 at d = 1, 1.35 at d = 0.6.  Measured (exploration seeds
#: 2020000-2024300, 800x600 and 1280x720): the faces found for two tokens
#: 1.36-1.88; single faces of overlap scenes up to 1.21, of 147 faces of 51
#: three-token scenes read ``reshake`` up to 1.31 (2024034, which the length
#: and axis bounds below keep a single face).
PAIR_MIN_AREA_FACES = 1.3
#: ... and at most this many (more is not two tokens: a stick, a hand, a
#: third token; the count is left as it is).
PAIR_MAX_AREA_FACES = 2.2
#: ... and its moment length (4 sqrt of the major eigenvalue) at least this
#: many token radii: 2 for one face, about 2 + d for two d radii apart; the
#: pairs measured 3.06-3.56, single faces at most 2.36 (three-token scenes).
PAIR_MIN_LENGTH_RADII = 2.7
#: ... and at most this many (two touching faces, d = 2, measure about 4).
PAIR_MAX_LENGTH_RADII = 4.0
#: ... and drawn out: minor / major axis of its moment ellipse at most this
#: (single faces of overlap scenes measured 0.86-1.0, of three-token scenes
#: 0.89-1.0; the pairs 0.54-0.68; a red pair almost wholly one on the other,
#: 2020067, measured 0.72 but one face large, and is not taken).
PAIR_MAX_AXIS_RATIO = 0.8
#: ... and its centroid off the found face's centre by at least this many
#: token radii (the found face is one of the two; the pair's centroid lies
#: between them, about d/2 off: the pairs 0.51-0.67; single faces of overlap
#: scenes at most 0.26, of three-token scenes 0.39 (2024034, above)).
PAIR_MIN_OFFSET_RADII = 0.35
#: Off: a count one short is a ``reshake`` whatever the region of a face.
TWO_TOKEN_FACE_REARRANGE = True


def holds_two(region: FaceRegion | None) -> bool:
    """Whether a measured face region is two tokens of the face's colour, one
    partly on (or against) the other, and no other counted token (see the
    ``PAIR_*`` bounds)."""
    return (region is not None and not region.shared
            and PAIR_MIN_AREA_FACES <= region.area_faces <= PAIR_MAX_AREA_FACES
            and PAIR_MIN_LENGTH_RADII <= region.length_radii <= PAIR_MAX_LENGTH_RADII
            and region.axis_ratio <= PAIR_MAX_AXIS_RATIO
            and region.offset_radii >= PAIR_MIN_OFFSET_RADII)


def two_token_faces(residual: np.ndarray, faces: Sequence[tuple[float, float]],
                    tokens: Sequence[tuple[float, float]], token_r: float) -> list[FaceRegion]:
    """The flat faces whose region holds two tokens (see :func:`holds_two`).

    Parameters
    ----------
    residual : ndarray, float32, (H, W, 3)
        Canonical view residual, Lab units.
    faces : sequence of (x, y)
        Centres of the flat faces counted, canonical pixels.
    tokens : sequence of (x, y)
        Centres of every token counted (the faces among them), canonical pixels.
    token_r : float
        The frame's token radius, canonical pixels; > 0.

    Returns
    -------
    list of FaceRegion
        The regions of the faces that hold two tokens; empty when
        ``TWO_TOKEN_FACE_REARRANGE`` is off.
    """
    if not TWO_TOKEN_FACE_REARRANGE:
        return []
    out = []
    for fx, fy in faces:
        others = [(tx, ty) for tx, ty in tokens if math.hypot(tx - fx, ty - fy) > 1e-6]
        region = face_region(residual, fx, fy, token_r, others)
        if holds_two(region):
            out.append(region)
    return out


#: The counts a ``reshake`` is given for: one token short of four (fallen or
#: hidden off the plate's well) or one too many.  A count of one or two with
#: no token seen off the plate means two or three tokens vanished at once,
#: which a shake does not do but a bowl still over the plate, a hand or a
#: misread does (the opening sweeps of the thirtieth round: all 31 counts of
#: one were bowls on the plate whose cues were not seen, labelled
#: ``covered``; all 3 counts of two were overlap or touching scenes), and a
#: count of six or more is two extra tokens at once (4 of 9 such counts over
#: two rounds' sweeps were four flat tokens beside marks, the other 5
#: five-token rounds that a hand check also settles).  Outside these bounds
#: the reader asks for a check by hand rather than reshaking a round whose
#: result may be decided.
RESHAKE_MIN_TOKENS = 3
RESHAKE_MAX_TOKENS = 5
#: Switch: a count outside ``RESHAKE_MIN_TOKENS``-``RESHAKE_MAX_TOKENS`` reads
#: ``uncertain`` (off: any count other than four reads ``reshake``).
IMPLAUSIBLE_COUNT_UNCERTAIN = True


def reshake_count_plausible(n_tokens: int) -> bool:
    """Whether a count of ``n_tokens`` may be answered with ``reshake``.

    Parameters
    ----------
    n_tokens : int
        Tokens counted on and off the plate, >= 0.

    Returns
    -------
    bool
        True when the count lies within ``RESHAKE_MIN_TOKENS`` to
        ``RESHAKE_MAX_TOKENS`` (or ``IMPLAUSIBLE_COUNT_UNCERTAIN`` is off).

    Raises
    ------
    TypeError
        If ``n_tokens`` is not an integer.
    ValueError
        If ``n_tokens`` is negative.
    """
    if isinstance(n_tokens, bool) or not isinstance(n_tokens, (int, np.integer)):
        raise TypeError(f"n_tokens: expected an int, got {type(n_tokens).__name__}")
    if n_tokens < 0:
        raise ValueError(f"n_tokens: expected >= 0, got {n_tokens}")
    return bool(not IMPLAUSIBLE_COUNT_UNCERTAIN or RESHAKE_MIN_TOKENS <= n_tokens <= RESHAKE_MAX_TOKENS)


__all__ = ["CORE_RADIUS_RADII", "FaceRegion", "IMPLAUSIBLE_COUNT_UNCERTAIN", "MIN_FACE_LEVEL_LAB", "OPEN_RADIUS_RADII",
           "OTHER_TOKEN_REACH_RADII", "PAIR_MAX_AREA_FACES", "PAIR_MAX_AXIS_RATIO", "PAIR_MAX_LENGTH_RADII",
           "PAIR_MIN_AREA_FACES", "PAIR_MIN_LENGTH_RADII", "PAIR_MIN_OFFSET_RADII", "REGION_LEVEL_SHARE",
           "RESHAKE_MAX_TOKENS", "RESHAKE_MIN_TOKENS", "TWO_TOKEN_FACE_REARRANGE", "WINDOW_RADII", "face_region",
           "holds_two", "reshake_count_plausible", "two_token_faces"]
