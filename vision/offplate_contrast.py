"""An off-plate find must stand out from the cloth around it: a lit patch of the cloth does not.

The cloth is learnt on the frame's border as a smooth (quadratic) surface
(``vision.plate.cloth_deviation``).  A lamp's hotspot on the cloth between
the border and the plate is brighter than that surface over a broad region;
where its top crosses the not-cloth threshold (``CLOTH_DEVIATION_UNITS``, 8
spreads) the frame noise breaks it into ragged token-sized pieces, which
``vision.reader.offplate_blobs`` takes for tokens off the plate (clip 1300130,
every variant, 640x360: 'reshake: 2-6 token(s) off the plate' on frames of
four flat tokens).  A piece is barely over the threshold and so is the cloth
around it; a token lies on the cloth as a thing of its own colour, far above
the cloth beside it, however close its colour is to the cloth's.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: The cloth around an off-plate find: the annulus between these many of the
#: find's radii from its centre (clear of the find's own blurred edge and its
#: shadow's core, near enough to share the light), the plate (grown) and
#: other not-cloth pixels left out.
OFFPLATE_RING_RADII = (1.5, 3.0)
#: A find whose surrounding cloth has a median deviation at least this share
#: of the find's own median deviation is a brighter patch of the cloth, not a
#: token.  Measured (cloth spreads): the lit hotspot's pieces of clip 1300130
#: 0.75-0.88 (pieces 8.1-8.7 over a cloth of 6.5-7.5; two such pieces of
#: offplate scene 1650406 at 1280x720, 0.78 and 0.82); synthesized off-plate
#: tokens at most 0.25 at 640x360 (164 tokens of fresh offplate scenes
#: 1650030-1650229; the faintest, 8.7 on beige, has cloth of 2.2 around it)
#: and 0.31 at 1280x720 (182 tokens, 1650230-1650429).
OFFPLATE_MAX_RING_SHARE = 0.5
#: Fewer cloth pixels than this in the annulus (work-scale pixels) says
#: nothing about the cloth around the find: it is kept.
OFFPLATE_RING_MIN_PIXELS = 12
#: Off: every off-plate find is kept, as before.
OFFPLATE_RING_TEST = True


def ring_share(deviation: np.ndarray, not_cloth_outside: np.ndarray, plate_grown: np.ndarray,
               x: float, y: float, radius: float) -> float:
    """The cloth's median deviation around a find over the find's own.

    Parameters
    ----------
    deviation : ndarray, float32, (h, w)
        Cloth deviation (``PlateFit.cloth_deviation``), cloth spreads.
    not_cloth_outside : ndarray, uint8, (h, w)
        Not-cloth pixels outside the plate (``vision.reader.outside_plate_mask``).
    plate_grown : ndarray, uint8, (h, w)
        The plate, grown as for ``not_cloth_outside`` (``vision.reader.plate_ellipse_mask``).
    x, y, radius : float
        The find's centre and radius, pixels of ``deviation``; radius > 0.

    Returns
    -------
    float
        Median deviation of the cloth pixels in the ``OFFPLATE_RING_RADII``
        annulus over the median deviation of the not-cloth pixels within
        ``radius`` of the centre; NaN when either set has too few pixels
        (fewer than ``OFFPLATE_RING_MIN_PIXELS`` cloth pixels, or none of
        the find's) or the find's median is not positive.
    """
    h, w = deviation.shape
    if not (math.isfinite(x) and math.isfinite(y) and radius > 0):
        return math.nan
    outer = OFFPLATE_RING_RADII[1] * radius
    x0, x1 = max(int(math.floor(x - outer)), 0), min(int(math.ceil(x + outer)) + 1, w)
    y0, y1 = max(int(math.floor(y - outer)), 0), min(int(math.ceil(y + outer)) + 1, h)
    if x0 >= x1 or y0 >= y1:
        return math.nan
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xx - x, yy - y)
    dev = deviation[y0:y1, x0:x1]
    thing = not_cloth_outside[y0:y1, x0:x1] > 0
    own = thing & (dist <= radius)
    ring = (~thing) & (plate_grown[y0:y1, x0:x1] == 0) & (dist >= OFFPLATE_RING_RADII[0] * radius) & (dist <= outer)
    if not own.any() or int(ring.sum()) < OFFPLATE_RING_MIN_PIXELS:
        return math.nan
    inside = float(np.median(dev[own]))
    if not inside > 0:
        return math.nan
    return float(np.median(dev[ring])) / inside


def standing_out(blobs: Sequence[tuple[float, float, float]], deviation: np.ndarray, not_cloth_outside: np.ndarray,
                 plate_grown: np.ndarray, work_scale: float) -> list[tuple[float, float, float]]:
    """The off-plate finds that stand out from the cloth around them.

    Parameters
    ----------
    blobs : sequence of (x, y, radius)
        Off-plate finds in source pixels (``vision.reader.offplate_blobs``).
    deviation, not_cloth_outside, plate_grown : ndarray
        As for :func:`ring_share`, at the plate finder's scale.
    work_scale : float
        Pixels of ``deviation`` per source pixel; > 0.

    Returns
    -------
    list of (x, y, radius)
        ``blobs`` less those whose :func:`ring_share` is at least
        ``OFFPLATE_MAX_RING_SHARE`` (a find whose share cannot be measured is
        kept); all of them when ``OFFPLATE_RING_TEST`` is off.
    """
    if not OFFPLATE_RING_TEST or not work_scale > 0:
        return list(blobs)
    out = []
    for x, y, r in blobs:
        share = ring_share(deviation, not_cloth_outside, plate_grown, x * work_scale, y * work_scale, r * work_scale)
        if not share >= OFFPLATE_MAX_RING_SHARE:   # NaN: not measured, kept
            out.append((x, y, r))
    return out


__all__ = ["OFFPLATE_MAX_RING_SHARE", "OFFPLATE_RING_MIN_PIXELS", "OFFPLATE_RING_RADII", "OFFPLATE_RING_TEST",
           "ring_share", "standing_out"]
