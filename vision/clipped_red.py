"""A red face whose red channel is at the sensor's ceiling.

The face rule of :mod:`vision.faces` reads a face red when its a* is at
least 18 above the plate's and at least 24 in absolute terms (the absolute
bound keeps whites on a coloured glaze out).  Over-exposure lifts a red's
green and blue while its red channel stops at the sensor's ceiling: from
there on, the measured a* only falls as the light rises, and the face's
true a* is at least what is measured.  A pale red washed out so far fails
the absolute bound while still 18 or more above the plate, at a red hue: it
was undecided, and the reader abstained on rounds whose every other face
was sure (fresh four flat tokens over-exposed by 0.5-1 stop, 2131000-2131299
at 640x480: three of the 13 rounds undecided for a face's colour; 2000129,
four orange reds on white porcelain at +0.85 stops, a* 18-20 at hues of
19-21 degrees beside reds read at 21-25).

A white never reaches that a* at that hue.  A white face redder than orange
(hue below :data:`vision.faces.WHITE_WARM_MIN_HUE_DEG`, 55 degrees) measured
a* 2 or less on 3,121 faces of synthesized scenes (warm light gives whites
a* up to about 17, but at a yellow hue, 56-80 degrees), and clipping its red
channel lowers a white's a* too, never raises it.  So a face whose core is
at the ceiling in red, whose a* above the plate meets the red bound (18) with
a red's chroma, at a hue from magenta-red to orange, is red, 16 a* units past
any white measured at such a hue.  A face at a yellower hue (an orange red
under a warm lamp, hue 60-69) is left undecided: there a warm white's a*
reaches 17.

This reads only faces the other rules leave undecided; a face it reads red
then meets every later check of :func:`vision.reader.decide` (the colour
gap, the whites' guards; a newly read red is also the most lit red the
washed-white guard compares a clipped white with, which only makes that
guard doubt more).

A/B (on against ``CLIPPED_RED_RULE=False``, 2026-12-06, fresh seeds, 200
scenes a set; right on / off, wrong outcomes 0 on both sides everywhere, no
right reading lost): four flat at 640x480 2133000-2133199 122 / 122, at
1280x720 2133200-2133399 133 / 133; over-exposed 0.5-1 stop at 640x480
2133400-2133599 48 / 48 and at 1024x768 2133600-2133799 55 / 55; 2700-3300 K
at 800x600 2133800-2133999 99 / 99; pinkish reds 2134000-2134199 121 / 119
(2134085, 2134107: four reds, one washed to a* 20-21, now read 4); orange
reds 2134200-2134399 112 / 112; pinkish or orange reds at 2700-3300 K and
+0.5 to +1.5 stops 2136000-2136199 18 / 18; +1 to +4 stops 2135600-2135799
6 / 6; touching at 1024x768 2135000-2135199 57 / 57; five tokens at 800x600
2135200-2135399 165 / 165; natural mix at 1024x768 2135400-2135599 143 / 143.
Of 2,400 scenes 12 changed reason: the two rights above, and ten
abstentions still abstaining, seven now at the next stop ("the plate is
over-exposed": a washed red comes with a washed plate).
"""
from __future__ import annotations

import math

#: Master switch (A/B: ``--set vision.clipped_red.CLIPPED_RED_RULE=False``).
CLIPPED_RED_RULE = True
#: The face core's median red level (8-bit, 0-255) at which its a* is only a
#: lower bound: the sensor's ceiling of :mod:`vision.exposure`
#: (``SATURATED_MIN_LEVEL``, 248; the reader's washed-white guard uses the same
#: level).  The faces this reads measured 252-254.
CLIPPED_RED_MIN_LEVEL = 248.0


def is_clipped_red(delta_a: float, chroma: float, a_star: float, b_star: float, red_level: float,
                   min_delta_a: float, min_chroma: float, hue_range_deg: tuple[float, float]
                   ) -> tuple[bool, float]:
    """Whether an undecided face is a red washed to the ceiling in its red channel.

    Parameters
    ----------
    delta_a : float
        The face's median a* minus the plate's (the plate's taken as 0 when
        negative), Lab units.
    chroma : float
        The norm of the face's (a*, b*) minus the plate's, Lab units.
    a_star, b_star : float
        The face's own median a*, b* (Lab units).
    red_level : float
        The face core's median red level, 8-bit (0-255).
    min_delta_a, min_chroma : float
        The face rule's red bounds on ``delta_a`` and ``chroma`` (Lab units).
    hue_range_deg : (float, float)
        Hues, atan2(b*, a*) in degrees, lo <= hue < hi, redder than any warm
        white's (the caller passes the red hue range's lower end and the hue
        where whites may carry a* from a warm lamp).

    Returns
    -------
    clipped_red : bool
        False also when ``CLIPPED_RED_RULE`` is off or a value is NaN.
    margin : float
        The smallest room inside the bounds (Lab units of a* and chroma,
        degrees of hue, levels of red); negative when outside.

    Raises
    ------
    ValueError
        ``hue_range_deg`` is not two numbers with lo < hi.
    """
    lo, hi = (float(v) for v in hue_range_deg)
    if not lo < hi:
        raise ValueError(f"hue_range_deg: expected lo < hi, got {hue_range_deg!r}")
    values = (delta_a, chroma, a_star, b_star, red_level)
    if not CLIPPED_RED_RULE or not all(math.isfinite(float(v)) for v in values):
        return False, -math.inf
    hue = math.degrees(math.atan2(b_star, a_star))
    margin = min(delta_a - min_delta_a, chroma - min_chroma, hue - lo, hi - hue,
                 red_level - CLIPPED_RED_MIN_LEVEL)
    # the hue's upper end is open: a face at exactly hi may be a warm white
    return margin >= 0.0 and hue < hi, float(margin)
