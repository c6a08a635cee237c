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
and a step or the shading's slow change does not); :class:`PaintedLines`
finds them once and paints them on a box only (the window
:func:`outline_across_line` reads for a peak); :func:`outline_across_line`
judges an outline again with the line's pixels left out.  Distances are
canonical pixels unless a name ends in ``_radii`` (token radii) or ``_frac``
(a fraction of the plate radius); colours are Lab units.
"""
from __future__ import annotations

import math

import numpy as np

from .cache import cached
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


class _RingLayout:
    """A radius grid's 1 px rings (``np.rint`` of the radius), laid out for
    :func:`_line_rings` (read-only arrays).

    Attributes
    ----------
    rings : ndarray, intp, (H, W)
        Each pixel's ring.
    sorted_radius : ndarray, float32, (H * W,)
        Every pixel's radius, ascending (ring by ring: ``np.rint`` is monotone).
    sorted_rings : ndarray, intp, (H * W,)
        Their rings.
    order, starts : ndarray, intp
        Flat indices of the pixels, ring by ring, row-major within a ring;
        ring q's are ``order[starts[q]:starts[q + 1]]``.
    row_min, col_min : ndarray, float32
        The least radius of each row and column.
    """

    def __init__(self, radius: np.ndarray) -> None:
        if radius.ndim != 2 or not np.all(radius >= 0):  # (NaN fails too)
            raise ValueError("radius_px: expected a 2-D grid of distances (finite, not negative)")
        self.radius = radius
        self.rings = np.rint(radius).astype(np.intp)
        flat = radius.reshape(-1)
        flat_rings = self.rings.reshape(-1)
        by_radius = np.argsort(flat, kind="stable")
        self.sorted_radius = flat[by_radius]
        self.sorted_rings = flat_rings[by_radius]
        self.order = np.argsort(flat_rings, kind="stable")
        top = int(flat_rings.max()) + 1 if flat_rings.size else 0
        self.starts = np.searchsorted(flat_rings[self.order], np.arange(top + 1), side="left")
        self.row_min = radius.min(axis=1) if radius.size else np.zeros(radius.shape[0], radius.dtype)
        self.col_min = radius.min(axis=0) if radius.size else np.zeros(radius.shape[1], radius.dtype)
        for a in (self.rings, self.sorted_radius, self.sorted_rings, self.order, self.starts, self.row_min,
                  self.col_min):
            a.setflags(write=False)
        self._crops: dict[tuple[int, int, int, int], np.ndarray] = {}

    def crop_rings(self, y0: int, y1: int, x0: int, x1: int) -> np.ndarray:
        """``rings`` on a box, raveled row-major (intp, contiguous; cached, a few boxes)."""
        return cached(self._crops, (y0, y1, x0, x1), lambda: self.rings[y0:y1, x0:x1].ravel().copy(),
                      _CROP_CACHE_ENTRIES)


#: Boxes of :meth:`_RingLayout.crop_rings` kept (under 0.8 MB each on the
#: 320 px canvas) ...
_CROP_CACHE_ENTRIES = 4
#: ... their sides on multiples of this many pixels (the bench's token
#: sizes need three boxes).
_CROP_STEP_PX = 8
#: :func:`_ring_layout` by canvas side: the layout of the canvas's own
#: radius grid (the array every view shares).
_RING_LAYOUTS: dict[int, _RingLayout] = {}


def _ring_layout(radius: np.ndarray) -> _RingLayout:
    """The :class:`_RingLayout` of ``radius`` (float32, 2-D): cached for a
    read-only square grid (the canvas geometry's), made afresh otherwise."""
    got = _RING_LAYOUTS.get(radius.shape[0])
    if got is not None and got.radius is radius:
        return got
    layout = _RingLayout(radius)
    if radius.ndim == 2 and radius.shape[0] == radius.shape[1] and not radius.flags.writeable:
        if len(_RING_LAYOUTS) >= 4:
            _RING_LAYOUTS.clear()
        _RING_LAYOUTS[radius.shape[0]] = layout
    return layout


class PaintedLines:
    """The painted lines of one view's plate model (see the module doc).

    The rings on a line are found once (a profile of the whole model);
    :meth:`mask` then paints their pixels on the whole canvas or on a box
    of it only, and :meth:`around` on the window :func:`outline_across_line`
    reads for one peak.  ``PaintedLines(view, token_r).mask()`` is
    :func:`painted_line_mask`.

    Parameters
    ----------
    view : CanonicalView
    token_r : float
        Token radius, canonical pixels (> 0): sets the running median's window.

    Raises
    ------
    ValueError
        ``token_r`` not a positive finite number; ``view.radius_px`` with a
        negative or NaN distance.
    """

    def __init__(self, view: CanonicalView, token_r: float) -> None:
        if not (isinstance(token_r, (int, float)) and math.isfinite(token_r) and token_r > 0):
            raise ValueError(f"token_r: expected a positive number of pixels, got {token_r!r}")
        self.shape = view.radius_px.shape
        layout = _ring_layout(view.radius_px)
        self._rings = layout.rings
        self._grown = _line_rings(view, token_r, layout)

    def any(self) -> bool:
        """Whether any canvas pixel lies on a line (the whole mask not all False)."""
        return self._grown is not None

    def mask(self, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """The pixels on a line (bool): of the whole canvas ((S, S)), or of
        ``box`` = ``(y0, y1, x0, x1)`` (end-exclusive, inside the canvas),
        ((y1 - y0, x1 - x0)): the whole canvas's mask cut to it."""
        rings = self._rings
        if box is not None:
            y0, y1, x0, x1 = box
            if not all(isinstance(v, (int, np.integer)) for v in box) or not (
                    0 <= y0 <= y1 <= self.shape[0] and 0 <= x0 <= x1 <= self.shape[1]):
                raise ValueError(f"box: expected (y0, y1, x0, x1) inside {self.shape}, got {box!r}")
            rings = rings[y0:y1, x0:x1]
        grown = self._grown
        if grown is None:
            return np.zeros(rings.shape, bool)
        return grown[np.minimum(rings, grown.size - 1)] & (rings < grown.size - 1)

    def around(self, x: int, y: int, token_r: float) -> np.ndarray:
        """The whole canvas's mask where :func:`outline_across_line` reads it
        for the peak (x, y) (:func:`across_line_window`), False elsewhere
        (bool, (S, S)): its answer for that peak is the one with the whole mask."""
        box = across_line_window(x, y, token_r, self.shape)
        out = np.zeros(self.shape, bool)
        if self._grown is not None:
            out[box[0]:box[1], box[2]:box[3]] = self.mask(box)
        return out


def _line_rings(view: CanonicalView, token_r: float, layout: _RingLayout) -> np.ndarray | None:
    """The 1 px rings on a line, grown by the margin (bool, indexed by
    ring; the last entry False and standing for every ring beyond), or None
    when no ring is on one.  ``layout``: :func:`_ring_layout` of the view's
    radius grid.

    Each ring's model colour is the mean of its pixels within the reach
    (``inside``), summed one by one in float64 in row-major order (as
    ``np.bincount`` over the pixels selected does).  The rings with every
    pixel inside are summed by one ``np.bincount`` per channel over the box
    that holds the inside (each ring's pixels in the same order); the last
    one or two rings, partly inside, from their own pixels.
    """
    radius = view.radius_px
    reach = PAINTED_LINE_MAX_RADIUS_FRAC * view.plate_radius_px
    limit = reach + PAINTED_LINE_MARGIN_PX + token_r
    # ``radius < limit`` on the pixels in order of radius: the inside is a prefix
    k = int(np.count_nonzero(layout.sorted_radius < limit))
    n = int(layout.sorted_rings[k - 1]) + 1 if k else 0
    if n < 3:
        return None
    # the first ring with a pixel beyond the reach: it and those after it are partly inside
    partial = int(layout.sorted_rings[k]) if k < layout.sorted_rings.size else n
    count = np.diff(layout.starts[:n + 1]).astype(np.float64)
    # the box holding the inside, its sides rounded out to _CROP_STEP_PX (a few boxes serve every token size)
    rows, cols = np.flatnonzero(layout.row_min < limit), np.flatnonzero(layout.col_min < limit)
    step = _CROP_STEP_PX
    y0, x0 = int(rows[0]) // step * step, int(cols[0]) // step * step
    y1 = min(radius.shape[0], -(-(int(rows[-1]) + 1) // step) * step)
    x1 = min(radius.shape[1], -(-(int(cols[-1]) + 1) // step) * step)
    codes = layout.crop_rings(y0, y1, x0, x1)
    box = view.background[y0:y1, x0:x1]
    sums = np.empty((n, 3))
    for c in range(3):
        # (the weights as float64 and contiguous already: bincount makes no copy of its own)
        sums[:, c] = np.bincount(codes, box[:, :, c].astype(np.float64).reshape(-1), minlength=n)[:n]
    if partial < n:
        flat = radius.reshape(-1)
        model = view.background.reshape(-1, 3)
        for q in range(partial, n):
            pixels = layout.order[layout.starts[q]:layout.starts[q + 1]]
            pixels = pixels[flat[pixels] < limit]
            count[q] = pixels.size
            first = np.zeros(pixels.size, np.intp)
            for c in range(3):
                sums[q, c] = np.bincount(first, model[pixels, c], minlength=1)[0]
    have = count > 0
    profile = sums[have] / count[have, None]
    rings = np.flatnonzero(have)
    window = 2 * int(math.ceil(PAINTED_LINE_WINDOW_RADII * token_r / 2)) + 1
    # the running median, the profile's ends repeated
    padded = np.pad(profile, ((window // 2, window // 2), (0, 0)), mode="edge")
    level = np.median(np.lib.stride_tricks.sliding_window_view(padded, window, axis=0), axis=-1)
    off = np.linalg.norm(profile - level, axis=1)
    lines = rings[(off >= PAINTED_LINE_MIN_DELTA_E) & (rings <= reach)]
    if lines.size == 0:
        return None
    near = np.zeros(n + int(PAINTED_LINE_MARGIN_PX) + 2, bool)
    near[lines] = True
    # each line ring grown by the margin (rings are 1 px: a margin of m px marks m rings each way)
    grown = near.copy()
    for step in range(1, int(math.floor(PAINTED_LINE_MARGIN_PX)) + 1):
        grown[step:] |= near[:-step]
        grown[:-step] |= near[step:]
    return grown


def painted_line_mask(view: CanonicalView, token_r: float,
                      box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """The canvas pixels on a painted line of the plate (see the module doc).

    Parameters
    ----------
    view : CanonicalView
    token_r : float
        Token radius, canonical pixels (> 0): sets the running median's window.
    box : (int, int, int, int), optional
        ``(y0, y1, x0, x1)``, end-exclusive, inside the canvas: the mask of
        those pixels only (the whole canvas's mask cut to the box; the
        rings are still judged on the whole plate model).

    Returns
    -------
    ndarray, bool, (S, S) (or the box's shape)
        True on the rings of a line (grown by ``PAINTED_LINE_MARGIN_PX``);
        all False on a plate without one.

    Raises
    ------
    ValueError
        ``token_r`` not a positive finite number; ``box`` not four integers
        of a box inside the canvas; ``view.radius_px`` with a negative or
        NaN distance.
    """
    return PaintedLines(view, token_r).mask(box)


def across_line_window(x: int, y: int, token_r: float, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """``(y0, y1, x0, x1)``: a box of the canvas (``shape``) holding every
    pixel of the line mask :func:`outline_across_line` reads for the peak
    (x, y): its test for a line near the peak and the circles' windows
    (both within ``outer`` pixels of it), with ``ACROSS_LINE_SLACK_PX`` more
    each way."""
    reach = int(math.ceil(PAINTED_LINE_REACH_RADII * token_r))
    outer = int(math.ceil(1.5 * max(OUTLINE_RADIUS_FACTORS) * token_r + 1)) + reach + ACROSS_LINE_SLACK_PX
    return max(0, y - outer), min(shape[0], y + outer + 1), max(0, x - outer), min(shape[1], x + outer + 1)


#: :func:`across_line_window`'s slack, pixels: the circles' windows are
#: sized from each radius (``ceil(1.5 r + 1)``, rounded apart from ``outer``).
ACROSS_LINE_SLACK_PX = 2


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
