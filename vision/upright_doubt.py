"""Doubts about a bar the token search took for a token standing on edge.

A token on edge is seen as a bar as long as the token is wide (its
diameter) and as wide as it is thick, alone on the plate: what lies beyond
its two ends is the plate.  Two kinds of thing are bars too without being a token on edge, and a
``reshake`` on them changes a round already decided:

* something longer than a token: the end of a stick or the edge of a hand
  lying on the plate, a stretch of the rim's groove or highlight, the part
  of a face that shows beside a face touching it: the thing goes on along
  the bar's axis beyond the bar, in the bar's own colour
  (:func:`continues_beyond`);
* a sliver shorter than a token along a face's edge: the part of a face
  that shows beside a face lying on it, or a face's shadow crescent (motion
  blur parts it from the face): a bar tangent to the face, its centre
  within ``HUG_MAX_DIST_RADII`` of the face's (:func:`hugs_face`; the face
  measured as a blob of its own, or any find when the bar is a shadow:
  :func:`is_shadow`).
* a face lying flat measured as a bar (``FACE_FILL_RULE``): the blob of a
  face touching another, lying under it, or pale against a pale plate, is
  cut short or thin by the search, and the bar's colour then fills a disc
  larger than any standing token shows (:func:`face_fill_share`);
* a bar too short to be a token's diameter (``SHORT_BAR_RULE``): a token
  on edge is a diameter long in the plate's plane; a mark under half that
  is a face's sliver or a shadow between faces (:func:`bar_length_px`).

All are pure measures on the canonical view (canonical pixels, Lab units).
The reader (:func:`vision.reader.decide`) asks them of its ``upright``
candidates when ``UPRIGHT_DOUBT_RULE`` is on: when every bar is doubted it
abstains (``uncertain``) with the reason instead of calling for a reshake;
a bar not doubted keeps the reshake.
"""
from __future__ import annotations

import math

import numpy as np

from .blobshape import axis_angle_diff_deg

#: Whether :func:`vision.reader.decide` asks these doubts of an upright bar.
UPRIGHT_DOUBT_RULE = True

#: Where the continuation beyond a bar's end is looked at: from this far
#: beyond the end to the second value, in token radii along the bar's axis.
CONTINUE_SPAN_RADII = (0.3, 1.3)
#: Half-width of the strip searched across the axis at each step (token
#: radii): the axis of a thin blob is known to a few degrees, a stick is a
#: few pixels wide.
CONTINUE_HALF_WIDTH_RADII = 0.2
#: A pixel beyond the end is "the bar's colour" when its CIE76 difference
#: from the bar's colour is below this fraction of the bar's contrast with
#: the plate (the plate beyond a token on edge differs by about the whole
#: contrast: fraction ~1).
CONTINUE_MAX_COLOUR_FRAC = 0.4
#: Share of the steps beyond one end that must be the bar's colour for the
#: thing to go on beyond the bar (a stick fills nearly all of them).
CONTINUE_MIN_SHARE = 0.7

#: A bar hugs a face whose centre is at most this far from the bar's centre
#: (token radii): a sliver of a face beside another lies between one and two
#: radii from that face's centre, a shadow crescent about one.
HUG_MAX_DIST_RADII = 1.7
#: ... and whose joining line is within this angle of square to the bar's
#: axis (degrees; 90 would be any direction): the sliver or shadow follows
#: the face's edge.
HUG_MAX_SKEW_DEG = 25.0

#: A bar along a face's edge is doubted only when shorter than this (token
#: radii): a token on edge is a diameter (2 radii) long in the plate's plane
#: whatever the camera's tilt or blur direction (fresh upright scenes
#: 2060000-2060199 at 640x480 and 2061000-2061149 at 1280x720: 274 of 282
#: bars 1.8 radii or longer); the slivers and shadow crescents seen
#: measured 1.16-1.71.
HUG_MAX_LENGTH_RADII = 1.8

#: A bar is a shadow when the median of its residual along its middle is at
#: least this much darker than the plate (L* units) ...
SHADOW_MIN_DARK_L = 10.0
#: ... and its chroma is at most this fraction of its darkening: no colour
#: of its own (the motion-blurred shadow crescents seen measured 30-35 L
#: darker, chroma under 7, fraction <= 0.2; a token on edge shows its red or
#: white face or its body's colour: a red body on a dark plate measured
#: dL -2, chroma 37).
SHADOW_MAX_CHROMA_FRAC = 0.5

#: Whether :func:`upright_doubt` doubts a bar whose colour fills a disc
#: around it (a face lying flat, :func:`face_fill_share`).
FACE_FILL_RULE = True
#: Radius of that disc, token radii.  A token on edge shows, in the
#: canonical (top-down) view, its rim (a bar as thick as the token, 0.2-0.3
#: radii) and, seen from a tilted camera, one face stretched across the bar
#: to 2 tan(view angle) radii: a disc of 0.9 radii fits inside that face only
#: beyond a 42 degree view from the vertical (tan 42 = 0.9).  A face lying
#: flat is a disc of one radius: 0.9 of it leaves 0.1 for the bar's centre
#: to sit off the face's (with the shifts below).
FACE_FILL_RADIUS_RADII = 0.9
#: The disc is centred on the bar and moved this far (token radii) to
#: either side across its axis; the largest share is taken.  A face cut by
#: its neighbour is measured as the part away from the cut: the bar's
#: centre lies 0.1-0.45 radii off the face's (diagnosis scenes 2090435,
#: 2090514, 2090811, 2095231, 2092688), across the bar's axis.
FACE_FILL_SHIFTS_RADII = (0.0, 0.15, -0.15, 0.3, -0.3)
#: A pixel is the bar's colour when its CIE76 difference from the bar's
#: colour is below this fraction of the bar's contrast with the plate.
FACE_FILL_MAX_COLOUR_FRAC = 0.4
#: The bar is a face lying flat when at least this share of the disc is its
#: colour (faces measured as bars in the diagnosis scenes: 0.87-1.00; real
#: tokens on edge, 400 bars of fresh 2172000-2172299 at 640x480 tilted 25-40
#: degrees, 2172300-2172364 at 1280x720 tilted 25-40 and 2172500-2172639 at
#: 800x600: at most 0.65, 99 % under 0.60.  The synthesizer stands its
#: tokens nearly edge-on to the camera, so the face turned squarely to it is
#: bounded by geometry below, not by these).
FACE_FILL_MIN_SHARE = 0.8
#: A standing token whose face is turned squarely to the camera shows that
#: face, in the top-down view, as an ellipse of semi-axes 1 and tan(view
#: angle) radii; it fills FACE_FILL_MIN_SHARE of the disc from a view angle
#: of about 34 degrees from the vertical (drawn ellipses: 0.75 at 33, 0.85 at
#: 36).  The rule is asked only where no token on the plate is seen that
#: steeply: the camera's tilt (from the plate's axis ratio, acos(b/a)) plus
#: ``FACE_FILL_FIELD_MARGIN_DEG`` at most this (degrees).
FACE_FILL_MAX_VIEW_DEG = 34.0
#: How far from the camera's axis a token on the plate can be seen (degrees):
#: the plate's edge at 4.5 plate radii from the camera (the nearest the
#: synthesizer puts it) is 12.5 degrees off.
FACE_FILL_FIELD_MARGIN_DEG = 12.5
#: Whether the face-fill doubt is asked from a steeper camera too, of a bar
#: shorter than ``FACE_FILL_STEEP_MAX_LENGTH_RADII``: a standing token's
#: face turned to the camera is seen as an ellipse a diameter (2 radii)
#: long across the view (tan(view angle) < 1 below 45 degrees), so a bar
#: that fills the disc but is shorter is no whole standing face.
FACE_FILL_STEEP_RULE = True
#: Length under which a bar filling the disc is a face lying flat at any
#: tilt (token radii): faces measured as bars from cameras tilted 26-32
#: degrees, 1.30-1.72 (2090514, 2092688, 2093725, 2171626); real tokens on
#: edge, 5 % under 1.89, 1 % under 1.51 (438 bars, fresh 2170000-2171199),
#: and none of 400 filled more than 0.65 of the disc.
FACE_FILL_STEEP_MAX_LENGTH_RADII = 1.75

#: Whether :func:`upright_doubt` doubts a bar shorter than
#: ``SHORT_BAR_MAX_LENGTH_RADII``.
SHORT_BAR_RULE = True
#: A token on edge is a diameter (2 radii) long in the plate's plane: real
#: tokens on edge measured 1.27 radii or longer (1 % under 1.51; 838 bars of
#: fresh 2170000-2172639); the bars between touching or overlapping
#: faces that kept a reshake measured 0.71-0.85 (2090244, 2090499).
SHORT_BAR_MAX_LENGTH_RADII = 1.0

#: The reader's reason for each doubt (see :func:`upright_doubt`).
DOUBT_REASONS = {
    "continues": "goes on beyond a token's length in its own colour (a stick's or a hand's end, the rim's "
                 "groove, a face)",
    "hugs": "is shorter than a token and lies along a face's edge (a part of a face under or against it, "
            "or its shadow)",
    "face": "is a face lying flat: its colour fills a disc wider than a token on edge shows",
    "short": "is shorter than half a token's diameter (a face's sliver or a shadow between faces)",
}


def _check_view(lab: np.ndarray, name: str) -> None:
    if not isinstance(lab, np.ndarray):
        raise TypeError(f"{name}: expected a numpy array, got {type(lab).__name__}")
    if lab.ndim != 3 or lab.shape[2] != 3:
        raise ValueError(f"{name}: expected shape (H, W, 3), got {lab.shape}")


def _check_bar(lab: np.ndarray, length_px: float, contrast: float, token_r: float) -> None:
    """The argument checks :func:`continuation_share` and :func:`face_fill_share` share."""
    _check_view(lab, "lab")
    if not (token_r > 0 and length_px > 0 and contrast > 0):
        raise ValueError(f"token_r, length_px, contrast: expected > 0, got {token_r}, {length_px}, {contrast}")


def _bar_colour(lab: np.ndarray, x: float, y: float, angle_deg: float, length_px: float) -> np.ndarray | None:
    """The bar's colour: the median, per Lab channel, of the pixels along the
    middle half of its axis (shape (3,)); None when none lies in the view."""
    h, w = lab.shape[:2]
    a = math.radians(angle_deg)
    t = np.arange(-0.25 * length_px, 0.25 * length_px + 0.5, 1.0)
    mx = np.rint(x + t * math.cos(a)).astype(int)
    my = np.rint(y + t * math.sin(a)).astype(int)
    inside = (mx >= 0) & (mx < w) & (my >= 0) & (my < h)
    if not inside.any():
        return None
    return np.median(lab[my[inside], mx[inside]], axis=0)


def bar_length_px(area_px: float, axis_ratio: float) -> float:
    """Major axis (full length) of the ellipse of area ``area_px`` and
    minor/major ``axis_ratio``, canonical pixels."""
    if not (area_px > 0 and 0 < axis_ratio <= 1):
        raise ValueError(f"area_px, axis_ratio: expected area > 0 and ratio in (0, 1], got {area_px}, {axis_ratio}")
    return 2.0 * math.sqrt(area_px / (math.pi * axis_ratio))


def continues_beyond(lab: np.ndarray, x: float, y: float, angle_deg: float, length_px: float,
                     contrast: float, token_r: float) -> bool:
    """Whether the thing seen as a bar goes on beyond one of its ends:
    :func:`continuation_share` at least ``CONTINUE_MIN_SHARE``."""
    return continuation_share(lab, x, y, angle_deg, length_px, contrast, token_r) >= CONTINUE_MIN_SHARE


def continuation_share(lab: np.ndarray, x: float, y: float, angle_deg: float, length_px: float,
                       contrast: float, token_r: float) -> float:
    """How far the thing seen as a bar goes on beyond its ends, in its colour.

    Parameters
    ----------
    lab : ndarray, float32, (S, S, 3), Lab units
        The canonical view's colours.
    x, y : float
        The bar's centre, canonical pixels.
    angle_deg : float
        Direction of its major axis, degrees in [0, 180) (from +x towards +y).
    length_px : float
        Its length, canonical pixels.
    contrast : float
        Its mean colour difference from the plate, Lab units (> 0).
    token_r : float
        Token radius, canonical pixels (> 0).

    Returns
    -------
    float
        In [0, 1]: the larger over the two ends of the share of the steps
        along ``CONTINUE_SPAN_RADII`` beyond the end that have a pixel within
        ``CONTINUE_HALF_WIDTH_RADII`` of the axis whose colour is within
        ``CONTINUE_MAX_COLOUR_FRAC`` of ``contrast`` of the bar's colour (the
        median along its middle half).  0 for an unmeasured angle.
    """
    _check_bar(lab, length_px, contrast, token_r)
    if not math.isfinite(angle_deg):
        return 0.0
    colour = _bar_colour(lab, x, y, angle_deg, length_px)
    if colour is None:
        return 0.0
    h, w = lab.shape[:2]
    ux, uy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    px, py = -uy, ux

    def at(t: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixels at t along the axis and s across it (arrays broadcast)."""
        cx = np.rint(x + t * ux + s * px).astype(int)
        cy = np.rint(y + t * uy + s * py).astype(int)
        return cx, cy

    limit = CONTINUE_MAX_COLOUR_FRAC * contrast
    half_w = max(1.0, CONTINUE_HALF_WIDTH_RADII * token_r)
    across = np.arange(-half_w, half_w + 0.5, 1.0)[None, :]
    steps = np.arange(CONTINUE_SPAN_RADII[0] * token_r, CONTINUE_SPAN_RADII[1] * token_r + 0.5, 1.0)[:, None]
    best = 0.0
    for sign in (1.0, -1.0):
        t = sign * (0.5 * length_px + steps)
        cx, cy = at(t, across)
        ok = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
        diff = np.full(cx.shape, np.inf)
        diff[ok] = np.linalg.norm(lab[cy[ok], cx[ok]] - colour, axis=-1)
        best = max(best, float(np.mean(diff.min(axis=1) < limit)))
    return best


def hugs_face(x: float, y: float, angle_deg: float, others: list[tuple[float, float]], token_r: float
              ) -> tuple[float, float] | None:
    """The face whose edge a bar lies along, if any.

    Parameters
    ----------
    x, y : float
        The bar's centre, canonical pixels.
    angle_deg : float
        Direction of its major axis, degrees in [0, 180); NaN: not measured.
    others : list of (x, y)
        Centres of the other token finds (faces, parts, overlaps), canonical pixels.
    token_r : float
        Token radius, canonical pixels (> 0).

    Returns
    -------
    (x, y) of the nearest find within ``HUG_MAX_DIST_RADII`` whose joining
    line to the bar is within ``HUG_MAX_SKEW_DEG`` of square to the bar's
    axis; None when there is none or the angle is NaN.
    """
    if not token_r > 0:
        raise ValueError(f"token_r: expected > 0, got {token_r}")
    if not math.isfinite(angle_deg):
        return None
    best, best_d = None, math.inf
    for ox, oy in others:
        d = math.hypot(ox - x, oy - y)
        if not 0 < d <= HUG_MAX_DIST_RADII * token_r:
            continue
        joining = math.degrees(math.atan2(oy - y, ox - x)) % 180.0
        if 90.0 - axis_angle_diff_deg(angle_deg, joining) <= HUG_MAX_SKEW_DEG and d < best_d:
            best, best_d = (float(ox), float(oy)), d
    return best


def bar_residual(residual: np.ndarray, x: float, y: float, angle_deg: float, length_px: float) -> np.ndarray:
    """Median residual (dL, da, db; float64, (3,)) along the middle half of a bar's axis."""
    _check_view(residual, "residual")
    h, w = residual.shape[:2]
    a = math.radians(angle_deg) if math.isfinite(angle_deg) else 0.0
    t = np.arange(-0.25 * length_px, 0.25 * length_px + 0.5, 1.0) if math.isfinite(angle_deg) else np.zeros(1)
    cx = np.clip(np.rint(x + t * math.cos(a)).astype(int), 0, w - 1)
    cy = np.clip(np.rint(y + t * math.sin(a)).astype(int), 0, h - 1)
    return np.median(residual[cy, cx].astype(np.float64), axis=0)


def is_shadow(diff: np.ndarray) -> bool:
    """Whether a mean Lab difference from the plate (dL, da, db) is a
    shadow's: ``SHADOW_MIN_DARK_L`` darker or more, its chroma at most
    ``SHADOW_MAX_CHROMA_FRAC`` of the darkening."""
    dl, da, db = (float(v) for v in diff)
    return dl <= -SHADOW_MIN_DARK_L and math.hypot(da, db) <= SHADOW_MAX_CHROMA_FRAC * -dl


def face_fill_share(lab: np.ndarray, x: float, y: float, angle_deg: float, length_px: float,
                    contrast: float, token_r: float) -> float:
    """How much of a face-sized disc around a bar is the bar's colour.

    Parameters
    ----------
    lab : ndarray, float32, (S, S, 3), Lab units
        The canonical view's colours.
    x, y : float
        The bar's centre, canonical pixels.
    angle_deg : float
        Direction of its major axis, degrees in [0, 180); NaN: not measured.
    length_px : float
        Its length, canonical pixels (> 0).
    contrast : float
        Its mean colour difference from the plate, Lab units (> 0).
    token_r : float
        Token radius, canonical pixels (> 0).

    Returns
    -------
    float
        In [0, 1]: the largest, over discs of ``FACE_FILL_RADIUS_RADII``
        token radii centred on the bar and moved ``FACE_FILL_SHIFTS_RADII``
        across its axis, of the share of the disc's pixels (those inside the
        view) within ``FACE_FILL_MAX_COLOUR_FRAC`` of ``contrast`` of the
        bar's colour (the median along the middle half of its axis).  0 for
        an unmeasured angle.
    """
    _check_bar(lab, length_px, contrast, token_r)
    if not math.isfinite(angle_deg):
        return 0.0
    colour = _bar_colour(lab, x, y, angle_deg, length_px)
    if colour is None:
        return 0.0
    h, w = lab.shape[:2]
    a = math.radians(angle_deg)
    ux, uy = math.cos(a), math.sin(a)
    limit = FACE_FILL_MAX_COLOUR_FRAC * contrast
    rad = FACE_FILL_RADIUS_RADII * token_r
    best = 0.0
    for shift in FACE_FILL_SHIFTS_RADII:
        cx, cy = x - shift * token_r * uy, y + shift * token_r * ux
        x0, x1 = max(0, int(math.floor(cx - rad))), min(w, int(math.ceil(cx + rad)) + 1)
        y0, y1 = max(0, int(math.floor(cy - rad))), min(h, int(math.ceil(cy + rad)) + 1)
        if x0 >= x1 or y0 >= y1:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1]
        disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= rad * rad
        if not disc.any():
            continue
        diff = np.linalg.norm(lab[y0:y1, x0:x1][disc] - colour, axis=-1)
        best = max(best, float(np.mean(diff < limit)))
    return best


def camera_tilt_deg(semi_major: float, semi_minor: float) -> float:
    """The camera's tilt from the vertical (degrees in [0, 90)) that shows a
    round plate as an ellipse of these semi-axes (source pixels, > 0): acos(b / a)."""
    if not (semi_major > 0 and semi_minor > 0):
        raise ValueError(f"semi_major, semi_minor: expected > 0, got {semi_major}, {semi_minor}")
    return math.degrees(math.acos(min(1.0, semi_minor / semi_major)))


def upright_doubt(lab: np.ndarray, residual: np.ndarray, x: float, y: float, angle_deg: float, area_px: float,
                  axis_ratio: float, contrast: float, clear_faces: list[tuple[float, float]],
                  other_finds: list[tuple[float, float]], token_r: float,
                  camera_tilt_deg: float | None = None) -> str | None:
    """Why a bar found as a token on edge may be something else, or None.

    Parameters
    ----------
    lab, residual : ndarray, float32, (S, S, 3), Lab units
        The canonical view's colours and their difference from the plate model.
    x, y, angle_deg, contrast, token_r
        As for :func:`continuation_share`.
    area_px, axis_ratio : float
        The bar's area (canonical pixels squared) and minor/major axis ratio,
        for its length (:func:`bar_length_px`).
    clear_faces : list of (x, y)
        Centres of the other finds measured as blobs of their own (faces,
        overlaps, other bars), canonical pixels.
    other_finds : list of (x, y)
        Centres of the other token finds (those of the disc filter and the
        outline search too), canonical pixels.
    camera_tilt_deg : float or None
        The camera's tilt from the vertical, degrees (:func:`camera_tilt_deg`
        of the plate's axes); None: not known, the face-fill doubt is not asked.

    Returns
    -------
    str or None
        ``"continues"`` when the thing goes on beyond the bar's ends in its
        colour (:func:`continues_beyond`); ``"hugs"`` when the bar is shorter
        than ``HUG_MAX_LENGTH_RADII`` and lies along the edge
        (:func:`hugs_face`) of a clear face, or is a shadow
        (:func:`is_shadow`) along the edge of any find; ``"short"`` when it
        is shorter than ``SHORT_BAR_MAX_LENGTH_RADII`` (``SHORT_BAR_RULE``);
        ``"face"`` when its colour fills a disc around it
        (:func:`face_fill_share` at least ``FACE_FILL_MIN_SHARE``,
        ``FACE_FILL_RULE``, asked only when ``camera_tilt_deg`` plus
        ``FACE_FILL_FIELD_MARGIN_DEG`` is at most ``FACE_FILL_MAX_VIEW_DEG``,
        or of a bar shorter than ``FACE_FILL_STEEP_MAX_LENGTH_RADII`` when
        ``FACE_FILL_STEEP_RULE``); None otherwise.
    """
    length = bar_length_px(area_px, axis_ratio)
    if continues_beyond(lab, x, y, angle_deg, length, contrast, token_r):
        return "continues"
    if length < HUG_MAX_LENGTH_RADII * token_r:
        if hugs_face(x, y, angle_deg, clear_faces, token_r) is not None:
            return "hugs"
        if (is_shadow(bar_residual(residual, x, y, angle_deg, length))
                and hugs_face(x, y, angle_deg, other_finds, token_r) is not None):
            return "hugs"
    if SHORT_BAR_RULE and length < SHORT_BAR_MAX_LENGTH_RADII * token_r:
        return "short"
    if (FACE_FILL_RULE and camera_tilt_deg is not None
            and (camera_tilt_deg + FACE_FILL_FIELD_MARGIN_DEG <= FACE_FILL_MAX_VIEW_DEG
                 or (FACE_FILL_STEEP_RULE and length < FACE_FILL_STEEP_MAX_LENGTH_RADII * token_r))
            and face_fill_share(lab, x, y, angle_deg, length, contrast, token_r) >= FACE_FILL_MIN_SHARE):
        return "face"
    return None
