"""A smooth 2-D plate model for the blob search, where the rings do not fit.

:mod:`vision.canonical` models the bare plate as one colour per ring around
its centre and :mod:`vision.shading` takes out a first harmonic of the angle
per ring band, fitted only to pixels within ``shading.SHADING_MAX_DELTA_E``
of the rings.  A glossy black lacquer lit from one side breaks both: its
lightness runs smoothly across the well by 40-50 L (the lamp's gloss on one
side, the dark lacquer on the other), so most of each ring is beyond the
harmonic's cut, the harmonic is not fitted, and the blob search's threshold
(:func:`vision.tokens.blob_threshold`: five robust standard deviations of the
colour difference above its median) rises to 45-100 Lab, above every face.

Here the well's colour is fitted instead as one low-order polynomial in the
plate's coordinates, per Lab channel, robustly: the pixels far from the fit
(tokens, a hand, a stick) are left out and the fit is done again.  A smooth
surface of ``SMOOTH_PLATE_DEGREE`` cannot take a token's disc or a hand's
outline into itself; it takes the lamp's gradient.  Out on the well's wall
and the rim (from ``SMOOTH_PLATE_FIT_RADIUS_FRAC``), whose bands the rings
model, the rings stay and the polynomial adds only its change around each
ring (:func:`with_smooth_plate`).  The reader uses it only where the ring
model's blob search is blind (``reader.SMOOTH_PLATE_MODEL``).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .canonical import CanonicalView

#: Degree of the polynomial in the plate's coordinates (x, y in plate radii)
#: fitted to each Lab channel of the well: 3 (10 terms) follows a lamp's
#: gradient and its broad gloss across the well (fresh four flat tokens on
#: black lacquer 1590001-1590135 at 640x480: the blob threshold from 45-77
#: Lab on the rings to its floor, 14-15); a token (about a seventh of the
#: plate radius) or a hand's outline is far sharper than it can bend.
SMOOTH_PLATE_DEGREE = 3
#: The polynomial is fitted to the plate inside this fraction of the plate
#: radius (the well, inside its wall: the ring profiles of black lacquer fall
#: sharply from 0.8 out) ...
SMOOTH_PLATE_FIT_RADIUS_FRAC = 0.8
#: ... and is the plate's colour inside this fraction.  Further out the rings
#: keep the radial profile (the well's wall and the rim's bands change
#: colour sharply with the radius, which a cubic cannot follow) and the
#: polynomial gives only its change around each ring (its value less its
#: mean on the ring); from here to ``SMOOTH_PLATE_FIT_RADIUS_FRAC`` the one
#: blends linearly into the other ...
SMOOTH_PLATE_WELL_RADIUS_FRAC = 0.7
#: ... and that change around the rings fades linearly to nothing between
#: these fractions: out to the blob search's reach
#: (``tokens.BLOB_SEARCH_RADIUS_FRAC``) it is whole, beyond the rim's outer
#: band (``rim.RIM_BAND_FRAC``) nothing, so that the rim rules see the rim
#: about as before.
SMOOTH_PLATE_FADE_RADIUS_FRAC = (0.9, 0.95)
#: The fit uses every this many canonical pixels in each direction (a
#: quarter of the well's pixels: the surface is smooth, the fit as good).
SMOOTH_PLATE_SAMPLE_PX = 2
#: Robust refits: each leaves out the pixels further from the last fit (Lab
#: units, the norm over the three channels) than this many robust standard
#: deviations of the pixels kept ...
SMOOTH_PLATE_REFITS = 4
SMOOTH_PLATE_OUTLIER_SIGMAS = 2.5
#: ... and than this many Lab units (the plate's noise after the fit is 1-3
#: Lab; a faint face differs by 5 or more).
SMOOTH_PLATE_MIN_OUTLIER_LAB = 3.0
#: The fit is made only when at least this share of the sampled well is kept
#: at the end (a hand or the bowl over most of the well leaves no plate to fit).
SMOOTH_PLATE_MIN_KEPT_SHARE = 0.5


def _design(u: np.ndarray, v: np.ndarray, degree: int) -> np.ndarray:
    """Monomials ``u**i * v**j``, ``i + j <= degree``, as columns: float64 (n, terms)."""
    cols = [u ** (d - j) * v ** j for d in range(degree + 1) for j in range(d + 1)]
    return np.stack(cols, axis=1)


def smooth_plate_surface(lab: np.ndarray, plate_radius_px: float, degree: int = SMOOTH_PLATE_DEGREE
                         ) -> np.ndarray | None:
    """The well's colour as a robust polynomial surface.

    Parameters
    ----------
    lab : ndarray, float32, (S, S, 3), Lab units
        The canonical view's colour, the plate a circle centred in the canvas.
    plate_radius_px : float
        The plate radius, canvas pixels.
    degree : int
        Degree of the polynomial in the plate's coordinates (plate radii).

    Returns
    -------
    ndarray, float32, (S, S, 3) or None
        The fitted surface over the whole canvas (it means something only
        near the well); None when less than ``SMOOTH_PLATE_MIN_KEPT_SHARE`` of
        the well's sampled pixels lie near the final fit.

    Raises
    ------
    ValueError
        ``lab`` not a square (S, S, 3) array, a radius not positive, a
        degree below 0.
    """
    lab = np.asarray(lab)
    if lab.ndim != 3 or lab.shape[2] != 3 or lab.shape[0] != lab.shape[1]:
        raise ValueError(f"lab: expected a square (S, S, 3) array, got shape {lab.shape}")
    if not plate_radius_px > 0:
        raise ValueError(f"plate_radius_px: expected > 0, got {plate_radius_px}")
    if degree < 0:
        raise ValueError(f"degree: expected >= 0, got {degree}")
    s = lab.shape[0]
    c = s / 2.0 - 0.5
    step = SMOOTH_PLATE_SAMPLE_PX
    grid = np.arange(0, s, step, dtype=np.float64)
    u, v = np.meshgrid((grid - c) / plate_radius_px, (grid - c) / plate_radius_px)
    well = np.hypot(u, v) < SMOOTH_PLATE_FIT_RADIUS_FRAC
    design = _design(u[well], v[well], degree)
    values = lab[::step, ::step][well].astype(np.float64)
    if values.shape[0] < 4 * design.shape[1]:
        return None
    keep = np.ones(values.shape[0], bool)
    for _ in range(SMOOTH_PLATE_REFITS + 1):
        # least squares by the normal equations (terms x terms: the samples'
        # coordinates are within a plate radius, the cubic's columns well scaled)
        kept = design[keep]
        coef = np.linalg.solve(kept.T @ kept, kept.T @ values[keep])
        dev = np.linalg.norm(values - design @ coef, axis=1)
        scale = 1.4826 * float(np.median(dev[keep]))
        keep = dev <= max(SMOOTH_PLATE_OUTLIER_SIGMAS * scale, SMOOTH_PLATE_MIN_OUTLIER_LAB)
        if keep.sum() < design.shape[1]:
            return None
    if keep.mean() < SMOOTH_PLATE_MIN_KEPT_SHARE:
        return None
    # evaluated separably: sum over terms u**i v**j = V @ C @ U.T per channel
    # (rows v, columns u), the powers of each axis once
    axis = (np.arange(s, dtype=np.float64) - c) / plate_radius_px
    powers = axis[:, None] ** np.arange(degree + 1)  # (S, degree + 1)
    terms = [(d - j, j) for d in range(degree + 1) for j in range(d + 1)]  # (power of u, power of v), as _design
    out = np.empty((s, s, 3), np.float32)
    for ch in range(3):
        grid = np.zeros((degree + 1, degree + 1))
        for (i, j), k in zip(terms, coef[:, ch]):
            grid[j, i] = k
        out[..., ch] = powers @ grid @ powers.T
    return out


#: The surface's mean around each ring is taken over this many angles.
SMOOTH_PLATE_RING_ANGLES = 64


def _ring_means(surface: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """Each pixel's ring mean of ``surface`` (S, S, 3), the rings one canvas
    pixel wide (``radius_px`` rounded), sampled at ``SMOOTH_PLATE_RING_ANGLES``
    angles (nearest pixel): float32 (S, S, 3)."""
    s = surface.shape[0]
    c = s / 2.0 - 0.5
    ring = np.minimum(np.rint(radius_px).astype(np.intp), int(s // 2))
    theta = np.arange(SMOOTH_PLATE_RING_ANGLES) * (2.0 * np.pi / SMOOTH_PLATE_RING_ANGLES)
    radii = np.arange(int(s // 2) + 1, dtype=np.float64)[:, None]
    xs = np.clip(np.rint(c + radii * np.cos(theta)), 0, s - 1).astype(np.intp)
    ys = np.clip(np.rint(c + radii * np.sin(theta)), 0, s - 1).astype(np.intp)
    profile = surface[ys, xs].mean(axis=1, dtype=np.float64).astype(np.float32)  # (rings, 3)
    return profile[ring]


def with_smooth_plate(view: CanonicalView) -> CanonicalView | None:
    """``view`` with its background from :func:`smooth_plate_surface`.

    Inside ``SMOOTH_PLATE_WELL_RADIUS_FRAC`` of the plate radius the
    background is the surface; out from ``SMOOTH_PLATE_FIT_RADIUS_FRAC`` it is
    the view's own plus the surface's change around each ring (the surface
    less its ring mean), that change fading out over
    ``SMOOTH_PLATE_FADE_RADIUS_FRAC``; between the two radii one blends
    linearly into the other.  ``residual`` and ``delta_e`` follow; ``lab``,
    ``radius_px`` and everything else are the same arrays.

    Parameters
    ----------
    view : CanonicalView

    Returns
    -------
    CanonicalView or None
        A new view; None when no surface was fitted.

    Raises
    ------
    TypeError
        ``view`` not a CanonicalView.
    """
    if not isinstance(view, CanonicalView):
        raise TypeError(f"view: expected CanonicalView, got {type(view).__name__}")
    surface = smooth_plate_surface(view.lab, view.plate_radius_px)
    if surface is None:
        return None
    r_frac = view.radius_px / view.plate_radius_px
    well, fit = SMOOTH_PLATE_WELL_RADIUS_FRAC, SMOOTH_PLATE_FIT_RADIUS_FRAC
    fade_lo, fade_hi = SMOOTH_PLATE_FADE_RADIUS_FRAC
    around = surface - _ring_means(surface, view.radius_px)
    around *= np.clip((fade_hi - r_frac) / (fade_hi - fade_lo), 0.0, 1.0).astype(np.float32)[..., None]
    weight = np.clip((fit - r_frac) / (fit - well), 0.0, 1.0).astype(np.float32)[..., None]
    around += view.background
    background = weight * surface
    background += (1.0 - weight) * around
    residual = view.lab - background
    delta_e = np.sqrt(np.einsum("ijk,ijk->ij", residual, residual))
    return replace(view, background=background, residual=residual, delta_e=delta_e)
