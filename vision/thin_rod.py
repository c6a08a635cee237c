"""One thin rod over a face and over the cloth, told by its lightness once unmixed.

:func:`vision.face_bar.face_bar` asks a bar over a face and over the cloth
(or the rim) to be of one colour, within ``face_bar.MAX_COLOUR_DIFF_LAB``: a
rod is of one colour, and the grain of a wooden table and a face's own marks
are not of each other's.  A rod only a few pixels thick is not seen in its
own colour, though.  Blur mixes it with what lies on either side of it (in
linear light, as a lens does), and a JPEG carries colour at half the
resolution of lightness (4:2:0), so its chroma is mostly that of what it lies
on.  Over a bright pink face and over an orange wooden table the same dark
rod then differs by more than the colour test allows.

Fresh 1470826 (stick 800x600, a dark rod 0.0167 plate radii thick, defocus
blur about 2 px, JPEG 73, from a hand across a wooden table and a black
lacquer rim onto a pink red face, hiding 15 % of it): the line through the
rod is on a bar along all of its part over the face and over the cloth, but
the bar is (40, 43, 26) Lab over the face and (30, 18, 31) over the wood,
28 Lab apart (a* 25 apart: the face's red); the reading was an outcome of
2 red.

What a blurred rod keeps is its share of each pixel: at the bar's middle
the pixel is ``alpha`` of the rod and ``1 - alpha`` of its sides, and the rod's
width and the blur are alike along it.  In linear luminance ``Y`` (chroma is
not trusted), over each part::

    Y_bar = alpha * Y_rod + (1 - alpha) * Y_sides

Two parts, two unknowns: the one ``alpha`` (and rod) that explains both is
``alpha = (d_cloth - d_face) / (Y_face_sides - Y_cloth_sides)``, where
``d = Y_bar - Y_sides``.  The bar is taken as one rod when that ``alpha``
lies in ``[MIN_ROD_SHARE, MAX_ROD_SHARE]`` and the rod's luminance it gives
is a real one (``>= 0``).  For 1470826 ``alpha`` is 0.68 and the rod's
lightness from either part L* 23.  A faint mark over a pale face lined up
with a dark grain line on the cloth gives ``alpha`` near 0 (the face's bar
too weak for a rod that darkens the cloth that much); where the two parts'
sides are of nearly one luminance (``MIN_SIDES_LUMINANCE_GAP``) nothing can
be unmixed and the colour test stands alone.

Two parts always give some ``alpha``, so the rod so found must also show
where the line crosses the plate between the face and the rim
(:func:`_shows_on_plate`): where that rod would differ from the plate by
``PLATE_MIN_PREDICTED_L`` or more, the line there differs from its sides the
same way by at least ``PLATE_MIN_SHOWN_SHARE`` of that.  A token's dark side
wall in line with a dark grain line unmixes to a dark rod too (bench 7005,
white porcelain: about 40 L predicted under the plate between, none there).

A/B of ``THIN_ROD_UNMIX`` on fresh scenes (1,800), no reading changed and 0
wrong outcomes either side: stick 800x600 (1504000-1504399), stick 640x480
on wood (1505000-1505399), four flat 800x600 on wood (1506000-1506399),
natural mix 1280x720 (1507000-1507199), stick 800x600 on wood and black
lacquer (1508000-1508399).  Before the plate part, four flat 800x600 on wood
(1502000-1502399) lost one outcome (1502087) and the bench one (7005).
"""
from __future__ import annotations

import cv2
import numpy as np

#: On/off: True, a bar whose colour differs over the two parts by more than
#: ``face_bar.MAX_COLOUR_DIFF_LAB`` is still one rod when its lightness
#: unmixes to one rod (:func:`one_rod_share`); False: the colour test alone.
THIN_ROD_UNMIX = True
#: The least share of the rod at the bar's middle, 0-1 (dimensionless).  A rod
#: 2 px thick under a defocus blur of sigma 2.2 px (the synthesizer's thinnest
#: and most blurred) keeps about erf(1 / (2 * sqrt(2) * 2.2 / 2)) = 0.35 of its
#: own colour at its middle; 0.4: below that the bar is too weak over one part
#: for the rod that makes the other.  1470826: 0.68.
MIN_ROD_SHARE = 0.4
#: The most, 0-1 and a little over for noise (dimensionless): a bar cannot be
#: more than all rod.
MAX_ROD_SHARE = 1.1
#: The two parts' sides must differ in linear luminance (0-1) by at least
#: this much, else ``alpha`` is not determined (a bar over a face of the
#: cloth's lightness is held to the colour test alone).  1470826: 0.16.
MIN_SIDES_LUMINANCE_GAP = 0.03
#: The rod must show over the plate between the face and the rim too, where
#: it would: the line's part at least this many token radii from the face's
#: centre (off its edge and side wall) ...
PLATE_FACE_CLEAR_RADII = 1.3
#: ... and at most this fraction of the plate radius from the plate's centre
#: (inside the rim band and its highlights) ...
PLATE_PART_MAX_FRAC = 0.85
#: ... when at least this many token radii long (shorter: not asked) ...
PLATE_MIN_LENGTH_RADII = 0.5
#: ... and the rod unmixed would differ from the plate there by at least this
#: much, L* units (less: it need not show; a dark rod on black lacquer) ...
PLATE_MIN_PREDICTED_L = 6.0
#: ... shows there along the line (the median lightness over the part less
#: its sides', as a share of the rod's predicted difference) at least this
#: much.  Bench 7005 (four flat, 960x540, white porcelain by a wooden table):
#: a white face's dark side wall, 20 L under the face, in line with a grain
#: line 6 L under the wood unmixes to a rod of alpha 0.53, L* about 16, that
#: would lie about 40 L under the white plate between; nothing is there.
#: 1470826: the rod over black lacquer, L* about 23 against 10, shows about
#: 8 L lighter, as predicted.
PLATE_MIN_SHOWN_SHARE = 0.5
#: Linear-light luminance weights of B, G, R (Rec. 709).
_LUMA_BGR = np.array([0.0722, 0.7152, 0.2126])


def linear_luminance(lab: np.ndarray) -> np.ndarray:
    """Linear-light luminance (0-1) of CIE Lab colours.

    Parameters
    ----------
    lab : ndarray, float, (..., 3)
        L* (0-100), a*, b* (Lab units, as the reader's canonical view).

    Returns
    -------
    ndarray, float64, (...,)

    Raises
    ------
    ValueError
        ``lab`` not a float array of colours (last axis 3).
    """
    lab = np.asarray(lab)
    if lab.ndim < 1 or lab.shape[-1] != 3 or not np.issubdtype(lab.dtype, np.floating):
        raise ValueError(f"lab: expected float (..., 3) Lab colours, got {lab.dtype} {lab.shape}")
    flat = np.ascontiguousarray(lab.reshape(-1, 1, 3), dtype=np.float32)
    if flat.shape[0] == 0:
        return np.zeros(lab.shape[:-1])
    bgr = np.clip(cv2.cvtColor(flat, cv2.COLOR_Lab2BGR).reshape(-1, 3).astype(np.float64), 0.0, 1.0)
    lin = np.where(bgr <= 0.04045, bgr / 12.92, ((bgr + 0.055) / 1.055) ** 2.4)
    return (lin @ _LUMA_BGR).reshape(lab.shape[:-1])


def one_rod_share(face_bar: np.ndarray, face_sides: np.ndarray, out_bar: np.ndarray,
                  out_sides: np.ndarray) -> float:
    """The rod's share ``alpha`` at a bar's middle that explains its lightness
    over a face and over the cloth (or rim) as one rod (see the module's doc),
    or NaN when no rod in ``[MIN_ROD_SHARE, MAX_ROD_SHARE]`` of a real
    luminance does, or the sides are too alike to tell.

    Parameters
    ----------
    face_bar, face_sides, out_bar, out_sides : array_like, float, (3,)
        Lab colours: the bar's (median over its pixels) and its sides' over
        the face, and the same over the part outside the face.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        A colour not three finite Lab values.
    """
    cols = []
    for name, v in (("face_bar", face_bar), ("face_sides", face_sides), ("out_bar", out_bar),
                    ("out_sides", out_sides)):
        v = np.asarray(v, dtype=np.float64)
        if v.shape != (3,) or not np.isfinite(v).all():
            raise ValueError(f"{name}: expected three finite Lab values, got {v!r}")
        cols.append(v)
    yf, ysf, yo, yso = linear_luminance(np.array(cols, np.float32))
    gap = ysf - yso
    if abs(gap) < MIN_SIDES_LUMINANCE_GAP:
        return float("nan")
    alpha = ((yo - yso) - (yf - ysf)) / gap
    if not (MIN_ROD_SHARE <= alpha <= MAX_ROD_SHARE):
        return float("nan")
    rod = ysf + (yf - ysf) / alpha
    return float(alpha) if rod >= 0.0 else float("nan")


def _side_colour(lab: np.ndarray, xs: np.ndarray, ys: np.ndarray, vx: float, vy: float, side_px: float) -> np.ndarray:
    """The median colour ``side_px`` to either side of the points (xs, ys) across a line of normal (vx, vy)."""
    mx = np.concatenate([xs - side_px * vx, xs + side_px * vx]).astype(np.float32)[None, :]
    my = np.concatenate([ys - side_px * vy, ys + side_px * vy]).astype(np.float32)[None, :]
    got = cv2.remap(lab, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0]
    return np.median(got, axis=0)


def unmixes_to_one_rod(lab: np.ndarray, line: tuple[float, float, float, float],
                       face: tuple[float, float, float], plate_r: float, face_t: np.ndarray, out_t: np.ndarray,
                       sides_px: tuple[float, float], colours: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether a bar found by :func:`vision.face_bar.face_bar` over a face
    and outside it is one thin rod by its lightness (``THIN_ROD_UNMIX``;
    :func:`one_rod_share`), which shows over the plate between the two as
    that rod would (:func:`_shows_on_plate`).

    Parameters
    ----------
    lab : ndarray, float32, (H, W, 3)
        The canonical view's colours (CIE Lab), the plate's centre at the
        canvas's centre.
    line : (float, float, float, float)
        The line's point nearest the face's centre and its unit direction
        outwards (x, y, ux, uy), canvas pixels.
    face : (float, float, float)
        The face's centre and the token radius, canvas pixels.
    plate_r : float
        The plate's radius, canvas pixels.
    face_t, out_t : ndarray, float, (n,)
        Where along the line (pixels from its point) the bar's pixels lie
        over the face and outside it.
    sides_px : (float, float)
        How far to either side each part's bar was measured against, canvas
        pixels (over the face, outside it).
    colours : (ndarray, ndarray)
        The bar's median Lab colour over each part.

    Returns
    -------
    bool
        False when ``THIN_ROD_UNMIX`` is off or either part has no pixel.
    """
    if not THIN_ROD_UNMIX or np.size(face_t) == 0 or np.size(out_t) == 0:
        return False
    x0, y0, ux, uy = line
    normal = (-uy, ux)
    face_sides = _side_colour(lab, x0 + face_t * ux, y0 + face_t * uy, *normal, sides_px[0])
    out_sides = _side_colour(lab, x0 + out_t * ux, y0 + out_t * uy, *normal, sides_px[1])
    alpha = one_rod_share(colours[0], face_sides, colours[1], out_sides)
    if np.isnan(alpha):
        return False
    y_bar, y_sides = linear_luminance(np.array([colours[0], face_sides], np.float32))
    rod_y = y_sides + (y_bar - y_sides) / alpha
    return _shows_on_plate(lab, line, face, plate_r, sides_px[1], float(alpha), float(rod_y))


def _shows_on_plate(lab: np.ndarray, line: tuple[float, float, float, float], face: tuple[float, float, float],
                    plate_r: float, side_px: float, alpha: float, rod_y: float) -> bool:
    """Whether the line over the plate between the face and the rim shows the
    rod ``alpha``, ``rod_y`` would make there: where that rod would differ
    from the plate by ``PLATE_MIN_PREDICTED_L`` or more, the line's median
    lightness differs from its sides' the same way by at least
    ``PLATE_MIN_SHOWN_SHARE`` of it.  True where the plate part is shorter
    than ``PLATE_MIN_LENGTH_RADII`` token radii or the rod would hardly show."""
    x0, y0, ux, uy = line
    fx, fy, token_r = face
    c = lab.shape[0] / 2.0 - 0.5
    t = np.arange(0.0, 2.0 * plate_r, 1.0)
    xs, ys = x0 + t * ux, y0 + t * uy
    part = ((np.hypot(xs - fx, ys - fy) >= PLATE_FACE_CLEAR_RADII * token_r)
            & (np.hypot(xs - c, ys - c) <= PLATE_PART_MAX_FRAC * plate_r))
    if np.count_nonzero(part) < PLATE_MIN_LENGTH_RADII * token_r:
        return True
    xs, ys = xs[part], ys[part]
    bar = np.median(cv2.remap(lab, xs.astype(np.float32)[None, :], ys.astype(np.float32)[None, :],
                              interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0], axis=0)
    sides = _side_colour(lab, xs, ys, -uy, ux, side_px)
    side_y = float(linear_luminance(np.asarray(sides, np.float32)))
    predicted = _l_star(alpha * rod_y + (1.0 - alpha) * side_y) - float(sides[0])
    if abs(predicted) < PLATE_MIN_PREDICTED_L:
        return True
    return (float(bar[0]) - float(sides[0])) / predicted >= PLATE_MIN_SHOWN_SHARE


def _l_star(y: float) -> float:
    """CIE L* of a linear luminance (0-1)."""
    y = max(float(y), 0.0)
    return 116.0 * y ** (1.0 / 3.0) - 16.0 if y > 0.008856 else 903.3 * y
