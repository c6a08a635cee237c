"""Stage 3: decide whether each flat face is red or white.

The decision uses the red-green axis a* of CIE Lab, measured relative to the
plate right next to the token (a plate with negative a*, a green or blue
glaze, counts as neutral) (the plate is the frame's own reference: a
colour cast from the light, the white balance or the exposure moves plate and
token together).  Colour temperature moves colours mostly along b*
(blue-yellow), so a* keeps red and white apart from 2700 K to 7000 K.

Between the two thresholds lies an undecided band: a face there is
``unknown`` and the reader abstains.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .canonical import CanonicalView
from .grids import open_grid
from .clipped_red import is_clipped_red
from .warm_white import is_warm_white

#: A face is red when its a* exceeds the plate's by at least this (Lab units).
RED_MIN_DELTA_A = 18.0
#: A face is white when its a* exceeds the plate's by at most this (Lab units).
WHITE_MAX_DELTA_A = 12.0
#: Part of the face sampled, fraction of the token radius (avoids the outline,
#: the side wall and the shadow).
FACE_SAMPLE_FRAC = 0.6
#: A red face is also clearly chromatic: chroma of (face - plate) at least this.
RED_MIN_CHROMA = 14.0
#: Absolute a* bounds (Lab units): the plate is only a white reference when it
#: is near neutral; on a coloured glaze (celadon, gold, blue) a white face sits
#: off the plate's a*, so a red face must also be red in absolute terms and a
#: white face near neutral.  Warm light (2700 K) moves white to about +10.
RED_MIN_ABS_A = 24.0
WHITE_MAX_ABS_A = 16.0
#: A red face's hue, atan2(b*, a*) in degrees, lies between magenta-red and
#: orange; blue and purple faces (a* > 0 but b* far below 0) are not red.
RED_HUE_RANGE_DEG = (-35.0, 70.0)
#: A face dimmed by the exposure (a dark red under-exposed, a pale one
#: washed out) keeps its a* high for its lightness: it is red, outside the
#: absolute a* bound, when its a* is at least this fraction of its L* (twice
#: the most tinted white face measured on the synthesized scenes: 0.19, warm
#: 2700 K light), with a red hue and a* above the plate's by at least this
#: much more than the white bound allows (14 with the default rule).
RED_DIM_MIN_A_PER_L = 0.4
RED_DIM_ABOVE_WHITE_A = 2.0
#: A white face has little chroma: the smaller of its own chroma and its
#: chroma relative to the plate (warm light tints plate and face alike).
WHITE_MAX_CHROMA = 22.0
#: A face redder than orange (hue from ``RED_HUE_RANGE_DEG[0]`` up to
#: ``WHITE_WARM_MIN_HUE_DEG``) is white only with at most
#: ``WHITE_NEUTRAL_MAX_A`` a* (Lab units).  Warm light gives a white face a*
#: up to about +17, but with a yellow hue (56-80 degrees); white faces redder
#: than that measured a* <= 2, while red faces dimmed by the exposure on a
#: dark or tinted glaze measured a* 8-16 at hues -21 to 47 degrees (1,583
#: white and 1,538 red faces of synthesized scenes 1000-1799): inside the
#: other white bounds, so without this one such a red face was white.
WHITE_WARM_MIN_HUE_DEG = 55.0
WHITE_NEUTRAL_MAX_A = 5.0
#: A white face is not much darker than the plate (L* difference); black and
#: grey faces are not white.  No white face of 3,703 of synthesized scenes
#: (below) was even 20 L darker, grey whites on white porcelain 5-18; four
#: dark reds under cool light, a* 7 at a hue just bluer than red (-35 deg),
#: measured 23-24.5 L darker than a cream plate and were read white at -25
#: (fresh forced four flat tokens 257432 at 1280x720: four reds read as 0).
WHITE_MIN_DELTA_L = -21.0
#: A face at least ``-DARK_RED_MAX_DELTA_L`` darker than the plate is no white
#: (no white face of 3,703 faces of synthesized scenes 1000-1799 at 1280x720
#: and 45000-45999 at 640x480 was even 20 L darker); when its a* is also at
#: least this much above the plate's and this much in absolute terms, with a
#: red hue, it is a dark red dimmed by the exposure or by cool light (the
#: dark-red style under 6000-7000 K measured a* 9-16 at L* 40-63, undecided
#: before: 43 of 88 undecided red faces there).  A shadow on the plate keeps
#: or lowers the glaze's a*; only a pigment makes a face darker and redder.
DARK_RED_MAX_DELTA_L = -25.0
DARK_RED_MIN_DELTA_A = 8.0
DARK_RED_MIN_ABS_A = 8.0
#: A white face reflects most of the light: its own L* is at least this.  On a
#: black glaze the plate is no lightness reference, and a patch of glaze a few
#: L lighter than the ring model (fresh scene 30390: a disc-filter find of
#: L* 19 beside three white faces of 76-83) is neutral and "not darker than
#: the plate".  White faces measured L* >= 55 on the studio renders and >= 61
#: on synthesized scenes 1000-1399; 40 leaves room for a darker exposure.
WHITE_MIN_L = 40.0


#: A token's face is one colour: the two halves of its core (the disc of
#: ``FACE_SAMPLE_FRAC`` of its radius), split through the centre in any of
#: ``FACE_SPLIT_DIRECTIONS`` directions, differ little next to how much the
#: face differs from the plate.  A face whose halves differ by at least
#: ``FACE_SPLIT_MIN_LAB`` and at least ``FACE_SPLIT_MIN_SHARE`` of its
#: contrast is partly covered (a finger, a stick) or is no flat face (a token
#: on edge beside its own shadow): fresh scenes 45806 (a white face half under
#: a hand on a gold plate: halves 12.6 Lab apart, 0.95 of its contrast),
#: 45481 (a token on edge and its shadow taken for a faint white face: 5.7,
#: 0.72), both at 640x480, and 46243 (1280x720, glossy black lacquer: one
#: white face split into two faint finds, each half face and half plate, 27
#: Lab), all read as outcomes; and 70070 (640x480, a token on edge beside its
#: shadow: 10.5 Lab, 0.57).  Of 1,164 faces in 291 right outcomes
#: (synthesized scenes 1000-1799 at 1280x720, 45000-45699 at 640x480,
#: 49000-49299 at 1920x1080) none was caught: halves 4 Lab or more apart were
#: at most 0.17 of the face's contrast (a red blob, 6.5 Lab), halves 0.2 of
#: the contrast or more apart at most 3.4 Lab (a faint white).  (The share was
#: 0.6 until 70070, set between the first few faces measured.)
FACE_SPLIT_MIN_LAB = 4.0
FACE_SPLIT_MIN_SHARE = 0.3
FACE_SPLIT_DIRECTIONS = 8


def _core_window(view: CanonicalView, x: float, y: float, radius_px: float
                 ) -> tuple[int, int, int, int, float] | None:
    """The canvas box (x0, x1, y0, y1, end excluded) around a face's core, the
    disc of ``FACE_SAMPLE_FRAC`` of ``radius_px`` (at least 1 px) at (x, y),
    and that core radius; None when the box leaves the canvas entirely.

    Raises ValueError when ``radius_px`` is not positive."""
    if not radius_px > 0:
        raise ValueError(f"radius_px: expected > 0, got {radius_px}")
    s = view.canvas_px
    r_in = max(1.0, FACE_SAMPLE_FRAC * radius_px)
    x0, x1 = max(0, int(math.floor(x - r_in))), min(s, int(math.ceil(x + r_in)) + 1)
    y0, y1 = max(0, int(math.floor(y - r_in))), min(s, int(math.ceil(y + r_in)) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, x1, y0, y1, r_in


def _core_disc(view: CanonicalView, x: float, y: float, radius_px: float
               ) -> tuple[tuple[slice, slice], np.ndarray] | None:
    """The canvas box around a face's core (:func:`_core_window`) as (rows,
    cols) slices, and the bool mask (box shape) of the core's disc in it;
    None when the box leaves the canvas.  ``image[box][mask]`` is the core's
    pixels of any canvas image.

    Raises ValueError when ``radius_px`` is not positive."""
    window = _core_window(view, x, y, radius_px)
    if window is None:
        return None
    x0, x1, y0, y1, r_in = window
    rr, cc = open_grid(y0, y1, x0, x1)
    return (slice(y0, y1), slice(x0, x1)), (cc - x) ** 2 + (rr - y) ** 2 <= r_in ** 2


def face_split(view: CanonicalView, x: float, y: float, radius_px: float) -> float:
    """How far apart the colours of the two halves of a face's core are.

    Parameters
    ----------
    view : CanonicalView
    x, y : float
        Face centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels (> 0); the core is the disc of
        ``FACE_SAMPLE_FRAC`` of it.

    Returns
    -------
    float
        The largest Lab distance (Lab units) between the mean colours of the
        core's two halves over ``FACE_SPLIT_DIRECTIONS`` splits through the
        centre; 0 when the core has too few pixels (fewer than 4 per half).
    """
    window = _core_window(view, x, y, radius_px)
    if window is None:
        return 0.0
    x0, x1, y0, y1, r_in = window
    rr, cc = np.mgrid[y0:y1, x0:x1]
    dx, dy = cc - x, rr - y
    sel = dx ** 2 + dy ** 2 <= r_in ** 2
    lab = view.lab[y0:y1, x0:x1][sel].astype(np.float64)  # (N, 3)
    angles = np.pi * np.arange(FACE_SPLIT_DIRECTIONS) / FACE_SPLIT_DIRECTIONS
    # (N, D): which side of each split line a pixel lies on
    side = (dx[sel][:, None] * np.cos(angles) + dy[sel][:, None] * np.sin(angles)) > 0
    n_a = side.sum(axis=0)
    n_b = side.shape[0] - n_a
    ok = (n_a >= 4) & (n_b >= 4)
    if not ok.any():
        return 0.0
    total = lab.sum(axis=0)  # (3,)
    sum_a = side.T.astype(np.float64) @ lab  # (D, 3)
    mean_a = sum_a[ok] / n_a[ok, None]
    mean_b = (total - sum_a[ok]) / n_b[ok, None]
    return float(np.linalg.norm(mean_a - mean_b, axis=1).max())


def core_levels(view: CanonicalView, x: float, y: float, radius_px: float) -> np.ndarray:
    """The camera's levels on a face's core, per channel (where red clips, a* is a lower bound).

    Parameters
    ----------
    view : CanonicalView
        Its ``bgr`` (uint8, BGR, 0-255) is read.
    x, y : float
        Face centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels (> 0); the core is the disc of
        ``FACE_SAMPLE_FRAC`` of it.

    Returns
    -------
    ndarray, float64, (3,)
        Median of each channel, B, G, R (8-bit levels, 0-255), over the
        core; NaN in each when the core leaves the canvas or has fewer than 3
        pixels.

    Raises
    ------
    ValueError
        ``radius_px`` is not positive.
    """
    disc = _core_disc(view, x, y, radius_px)
    if disc is None:
        return np.full(3, np.nan)
    box, sel = disc
    core = view.bgr[box][sel]
    if core.shape[0] < 3:
        return np.full(3, np.nan)
    return np.median(core, axis=0).astype(np.float64)


@dataclass(frozen=True)
class FaceRule:
    """Thresholds of the red/white decision (Lab units); a studio profile may
    supply its own (learnt by ``xocdia calibrate``).

    Attributes
    ----------
    red_min_delta_a, white_max_delta_a : float
        a* of the face minus the plate's: red at or above the first, white at
        or below the second, undecided between.
    red_min_abs_a, white_max_abs_a : float
        Absolute a* bounds for red and white faces.
    red_min_chroma : float
        Smallest chroma of (face - plate) for a red face.
    """

    red_min_delta_a: float = RED_MIN_DELTA_A
    white_max_delta_a: float = WHITE_MAX_DELTA_A
    red_min_abs_a: float = RED_MIN_ABS_A
    white_max_abs_a: float = WHITE_MAX_ABS_A
    red_min_chroma: float = RED_MIN_CHROMA

    def __post_init__(self) -> None:
        for name in ("red_min_delta_a", "white_max_delta_a", "red_min_abs_a", "white_max_abs_a", "red_min_chroma"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name}: expected a finite number, got {v!r}")
        if not self.red_min_delta_a > self.white_max_delta_a:
            raise ValueError(f"red_min_delta_a, white_max_delta_a: expected red > white, got "
                             f"{self.red_min_delta_a} <= {self.white_max_delta_a}")
        if not self.red_min_abs_a > self.white_max_abs_a:
            raise ValueError(f"red_min_abs_a, white_max_abs_a: expected red > white, got "
                             f"{self.red_min_abs_a} <= {self.white_max_abs_a}")


DEFAULT_FACE_RULE = FaceRule()


@dataclass(frozen=True)
class FaceReading:
    """Face colour of one token.

    Attributes
    ----------
    face : str
        ``red``, ``white`` or ``unknown``.
    p_red : float
        Probability in [0, 1] that the face is red (a logistic of the a*
        margin, centred between the thresholds).
    delta_a : float
        Median a* of the face minus the plate's, Lab units.
    delta_l : float
        Median L* of the face minus the plate's, Lab units.
    chroma : float
        Norm of the face's (a*, b*) minus the plate's, Lab units.
    margin : float
        Distance of ``delta_a`` from the nearer threshold, Lab units; negative
        inside the undecided band.
    a_star : float
        Median a* of the face itself, Lab units.
    plate_a_star : float
        Median a* of the plate model under the face (not clipped at 0), Lab units.
    l_star, b_star : float
        Median L* (0-100) and b* of the face itself, Lab units.
    plate_b_star : float
        Median b* of the plate model under the face, Lab units.
    """

    face: str
    p_red: float
    delta_a: float
    delta_l: float
    chroma: float
    margin: float
    a_star: float = 0.0
    plate_a_star: float = 0.0
    l_star: float = 0.0
    b_star: float = 0.0
    plate_b_star: float = 0.0

    def __post_init__(self) -> None:
        if self.face not in ("red", "white", "unknown"):
            raise ValueError(f"face: expected red, white or unknown, got {self.face!r}")
        if not 0.0 <= self.p_red <= 1.0:
            raise ValueError(f"p_red: expected [0, 1], got {self.p_red}")


def classify_face(view: CanonicalView, x: float, y: float, radius_px: float,
                  rule: FaceRule = DEFAULT_FACE_RULE) -> FaceReading:
    """Classify the face of a token centred at canonical (x, y).

    Parameters
    ----------
    view : CanonicalView
    x, y : float
        Face centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels (> 0).
    rule : FaceRule
        The thresholds.

    Returns
    -------
    FaceReading
    """
    disc = _core_disc(view, x, y, radius_px)
    if disc is None:
        return FaceReading("unknown", 0.5, 0.0, 0.0, 0.0, -rule.white_max_delta_a)
    box, sel = disc
    face = view.lab[box][sel]
    plate = view.background[box][sel]
    if face.shape[0] < 3:
        return FaceReading("unknown", 0.5, 0.0, 0.0, 0.0, -rule.white_max_delta_a)
    plate_ref = np.median(plate, axis=0)
    plate_lab = plate_ref.astype(np.float64)  # as measured (a* not clipped): the light's colour on the plate
    plate_a = float(plate_ref[1])
    # The plate is the white reference, but only as far as neutral: a green or
    # blue glaze (negative a*) would make every white face look reddish.
    plate_ref[1] = max(float(plate_ref[1]), 0.0)
    # per channel the same bits as np.median(face[:, c]) (the same order
    # statistics, averaged the same way), used again for the absolute a*, b*, L*
    face_med = np.median(face, axis=0)
    diff = face_med - plate_ref
    delta_l, delta_a, delta_b = (float(v) for v in diff)
    chroma = math.hypot(delta_a, delta_b)
    mid = 0.5 * (rule.red_min_delta_a + rule.white_max_delta_a)
    width = 0.25 * (rule.red_min_delta_a - rule.white_max_delta_a)
    p_red = 1.0 / (1.0 + math.exp(-max(min((delta_a - mid) / width, 50.0), -50.0)))
    abs_a = float(face_med[1])  # = float(np.median(face[:, 1]))
    abs_b = float(face_med[2])
    hue_deg = math.degrees(math.atan2(abs_b, abs_a))
    white_chroma = min(math.hypot(abs_a, abs_b), chroma)
    red_hue = RED_HUE_RANGE_DEG[0] <= hue_deg <= RED_HUE_RANGE_DEG[1]
    redder_than_orange = RED_HUE_RANGE_DEG[0] <= hue_deg < WHITE_WARM_MIN_HUE_DEG
    face_l = float(face_med[0])
    whitish = white_chroma <= WHITE_MAX_CHROMA and delta_l >= WHITE_MIN_DELTA_L and face_l >= WHITE_MIN_L
    # a* per unit of L*: a chromaticity, about the same for a face whatever
    # the exposure (a dark or washed-out red keeps it; a white never has it)
    a_per_l = abs_a / max(face_l, 1.0)
    if (delta_a >= rule.red_min_delta_a and chroma >= rule.red_min_chroma and abs_a >= rule.red_min_abs_a
            and red_hue):
        face_name, margin = "red", min(delta_a - rule.red_min_delta_a, abs_a - rule.red_min_abs_a)
    elif (red_hue and delta_a >= rule.white_max_delta_a + RED_DIM_ABOVE_WHITE_A
          and a_per_l >= RED_DIM_MIN_A_PER_L):
        # a red face made dark (under-exposed, a dark red) or pale: its a* is
        # below the absolute bound, but high for its lightness
        face_name, margin = "red", delta_a - rule.white_max_delta_a - RED_DIM_ABOVE_WHITE_A
        p_red = max(p_red, 1.0 / (1.0 + math.exp(-min((a_per_l - 0.5 * RED_DIM_MIN_A_PER_L)
                                                         / (0.125 * RED_DIM_MIN_A_PER_L), 50.0))))
    elif (red_hue and delta_l <= DARK_RED_MAX_DELTA_L and delta_a >= DARK_RED_MIN_DELTA_A
          and abs_a >= DARK_RED_MIN_ABS_A):
        # much darker than the plate (so no white) and redder than it: a dark red
        face_name = "red"
        margin = min(delta_a - DARK_RED_MIN_DELTA_A, abs_a - DARK_RED_MIN_ABS_A, DARK_RED_MAX_DELTA_L - delta_l)
        p_red = max(p_red, 1.0 / (1.0 + math.exp(-min(margin / 2.0, 50.0))))
    elif (delta_a <= rule.white_max_delta_a and abs_a <= rule.white_max_abs_a and whitish
          and (abs_a <= WHITE_NEUTRAL_MAX_A or not redder_than_orange)):
        face_name, margin = "white", min(rule.white_max_delta_a - delta_a, rule.white_max_abs_a - abs_a)
        if redder_than_orange:
            margin = min(margin, WHITE_NEUTRAL_MAX_A - abs_a)
    elif (delta_a <= rule.white_max_delta_a and abs_a <= rule.white_max_abs_a and delta_l >= WHITE_MIN_DELTA_L
          and face_l >= WHITE_MIN_L
          and (warm := is_warm_white(face_l, abs_a, abs_b, np.median(view.bgr[box][sel], axis=0), plate_lab))[0]):
        # a white tinted by a lamp warmer than the camera's balance, on a
        # plate too dark to carry the tint (see vision.warm_white)
        face_name = "white"
        margin = min(rule.white_max_delta_a - delta_a, rule.white_max_abs_a - abs_a, warm[1])
    elif (clipped := is_clipped_red(delta_a, chroma, abs_a, abs_b, float(np.median(view.bgr[box][sel][:, 2])),
                                    rule.red_min_delta_a, rule.red_min_chroma,
                                    (RED_HUE_RANGE_DEG[0], WHITE_WARM_MIN_HUE_DEG)))[0]:
        # a red washed out to the ceiling in red: its a* is only a lower bound (see vision.clipped_red)
        face_name, margin = "red", clipped[1]
    else:
        face_name = "unknown"
        margin = -max(min(delta_a - rule.white_max_delta_a, rule.red_min_delta_a - delta_a), 0.0)
    return FaceReading(face_name, float(min(max(p_red, 0.0), 1.0)), delta_a, delta_l, chroma, margin,
                       a_star=abs_a, plate_a_star=plate_a, l_star=face_l, b_star=abs_b,
                       plate_b_star=float(plate_ref[2]))


#: White faces in one frame (one light, one exposure) are alike: when their a*
#: differs by more than this, both as measured and relative to the plate
#: beside each (Lab units), a washed-out red may be among them.  True white
#: faces of synthesized scenes 1000-1399 differed by at most 12 as measured (a
#: cream plate whose own a* varied 8-15 under them) and 13.6 relative to the
#: plate (a gold plate varying -2 to -13 under steady whites), but never by
#: more than 6.9 both ways; three pinkish reds washed out by a stop of
#: over-exposure under 3260 K light beside one white (fresh scene 33638,
#: read as four whites) differed by 17 both ways.
WHITE_MAX_SPREAD_A = 10.0


def whites_alike(readings: list[FaceReading]) -> tuple[bool, float]:
    """Whether the faces read white in one frame are alike in a*.

    Parameters
    ----------
    readings : list of FaceReading
        The frame's flat faces.

    Returns
    -------
    alike : bool
        False when at least two faces read white and their a* spreads by more
        than ``WHITE_MAX_SPREAD_A`` both as measured and relative to the plate.
    spread : float
        The smaller of the two spreads, Lab units (0 with fewer than two whites).
    """
    spread = _white_spread(readings, lambda f: (f.a_star, f.a_star - f.plate_a_star))
    return spread <= WHITE_MAX_SPREAD_A, spread


def _white_spread(readings: list[FaceReading | None],
                  values: Callable[[FaceReading], tuple[float, float]]) -> float:
    """The smaller of the two spreads (max - min) of ``values(face)`` (as
    measured, relative to the plate) over the faces read white; 0 with fewer
    than two whites.  None readings are skipped."""
    pairs = [values(f) for f in readings if f is not None and f.face == "white"]
    if len(pairs) < 2:
        return 0.0
    own, rel = zip(*pairs)
    return float(min(max(own) - min(own), max(rel) - min(rel)))


#: The least red face read red must lie this many widths of the undecided
#: a* band (``red_min_delta_a - white_max_delta_a``) above the most red face
#: read white in the same frame (:func:`colours_apart`).
COLOUR_GAP_MIN_BANDS = 1.0


def colours_apart(readings: list[FaceReading | None], rule: FaceRule = DEFAULT_FACE_RULE) -> tuple[bool, float]:
    """Whether the faces read red and those read white in one frame are set apart in a*.

    One light and one exposure light every face of a frame, so a frame's red
    faces and its white faces differ in a* by more than either colour's faces
    differ among themselves.  When the least red face read red is nearer the
    most red face read white than the width of the undecided band between the
    two colours (``rule.red_min_delta_a - rule.white_max_delta_a``), the faces
    do not fall into two colours: one colour may lie across the boundary.
    Four dusty dark reds under 6,900 K light on a pale-blue plate (fresh
    forced touching scene 823778, 640x480) measured a* 12, 14, 17 and 19
    above the plate and were read as two whites and two reds: a wrong
    outcome, 3 apart.  Right outcomes with both colours measured at least
    10.5 apart (1,956 frames of fresh forced four flat tokens, 840000-842999
    at 640x480 and 843000-844899 at 1280x720; the nearest were dark reds).

    Parameters
    ----------
    readings : list of FaceReading or None
        The frame's face readings (None entries are skipped).
    rule : FaceRule
        The colour thresholds the faces were read with.

    Returns
    -------
    apart : bool
        False when some face reads red and some white, and the smallest
        ``delta_a`` of a red is less than ``COLOUR_GAP_MIN_BANDS`` band widths
        above the largest ``delta_a`` of a white.
    gap : float
        That difference, Lab units (inf without both colours).
    """
    if not isinstance(rule, FaceRule):
        raise TypeError(f"rule: expected a FaceRule, got {type(rule).__name__}")
    reds = [f.delta_a for f in readings if f is not None and f.face == "red"]
    whites = [f.delta_a for f in readings if f is not None and f.face == "white"]
    if not reds or not whites:
        return True, math.inf
    gap = float(min(reds) - max(whites))
    return gap >= COLOUR_GAP_MIN_BANDS * (rule.red_min_delta_a - rule.white_max_delta_a), gap


#: White faces in one frame are alike in lightness too: when the faces read
#: white spread in L* by more than this, both as measured and relative to the
#: plate under each (Lab units), one of them is in a shadow or is one.  True
#: white faces of 1,478 frames with two or more (forced four-token scenes
#: 150000-152999 at 640x480) spread at most 11.4 (99th percentile 8.6); the
#: shadow of a token on edge read as a white face beside a true white (fresh
#: scene 183093, 640x480) spread 21.6 both ways.
WHITE_MAX_SPREAD_L = 15.0


def whites_alike_in_lightness(readings: list[FaceReading | None]) -> tuple[bool, float]:
    """Whether the faces read white in one frame are alike in L*.

    Parameters
    ----------
    readings : list of FaceReading or None
        The frame's face readings (None entries are skipped).

    Returns
    -------
    alike : bool
        False when at least two faces read white and their L* spreads by more
        than ``WHITE_MAX_SPREAD_L`` both as measured and relative to the plate.
    spread : float
        The smaller of the two spreads, Lab units (0 with fewer than two whites).
    """
    spread = _white_spread(readings, lambda f: (f.l_star, f.delta_l))
    return spread <= WHITE_MAX_SPREAD_L, spread


#: White faces in one frame are alike in b* (yellow-blue) too: the light's
#: colour tints them alike.  When their b* spreads by more than this, both as
#: measured and relative to the plate beside each (Lab units), one of them
#: may be a patch of a coloured glaze found as a face: on a gold plate a
#: faint find the glaze's own yellow (b* 40, 0.7 L lighter than the plate)
#: was read white beside a neutral white face (b* -1) and completed a count
#: of four around three tokens (fresh forced three tokens 1016290 at
#: 1280x720, nineteenth round: a spread of 41).  True white faces of one
#: frame spread at most 6 in b* as measured in right outcomes (330 frames with
#: two or more whites: forced four flat tokens 1020000-1020999 at 640x480 and
#: a natural mix 1021000-1021375), 11 in any frame read.
WHITE_MAX_SPREAD_B = 15.0


def whites_alike_in_yellowness(readings: list[FaceReading | None]) -> tuple[bool, float]:
    """:func:`whites_alike` for b* (yellow-blue) with ``WHITE_MAX_SPREAD_B``.

    ``readings`` may hold None (candidates that are no flat face).  Returns
    ``(alike, spread)``: the smaller of the b* spreads of the faces read white
    as measured and relative to the plate (``FaceReading.plate_b_star``), Lab
    units, 0 with fewer than two whites; ``alike`` is whether it is at most
    the bound.
    """
    spread = _white_spread(readings, lambda f: (f.b_star, f.b_star - f.plate_b_star))
    return spread <= WHITE_MAX_SPREAD_B, spread


#: An undecided face takes the colour of a face of the same frame decided by
#: the rules above (same light, same exposure) when its median L*, a*, b*
#: lie within this Lab distance of that face's ...
ALIKE_MAX_DELTA_E = 8.0
#: ... and its a* within this of it (Lab units), and it is alike to faces of
#: one colour only.  A face taken for white must still pass the white
#: lightness bounds (``WHITE_MIN_DELTA_L``, ``WHITE_MIN_L``).  On 10,882 faces
#: of forced four-token scenes 150000-152999 at 640x480 (none read the wrong
#: colour): white faces tinted by warm light beyond ``WHITE_MAX_CHROMA``
#: measured 1.1-8.1 Lab units from a white of their frame (a* 0-4 apart; 42
#: of 252 undecided whites), while no undecided red came within 14.5 (a* 11)
#: of one; dim red faces just outside a red bound measured 0.8-4.7 from a red
#: of their frame (34 of 126 undecided reds), while no undecided white came
#: within 39 of one.  A yellow thing unlike the
#: frame's whites stays undecided: one frame cannot show whether the light or
#: the thing is yellow, but a white token beside it can.
ALIKE_MAX_DELTA_A = 4.0


def alike_in_frame(readings: list[FaceReading | None]) -> list[FaceReading | None]:
    """Give undecided faces the colour of the decided faces of the same frame they match.

    Parameters
    ----------
    readings : list of FaceReading or None
        The frame's face readings (None for candidates that are no flat face).

    Returns
    -------
    list of FaceReading or None
        A new list, in order: each ``unknown`` face whose median L*, a*, b*
        lies within ``ALIKE_MAX_DELTA_E`` (and a* within ``ALIKE_MAX_DELTA_A``)
        of a face read ``white`` or ``red`` by :func:`classify_face`, of one of
        the two colours only, becomes a reading of that colour (for white, only
        when it passes the white lightness bounds): p_red that of the nearest
        such face, margin the smaller of the two distances' room below their
        bounds.  Faces are compared with the faces as read, never with one
        another's new readings; the input is not changed.
    """
    decided = [f for f in readings if f is not None and f.face in ("white", "red")]
    if not decided:
        return list(readings)
    out: list[FaceReading | None] = []
    for f in readings:
        if f is None or f.face != "unknown":
            out.append(f)
            continue
        lab = (f.l_star, f.a_star, f.b_star)
        matches = {}
        for g in decided:
            dist = math.dist(lab, (g.l_star, g.a_star, g.b_star))
            da = abs(f.a_star - g.a_star)
            if dist > ALIKE_MAX_DELTA_E or da > ALIKE_MAX_DELTA_A:
                continue
            if g.face == "white" and (f.delta_l < WHITE_MIN_DELTA_L or f.l_star < WHITE_MIN_L):
                continue
            if g.face not in matches or dist < matches[g.face][0]:
                matches[g.face] = (dist, da, g)
        if len(matches) != 1:
            out.append(f)  # like no decided face, or like both colours
            continue
        (name, (dist, da, g)), = matches.items()
        margin = min(ALIKE_MAX_DELTA_E - dist, ALIKE_MAX_DELTA_A - da)
        out.append(replace(f, face=name, p_red=g.p_red, margin=float(margin)))
    return out
