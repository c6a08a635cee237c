"""A white face under a lamp warmer than the camera's white balance.

A white token reflects the lamp's own colour.  Under a 2700-3800 K lamp seen
by a camera balanced for daylight, the blackbody's colour gives a white face
a strong yellow: b* up to about 55 and chroma up to about 57 (the synthesizer's
warm and ivory whites under 2700 K, by its own light model), at a hue of
70-95 degrees (yellow, a* at most about 16).  The face rule of
:mod:`vision.faces` measures a white's chroma relative to the plate, which
takes the light's tint out on a pale glaze (the plate is as yellow as the
white), but not on a black glaze (this rule reads only faces beside a dark
plate): a black plate reflects little light, and
its Lab colour is near neutral whatever the light's colour.  Such whites
fell beyond the white chroma bound (22) and were undecided: on black lacquer
under 2700-3800 K (fresh forced four flat tokens 1820000-1820399 at
1280x720) 304 of 753 white faces, none of 677 reds.

A red pigment keeps its hue under any of these lamps: red faces of the same
scenes measured hues of 20-60 degrees when decided and 27-66 when undecided
(these at a* 18 or more), far from a white's.  A red washed out by
over-exposure does turn yellow (its red channel at the ceiling, green and
blue rising), but its red level is then at the ceiling, where a face read
white is decisive only when a red of the frame shows that the light leaves
a red its colour (``vision.reader.washed_out_whites``): a face read white by
this rule passes the same guard.

A yellow thing (a gold decoration, a patch of gold glaze) is as yellow as a
white under a warm lamp, seen alone.  What tells them apart is the light's
colour, which tints the plate just as it tints the face: in linear light the
blue-to-green ratio of a white face is the lamp's times the white's own
(0.76-1.2 for the synthesizer's whites), the plate's the lamp's times the
glaze's (black lacquer about 1.0, pale blue about 1.3), so a white's ratio is
at least about 0.55 of the plate's, whatever the lamp (measured 0.54 or
more); a gold pigment's is about 0.15 of a neutral glaze's.  A face much yellower than the plate is no
white under this rule.

A/B (this rule on against off, fresh scenes; wrong outcomes 0 on both sides
everywhere): black lacquer outcome 2700-3800 K, 1824000-1824399 at 1280x720
right 213 against 142, 1824400-1824799 at 640x480 207 against 156 (every
change an abstention read right); no verdict changed on black lacquer under
4500-7000 K (400 at 1280x720), on the other glazes under 2700-3800 K (400 at
1280x720, 200 at 640x480), on three and five tokens on black lacquer (150
each at 1280x720) or on a natural mix (200 at 1024x768).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .exposure import linear_light

#: Master switch of the rule (A/B: ``--set vision.warm_white.WARM_WHITE_RULE=False``).
WARM_WHITE_RULE = True
#: Hue, atan2(b*, a*) in degrees, of a white face under a warm lamp.  The
#: blackbody's colour at 2700-3800 K seen by a camera balanced for 5000 K
#: puts the synthesizer's whites at 71-93 degrees at mid exposure; its whites
#: beyond the white chroma bound measured 68.7-108.4 (a red channel near the
#: ceiling turns a bright white toward green, a* down to -14).  Red faces under
#: the same lamps measured at most 60 when read red and 66.5 when undecided
#: (with a* 18 or more, past the white a* bound as well).
WARM_WHITE_HUE_RANGE_DEG = (65.0, 115.0)
#: Largest chroma (of the face's own a*, b*, Lab units) of a white under the
#: warmest lamp: the ivory white under 2700 K computes to 57, and white faces
#: measured at most 55 (fresh scenes above).  Past it the face is more
#: coloured than a white under any lamp the reader is made for.
WARM_WHITE_MAX_CHROMA = 60.0
#: The face's blue-to-green ratio, linear light, over the plate's beside it,
#: as a natural log: at least this.  A white's ratio is the lamp's times its
#: own (0.76-1.2), the plate's the lamp's times the glaze's (at most about
#: 1.3, pale blue), so a white is at least about ln(0.55) = -0.6 against the
#: plate; the white faces beyond the white chroma bound that this rule
#: reads measured -0.61 or more on black lacquer under 2700-3800 K (303
#: faces, fresh scenes 1820000-1820399 at 1280x720), -0.50 or more on the
#: other glazes (76 faces, 1821000-1821399), -0.35 on a natural mix (36,
#: 1822000-1822299 at 1024x768).  A gold pigment (the synthesizer's gold
#: decoration, sRGB 196, 152, 64) on a neutral plate measures ln(0.15) = -1.9,
#: and a yellow as strong as a white's under 2700 K (L* 80, a* 10, b* 45) on a
#: neutral black plate -1.1: no white under a lamp that leaves the plate
#: neutral.  The bound lies 0.3 (a ratio of 1.35) below the whites measured.
WARM_WHITE_MIN_BLUE_GREEN_LN = -0.9
#: The plate beside the face is dark: its L* (0-100) at most this.  Only a
#: plate that reflects little light stays near neutral in Lab under a warm
#: lamp; a pale plate takes the lamp's tint as a white does, and the face
#: rule's chroma relative to the plate already reads such a white.  On a
#: pale yellow glaze a yellow face may be the glaze's own colour (a faint
#: find of a gold glaze, fresh scene 1016290): one frame cannot show whether
#: the light or the thing is yellow, and such faces stay undecided
#: (tests/test_faces_dim.py).  The plate beside the newly read whites on
#: black lacquer measured L* 3-34 at the 90th percentile (up to 80 inside
#: the lacquer's highlight, where this rule then does not read them); gold,
#: the darkest pale glaze, measured 58 or more under 2700-3800 K within a stop
#: of exposure (and about 40 two stops under).
WARM_WHITE_MAX_PLATE_L = 35.0


def blue_green_ln(bgr: np.ndarray) -> float:
    """The natural log of the blue-to-green ratio of one colour, in linear light.

    Parameters
    ----------
    bgr : array_like, (3,)
        B, G, R as 8-bit levels (0-255, floats allowed); a level under 1 is
        taken as 1 (the ratio of a black is no colour).

    Returns
    -------
    float
        ln(B / G) in linear light (:func:`vision.exposure.linear_light`); NaN
        when a level is NaN.

    Raises
    ------
    ValueError
        ``bgr`` does not hold three values.
    """
    levels = np.asarray(bgr, dtype=np.float64)
    if levels.shape != (3,):
        raise ValueError(f"bgr: expected 3 levels (B, G, R), got shape {levels.shape}")
    if np.isnan(levels).any():
        return math.nan
    b, g = (float(linear_light(max(float(v), 1.0))) for v in levels[:2])
    return math.log(b / g)


def lab_levels(lab: np.ndarray) -> np.ndarray:
    """One CIE Lab colour as the camera's 8-bit BGR levels, without rounding.

    Parameters
    ----------
    lab : array_like, (3,)
        L* (0-100), a*, b* (Lab units), the reader's Lab (OpenCV's, D65, sRGB).

    Returns
    -------
    ndarray, float64, (3,)
        B, G, R levels (0-255, floats; clipped to that range).

    Raises
    ------
    ValueError
        ``lab`` does not hold three finite values.
    """
    v = np.asarray(lab, dtype=np.float64)
    if v.shape != (3,) or not np.isfinite(v).all():
        raise ValueError(f"lab: expected 3 finite values (L*, a*, b*), got {v!r}")
    bgr = cv2.cvtColor(v.astype(np.float32).reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
    return np.clip(bgr.astype(np.float64) * 255.0, 0.0, 255.0)


def is_warm_white(l_star: float, a_star: float, b_star: float, face_bgr: np.ndarray,
                  plate_lab: np.ndarray) -> tuple[bool, float]:
    """Whether a face that no other face rule decides is a white under a warm lamp.

    The caller checks the white a* and lightness bounds of the face rule; this
    checks that the plate beside the face is dark (``WARM_WHITE_MAX_PLATE_L``),
    the hue (``WARM_WHITE_HUE_RANGE_DEG``), the chroma
    (``WARM_WHITE_MAX_CHROMA``) and that the face is no yellower than the
    light makes a white beside the plate (``WARM_WHITE_MIN_BLUE_GREEN_LN``).

    Parameters
    ----------
    l_star, a_star, b_star : float
        The face's median L* (0-100), a*, b* (Lab units).
    face_bgr : array_like, (3,)
        The face core's median levels, B, G, R (0-255).
    plate_lab : array_like, (3,)
        The plate model's median L*, a*, b* under the face (Lab units).

    Returns
    -------
    warm_white : bool
        False also when the switch ``WARM_WHITE_RULE`` is off or a value is NaN.
    margin : float
        The smallest room inside the four bounds (degrees of hue, Lab units
        of chroma and of the plate's L*, and 10 x the log ratio: units of
        about one Lab unit each); negative when outside (-inf when the plate
        is not dark).

    Raises
    ------
    ValueError
        ``face_bgr`` or ``plate_lab`` does not hold three values.
    """
    if not WARM_WHITE_RULE:
        return False, -math.inf
    if not all(math.isfinite(v) for v in (l_star, a_star, b_star)):
        return False, -math.inf
    plate = np.asarray(plate_lab, dtype=np.float64)
    if plate.shape != (3,):
        raise ValueError(f"plate_lab: expected 3 values (L*, a*, b*), got shape {plate.shape}")
    if not WARM_WHITE_MAX_PLATE_L >= plate[0]:  # (NaN: no plate measured)
        return False, -math.inf
    hue = math.degrees(math.atan2(b_star, a_star))
    lo, hi = WARM_WHITE_HUE_RANGE_DEG
    chroma = math.hypot(a_star, b_star)
    ratio = blue_green_ln(face_bgr) - blue_green_ln(lab_levels(plate_lab))
    if math.isnan(ratio):
        return False, -math.inf
    margin = min(hue - lo, hi - hue, WARM_WHITE_MAX_CHROMA - chroma,
                 10.0 * (ratio - WARM_WHITE_MIN_BLUE_GREEN_LN), WARM_WHITE_MAX_PLATE_L - float(plate[0]))
    return margin >= 0.0, float(margin)
