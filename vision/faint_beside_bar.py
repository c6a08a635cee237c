"""A face found by its outline alone beside a thin bar that no candidate accounts for.

A token standing on edge, seen from nearly overhead, is a bar a token's
diameter long and a quarter of its radius thick.  Grey on a cream plate,
blurred and under-exposed, its colour difference from the plate can stay
under the blob threshold over its whole length (a speckled plate raises that
threshold), so neither the blob search nor the dropped-bar rule
(:mod:`vision.dropped_bar`, which needs pixels above the threshold) sees it.
Its dark line can then make the ring of a phantom face's outline
(:mod:`vision.outline_faces`) or the edge of a faint disc, and that phantom
completes a count of four.

Fresh upright scene 1872281 at 1280x720 (speckle decoration, cream glaze,
-0.77 stop, defocus, JPEG 59): a white token on edge, its bar 8-14 Lab from
the plate under a blob threshold of 14.0 Lab, and an outline face 1.0 token
radius from the bar's centre on bare plate (15 of 16 sectors, 2.4 L,
evenness 0.33: the bar drew the dark ring), read as an outcome of two red.

:func:`faint_finds_beside_bars` reports such a find as a suspect (never a
face, never ignored): the frame is ``uncertain``, not an outcome.  The bar is
the region of the view's colour difference from the plate of at least
``BAR_FLOOR_SHARE`` of the blob threshold, unclaimed by the blob candidates,
of an upright token's length (``vision.tokens.UPRIGHT_LENGTH_RADII``), no
wider than ``vision.dropped_bar.DROPPED_BAR_MAX_WIDTH_RADII`` and straight
(``vision.dropped_bar.DROPPED_BAR_MAX_SAGITTA_RADII``), its centre within
``BAR_REACH_RADII`` of the find's and at most ``BAR_MAX_INSIDE_SHARE`` of
it within a token radius of that centre.

Distances are canonical pixels unless a name ends in ``_radii`` (token radii).
"""
from __future__ import annotations

import math

import numpy as np

from .candidates import Candidate
from .dropped_bar import bar_regions, straight_bar

#: Switch: a face found only faintly (of ``BAR_FIND_KINDS``: by its outline
#: alone) beside an unclaimed bar is a suspect.  False: no such bar is looked
#: for, as before.
FAINT_BESIDE_BAR_SUSPECT = True
#: Only a face counted by its outline alone is judged: a thin dark line
#: across a circle draws that ring (1872281: 15 of 16 sectors, 2.4 L,
#: evenness 0.33), while a disc-filter find needs its face to differ from the
#: plate across its disc.  With disc-filter finds judged too, four flat tokens
#: on decorated plates 1897000-1897499 at 1024x768 lost 4 right outcomes of
#: 145 (celadon speckle, lacquer motif, two porcelain rings: faint faces of
#: 8-57 Lab with a painted or speckled bar 1.1-1.85 radii away).
BAR_FIND_KINDS = ("outline",)
#: The bar's pixels differ from the plate by at least this share of the blob
#: threshold (a blob's half contrast: the level a blurred edge is cut at).
#: 1872281: threshold 14.0 Lab, the bar 2.11 token radii long and 0.34 wide
#: at 7.0 Lab (0.5), 0.45 wide at 5 Lab (0.36), 2.13 x 0.28 at 8 Lab (0.57);
#: no other region of the well at 5-9 Lab was 1.0 radius long (speckles are
#: dots).
BAR_FLOOR_SHARE = 0.5
#: ... and its centre lies within this many token radii of the faint find's
#: centre: a token's diameter, as far as a phantom whose ring or edge the
#: bar drew can be (1872281: 1.0).
BAR_REACH_RADII = 2.0
#: ... and at most this share of its pixels lies within a token radius of
#: the find's centre: a bar wholly inside the find is that face's own
#: shading, not a token beside it (1872281: 0.45; natural scene 1898188 at
#: 1024x768, three tokens on cream, a white face's darker part 1.36 radii
#: long 0.36 from its centre: 1.0, a right reshake turned uncertain without
#: this bound).
BAR_MAX_INSIDE_SHARE = 0.7
#: Fewest pixels a bar may have (a speck is not a bar).
BAR_MIN_PIXELS = 20


def bar_near(delta_e: np.ndarray, claimed: np.ndarray, x: float, y: float, token_r: float, floor_lab: float, *,
             length_radii: tuple[float, float], max_area_faces: float) -> tuple[float, float, float] | None:
    """The first straight, thin, token-long region of ``delta_e`` near (x, y).

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
    floor_lab : float
        The bar's pixels are at least this far from the plate, Lab units.
    length_radii : (float, float)
        Length range of an upright's bar, token radii.
    max_area_faces : float
        Largest area of an upright's bar, face areas.

    Returns
    -------
    (float, float, float) or None
        The bar's centre (canonical pixels) and length (token radii); None
        when there is none within ``BAR_REACH_RADII`` of (x, y) with at most
        ``BAR_MAX_INSIDE_SHARE`` of its pixels within ``token_r`` of it.
    """
    regions = bar_regions(delta_e, claimed, x, y, token_r, BAR_REACH_RADII, length_radii, floor_lab)
    if regions is None:
        return None
    x0, y0, _, labels, n, counts = regions
    max_count = max_area_faces * math.pi * token_r ** 2
    for i in range(1, n):
        if not BAR_MIN_PIXELS <= counts[i] < max_count:
            continue
        ys, xs = np.nonzero(labels == i)
        cx, cy = float(xs.mean()), float(ys.mean())
        if math.hypot(cx + x0 - x, cy + y0 - y) > BAR_REACH_RADII * token_r:
            continue
        if float(np.mean(np.hypot(xs + x0 - x, ys + y0 - y) < token_r)) > BAR_MAX_INSIDE_SHARE:
            continue  # the find's own face
        bar = straight_bar(xs, ys, cx, cy, token_r, length_radii)
        if bar is None:
            continue
        return cx + x0, cy + y0, bar[0] / token_r
    return None


def faint_finds_beside_bars(delta_e: np.ndarray, claimed: np.ndarray, cands: list[Candidate], token_r: float,
                            threshold: float, *, length_radii: tuple[float, float],
                            max_area_faces: float) -> list[tuple[float, float, float]]:
    """Suspects ``(x, y, contrast)`` at each find of ``BAR_FIND_KINDS`` with an
    unclaimed bar beside it (:func:`bar_near` at ``BAR_FLOOR_SHARE`` of
    ``threshold``, the blob threshold in Lab units; the other arguments its).
    Empty when ``FAINT_BESIDE_BAR_SUSPECT`` is off."""
    if not FAINT_BESIDE_BAR_SUSPECT:
        return []
    out = []
    for c in cands:
        if c.kind not in BAR_FIND_KINDS or c.found_by == "blob":
            continue
        if bar_near(delta_e, claimed, c.x, c.y, token_r, BAR_FLOOR_SHARE * threshold,
                    length_radii=length_radii, max_area_faces=max_area_faces) is not None:
            out.append((c.x, c.y, c.contrast))
    return out
