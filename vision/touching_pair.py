"""Two faces that touch, measured by their own edges.

Two tokens that only touch lie 2.0 token radii apart, centre to centre.
The reader holds two faces closer than ``OVERLAP_MAX_CENTRE_DIST_RADII``
(1.8) to overlap, and a pair with a faint face (not found as a clear blob)
closer than 2.0, by centres or by edges, to be checked by hand: a faint
face is found off its centre, and the frame's token radius is measured a
few per cent small on some pale plates, so two touching white faces on a
white plate read ``rearrange`` or ``uncertain`` (fresh touching scenes
2100000-2100199 at 1280x720 on white porcelain or cream: 38 of 200 stopped
that way).

Here each face of such a pair is measured on its own: the circle fitted to
its edge (:func:`vision.face_centre.fit_face_edge`) on the rays away from
every neighbour (those towards one are left out, where a face under
another is cut and a touching one meets its neighbour).  The pair reads as
touching only when both faces' outlines are whole circles there (an edge
on nearly every ray, a tight fit, a radius within a tenth of the frame's
token radius) and their centres lie about two of their own fitted radii
apart.  A face partly under another keeps the circle of its own edge on
the far side, so the distance by the fits is the true offset between the
two (fresh overlaps whose pairs reach these checks with whole fits,
2100200-2101399 at 1024x768, 800x600 and 1280x720: 15 pairs, 1.17-1.83 of
their own radii; the highest, a leaning overlap offset 1.73 true radii,
1.825); touching pairs with whole fits (64 of 116 pairs found 1.7-2.0
apart, 2100000-2100199 at 1280x720) measured 1.62-2.13, median 1.97, 40 at
1.95 or more.  The bound (``TOUCH_MIN_OWN_DIST_RADII``) sits 0.125 above
every overlap seen, so the touching pairs measured low keep abstaining.

A pair that reads as touching so, one of its faces at least a blob (whose
fit measures the true edge), has measured its own size, and is also left
out of the two bounds that judge a pair's distance in a frame token radius
they distrust (``OWN_SCALE_EXEMPT_RULE``: the unmeasured-size bound, 2.4,
and the split-halves bound by edges, 1.9).  A/B on fresh scenes (on / off,
right; no wrong outcome either side): touching 1280x720 69/67, 800x600
59/57, pale glazes 1024x768 54/51, steep 1280x720 45/45, outcomes 640x480
120/119; overlaps (leaning and raised at 25-40 deg, 1280x720 and 800x600,
the mix at 1024x768), five tokens and tilted tokens unchanged.  Of 16
overlap pairs measured here (fresh pale and steep overlaps), the highest
own-radius distance with both fits inside ``TOUCH_OWN_RADIUS_RANGE`` was
1.81 (0.14 under ``TOUCH_MIN_OWN_DIST_RADII``); one of two faint faces whose
fits ran 0.87-0.89 of the frame's radius reached 2.00 (2165756), and no
blob among them: the reason for the blob anchor.  Perspective was looked at
first and is not the cause of those stops: the canonical view's affine map
leaves the scale varying across the plate (max/min of the four true face
radii: median 1.04, up to 1.19, at tilts of 20-40 deg a median 1.08), and a
plane fitted to the four faces' own edge radii follows it (its relative
scale at a pair's place within 0.016 rms of the true one), but at the
touching pairs the split-halves bound held, that relative scale was
0.97-1.06: they measure 1.81-1.88 frame radii apart because the frame's
radius is 5-10 % larger than their faces' true radius over the whole frame,
and their own fits run as large (fresh touching 2160000-2160149, 1280x720).

Distances are canonical pixels or token radii; colours are the Lab residual
of :class:`vision.canonical.CanonicalView`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .face_centre import FIT_RAYS, FIT_SKIP_HALF_ANGLE_DEG, fit_face_edge

#: Switch for the rule (the reader reads a pair as touching only when True);
#: module-level so that ``scripts/ab_table.py`` can A/B it.
TOUCHING_PAIR_RULE = True
#: Only pairs found at least this many frame token radii apart (the nearer of
#: their distances by centres and by edges) are measured: fresh overlaps were
#: found 1.20-1.66 apart when the overlap bound read them (2100200-2101399),
#: touching faces 1.71 and more (2100000-2100199).
TOUCH_MIN_FOUND_DIST_RADII = 1.7
#: Each face's own fitted radius, / the frame's token radius, must lie in
#: this range: a whole face (blob faces of touching pairs 0.90-1.09; fits
#: of faint faces whose half-contrast region takes in their halo up to 1.6;
#: outline faces with no core colour of their own 0.40-0.90 and mostly so,
#: fits that measure no face).  The distance is divided by these radii, so
#: the range also bounds how much a fit can stretch it (a tenth).
TOUCH_OWN_RADIUS_RANGE = (0.9, 1.1)
#: The fit's rms distance of its edge points from the circle, token radii,
#: at most: a round outline (whole faces 0.003-0.04; cut or ragged ones
#: 0.06-0.5).
TOUCH_MAX_FIT_RMS_RADII = 0.05
#: The share of the rays cast away from every neighbour that must find the
#: face's edge (and keep it in the fit): the outline whole there.
TOUCH_MIN_EDGE_SHARE = 0.8
#: Centres by the two fits at least this many of the faces' own fitted
#: radii (their mean) apart: touching faces 2.0-2.04 true, measured
#: 1.62-2.13 (median 1.97) with whole outlines; the overlaps that reach
#: these checks at most 1.825 (fresh leaning overlap 2100259, offset 1.73
#: true radii).  0.125 above it.
TOUCH_MIN_OWN_DIST_RADII = 1.95
#: The same fitted centres at least this many of the frame's token radii
#: apart as well, so that a pair whose fits both ran small cannot reach two
#: of its own radii: the touching pairs read by the rule above measured
#: 1.94-2.07 so (fresh 2101400-2101599 at 1280x720), the leaning overlap
#: 2100259 1.88.  Added by the lead on the helper's advice (a bound only
#: stricter: it takes no right reading away that it did not measure).
TOUCH_MIN_FRAME_DIST_RADII = 1.9
#: Switch: a pair that reads as touching by its own outlines (above) is also
#: exempt from the two rules that judge a pair's distance in a token size
#: they cannot trust: the unmeasured-size bound (2.4 frame radii, where the
#: size came from no clear face or only from faces beside another) and the
#: split-halves bound by edges (1.9, faces cut from one blob).  Both guard
#: against a frame token radius measured wrong (0.75-1.2 of the true one);
#: a touching pair with a face found as a blob (:func:`own_scale_exempt`)
#: measures its size itself, its fits within a tenth of that radius
#: (``TOUCH_OWN_RADIUS_RANGE``), and puts the faces two of
#: their own radii apart (``TOUCH_MIN_OWN_DIST_RADII``), the bound that
#: overlaps stay under whatever the frame's radius.  Module-level so that
#: ``scripts/ab_table.py`` can A/B it; off: the reader as before.
OWN_SCALE_EXEMPT_RULE = True


def own_scale_reach(faint_bound_radii: float, size_bound_radii: float) -> float:
    """How far (frame token radii) pairs are measured by their own edges.

    Parameters
    ----------
    faint_bound_radii : float
        The faint-pair bound (the reach without ``OWN_SCALE_EXEMPT_RULE``).
    size_bound_radii : float
        The unmeasured-size bound (the reach with it).

    Returns
    -------
    float
        ``size_bound_radii`` when ``OWN_SCALE_EXEMPT_RULE`` is on (and it is
        the larger), else ``faint_bound_radii``.

    Raises
    ------
    ValueError
        Either bound not finite and >= 0 (0: that rule set off).
    """
    for name, v in (("faint_bound_radii", faint_bound_radii), ("size_bound_radii", size_bound_radii)):
        if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{name}: expected a finite value >= 0, got {v!r}")
    return float(max(faint_bound_radii, size_bound_radii)) if OWN_SCALE_EXEMPT_RULE else float(faint_bound_radii)


def own_scale_exempt(touching: list[bool], anchored: list[bool]) -> list[bool]:
    """Which pairs the size-bound and split-halves distance rules leave out.

    A pair is left out when it reads as touching and at least one of its
    faces was found as a blob (``anchored``): a blob's edge stands at full
    contrast, so its fit measures the face's true edge, and its radius
    within a tenth of the frame's confirms that size.  A faint face's fit
    can run small together with a size measured on faint faces (a fresh
    leaning overlap on cream, 2165756 at 640x480, a faint and an outline
    face 1.75 frame radii apart, fitted 0.885 and 0.865 of the frame's
    radius and so 2.00 of their own radii apart): two faint faces confirm
    nothing, and such a pair stays judged by the frame's radius.

    Parameters
    ----------
    touching : list of bool
        :func:`touching_pairs`' answer for every pair.
    anchored : list of bool
        For every pair, whether one of its faces or both were found as blobs.

    Returns
    -------
    list of bool
        ``touching and anchored`` per pair when ``OWN_SCALE_EXEMPT_RULE`` is
        on, else all False (every pair judged by the frame's radius, as before).

    Raises
    ------
    TypeError
        ``touching`` or ``anchored`` not a list or tuple of bools.
    ValueError
        Their lengths differ.
    """
    for name, v in (("touching", touching), ("anchored", anchored)):
        if not (isinstance(v, (list, tuple)) and all(isinstance(t, (bool, np.bool_)) for t in v)):
            raise TypeError(f"{name}: expected a list of bools, got {v!r}")
    if len(touching) != len(anchored):
        raise ValueError(f"anchored: expected {len(touching)} values (one per pair), got {len(anchored)}")
    if not OWN_SCALE_EXEMPT_RULE:
        return [False] * len(touching)
    return [bool(t) and bool(a) for t, a in zip(touching, anchored)]


@dataclass(frozen=True)
class TouchMeasure:
    """How two faces measure by their own edges.

    Attributes
    ----------
    own_dist_radii : float
        Distance between the fitted centres / the mean of the two fitted
        radii; NaN when either fit failed.
    frame_dist_radii : float
        The same distance / the frame's token radius; NaN when either fit
        failed.
    radius_a, radius_b : float
        Each face's fitted radius / the frame's token radius (NaN: no fit).
    rms_a, rms_b : float
        Each fit's rms / the frame's token radius (NaN: no fit).
    edge_share_a, edge_share_b : float
        Share of the rays away from every neighbour whose edge was kept.
    """

    own_dist_radii: float
    frame_dist_radii: float
    radius_a: float
    radius_b: float
    rms_a: float
    rms_b: float
    edge_share_a: float
    edge_share_b: float

    @property
    def touching(self) -> bool:
        """Both outlines whole and the centres about two own radii apart."""
        lo, hi = TOUCH_OWN_RADIUS_RANGE
        return (math.isfinite(self.own_dist_radii) and self.own_dist_radii >= TOUCH_MIN_OWN_DIST_RADII
                and self.frame_dist_radii >= TOUCH_MIN_FRAME_DIST_RADII
                and all(lo <= v <= hi for v in (self.radius_a, self.radius_b))
                and all(v <= TOUCH_MAX_FIT_RMS_RADII for v in (self.rms_a, self.rms_b))
                and all(v >= TOUCH_MIN_EDGE_SHARE for v in (self.edge_share_a, self.edge_share_b)))


def _rays_away(x: float, y: float, others: list[tuple[float, float]]) -> int:
    """How many of the fit's rays from (x, y) point away from every one of ``others`` (canonical pixels)."""
    theta = np.linspace(0.0, 2.0 * math.pi, FIT_RAYS, endpoint=False)
    if not others:
        return int(theta.size)
    towards = np.array([math.atan2(oy - y, ox - x) for ox, oy in others])
    off = np.abs((theta[:, None] - towards[None, :] + math.pi) % (2.0 * math.pi) - math.pi)
    return int((off >= math.radians(FIT_SKIP_HALF_ANGLE_DEG)).all(axis=1).sum())


def measure_pair(residual: np.ndarray, a: tuple[float, float], b: tuple[float, float],
                 others: list[tuple[float, float]] | tuple, radius_px: float,
                 reach_radii: float = 3.0) -> TouchMeasure:
    """Measure two faces by circles fitted to their own edges.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Colour minus the plate model.
    a, b : (float, float)
        The two faces' centres as found, canonical pixels (x, y).
    others : sequence of (x, y)
        Every other token's centre, canonical pixels: rays towards those
        within ``reach_radii`` token radii of a face are left out of its fit,
        as are rays towards the other face of the pair.
    radius_px : float
        The frame's token radius, canonical pixels (> 0).
    reach_radii : float
        Neighbours within this many token radii are left out of a fit (> 0).

    Returns
    -------
    TouchMeasure

    Raises
    ------
    ValueError
        ``residual`` not (S, S, 3); ``a`` or ``b`` not two finite numbers;
        ``radius_px`` or ``reach_radii`` not finite and > 0.
    """
    if not (isinstance(residual, np.ndarray) and residual.ndim == 3 and residual.shape[2] == 3):
        raise ValueError(f"residual: expected an (S, S, 3) array, got {getattr(residual, 'shape', type(residual))}")
    if not (isinstance(radius_px, (int, float, np.floating)) and math.isfinite(radius_px) and radius_px > 0):
        raise ValueError(f"radius_px: expected a finite value > 0, got {radius_px!r}")
    if not (isinstance(reach_radii, (int, float, np.floating)) and math.isfinite(reach_radii) and reach_radii > 0):
        raise ValueError(f"reach_radii: expected a finite value > 0, got {reach_radii!r}")
    for name, p in (("a", a), ("b", b)):
        if len(p) != 2 or not all(math.isfinite(float(v)) for v in p):
            raise ValueError(f"{name}: expected a finite point (x, y), got {p!r}")
    pts = [(float(a[0]), float(a[1])), (float(b[0]), float(b[1]))]
    rest = [(float(o[0]), float(o[1])) for o in others]
    fits, shares = [], []
    for i, (x, y) in enumerate(pts):
        near = [q for q in [pts[1 - i]] + rest
                if 0.0 < math.hypot(q[0] - x, q[1] - y) < reach_radii * radius_px]
        fit = fit_face_edge(residual, x, y, radius_px, near)
        fits.append(fit)
        n = _rays_away(x, y, near)
        shares.append(fit.n_edges / n if n else 0.0)
    fa, fb = fits
    if not (fa.fitted and fb.fitted):
        nan = math.nan
        return TouchMeasure(nan, nan, fa.radius_px / radius_px, fb.radius_px / radius_px, nan, nan, shares[0], shares[1])
    dist_px = math.hypot(fa.x - fb.x, fa.y - fb.y)
    own = dist_px / (0.5 * (fa.radius_px + fb.radius_px))
    return TouchMeasure(own, dist_px / radius_px, fa.radius_px / radius_px, fb.radius_px / radius_px, fa.rms_px / radius_px,
                        fb.rms_px / radius_px, shares[0], shares[1])


def touching_pairs(residual: np.ndarray, pairs: list[tuple[tuple[float, float], tuple[float, float], float]],
                   others: list[tuple[float, float]], radius_px: float, below_radii: float) -> list[bool]:
    """Which of ``pairs`` read as two faces touching (:func:`measure_pair`).

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Colour minus the plate model.
    pairs : list of ((x, y), (x, y), float)
        Each pair's two centres (canonical pixels) and the nearer of its
        distances by centres and by edges (frame token radii).
    others : list of (x, y)
        Every token's centre, canonical pixels (the pair's own are skipped
        where they coincide).
    radius_px : float
        The frame's token radius, canonical pixels (> 0).
    below_radii : float
        Only pairs nearer than this (and at least ``TOUCH_MIN_FOUND_DIST_RADII``)
        are measured; the others are False.

    Returns
    -------
    list of bool
        In ``pairs``' order; all False when ``TOUCHING_PAIR_RULE`` is off.
    """
    if not (isinstance(radius_px, (int, float, np.floating)) and math.isfinite(radius_px) and radius_px > 0):
        raise ValueError(f"radius_px: expected a finite value > 0, got {radius_px!r}")
    out = []
    for a, b, found in pairs:
        if not (TOUCHING_PAIR_RULE and TOUCH_MIN_FOUND_DIST_RADII <= found < below_radii):
            out.append(False)
            continue
        rest = [o for o in others if math.hypot(o[0] - a[0], o[1] - a[1]) > 1e-6
                and math.hypot(o[0] - b[0], o[1] - b[1]) > 1e-6]
        out.append(measure_pair(residual, a, b, rest, radius_px).touching)
    return out
