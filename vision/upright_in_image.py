"""A token on edge measured in the camera's image, where the canonical view stretches it.

The canonical view (:mod:`vision.canonical`) is an affine map that turns the
plate's ellipse into a circle: it undoes the camera's foreshortening of the
plate's plane by stretching the source frame along the ellipse's minor axis
by ``a / b``.  That is right for everything lying flat on the plate, and too
much for what stands up from it: a token on edge, ``2 r`` tall, is seen by
a tilted camera with its height laid along that same direction, so in the
canonical view its bar is up to ``2 r a / b`` long (``2 r / cos(tilt)`` for
an on-axis camera).  The upright rule's length bound
(``vision.tokens.UPRIGHT_LENGTH_RADII``, 2.8 radii of the ellipse fitted to
the bar's outline) then rejects a true token on edge whose bar lies along
the tilt: clip 1300201 (upright variant, 640x360, tilt 28 deg, plate
``a / b`` 1.134) measured its bar 2.79-2.83 radii long from frame to frame,
solid red over 2.27 radii (``2 r / cos 28 deg`` is 2.27 r), and every frame
past 2.8 read it as part of a face, ``rearrange``.

In the camera's own image any disc, flat or on edge, is at most its diameter
long (its orthographic image is an ellipse of semi-major ``r``).
:func:`bar_axes_in_image` measures a blob's outline there: the canonical
outline pressed back along the stretch direction by ``b / a``, so lengths
along the plate's major axis keep their canonical scale.  A blob of the
upright rule's shape in the canonical view (axis ratio, area) that is only
too long there counts as a token on edge when, measured in the image, it is
again a bar within the rule's length range (:func:`stands_in_image`).  The
bound only widens: a bar within the range in the canonical view is judged
there as before.

Distances are canonical pixels unless a name ends in ``_radii`` (token radii).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .candidates import _Blob

#: Whether a bar too long for a token on edge in the canonical view is
#: measured again in the camera's image (:func:`stands_in_image`).  False:
#: the canonical length alone, as before.
UPRIGHT_LENGTH_IN_IMAGE = True
#: Only a bar centred within this fraction of the plate radius is measured
#: again: tokens on edge lie at most 0.733 of it out (forced uprights
#: 243000-243999, ``vision.tokens.SLOPE_HIGHLIGHT_MIN_RADIUS_FRAC``); the 30
#: bars it turned to tokens on edge in fresh scenes 1720000-1721199 at 640x480
#: lay at most 0.642 out, and the one bar on no token it would have taken
#: (upright scene 1720281, a curved piece of the rim's shading, solidity
#: 0.65, 2.83 radii canonical, 2.69 in the image) lay 0.822 out.
IMAGE_LENGTH_MAX_RADIUS_FRAC = 0.8


def image_compression(to_canonical: np.ndarray) -> np.ndarray:
    """The 2x2 map from canonical offsets to the camera's image metric.

    Parameters
    ----------
    to_canonical : ndarray, float, (3, 3)
        The view's affine map from source pixels to canonical pixels
        (``CanonicalView.to_canonical``).

    Returns
    -------
    ndarray, float64, (2, 2)
        Identity across the view's stretch direction (the canonical image of
        the plate ellipse's minor axis), ``b / a`` along it: the view's
        stretch undone, the scale along the plate's major axis kept.
    """
    a = np.asarray(to_canonical, np.float64)
    if a.shape != (3, 3) or not np.all(np.isfinite(a)):
        raise ValueError(f"to_canonical: expected a finite (3, 3) array, got shape {a.shape}")
    u, s, _ = np.linalg.svd(a[:2, :2])
    if not s[1] > 0:
        raise ValueError("to_canonical: expected an invertible map")
    u0 = u[:, 0]
    return np.eye(2) - (1.0 - s[1] / s[0]) * np.outer(u0, u0)


def bar_axes_in_image(mask: np.ndarray, to_canonical: np.ndarray) -> tuple[float, float]:
    """A region's major and minor axes as the camera sees it.

    Parameters
    ----------
    mask : ndarray, bool, (S, S)
        The region (a blob's filled mask), canonical pixels.
    to_canonical : ndarray, float, (3, 3)
        The view's affine map from source pixels (``CanonicalView.to_canonical``).

    Returns
    -------
    major, minor : float
        Full axes of the ellipse fitted to the region's outer outline
        (``cv2.fitEllipse``, as the blob search measures ``major``) after
        :func:`image_compression`, canonical pixels; (0, 0) when the outline
        has fewer than 5 points.
    """
    contours, _ = cv2.findContours(np.ascontiguousarray(mask, np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return 0.0, 0.0
    cnt = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    if len(cnt) < 5:
        return 0.0, 0.0
    pts = (cnt @ image_compression(to_canonical).T).astype(np.float32)
    _, (d1, d2), _ = cv2.fitEllipse(pts)
    return float(max(d1, d2)), float(min(d1, d2))


def stands_in_image(b: _Blob, to_canonical: np.ndarray, token_r: float, plate_radius_px: float, *,
                    length_radii: tuple[float, float], max_axis_ratio: float, max_area_faces: float) -> bool:
    """Whether a blob too long for a token on edge in the canonical view is one in the camera's image.

    Parameters
    ----------
    b : _Blob
        The blob (its canonical measures and filled region); the canvas
        centre is the plate's.
    to_canonical : ndarray, float, (3, 3)
        The view's affine map from source pixels.
    token_r, plate_radius_px : float
        Token and plate radius, canonical pixels.
    length_radii, max_axis_ratio, max_area_faces : see ``vision.tokens``
        ``UPRIGHT_LENGTH_RADII``, ``UPRIGHT_MAX_AXIS_RATIO``, ``UPRIGHT_MAX_AREA``.

    Returns
    -------
    bool
        True when ``UPRIGHT_LENGTH_IN_IMAGE`` is set, the blob has the upright
        rule's shape in the canonical view but for its length (thinner than
        ``max_axis_ratio``, smaller than ``max_area_faces`` face areas, longer
        than ``length_radii[1]``), its centre lies within
        ``IMAGE_LENGTH_MAX_RADIUS_FRAC`` of the plate radius, it does not cross
        the rim line (``b.crosses_rim``), and in the image
        (:func:`bar_axes_in_image`) it is within ``length_radii`` and still
        thinner than ``max_axis_ratio``.
    """
    if not UPRIGHT_LENGTH_IN_IMAGE or not token_r > 0 or not plate_radius_px > 0:
        return False
    if not (b.axis_ratio < max_axis_ratio and b.area < max_area_faces * math.pi * token_r ** 2
            and b.major > length_radii[1] * token_r):
        return False
    centre = (b.mask.shape[0] - 1) / 2.0
    if math.hypot(b.x - centre, b.y - centre) > IMAGE_LENGTH_MAX_RADIUS_FRAC * plate_radius_px:
        return False
    if b.crosses_rim:
        # A bar that reaches past the rim-crossing line (``tokens.RIM_CROSSING_FRAC``) is not seen whole
        # in the well: the stick a dealer rearranges with, coming in over the rim onto a token (clip
        # 1300128 overlap_rearrange, 640x360 at 25 fps: its part inside the well, centred 0.745-0.757 of
        # the plate radius out, reaching 0.90, 2.87-3.11 radii long, read as a token on edge in the
        # push, and the round was reshaken).  On 400 fresh upright scenes (1800000-1800399, 640x480)
        # this bound changed no reading; clip 1300201's bar reaches 0.723.
        return False
    major_img, minor_img = bar_axes_in_image(b.mask, to_canonical)
    return (length_radii[0] * token_r <= major_img <= length_radii[1] * token_r
            and minor_img < max_axis_ratio * major_img)
