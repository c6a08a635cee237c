"""A face's shape measured at its own edge, not at the blob threshold.

The reader abstains on a flat face less round than ``OUTCOME_MIN_AXIS_RATIO``
(:mod:`vision.reader`), for a token tilted or standing on edge is drawn out.
That ratio is the fitted ellipse of the face's region *above the blob
threshold* (or, for a pale face found by the disc filter, of its faint
region).  Where a face's own contrast is not far above that threshold (a white
face on a pale glaze, an under-exposed frame with dark noise and JPEG blocks),
the threshold cuts into the face where its shaded side or its shadow meets
it, and a round face measures 0.78-0.84.

Here the face's shape is measured where the face ends (the edge as
:mod:`vision.face_centre` finds it to fit a faint face's centre): along rays
from its centre, the residual projected on the face's own colour (the mean over its
core) falls to half the core's value at the face's edge, whatever the
threshold; a shadow or dark side wall projects *negative* on a lit face's
colour and is not taken for the face.  The edge radius as a function of the
ray's angle is fitted robustly with its first two harmonics: the first is an
off-centre estimate, the second the face's elongation (a circle has none; an
ellipse b/a has ``(a - b) / 2`` of it about a mean ``(a + b) / 2``).  A
neighbour of the face's colour, or a glint joined to the face, carries a few
rays out beyond the rest, which the robust fit drops; a ray stopped short (a
bite, a part under another token) is kept and draws the fit out.

:func:`round_at_edge` clears a face the blob measure found less round than a
flat face when its edge is as round as flat faces' edges are, measured
surely (a clear core, the edge seen nearly all round, a face's size).  Fresh
four-flat scenes 2150400-2150799 at 640x480 (half under-exposed by 0.5-1
stop): the edge ratio of faces with a core of 15 Lab or more is 0.90 or more
for 95 % of them (1 %: 0.87-0.88; median 0.97); a face of 8-15 Lab has 1 % at
0.42-0.67, the edge there fixed by noise.  Faces the blob measure stopped
(blob 0.75-0.85) had edges of 0.81-0.99.

What it does not clear, and why: (1) a faint face (disc-filter finds of 5-11
Lab, r 12-16 px at 640x480) is as ragged at its edge as in its region (edge
0.76-0.89): at that contrast the shape is fixed by noise, and the reader keeps
abstaining.  (2) In a steep view (camera 25-40 deg) the token's side wall,
the face's own hue darker, lies on the camera's side of the face and is
stretched back with it: most faces there are drawn out along the camera's
tilt direction by 4-9 % of their radius (about thickness x tan(tilt)), at
their edge as in their blob (edges 0.84-0.92).  Allowing for that would
credit up to 13 % of elongation along one direction, where a token truly
tilted that way would be cleared too; it is not done.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: Rays around the face (the edge is sampled every 360 / this degrees).
EDGE_RAYS = 48
#: Each ray's profile is the mean of this many rays spread over its share of
#: the angle (less noise on a faint face, the same angular resolution).
EDGE_SUB_RAYS = 3
#: The core whose mean residual gives the face's colour: a disc of this many
#: token radii about the centre (well inside a face even 0.3 radii off-centre).
EDGE_CORE_RADII = 0.5
#: The edge is where the profile falls below this share of the core's value
#: (half: the middle of a blurred step, whatever its height).
EDGE_LEVEL_SHARE = 0.5
#: Rays are followed from this many token radii (inside the core, past any
#: glint at the centre) out to ``EDGE_MAX_RADII``; a ray that has not fallen
#: by then (a neighbour of the face's colour) has no edge and is left out.
EDGE_MIN_RADII = 0.3
EDGE_MAX_RADII = 2.0
#: Radial step of the profile, canonical pixels.
EDGE_STEP_PX = 0.5
#: Robust fit: rays more than this many robust sigmas (1.4826 MAD) off the
#: fitted curve are dropped, and the fit repeated, ``EDGE_FIT_ROUNDS`` times;
#: a residual under ``EDGE_FIT_MIN_SIGMA_PX`` is never an outlier.
EDGE_FIT_MAX_SIGMAS = 2.5
EDGE_FIT_ROUNDS = 3
EDGE_FIT_MIN_SIGMA_PX = 0.5
#: A fit kept on fewer than this share of the rays does not measure the face.
EDGE_MIN_RAY_SHARE = 0.6
#: The core's colour must differ from the plate by at least this, Lab units.
EDGE_MIN_CORE_LAB = 3.0


@dataclass(frozen=True)
class FaceEdge:
    """A face's edge fitted along rays.

    Attributes
    ----------
    axis_ratio : float
        (mean - elongation) / (mean + elongation) of the fitted edge radius, in
        [0, 1]: about minor / major of the face's outline.
    mean_radius_px : float
        The edge's mean radius, canonical pixels.
    offset_px : float
        How far the edge's centre lies from the centre given (first harmonic),
        canonical pixels.
    ray_share : float
        Share of the rays the fit was kept on, in (0, 1].
    core_lab : float
        The core's mean residual along its own direction, Lab units.
    angle_deg : float
        Direction of the fitted edge's longest radius (the major axis),
        degrees in [0, 180) in the canonical view, from +x towards +y.
    """

    axis_ratio: float
    mean_radius_px: float
    offset_px: float
    ray_share: float
    core_lab: float
    angle_deg: float = 0.0


def _check(residual: np.ndarray, x: float, y: float, token_r: float) -> None:
    if not isinstance(residual, np.ndarray):
        raise TypeError(f"residual: expected a numpy array, got {type(residual).__name__}")
    if residual.ndim != 3 or residual.shape[2] != 3 or residual.shape[0] < 2 or residual.shape[1] < 2:
        raise ValueError(f"residual: expected shape (H, W, 3), got {residual.shape}")
    for name, v in (("x", x), ("y", y), ("token_r", token_r)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v):
            raise ValueError(f"{name}: expected a finite number, got {v!r}")
    if token_r <= 0:
        raise ValueError(f"token_r: expected > 0, got {token_r}")


def face_edge(residual: np.ndarray, x: float, y: float, token_r: float) -> FaceEdge | None:
    """Fit the edge of the face centred near ``(x, y)``.

    Parameters
    ----------
    residual : ndarray, shape (H, W, 3), float
        Lab difference from the plate model, canonical view.
    x, y : float
        The face's centre, canonical pixels.
    token_r : float
        The frame's token radius, canonical pixels (> 0).

    Returns
    -------
    FaceEdge or None
        None where the face's core is under ``EDGE_MIN_CORE_LAB`` from the
        plate, or fewer than ``EDGE_MIN_RAY_SHARE`` of the rays find an edge
        that the fit keeps.

    Raises
    ------
    TypeError, ValueError
        ``residual`` not an (H, W, 3) array; ``x``, ``y``, ``token_r`` not
        finite, or ``token_r`` not positive.
    """
    _check(residual, x, y, token_r)
    res = np.asarray(residual, dtype=np.float32)
    h, w = res.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    core = (xx - x) ** 2 + (yy - y) ** 2 <= (EDGE_CORE_RADII * token_r) ** 2
    if not core.any():
        return None
    mean = res[core].mean(axis=0)
    core_lab = float(np.linalg.norm(mean))
    if core_lab < EDGE_MIN_CORE_LAB:
        return None
    proj = (res @ (mean / core_lab)).astype(np.float32)
    rho = np.arange(EDGE_MIN_RADII * token_r, EDGE_MAX_RADII * token_r + 1e-6, EDGE_STEP_PX, dtype=np.float32)
    n = EDGE_RAYS * EDGE_SUB_RAYS
    theta = (np.arange(n, dtype=np.float64) + 0.5) * (2 * math.pi / n)
    mx = (x + np.cos(theta)[:, None] * rho[None, :]).astype(np.float32)
    my = (y + np.sin(theta)[:, None] * rho[None, :]).astype(np.float32)
    prof = cv2.remap(proj, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
    prof = prof.reshape(EDGE_RAYS, EDGE_SUB_RAYS, -1).mean(axis=1)
    level = EDGE_LEVEL_SHARE * core_lab
    below = prof < level
    has = below.any(axis=1)
    first = np.argmax(below, axis=1)
    angles = theta.reshape(EDGE_RAYS, EDGE_SUB_RAYS).mean(axis=1)
    edge = np.full(EDGE_RAYS, np.nan)
    for k in np.flatnonzero(has):
        i = int(first[k])
        if i == 0:
            edge[k] = rho[0]
            continue
        a, b = prof[k, i - 1], prof[k, i]
        t = (a - level) / (a - b) if a != b else 0.0
        edge[k] = rho[i - 1] + t * (rho[i] - rho[i - 1])
    keep = np.isfinite(edge)
    design = np.column_stack([np.ones(EDGE_RAYS), np.cos(angles), np.sin(angles),
                              np.cos(2 * angles), np.sin(2 * angles)])
    coef = None
    for _ in range(EDGE_FIT_ROUNDS + 1):
        if keep.sum() < max(6, EDGE_MIN_RAY_SHARE * EDGE_RAYS):
            return None
        coef, *_ = np.linalg.lstsq(design[keep], edge[keep], rcond=None)
        dev = edge - design @ coef
        sigma = max(1.4826 * float(np.median(np.abs(dev[keep]))), EDGE_FIT_MIN_SIGMA_PX)
        # only rays reaching out beyond the fit are dropped (a neighbour, a
        # glint joined to the face): a ray stopped short (a bite, a part
        # hidden under another token) stays and draws the fit out
        new = np.isfinite(edge) & (dev <= EDGE_FIT_MAX_SIGMAS * sigma)
        if np.array_equal(new, keep):
            break
        keep = new
    if keep.sum() < max(6, EDGE_MIN_RAY_SHARE * EDGE_RAYS):
        return None
    a0 = float(coef[0])
    elong = float(math.hypot(coef[3], coef[4]))
    if a0 <= 0:
        return None
    ratio = max(0.0, (a0 - elong) / (a0 + elong))
    return FaceEdge(axis_ratio=ratio, mean_radius_px=a0, offset_px=float(math.hypot(coef[1], coef[2])),
                    ray_share=float(keep.mean()), core_lab=core_lab,
                    angle_deg=float(math.degrees(0.5 * math.atan2(coef[4], coef[3]))) % 180.0)


#: The face's edge must be at least this round (minor / major, the fitted
#: edge radius's second harmonic): 95 % of flat faces with a clear core reach
#: it (above); a token tilted to the blob bound (0.85, about 32 deg) measures
#: about 0.83 at its edge (flat faces' edges read 0.03 below 1.0 at the median).
EDGE_ROUND_MIN_AXIS_RATIO = 0.90
#: ... its core at least this far from the plate, Lab units (the edge of a
#: fainter face is where noise puts it: 1 % of flat faces of 8-15 Lab read
#: 0.42-0.67) ...
EDGE_ROUND_MIN_CORE_LAB = 15.0
#: ... the fit kept on at least this share of the rays (the edge seen all
#: round but for a neighbour's few) ...
EDGE_ROUND_MIN_RAY_SHARE = 0.9
#: ... its mean edge radius a face's, in token radii (the cleared faces:
#: 0.80-1.11; not a fragment of a face, nor two) ...
EDGE_ROUND_RADIUS_RADII = (0.75, 1.25)
#: ... centred within this many token radii of the face's own centre (cleared
#: faces: 0.02-0.20; a blob that is not the face, or a part of it, lies off it)
#: ...
EDGE_ROUND_MAX_OFFSET_RADII = 0.3
#: ... and the blob measure not below a flat disc's bound
#: (``vision.tokens.DISC_MIN_AXIS_RATIO``; a standing token is a bar).
EDGE_ROUND_MIN_BLOB_AXIS_RATIO = 0.72
#: The reader clears a face less round than a flat face by its blob when it is
#: round at its edge (:func:`round_at_edge`).  False: the blob measure alone.
#: A/B (off vs on, 200 fresh scenes a set, seeds 2151000-2153599): tilted
#: 1280x720 (camera 25-40 deg) 107 -> 108 right, tilted 640x480 112 -> 113; no
#: change on four flat tokens under-exposed by 0.5-1 stop at 640x480 (163) and
#: 1024x768 (172), four flat tokens 640x480 (118), portrait 720x1280 on green or
#: blue cloth (128), touching 640x480 (44), upright 640x480 (164), 1024x768 (160)
#: and 1280x720 at 25-40 deg (163), leaning overlaps 800x600 (165), five tokens
#: 640x480 (164), stick 800x600 (85); 0 wrong outcomes either side.  Standing
#: tokens found as such in fresh upright scenes 2150500-2150599 (1024x768): their
#: edge 0.28 round at the median, 0.84 at most, and then 0.54 radii across.
EDGE_ROUND_RULE = True


def round_at_edge(residual: np.ndarray, x: float, y: float, token_r: float, blob_axis_ratio: float) -> bool:
    """Whether a face its blob measured less round than a flat face is round
    at its own edge (see the module text and the ``EDGE_ROUND_*`` settings).

    Parameters
    ----------
    residual : ndarray, shape (H, W, 3), float
        Lab difference from the plate model, canonical view.
    x, y : float
        The face's centre, canonical pixels.
    token_r : float
        The frame's token radius, canonical pixels (> 0).
    blob_axis_ratio : float
        The face's axis ratio as measured on its region (minor / major, in
        (0, 1]).

    Returns
    -------
    bool
        True when the blob measure is at least
        ``EDGE_ROUND_MIN_BLOB_AXIS_RATIO`` and :func:`face_edge` finds an edge
        at least ``EDGE_ROUND_MIN_AXIS_RATIO`` round, about a core at least
        ``EDGE_ROUND_MIN_CORE_LAB``, kept on ``EDGE_ROUND_MIN_RAY_SHARE`` of
        the rays, of a face's radius (``EDGE_ROUND_RADIUS_RADII``) and centred
        within ``EDGE_ROUND_MAX_OFFSET_RADII``.

    Raises
    ------
    TypeError, ValueError
        As :func:`face_edge`; ``blob_axis_ratio`` not in (0, 1].
    """
    if (isinstance(blob_axis_ratio, bool) or not isinstance(blob_axis_ratio, (int, float, np.floating))
            or not 0.0 < blob_axis_ratio <= 1.0):
        raise ValueError(f"blob_axis_ratio: expected a number in (0, 1], got {blob_axis_ratio!r}")
    _check(residual, x, y, token_r)
    if blob_axis_ratio < EDGE_ROUND_MIN_BLOB_AXIS_RATIO:
        return False
    e = face_edge(residual, x, y, token_r)
    if e is None:
        return False
    lo, hi = EDGE_ROUND_RADIUS_RADII
    return (e.axis_ratio >= EDGE_ROUND_MIN_AXIS_RATIO and e.core_lab >= EDGE_ROUND_MIN_CORE_LAB
            and e.ray_share >= EDGE_ROUND_MIN_RAY_SHARE and lo * token_r <= e.mean_radius_px <= hi * token_r
            and e.offset_px <= EDGE_ROUND_MAX_OFFSET_RADII * token_r)
