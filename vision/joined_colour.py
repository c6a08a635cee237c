"""A colour the plate does not have, joined to a face: a hand or a stick over it.

The blob search (:func:`vision.tokens.blob_threshold`) judges the plate by
its whole colour difference, lightness included.  A glossy glaze lit from one
side varies in lightness by tens of L* across the well (the lamp's gloss on
one side, the dark lacquer on the other), so its threshold can rise far above
a hand's difference while staying under a white face's: the whites are found,
and a hand lying over a red face is seen by nothing.

Light changes a glaze's lightness far more than its hue: the same glaze under
the same lamp keeps its (a*, b*) across the well within a few units, however
its lightness runs (fresh 1612028, black lacquer: the plate model's residual
in (a*, b*) has median 3.0 and robust standard deviation 2.7 Lab units, in
Lab as a whole a blob threshold of 61).  A hand, a wooden stick or a sleeve
is a colour of its own.  Where such a colour, beyond the discs of the faces
found, is joined to a face over more than a token's area, something lies over
that face: it may hide part of it, or all of another.

:func:`colour_joined_to_faces` measures it; ``reader.JOINED_COLOUR_UNCERTAIN``
is the rule.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .grids import open_grid
from .plate import median_and_noise
from .rim import RIM_BAND_FRAC

#: The well, inside the rim band's inner edge (fraction of the plate radius):
#: the rim's own bands and the well's wall are judged by :mod:`vision.rim`.
JOINED_COLOUR_WELL_FRAC = RIM_BAND_FRAC[0]
#: A pixel is of another colour than the plate where its residual's (a*, b*)
#: part is this many robust standard deviations above the well's median (the
#: blob search's own count, ``tokens.BLOB_NOISE_UNITS``) ...
JOINED_COLOUR_NOISE_UNITS = 5.0
#: ... and at least this (Lab units, a*b* distance).  Some plates' residual is
#: all but exactly 0 in (a*, b*) (JPEG's quantised chroma on a grey glaze):
#: the noise thresholds of fresh outcomes 1639000-1639160 at 640x480 ran
#: 0.5-17.5 Lab, and under 3 a red face's blurred fringe and the plate's
#: faint tints joined it over up to 1.7 token areas.  10 is a colour seen
#: plainly (a brown hand on black lacquer: 20 from the plate model).
JOINED_COLOUR_MIN_LAB = 10.0
#: The faces found are taken out as discs of this many token radii (the face
#: and its blurred fringe: motion blur of 6 px at 640x480 spreads a red face's
#: colour about a quarter radius beyond its edge).
JOINED_COLOUR_DISC_RADII = 1.3
#: What is joined to a face beyond the discs counts as something over it from
#: this many token areas (pi r^2): more than a token's area of another colour
#: at the face, which neither a face's blurred fringe nor a touching face
#: (taken out as its own disc) leaves.  Fresh right outcomes at 640x480 (222
#: frames of 1639000-1639399, four flat on black lacquer and natural): at most
#: 0.07.  1612028's hand: 6.98 (threshold 16.5 Lab: median 3.0, noise 2.7).
JOINED_COLOUR_MIN_AREA_TOKENS = 1.5


def colour_joined_to_faces(residual: np.ndarray, radius_px: np.ndarray, plate_radius_px: float,
                           faces: list[tuple[float, float]], token_radius_px: float) -> list[float]:
    """Area of another colour than the plate's joined to each face, beyond the faces' discs.

    Parameters
    ----------
    residual : ndarray, float, (N, N, 3)
        The plate model's residual in Lab (``CanonicalView.residual``).
    radius_px : ndarray, float, (N, N)
        Each pixel's distance from the plate's centre, canonical pixels
        (``CanonicalView.radius_px``).
    plate_radius_px : float
        The plate's radius, canonical pixels (> 0).
    faces : list of (x, y)
        The faces found, canonical pixels.
    token_radius_px : float
        The frame's face radius, canonical pixels (> 0).

    Returns
    -------
    list of float
        Per face, in its order: the area, in token areas (pi r^2), of the
        pixels of the well whose residual's (a*, b*) part is above the
        threshold (``JOINED_COLOUR_NOISE_UNITS`` robust standard deviations
        above the well's median, at least ``JOINED_COLOUR_MIN_LAB``), joined
        (8-connected) to the face's centre and outside every face's disc of
        ``JOINED_COLOUR_DISC_RADII``; 0 where the face's centre is not above
        it.  Empty with no face.

    Raises
    ------
    ValueError
        Shapes that do not match, ``plate_radius_px`` or ``token_radius_px``
        not finite and > 0.
    """
    residual = np.asarray(residual)
    radius_px = np.asarray(radius_px)
    if residual.ndim != 3 or residual.shape[2] != 3 or radius_px.shape != residual.shape[:2]:
        raise ValueError(f"residual (N, N, 3) and radius_px (N, N) expected, got {residual.shape} "
                         f"and {radius_px.shape}")
    for name, value in (("plate_radius_px", plate_radius_px), ("token_radius_px", token_radius_px)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name}: expected a finite number > 0, got {value}")
    if not faces:
        return []
    well = radius_px < JOINED_COLOUR_WELL_FRAC * plate_radius_px
    # Everything is read only on the well, so it is all done on the well's
    # bounding box (the whole canvas when the well is empty): ``np.hypot`` is
    # element-wise (the same values), the box's well pixels row-major are
    # ``chroma[well]`` in the same order, no pixel outside the box is above,
    # so the box's components are the canvas's (their numbering aside) with
    # the same pixels, and the discs are drawn in canvas coordinates.
    h, w = well.shape
    bx, by, bw, bh = cv2.boundingRect(well.view(np.uint8)) if well.dtype == bool else (0, 0, 0, 0)
    if bw == 0 or bh == 0:
        bx, by, bw, bh = 0, 0, w, h
    box = (slice(by, by + bh), slice(bx, bx + bw))
    well_box = well[box]
    chroma = np.hypot(residual[box + (1,)], residual[box + (2,)])
    median, noise = median_and_noise(chroma[well_box])
    threshold = max(JOINED_COLOUR_MIN_LAB, float(median) + JOINED_COLOUR_NOISE_UNITS * noise)
    above = ((chroma >= threshold) & well_box).astype(np.uint8)
    _, labels = cv2.connectedComponents(above, connectivity=8)
    # a column of rows and a row of columns (canvas coordinates), broadcast: the same sums per pixel
    yy, xx = open_grid(by, by + bh, bx, bx + bw)
    discs = np.zeros((bh, bw), bool)
    for x, y in faces:
        discs |= (xx - x) ** 2 + (yy - y) ** 2 < (JOINED_COLOUR_DISC_RADII * token_radius_px) ** 2
    outside = np.where(discs, 0, labels)
    areas = np.bincount(outside.ravel(), minlength=int(labels.max()) + 1)
    token_area = math.pi * token_radius_px ** 2
    out = []
    for x, y in faces:
        i, j = min(max(int(round(y)), 0), h - 1), min(max(int(round(x)), 0), w - 1)
        inside = by <= i < by + bh and bx <= j < bx + bw
        label = int(labels[i - by, j - bx]) if inside else 0
        out.append(float(areas[label]) / token_area if label else 0.0)
    return out
