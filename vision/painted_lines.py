"""Painted lines of the plate: narrow concentric bands that hide a face's outline.

A painted (or glazed) ring on the plate is a line of one colour at one
plate radius, a few canonical pixels wide.  The plate model of
:mod:`vision.canonical` follows it as a narrow step of its ring medians,
but only to a ring bin (``RING_BIN_PX``) and to the plate ellipse's fit: in
the residual the line is left as a light and a dark band side by side,
10 L* or more either way.  Where a pale face's edge runs along such a line,
the outline filter (:mod:`vision.outline`) reads that band instead of the
face's thin dark edge, and the sectors facing the line fail: a whole
outline is measured as an arc.

:func:`painted_line_mask` finds the lines in the plate model itself (a
ring whose model colour departs from the rings around it, as a line does
and a step or the shading's slow change does not); :func:`outline_across_line`
judges an outline again with the line's pixels left out.  Distances are
canonical pixels unless a name ends in ``_radii`` (token radii) or ``_frac``
(a fraction of the plate radius); colours are Lab units.
"""
from __future__ import annotations

import math

import numpy as np

from .canonical import CanonicalView
from .outline import (OUTLINE_RADIUS_FACTORS, OutlineRule, outline_responses_in_box, outline_support,
                      strongest_in_window)

#: A ring (1 canonical px wide) of the plate model whose mean colour is at
#: least this far (Lab units, Delta E) from the median of the rings around
#: it is on a painted line (fresh scene 1261179: a red line 0.0175 plate
#: radii wide on white porcelain measured 7.7-18.7 on its five rings; a
#: plain plate's model rings measure under 3).
PAINTED_LINE_MIN_DELTA_E = 5.0
#: Those rings around it: this many token radii of rings, centred on it
#: (a running median: a line narrower than half of it stands out, a step
#: of the glaze or its slow shading does not).
PAINTED_LINE_WINDOW_RADII = 1.0
#: The line's rings are grown by this many canonical pixels either way: the
#: model's rings are binned (``vision.canonical.RING_BIN_PX``, 2 px) and the
#: line in the residual lies up to a bin off them.
PAINTED_LINE_MARGIN_PX = 2.0
#: Lines are looked for out to this fraction of the plate radius (where a
#: token may lie, ``vision.tokens.SUSPECT_SEARCH_RADIUS_FRAC``).
PAINTED_LINE_MAX_RADIUS_FRAC = 0.92
#: An outline peak is judged again across a line with its centre anywhere
#: within this many token radii of the peak: the filter's peak shifts off
#: the face's centre where the line's bands cross its circle.
PAINTED_LINE_REACH_RADII = 0.3


def painted_line_mask(view: CanonicalView, token_r: float) -> np.ndarray:
    """The canvas pixels on a painted line of the plate (see the module doc).

    Parameters
    ----------
    view : CanonicalView
    token_r : float
        Token radius, canonical pixels (> 0): sets the running median's window.

    Returns
    -------
    ndarray, bool, (S, S)
        True on the rings of a line (grown by ``PAINTED_LINE_MARGIN_PX``);
        all False on a plate without one.

    Raises
    ------
    ValueError
        ``token_r`` not a positive finite number.
    """
    if not (isinstance(token_r, (int, float)) and math.isfinite(token_r) and token_r > 0):
        raise ValueError(f"token_r: expected a positive number of pixels, got {token_r!r}")
    radius = view.radius_px
    reach = PAINTED_LINE_MAX_RADIUS_FRAC * view.plate_radius_px
    inside = radius < reach + PAINTED_LINE_MARGIN_PX + token_r
    ring = np.rint(radius[inside]).astype(np.intp)
    n = int(ring.max()) + 1 if ring.size else 0
    mask = np.zeros(radius.shape, bool)
    if n < 3:
        return mask
    count = np.bincount(ring, minlength=n).astype(np.float64)
    have = count > 0
    model = view.background[inside]
    profile = np.stack([np.bincount(ring, model[:, k], minlength=n) for k in range(3)], axis=1)
    profile = profile[have] / count[have, None]
    rings = np.flatnonzero(have)
    window = 2 * int(math.ceil(PAINTED_LINE_WINDOW_RADII * token_r / 2)) + 1
    # the running median, the profile's ends repeated
    padded = np.pad(profile, ((window // 2, window // 2), (0, 0)), mode="edge")
    level = np.median(np.lib.stride_tricks.sliding_window_view(padded, window, axis=0), axis=-1)
    off = np.linalg.norm(profile - level, axis=1)
    lines = rings[(off >= PAINTED_LINE_MIN_DELTA_E) & (rings <= reach)]
    if lines.size == 0:
        return mask
    near = np.zeros(n + int(PAINTED_LINE_MARGIN_PX) + 2, bool)
    near[lines] = True
    # each line ring grown by the margin (rings are 1 px: a margin of m px marks m rings each way)
    grown = near.copy()
    for step in range(1, int(math.floor(PAINTED_LINE_MARGIN_PX)) + 1):
        grown[step:] |= near[:-step]
        grown[:-step] |= near[step:]
    all_rings = np.rint(radius).astype(np.intp)
    mask = grown[np.minimum(all_rings, grown.size - 1)] & (all_rings < grown.size - 1)
    return mask


def outline_across_line(lightness: np.ndarray, hidden: np.ndarray, line: np.ndarray, x: int, y: int,
                        token_r: float, rule: OutlineRule) -> tuple[int, int, float] | None:
    """An outline near (x, y) that passes ``rule`` once a painted line's pixels are left out.

    The line's pixels (``line``) are set to the plate's level (0) and hidden
    together with ``hidden``; the strongest circle of the outline filter
    (radii ``OUTLINE_RADIUS_FACTORS`` times ``token_r``) centred within
    ``PAINTED_LINE_REACH_RADII`` token radii of (x, y) is judged by
    :func:`vision.outline.outline_support` (sectors mostly on the line are
    not measured, and count as dark when every sector seen is, at most
    ``OUTLINE_MAX_UNMEASURED_SECTORS`` of them).

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units
        The outline search's L* residual (kept tokens blanked).
    hidden : ndarray, bool, (S, S)
        Its blanked pixels.
    line : ndarray, bool, (S, S)
        :func:`painted_line_mask`.
    x, y : int
        The outline peak, canonical pixels.
    token_r : float
        Token radius, canonical pixels (each circle's radius above 2).
    rule : OutlineRule
        Its sectors, contrast and evenness must pass.

    Returns
    -------
    (x, y, contrast_l) of the circle, or None when none passes (or no line
    crosses the window it reads).

    Raises
    ------
    ValueError
        The three arrays not 2-D of one shape, ``hidden`` or ``line`` not
        bool, or ``token_r`` too small for the outline filter.
    """
    if np.ndim(lightness) != 2 or np.shape(hidden) != np.shape(lightness) or np.shape(line) != np.shape(lightness):
        raise ValueError(f"lightness, hidden, line: expected 2-D arrays of one shape, got {np.shape(lightness)}, "
                         f"{np.shape(hidden)}, {np.shape(line)}")
    if hidden.dtype != bool or line.dtype != bool:
        raise ValueError(f"hidden, line: expected bool arrays, got {hidden.dtype}, {line.dtype}")
    if not (math.isfinite(token_r) and min(OUTLINE_RADIUS_FACTORS) * token_r > 2):
        raise ValueError(f"token_r: expected a radius whose smallest circle is above 2 px, got {token_r!r}")
    s = lightness.shape[0]
    reach = int(math.ceil(PAINTED_LINE_REACH_RADII * token_r))
    outer = int(math.ceil(1.5 * max(OUTLINE_RADIUS_FACTORS) * token_r + 1)) + reach
    if not line[max(0, y - outer):y + outer + 1, max(0, x - outer):x + outer + 1].any():
        return None
    y0, y1 = max(0, y - reach), min(s, y + reach + 1)
    x0, x1 = max(0, x - reach), min(lightness.shape[1], x + reach + 1)
    clean = lightness.copy()
    clean[line] = 0.0
    more = hidden | line
    radii = tuple(f * token_r for f in OUTLINE_RADIUS_FACTORS)
    responses = outline_responses_in_box(clean, (y0, y1, x0, x1), radii)
    rr, cc = np.mgrid[y0:y1, x0:x1]
    within = (cc - x) ** 2 + (rr - y) ** 2 <= reach ** 2
    _, cy, cx, i = strongest_in_window(responses, within, (y0, x0))
    radius = radii[i]
    n_sectors, contrast, evenness = outline_support(clean, cx, cy, radius, more)
    if n_sectors >= rule.min_sectors and contrast >= rule.min_contrast_l and evenness >= rule.min_evenness:
        return int(cx), int(cy), contrast
    return None
