"""Angular shading of the plate: what the per-ring background model leaves.

:mod:`vision.canonical` models the bare plate as one colour per ring around
its centre.  Two things on a real table break that symmetry smoothly:

* light from one side makes a ring brighter on that side (a gradient across
  the plate);
* the plate is not flat: its well lies below the rim, so when the camera is
  not straight above the well, the well's edge is seen shifted against the
  rim the homography was fitted to, and the ring model leaves a bright
  crescent on one side and a dark one on the other.

Both are, ring by ring, close to a first harmonic of the angle around the
centre, ``b(r) cos(theta) + c(r) sin(theta)`` (a small shift ``d`` of a
ring profile ``f`` gives ``f(r - d cos(theta - phi)) ~ f(r) - d f'(r)
cos(theta - phi)``).  :func:`angular_shading` fits that harmonic to each ring
band's residual, robustly (cells of the band that hold a token are outliers
and are left out of the fit), so the token search sees the tokens and not the
lighting.  A smooth function with two coefficients per band cannot take away
a token: a token covers a few cells of a band and is rejected from its fit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .canonical import PLATE_RADIUS_PX, CanonicalView
from .exact_reduce import nanmedian_last_axis

#: Width of one ring band of the shading model, canonical pixels.
SHADING_BAND_PX = 4.0
#: Angular cells per band.
SHADING_ANGLE_CELLS = 32
#: Bands start at this radius (fraction of the plate radius): nearer the
#: centre a band is too short for a token to stay a minority of its cells.
SHADING_MIN_RADIUS_FRAC = 0.2
#: Pixels differing from the ring model by more than this (Lab units) are a
#: token's or an object's, not the plate's shading: left out of the fit.
SHADING_MAX_DELTA_E = 12.0
#: Bands end at this radius (fraction of the plate radius); from
#: ``SHADING_FADE_FRAC`` out the harmonic fades linearly to 0 there.  The rim's
#: walls and glossy bands are not a smooth harmonic, and rim-crossing objects
#: are judged there against the ring model alone.
SHADING_MAX_RADIUS_FRAC = 0.9
SHADING_FADE_FRAC = 0.8
#: A cell needs this many plate pixels, and this share of its pixels, to take
#: part in its band's fit (a cell mostly left out is a token's, or shading
#: too strong for the cut above: its mean would be biased).
SHADING_MIN_CELL_PX = 4
SHADING_MIN_CELL_COVER = 0.75
#: A band is fitted only when this share of its cells take part.
SHADING_MIN_CELL_SHARE = 0.6
#: Cells further from the first fit than this many robust standard deviations
#: (and than ``SHADING_MIN_OUTLIER_LAB``) are left out of the second fit.
SHADING_OUTLIER_SIGMAS = 2.5
SHADING_MIN_OUTLIER_LAB = 1.0


@dataclass(frozen=True, eq=False)
class _ShadingGeometry:
    """Per-canvas constants, over the pixels the model covers (the plate)."""

    box: tuple[slice, slice]  # rows, columns of the plate's bounding box; N = its pixel count
    cell: np.ndarray      # intp (N,): band * cells + angular cell; -1 off the bands
    lo: np.ndarray        # intp (N,): band below the pixel's radius (interpolation), clipped
    lo_codes: np.ndarray | None  # uint8 (N, 1): ``lo`` as a cv2.LUT source; None for more than 256 bands
    hi: np.ndarray        # intp (N,): band above, clipped
    frac: np.ndarray      # float32 (N, 1): weight of the band above
    cos: np.ndarray       # float32 (N, 1): cos of the pixel's angle, times the taper
    sin: np.ndarray       # float32 (N, 1): sin of the pixel's angle, times the taper
    cell_cos: np.ndarray  # float64 (cells,): cos at each angular cell's centre
    cell_sin: np.ndarray
    cell_px: np.ndarray   # int (bands, cells): pixels in each cell
    n_bands: int


_GEOMETRY: dict[tuple[int, float], _ShadingGeometry] = {}


def _geometry(canvas_px: int, plate_radius_px: float) -> _ShadingGeometry:
    key = (canvas_px, plate_radius_px)
    geo = _GEOMETRY.get(key)
    if geo is not None:
        return geo
    c = canvas_px / 2.0 - 0.5
    r0 = SHADING_MIN_RADIUS_FRAC * plate_radius_px
    r1 = SHADING_MAX_RADIUS_FRAC * plate_radius_px
    lo_px, hi_px = max(int(math.floor(c - r1)), 0), min(int(math.ceil(c + r1)) + 1, canvas_px)
    box = (slice(lo_px, hi_px), slice(lo_px, hi_px))
    yy, xx = np.mgrid[lo_px:hi_px, lo_px:hi_px].astype(np.float64)
    dx, dy = (xx - c).ravel(), (yy - c).ravel()
    r = np.hypot(dx, dy)
    on_plate = r < r1
    theta = np.arctan2(dy, dx)
    n_bands = int(math.ceil((r1 - r0) / SHADING_BAND_PX))
    band = np.minimum(np.floor((r - r0) / SHADING_BAND_PX).astype(np.intp), n_bands - 1)
    acell = np.floor((theta + math.pi) / (2 * math.pi) * SHADING_ANGLE_CELLS).astype(np.intp) % SHADING_ANGLE_CELLS
    cell = np.where((r >= r0) & on_plate, band * SHADING_ANGLE_CELLS + acell, -1)
    # Interpolate the band coefficients linearly between band centres.
    pos = (r - r0) / SHADING_BAND_PX - 0.5
    lo = np.clip(np.floor(pos), 0, n_bands - 1).astype(np.intp)
    frac = np.where(pos >= n_bands - 1, 0.0, np.clip(pos - lo, 0.0, 1.0))
    # Inside the first band's centre the harmonic fades linearly to 0 at the
    # centre: a gradient of light across the plate is a plane, r cos(theta).
    taper = np.clip(r / (r0 + 0.5 * SHADING_BAND_PX), 0.0, 1.0) * on_plate
    fade_px = SHADING_FADE_FRAC * plate_radius_px
    taper *= np.clip((r1 - r) / (r1 - fade_px), 0.0, 1.0)
    centres = (np.arange(SHADING_ANGLE_CELLS) + 0.5) / SHADING_ANGLE_CELLS * 2 * math.pi - math.pi
    geo = _ShadingGeometry(box=box, cell=cell, lo=lo, hi=np.minimum(lo + 1, n_bands - 1),
                           lo_codes=lo.astype(np.uint8)[:, None] if n_bands <= 256 else None,
                           frac=frac.astype(np.float32)[:, None],
                           cos=(np.cos(theta) * taper).astype(np.float32)[:, None],
                           sin=(np.sin(theta) * taper).astype(np.float32)[:, None],
                           cell_cos=np.cos(centres), cell_sin=np.sin(centres),
                           cell_px=np.bincount(cell[cell >= 0], minlength=n_bands * SHADING_ANGLE_CELLS
                                               ).reshape(n_bands, SHADING_ANGLE_CELLS),
                           n_bands=n_bands)
    for arr in (geo.cell, geo.lo, geo.hi, geo.frac, geo.cos, geo.sin, geo.lo_codes):
        if arr is not None:
            arr.setflags(write=False)
    _GEOMETRY[key] = geo
    return geo


def _fit(values: np.ndarray, weight: np.ndarray, design: np.ndarray) -> np.ndarray:
    """Weighted least squares of ``design`` (n, k) to every row of ``values``
    (..., n) with 0/1 ``weight`` (..., n); returns (..., k), zeros where the
    normal matrix is singular."""
    normal = np.einsum("...n,ni,nj->...ij", weight, design, design)
    rhs = np.einsum("...n,...n,ni->...i", weight, values, design)
    ok = np.abs(np.linalg.det(normal)) > 1e-9
    coef = np.zeros(values.shape[:-1] + (design.shape[1],))
    if ok.any():
        coef[ok] = np.linalg.solve(normal[ok], rhs[ok][..., None])[..., 0]
    return coef


def _robust_harmonic(means: np.ndarray, ok: np.ndarray, design: np.ndarray) -> np.ndarray:
    """Fit ``design @ coef`` to each band's cell means (3, bands, cells) over
    the cells in ``ok`` (bands, cells), then again without the cells far from
    the first fit.  Returns coef (3, bands, 3); zeros for a band with too few
    cells."""
    n_min = SHADING_MIN_CELL_SHARE * means.shape[-1]
    w = np.broadcast_to(ok, means.shape).astype(np.float64)
    coef = _fit(means, w, design)
    dev = np.abs(means - coef @ design.T)
    dev_ok = np.where(w > 0, dev, np.nan)
    dev_ok[~(w > 0).any(axis=-1)] = 0.0  # a band with no cell: no scale (and no warning)
    scale = 1.4826 * nanmedian_last_axis(dev_ok)  # = np.nanmedian(dev_ok, axis=-1, keepdims=True)
    keep = (w > 0) & (dev <= np.maximum(SHADING_OUTLIER_SIGMAS * scale, SHADING_MIN_OUTLIER_LAB))
    coef = _fit(means, keep.astype(np.float64), design)
    coef[keep.sum(axis=-1) < n_min] = 0.0
    return coef


def _cell_fit(keys: np.ndarray, values: np.ndarray, n_bands: int, design: np.ndarray, cell_px: np.ndarray
              ) -> np.ndarray:
    """Per-band robust harmonic fit to the cell means of the pixels ``values``
    (N, 3) whose ``keys`` (N,) name their cell (``n_bands *
    SHADING_ANGLE_CELLS`` for a pixel left out): coef (bands, 3 channels, 3).
    A cell takes part when at least ``SHADING_MIN_CELL_COVER`` of its
    ``cell_px`` pixels (and ``SHADING_MIN_CELL_PX``) are among them.

    The pixels left out go to one bin past the cells, so every cell's sum
    adds the same values in the same order as a ``np.bincount`` of the kept
    pixels alone (the same float64 sums, without gathering them)."""
    n_cells = n_bands * SHADING_ANGLE_CELLS
    counts_b = np.bincount(keys, minlength=n_cells + 1)[:n_cells].reshape(n_bands, SHADING_ANGLE_CELLS)
    ok = (counts_b >= SHADING_MIN_CELL_PX) & (counts_b >= SHADING_MIN_CELL_COVER * cell_px)
    sums = np.stack([np.bincount(keys, weights=values[:, ch], minlength=n_cells + 1)[:n_cells] for ch in range(3)])
    means = sums.reshape(3, n_bands, SHADING_ANGLE_CELLS) / np.maximum(counts_b, 1)
    return _robust_harmonic(means, ok, design).transpose(1, 0, 2)


def _at_band_below(table: np.ndarray, geo: _ShadingGeometry) -> np.ndarray:
    """``np.take(table, geo.lo)``: each pixel's value of its band below.

    Parameters
    ----------
    table : ndarray, float32, (geo.n_bands,)
        One value per band.
    geo : _ShadingGeometry

    Returns
    -------
    ndarray, float32, (N,)
        A new array: the same elements as ``np.take`` gathers, by one
        ``cv2.LUT`` of the 8-bit band codes (a 256-entry table, the bands
        first), about a third of the time of the intp gather.
    """
    if geo.lo_codes is None:
        return np.take(table, geo.lo)
    padded = np.zeros(256, np.float32)
    padded[:table.size] = table
    return cv2.LUT(geo.lo_codes, padded).reshape(-1)


def _shading_at_plate(residual: np.ndarray, delta_e: np.ndarray, max_delta_e: float, geo: _ShadingGeometry
                      ) -> np.ndarray:
    """:func:`angular_shading` on the plate's bounding box ``geo.box``: float32 (N, 3)."""
    values = residual[geo.box].reshape(-1, 3)
    use = (geo.cell >= 0) & (delta_e[geo.box].ravel() <= max_delta_e)
    keys = np.where(use, geo.cell, geo.n_bands * SHADING_ANGLE_CELLS)  # the left-out pixels' bin past the cells
    design = np.stack([np.ones(SHADING_ANGLE_CELLS), geo.cell_cos, geo.cell_sin], axis=1)
    coef = _cell_fit(keys, values, geo.n_bands, design, geo.cell_px)[..., 1:]
    coef = np.ascontiguousarray(coef.reshape(geo.n_bands, 6), dtype=np.float32)
    # Per pixel, at = coef[lo] + frac * (coef[hi] - coef[lo]) and per channel
    # at_cos * cos + at_sin * sin, the same float32 operations as on (N, 6)
    # rows: ``hi`` is ``lo``'s next band (the last its own), so the difference
    # is taken once per band; each coefficient is handled as a contiguous plane.
    step = (np.take(coef, np.minimum(np.arange(geo.n_bands) + 1, geo.n_bands - 1), axis=0) - coef).T.copy()
    planes = coef.T.copy()
    frac, cos, sin = geo.frac[:, 0], geo.cos[:, 0], geo.sin[:, 0]
    out = np.empty((geo.lo.size, 3), np.float32)
    for c in range(3):
        b = _at_band_below(planes[2 * c], geo)
        b += frac * _at_band_below(step[2 * c], geo)
        s = _at_band_below(planes[2 * c + 1], geo)
        s += frac * _at_band_below(step[2 * c + 1], geo)
        b *= cos
        b += np.multiply(s, sin, out=s)
        out[:, c] = b
    return out


def angular_shading(residual: np.ndarray, delta_e: np.ndarray, max_delta_e: float = SHADING_MAX_DELTA_E,
                    plate_radius_px: float = PLATE_RADIUS_PX) -> np.ndarray:
    """The smooth first-harmonic part of the residual, ring band by ring band.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        The canonical view's ``lab - background`` (0 outside the plate), the
        plate centred in the square canvas.
    delta_e : ndarray, float32, (S, S), Lab units
        Norm of ``residual``.
    max_delta_e : float
        Pixels with ``delta_e`` above this (Lab units) are a token's or an
        object's, not the plate's shading, and are left out of the fit.
    plate_radius_px : float
        Plate radius in canvas pixels.

    Returns
    -------
    ndarray, float32, (S, S, 3), Lab units
        ``b(r) cos(theta) + c(r) sin(theta)`` per channel (``theta`` the
        angle of the pixel around the canvas centre), 0 where no band was
        fitted.

    Raises
    ------
    ValueError
        ``residual`` or ``delta_e`` of the wrong shape.
    """
    residual = np.asarray(residual)
    if residual.ndim != 3 or residual.shape[2] != 3 or residual.shape[0] != residual.shape[1]:
        raise ValueError(f"residual: expected a square (S, S, 3) array, got shape {residual.shape}")
    if np.shape(delta_e) != residual.shape[:2]:
        raise ValueError(f"delta_e: expected shape {residual.shape[:2]}, got {np.shape(delta_e)}")
    if not max_delta_e > 0:
        raise ValueError(f"max_delta_e: expected > 0, got {max_delta_e}")
    if not plate_radius_px > 0:
        raise ValueError(f"plate_radius_px: expected > 0, got {plate_radius_px}")
    s = residual.shape[0]
    geo = _geometry(s, float(plate_radius_px))
    out = np.zeros(residual.shape, np.float32)
    box = out[geo.box]
    box[...] = _shading_at_plate(residual, np.asarray(delta_e), float(max_delta_e), geo).reshape(box.shape)
    return out


def without_shading(view: CanonicalView, max_delta_e: float = SHADING_MAX_DELTA_E) -> CanonicalView:
    """``view`` with :func:`angular_shading` moved from its residual into its
    background (``lab`` and everything else unchanged); ``max_delta_e`` as there."""
    if not isinstance(view, CanonicalView):
        raise TypeError(f"view: expected CanonicalView, got {type(view).__name__}")
    if not max_delta_e > 0:
        raise ValueError(f"max_delta_e: expected > 0, got {max_delta_e}")
    geo = _geometry(view.residual.shape[0], float(view.plate_radius_px))
    shade = _shading_at_plate(view.residual, view.delta_e, float(max_delta_e), geo)
    residual, background, delta_e = view.residual.copy(), view.background.copy(), view.delta_e.copy()
    shade = shade.reshape(residual[geo.box].shape)
    residual[geo.box] -= shade
    background[geo.box] += shade
    r = residual[geo.box]
    # = np.sqrt(np.einsum("ijk,ijk->ij", r, r)): einsum's float32 sum of the
    # three squares is (r0 r0 + r1 r1) + r2 r2 (its SIMD lane sum; tested)
    sq = np.multiply(r[..., 0], r[..., 0])
    sq += np.multiply(r[..., 1], r[..., 1])
    sq += np.multiply(r[..., 2], r[..., 2])
    delta_e[geo.box] = np.sqrt(sq, out=sq)
    return replace(view, residual=residual, background=background, delta_e=delta_e)
