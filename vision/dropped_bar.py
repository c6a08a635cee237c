"""A token standing on edge whose thin bar the blob search dropped in pieces.

Blur can take the middle of an upright token's bar below the blob threshold,
so the bar breaks into fragments each smaller than a blob may be, and the
disc filter finds the bar and the token's soft round shadow as one faint
face (``vision.tokens.DROPPED_BAR_BESIDE_FAINT``).  :func:`dropped_bar`
looks for such a bar near a faint find, on the view's colour difference
from the plate (``CanonicalView.delta_e``, Lab units) in canonical pixels.
"""
from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from .candidates import Candidate

#: Fraction of the blob threshold down to which a dropped bar's fragments are
#: joined (hysteresis; 1681587: 0.75 joins the two fragments into one bar of
#: 205 px, 2.40 token radii long and 0.32 wide).
DROPPED_BAR_HYSTERESIS = 0.75
#: Largest distance (token radii) from the faint find's centre to the bar's.
DROPPED_BAR_REACH_RADII = 1.0
#: Largest width of the bar, token radii: the width of the rectangle of the
#: same second moments, sqrt(12 x the minor variance) (a token is 0.2-0.3 of
#: its radius thick; 1681587: 0.32).
DROPPED_BAR_MAX_WIDTH_RADII = 0.5
#: Smallest share of the bar's pixels above the blob threshold itself: the
#: bar was seen by the blob search, only in pieces (1681587: 0.52).
DROPPED_BAR_MIN_ABOVE_SHARE = 0.3
#: Largest bow of the bar, token radii: the sagitta over its length of a
#: parabola fitted to its pixels' offsets across its axis (a straight bar
#: about 0, 1681587: 0.08; an arc of a face's outline a quarter round, 0.29).
DROPPED_BAR_MAX_SAGITTA_RADII = 0.12



def straight_bar(xs: np.ndarray, ys: np.ndarray, cx: float, cy: float, token_r: float,
                 length_radii: tuple[float, float]) -> tuple[float, float] | None:
    """Length and width of a region's pixels if they make a straight, thin bar.

    Parameters
    ----------
    xs, ys : ndarray, int, (N,)
        The region's pixel columns and rows (any common origin).
    cx, cy : float
        Their mean, same origin.
    token_r : float
        Token radius, pixels.
    length_radii : (float, float)
        Length range of an upright's bar, token radii.

    Returns
    -------
    (float, float) or None
        Length and width (pixels, from the second moments: sqrt(12 var) along
        and across the main axis); None when the length is outside
        ``length_radii``, the width over ``DROPPED_BAR_MAX_WIDTH_RADII`` or the
        bow (a fitted parabola's sagitta) over ``DROPPED_BAR_MAX_SAGITTA_RADII``.
    """
    evals, evecs = np.linalg.eigh(np.cov(np.vstack([xs - cx, ys - cy])))
    length = math.sqrt(12.0 * max(float(evals[1]), 0.0))
    width = math.sqrt(12.0 * max(float(evals[0]), 0.0))
    if not (length_radii[0] * token_r <= length <= length_radii[1] * token_r
            and width <= DROPPED_BAR_MAX_WIDTH_RADII * token_r):
        return None
    along = (xs - cx) * evecs[0, 1] + (ys - cy) * evecs[1, 1]
    across = (xs - cx) * evecs[0, 0] + (ys - cy) * evecs[1, 0]
    bow = float(np.polyfit(along, across, 2)[0]) * (length / 2) ** 2
    if abs(bow) > DROPPED_BAR_MAX_SAGITTA_RADII * token_r:
        return None
    return length, width


def bar_regions(delta_e: np.ndarray, claimed: np.ndarray, x: float, y: float, token_r: float, reach_radii: float,
                length_radii: tuple[float, float], floor_lab: float) -> tuple | None:
    """The connected regions of unclaimed pixels at least ``floor_lab`` from the
    plate in the window around (x, y) where a bar may lie, for
    :func:`dropped_bar` and :func:`vision.faint_beside_bar.bar_near`.

    Parameters
    ----------
    delta_e : ndarray, float, (H, W)
        The view's colour difference from the plate, Lab units.
    claimed : ndarray, uint8, (H, W)
        Pixels of the blob candidates (grown) and walls: no bar's.
    x, y : float
        The find's centre, canonical pixels.
    token_r : float
        Token radius, canonical pixels.
    reach_radii : float
        Farthest a bar's centre may lie from (x, y), token radii; the window
        reaches half the longest bar and one radius beyond.
    length_radii : (float, float)
        Length range of an upright's bar, token radii.
    floor_lab : float
        A region's pixels are at least this far from the plate, Lab units.

    Returns
    -------
    (x0, y0, window, labels, n, counts) or None
        The window's top-left corner (canonical pixels), ``delta_e`` in it,
        its 8-connected region labels (int32, 0 the background), the number of
        labels and every label's pixel count (``np.bincount``); None when the
        window is under 3 pixels on a side.
    """
    h, w = delta_e.shape
    reach = int(math.ceil((reach_radii + length_radii[1] / 2 + 1.0) * token_r))
    x0, x1 = max(int(x) - reach, 0), min(int(x) + reach + 1, w)
    y0, y1 = max(int(y) - reach, 0), min(int(y) + reach + 1, h)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    window = delta_e[y0:y1, x0:x1]
    low = ((window >= floor_lab) & (claimed[y0:y1, x0:x1] == 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(low, connectivity=8)
    return x0, y0, window, labels, n, np.bincount(labels.ravel(), minlength=n)


def dropped_bar(delta_e: np.ndarray, claimed: np.ndarray, x: float, y: float, token_r: float,
                threshold: float, *, length_radii: tuple[float, float], max_area_faces: float) -> tuple[float, float, float, float] | None:
    """A token on edge's bar the blob search dropped, near a faint find at (x, y).

    Parameters
    ----------
    delta_e : ndarray, float, (H, W)
        The view's colour difference from the plate, Lab units.
    claimed : ndarray, uint8, (H, W)
        Pixels of the blob candidates (grown) and walls: no bar's.
    x, y : float
        The faint find's centre, canonical pixels.
    token_r : float
        Token radius, canonical pixels.
    threshold : float
        The blob threshold, Lab units.
    length_radii : (float, float)
        Length range of an upright's bar, token radii
        (``vision.tokens.UPRIGHT_LENGTH_RADII``).
    max_area_faces : float
        Largest area of an upright's bar, face areas
        (``vision.tokens.UPRIGHT_MAX_AREA``).

    Returns
    -------
    (float, float, float, float) or None
        The bar's centre (canonical pixels), its area (pixels) and its width
        over its length, for the first region around (x, y) of at least
        ``DROPPED_BAR_HYSTERESIS`` times ``threshold`` that holds pixels above
        ``threshold``, is ``length_radii`` long,
        at most ``DROPPED_BAR_MAX_WIDTH_RADII`` wide and
        ``DROPPED_BAR_MAX_SAGITTA_RADII`` bowed, smaller than
        ``max_area_faces`` face areas, with at least
        ``DROPPED_BAR_MIN_ABOVE_SHARE`` of its pixels above ``threshold``,
        and its centre within ``DROPPED_BAR_REACH_RADII`` of (x, y); None
        when there is none.
    """
    regions = bar_regions(delta_e, claimed, x, y, token_r, DROPPED_BAR_REACH_RADII, length_radii,
                          DROPPED_BAR_HYSTERESIS * threshold)
    if regions is None:
        return None
    x0, y0, de, labels, n, counts = regions
    face_area = math.pi * token_r ** 2
    # Every region's size (``counts``) and whether it holds a pixel above
    # ``threshold``, for all regions at once (the same numbers as
    # ``sel.sum()`` and ``de[sel] >= threshold`` below give): a speck or a
    # large region is passed over without a mask of its own.
    has_above = np.bincount(labels[de >= threshold], minlength=n) > 0
    for i in range(1, n):
        count = int(counts[i])
        if count < 5 or not has_above[i] or count >= max_area_faces * face_area:
            continue
        sel = labels == i
        above = de[sel] >= threshold
        ys, xs = np.nonzero(sel)
        cx, cy = float(xs.mean()), float(ys.mean())
        if math.hypot(cx + x0 - x, cy + y0 - y) > DROPPED_BAR_REACH_RADII * token_r:
            continue
        if float(above.mean()) < DROPPED_BAR_MIN_ABOVE_SHARE:
            continue
        bar = straight_bar(xs, ys, cx, cy, token_r, length_radii)
        if bar is None:
            continue
        length, width = bar
        return cx + x0, cy + y0, float(count), width / length if length > 0 else 1.0
    return None


def dropped_bars_as_uprights(delta_e: np.ndarray, claimed: np.ndarray, cands: list[Candidate], token_r: float,
                             threshold: float, *, length_radii: tuple[float, float],
                             max_area_faces: float) -> list[Candidate]:
    """Each faint or outline find with a dropped bar near it (:func:`dropped_bar`,
    the other arguments its) counted as a token on edge (``upright``) at the
    bar's centre; the other candidates as they are."""
    out = []
    for c in cands:
        bar = (dropped_bar(delta_e, claimed, c.x, c.y, token_r, threshold,
                           length_radii=length_radii, max_area_faces=max_area_faces)
               if c.kind in ("faint", "outline") and c.found_by != "blob" else None)
        if bar is None:
            out.append(c)
            continue
        bx, by, area, ratio = bar
        out.append(replace(c, x=bx, y=by, radius=math.sqrt(area / math.pi), kind="upright", area_px=area,
                           axis_ratio=ratio, angle_deg=math.nan))
    return out
