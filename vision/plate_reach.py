"""The plate's own shadow on the cloth, told from a stick or hand reaching onto the plate.

:func:`vision.reader.plate_intrusions` takes any long not-cloth region
touching the band just outside the plate's outline for a stick or a hand
reaching onto the plate.  Where the plate and the cloth are close in colour
(a gold plate on beige cloth), the plate's shadow on the cloth makes such a
region: a crescent, darker than the cloth everywhere, whose chroma changes
a little more than :func:`vision.plate.not_cloth_mask` lets a shadow's
change (a darkened beige is also a less saturated one), so it is not taken
for a shadow there.  It hugs the outline.  A stick or a hand comes onto the
plate from outside, so it reaches out across the cloth.

Measured (regions that made the intrusion verdict, rule off, seeds
1780000-1780399): the shadows of gold plates on beige cloth (800x600,
16 of the 19 scenes that read "reaches onto the plate") reach 1.09-1.17
plate radii, chroma change at most 11.0 cloth spreads; every stick or
hand region darker than the cloth everywhere reaches 1.70 or more (kind
``stick``, any glaze at 800x600; cloth beige or black at 640x480: 1.75 or
more).  Bright regions (the rim of a plate fitted too small, a white
token) are never a shadow and still count.
"""
from __future__ import annotations

import numpy as np

from .plate import SHADOW_MAX_CHROMA_UNITS, PlateFit, cloth_chroma

#: A region touching the band around the plate whose farthest pixel lies
#: within this many plate radii of the centre (1 on the fitted outline) ...
#: (0 switches the test off: every such region counts, as before).
SHADOW_MAX_REACH_RADII = 1.3
#: ... that is darker than the cloth at every pixel, and whose chroma
#: differs from the cloth's by at most this many times the shadow test's own
#: limit (``vision.plate.SHADOW_MAX_CHROMA_UNITS``, cloth spreads), is the
#: plate's shadow.
SHADOW_MAX_CHROMA_TIMES = 3.0


def farthest_radius(plate: PlateFit, labels: np.ndarray, i: int, box: tuple[int, int, int, int]) -> float:
    """The plate-normalised radius of component ``i``'s farthest pixel.

    Parameters
    ----------
    plate : PlateFit
        A found plate; ``labels`` are in its downscaled frame.
    labels : ndarray, int, (h, w)
        Component labels of a mask in the plate finder's downscaled frame.
    i : int
        The component, >= 1.
    box : (x, y, w, h)
        Its bounding box, downscaled pixels.

    Returns
    -------
    float
        max over the component's pixels of the ellipse radius
        sqrt((u / a)^2 + (v / b)^2), u and v along the plate's axes: 1 on the
        fitted outline, larger outside it.
    """
    s, e = plate.work_scale, plate.ellipse
    x, y, w, h = box
    rows, cols = np.nonzero(labels[y:y + h, x:x + w] == i)
    if rows.size == 0:
        raise ValueError(f"component {i} has no pixel in box {box}")
    dx = (cols + x) / s - e.cx
    dy = (rows + y) / s - e.cy
    t = np.deg2rad(e.angle_deg)
    u = dx * np.cos(t) + dy * np.sin(t)
    v = -dx * np.sin(t) + dy * np.cos(t)
    return float(np.sqrt((u / e.a) ** 2 + (v / e.b) ** 2).max())


def is_plate_shadow(plate: PlateFit, labels: np.ndarray, i: int, box: tuple[int, int, int, int]) -> bool:
    """Whether component ``i`` is the plate's shadow: it hugs the outline, darker than the cloth, its chroma near.

    Parameters
    ----------
    plate, labels, i, box
        As for :func:`farthest_radius`.

    Returns
    -------
    bool
        False when the test is off (``SHADOW_MAX_REACH_RADII`` 0).
    """
    if not SHADOW_MAX_REACH_RADII > 0:
        return False
    x, y, w, h = box
    m = labels[y:y + h, x:x + w] == i
    light = plate.cloth_lightness[y:y + h, x:x + w][m].astype(np.float64)
    if not (light < 0).all():
        return False  # brighter somewhere: a rim, a token, a hand in light; not a shadow
    dev = plate.cloth_deviation[y:y + h, x:x + w][m].astype(np.float64)
    chroma = cloth_chroma(dev, light)
    if chroma.max() > SHADOW_MAX_CHROMA_TIMES * SHADOW_MAX_CHROMA_UNITS:
        return False
    return farthest_radius(plate, labels, i, box) <= SHADOW_MAX_REACH_RADII
