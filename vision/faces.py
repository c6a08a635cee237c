"""Stage 3: decide whether each flat face is red or white.

The decision uses the red-green axis a* of CIE Lab, measured relative to the
plate right next to the token (the plate is the frame's own reference: a
colour cast from the light, the white balance or the exposure moves plate and
token together).  Colour temperature moves colours mostly along b*
(blue-yellow), so a* keeps red and white apart from 2700 K to 7000 K.

Between the two thresholds lies an undecided band: a face there is
``unknown`` and the reader abstains.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .canonical import CanonicalView

#: A face is red when its a* exceeds the plate's by at least this (Lab units).
RED_MIN_DELTA_A = 16.0
#: A face is white when its a* exceeds the plate's by at most this (Lab units).
WHITE_MAX_DELTA_A = 8.0
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
    """

    face: str
    p_red: float
    delta_a: float
    delta_l: float
    chroma: float
    margin: float

    def __post_init__(self) -> None:
        if self.face not in ("red", "white", "unknown"):
            raise ValueError(f"face: expected red, white or unknown, got {self.face!r}")
        if not 0.0 <= self.p_red <= 1.0:
            raise ValueError(f"p_red: expected [0, 1], got {self.p_red}")


def classify_face(view: CanonicalView, x: float, y: float, radius_px: float) -> FaceReading:
    """Classify the face of a token centred at canonical (x, y).

    Parameters
    ----------
    view : CanonicalView
    x, y : float
        Face centre, canonical pixels.
    radius_px : float
        Face radius, canonical pixels (> 0).

    Returns
    -------
    FaceReading
    """
    if not radius_px > 0:
        raise ValueError(f"radius_px: expected > 0, got {radius_px}")
    s = view.canvas_px
    r_in = max(1.0, FACE_SAMPLE_FRAC * radius_px)
    x0, x1 = max(0, int(math.floor(x - r_in))), min(s, int(math.ceil(x + r_in)) + 1)
    y0, y1 = max(0, int(math.floor(y - r_in))), min(s, int(math.ceil(y + r_in)) + 1)
    if x1 <= x0 or y1 <= y0:
        return FaceReading("unknown", 0.5, 0.0, 0.0, 0.0, -WHITE_MAX_DELTA_A)
    rr, cc = np.ogrid[y0:y1, x0:x1]
    sel = (cc - x) ** 2 + (rr - y) ** 2 <= r_in ** 2
    face = view.lab[y0:y1, x0:x1][sel]
    plate = view.background[y0:y1, x0:x1][sel]
    if face.shape[0] < 3:
        return FaceReading("unknown", 0.5, 0.0, 0.0, 0.0, -WHITE_MAX_DELTA_A)
    diff = np.median(face, axis=0) - np.median(plate, axis=0)
    delta_l, delta_a, delta_b = (float(v) for v in diff)
    chroma = math.hypot(delta_a, delta_b)
    mid = 0.5 * (RED_MIN_DELTA_A + WHITE_MAX_DELTA_A)
    width = 0.25 * (RED_MIN_DELTA_A - WHITE_MAX_DELTA_A)
    p_red = 1.0 / (1.0 + math.exp(-(delta_a - mid) / width))
    abs_a = float(np.median(face[:, 1]))
    if delta_a >= RED_MIN_DELTA_A and chroma >= RED_MIN_CHROMA and abs_a >= RED_MIN_ABS_A:
        face_name, margin = "red", min(delta_a - RED_MIN_DELTA_A, abs_a - RED_MIN_ABS_A)
    elif delta_a <= WHITE_MAX_DELTA_A and abs_a <= WHITE_MAX_ABS_A:
        face_name, margin = "white", min(WHITE_MAX_DELTA_A - delta_a, WHITE_MAX_ABS_A - abs_a)
    else:
        face_name, margin = "unknown", -min(delta_a - WHITE_MAX_DELTA_A, RED_MIN_DELTA_A - delta_a)
    return FaceReading(face_name, float(min(max(p_red, 0.0), 1.0)), delta_a, delta_l, chroma, margin)
