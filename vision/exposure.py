"""Over-exposure: where the plate is at the sensor's ceiling, a white face cannot show.

A white token on a pale plate differs from it by a few levels; where the
exposure drives both to the top of the 8-bit range in every channel, the
difference is gone, and so is the token (fresh scene 55755: a fifth white
face on an over-exposed pale-blue plate, its pixels within 2 levels of the
plate's, was not seen and four tokens were read as an outcome).  Two channels
at the ceiling are enough to lose it: a white face is then told from the
plate by the third channel alone, by a few levels (fresh scenes 90004, 90429,
91690 at 640x480, five tokens on pale-blue and celadon plates a stop
over-exposed: the plate at 248-255 in two channels and 208-249 in the third;
the fifth, white face 2.6-3.9 Lab in the disc filter, at the level of the
plate's texture, was not seen and four tokens were read).  A red face reaches
the ceiling in one channel at most.  The reader cannot exclude a token from
such a region, so it abstains when one is large enough to hold a face, or
to be one: a white face at the ceiling on a plate just below it is a clipped
disc a little smaller than a face (fresh scene 120143: 0.85-0.91 token radii,
its face under 1 Lab from the plate's shading model, not found).
"""
from __future__ import annotations

import cv2
import numpy as np

#: A pixel is at the ceiling when ``SATURATED_MIN_CHANNELS`` channels of the
#: canonical view (BGR, after its light blur) are at least this level (0-255):
#: within a few levels of 255, where JPEG and noise leave a clipped region.
SATURATED_MIN_LEVEL = 248
#: ... in at least this many of its three channels.
SATURATED_MIN_CHANNELS = 2
#: Display gamma taken to turn 8-bit levels into linear light (1 at 255) where
#: a rule compares light, not Lab (:func:`linear_light`: the washed-out-red
#: rule of :mod:`vision.reader` and the shadow test of
#: :func:`vision.tokens._shadow_in_linear_light`).
LEVEL_GAMMA = 2.2
#: The region searched: the flat of the well, to this fraction of the plate
#: radius (where a face's centre may lie, ``tokens.FAINT_ACCEPT_RADIUS_FRAC``).
SATURATED_WELL_FRAC = 0.80
#: A pixel's levels are first taken as the median of the square this many
#: canonical pixels a side around it (about 0.3 of a token radius on the
#: canvas's 128-pixel plate radius): the camera's noise and JPEG leave single
#: pixels a few levels under the ceiling inside a clipped region, and a
#: region full of such holes measures small rooms where a face hides all the
#: same.  Fresh scene 1163605 (five tokens, 800x600, cream glaze with iron
#: speckle, +0.52 stops, noise 5.5 levels): a fifth, grey white face at the
#: ceiling (core median levels 254, 250, 241 against the plate's 250, 250,
#: 248) differed from the plate by 2.7 b* while the other whites differed by
#: 6-8; it was neither found nor a suspect, the well's clipped pixels held a
#: disc of only 0.56 token radii between their holes (1.0 from the
#: 5-pixel median), and four tokens were read as an outcome.  1: each pixel
#: alone, as before.
SATURATED_MEDIAN_PX = 5
#: Tokens already found are taken out to this many token radii (a white face
#: found is no hidden one, and its rim may be saturated too).
SATURATED_FOUND_RADII = 1.2


def linear_light(level):
    """8-bit levels (0-255; a float or an ndarray) as linear light (1 at 255),
    display gamma :data:`LEVEL_GAMMA`."""
    return (level / 255.0) ** LEVEL_GAMMA


def at_ceiling(bgr: np.ndarray) -> np.ndarray:
    """Pixels at the sensor's ceiling.

    Parameters
    ----------
    bgr : ndarray, uint8, (H, W, 3)
        BGR levels, 0-255.

    Returns
    -------
    ndarray, bool, (H, W)
        True where ``SATURATED_MIN_CHANNELS`` channels of the
        ``SATURATED_MEDIAN_PX`` square's median are ``SATURATED_MIN_LEVEL`` or
        more (the median so that noise and JPEG holes do not cut a clipped
        region up).
    """
    levels = cv2.medianBlur(bgr, SATURATED_MEDIAN_PX) if SATURATED_MEDIAN_PX > 1 else bgr
    # = (levels >= SATURATED_MIN_LEVEL).sum(axis=2, dtype=np.uint8): the same
    # 0..3 counts, on contiguous channel planes (a sum over the short last
    # axis is ~20x slower)
    counts = np.zeros(bgr.shape[:2], np.uint8)
    for plane in cv2.split(levels):
        counts += (plane >= SATURATED_MIN_LEVEL).view(np.uint8)
    return counts >= SATURATED_MIN_CHANNELS


def _check_view_args(bgr: np.ndarray, radius_px: np.ndarray, plate_radius_px: float) -> None:
    """Raise ValueError for a ``bgr``, ``radius_px`` or ``plate_radius_px`` not of a canonical view."""
    if not (isinstance(bgr, np.ndarray) and bgr.dtype == np.uint8 and bgr.ndim == 3 and bgr.shape[2] == 3):
        raise ValueError(f"bgr: expected uint8 (S, S, 3), got {getattr(bgr, 'dtype', type(bgr))} "
                         f"{getattr(bgr, 'shape', '')}")
    if np.shape(radius_px) != bgr.shape[:2]:
        raise ValueError(f"radius_px: expected shape {bgr.shape[:2]}, got {np.shape(radius_px)}")
    if not plate_radius_px > 0:
        raise ValueError(f"plate_radius_px: expected > 0, got {plate_radius_px}")


def well_at_ceiling(bgr: np.ndarray, radius_px: np.ndarray, plate_radius_px: float) -> np.ndarray:
    """The well's pixels at the sensor's ceiling.

    Parameters
    ----------
    bgr : ndarray, uint8, (S, S, 3)
        The canonical view's colour image, BGR.
    radius_px : ndarray, float, (S, S)
        Each pixel's distance from the plate centre, canonical pixels.
    plate_radius_px : float
        Plate radius, canonical pixels (> 0).

    Returns
    -------
    ndarray, bool, (S, S)
        :func:`at_ceiling` of ``bgr`` on the well (within
        ``SATURATED_WELL_FRAC`` of the plate radius), False elsewhere: the
        same pixels as ``at_ceiling(bgr) & well``, the median filtered on the
        well's box only.
    """
    _check_view_args(bgr, radius_px, plate_radius_px)
    well = radius_px < SATURATED_WELL_FRAC * plate_radius_px
    clipped = np.zeros(bgr.shape[:2], bool)
    rows, cols = np.flatnonzero(well.any(axis=1)), np.flatnonzero(well.any(axis=0))
    if rows.size == 0:
        return clipped
    # The levels are needed on the well only: its bounding box, grown by the
    # median's reach so that every well pixel's square lies inside (where the
    # box meets the canvas's edge, the edge replicates as on the whole view),
    # is all that is filtered.
    reach = SATURATED_MEDIAN_PX // 2 if SATURATED_MEDIAN_PX > 1 else 0
    h, w = bgr.shape[:2]
    y0, y1 = max(int(rows[0]) - reach, 0), min(int(rows[-1]) + 1 + reach, h)
    x0, x1 = max(int(cols[0]) - reach, 0), min(int(cols[-1]) + 1 + reach, w)
    box = np.ascontiguousarray(bgr[y0:y1, x0:x1])
    # A square's median reaches the ceiling in a channel only where one of
    # its pixels does: with fewer channels than SATURATED_MIN_CHANNELS at the
    # ceiling anywhere in the box, no pixel of the well is (the usual case,
    # without the median filter)
    # (each channel's maximum on its own contiguous plane: NumPy's maximum
    # over the pixels of an (N, 3) array is ~30x slower)
    if sum(int(plane.max()) >= SATURATED_MIN_LEVEL for plane in cv2.split(box)) < SATURATED_MIN_CHANNELS:
        return clipped
    clipped[y0:y1, x0:x1] = at_ceiling(box)
    clipped &= well
    return clipped


def saturated_room(bgr: np.ndarray, radius_px: np.ndarray, plate_radius_px: float,
                   found: list[tuple[float, float]], token_r: float, clipped: np.ndarray | None = None) -> float:
    """How large a face could hide where the plate is at the sensor's ceiling.

    Parameters
    ----------
    bgr : ndarray, uint8, (S, S, 3)
        The canonical view's colour image, BGR.
    radius_px : ndarray, float, (S, S)
        Each pixel's distance from the plate centre, canonical pixels.
    plate_radius_px : float
        Plate radius, canonical pixels (> 0).
    found : list of (x, y)
        Centres of the tokens found, canonical pixels; taken out to
        ``SATURATED_FOUND_RADII`` token radii.
    token_r : float
        Token radius, canonical pixels (> 0).
    clipped : ndarray, bool, (S, S), or None
        :func:`well_at_ceiling` of ``bgr``, ``radius_px`` and
        ``plate_radius_px``, when the caller has it (it is used as given).
        None: found here.

    Returns
    -------
    float
        The radius, in token radii, of the largest disc inside the well whose
        every pixel is at the ceiling in ``SATURATED_MIN_CHANNELS`` channels,
        its levels the median of the ``SATURATED_MEDIAN_PX`` square around it
        (0 when there is none).  At 1 or more a whole face fits.
    """
    _check_view_args(bgr, radius_px, plate_radius_px)
    if not token_r > 0:
        raise ValueError(f"token_r: expected > 0, got {token_r}")
    if clipped is None:
        clipped = well_at_ceiling(bgr, radius_px, plate_radius_px)
    elif np.shape(clipped) != bgr.shape[:2]:
        raise ValueError(f"clipped: expected shape {bgr.shape[:2]}, got {np.shape(clipped)}")
    if not clipped.any():
        return 0.0
    room = clipped.astype(np.uint8)  # a copy: the caller's mask is not drawn on
    for x, y in found:
        cv2.circle(room, (int(round(x)), int(round(y))), int(round(SATURATED_FOUND_RADII * token_r)), 0,
                   thickness=cv2.FILLED)
    # distance of each room pixel to the nearest pixel outside it: the radius
    # of the largest disc centred there that lies inside the room
    dist = cv2.distanceTransform(room, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    return float(dist.max()) / token_r
