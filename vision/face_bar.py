"""A straight bar that runs from a face out past the plate's outline: a stick over the face.

A dealer's stick is a thin straight rod held from outside the plate.  Where it
lies over a face, one straight line carries it over the face (where it differs
from the face on both sides of it) and, further along, over the cloth beyond
the plate's outline (where it differs from the cloth on both sides).  Between
the two it may hardly show: a dark rod on a black glaze, or crossing the rim's
bands, where :func:`vision.rim.rim_crossings` must keep a floor above the
rim's own texture.  Nothing of a valid round lies like that: a face is a disc
of one colour, and the cloth carries no straight bar that lines up with a
face's chord.

:func:`face_bar` walks straight lines through a face (every
``ANGLE_STEP_DEG``, at offsets from its centre up to ``MAX_OFFSET_RADII``)
whose part over the cloth band ``OUTSIDE_BAND_FRAC`` lies on
:func:`cloth_bars` (pixels that differ from both of their sides, as a bar
narrower than ``MAX_WIDTH_PX`` does, in regions that cross the band).  A line
carries a bar when its colour differs from the colour ``SIDE_OFFSETS_PX`` to
either side, the same way, along ``MIN_SHARE`` of it both over the face and
over the cloth band, and the bar is one thing: its colour over the face and
over the cloth within ``MAX_COLOUR_DIFF_LAB`` (a rod is of one colour; the
grain of a wooden table and a face's own marks are not of each other's).

Fresh scene 1237331 (stick 640x480, a dark-brown rod over a red face on a
black lacquer plate, the rod across the rim at 0.66 of the rim band's floor
and 0.79 of the cloth band's): all four faces found faintly, so the notch rule
of blob faces did not judge them, and the scene was read as an outcome.  The
rule stops two older scenes too, had their own rules not (131641 640x480 and
22234 1920x1080, thin rods over a face: tests/test_rim_crossings.py).  A/B of
``reader.FACE_BAR_UNCERTAIN`` on fresh scenes, 400 each, no verdict changed:
stick 640x480 (1251000-1251399) and 1024x768 (1252000-1252399), natural mix
1280x720 (1253000-1253399), four flat 640x480 (1254000-1254399).  Known gap:
a rod thin enough for blur to mix it with what it lies on takes that colour
(fresh 1255046: a dark rod over a white face, motion blur, 37 Lab apart over
the face and the wood), and the one-colour test then keeps it out.  Fresh 1361861 (stick 800x600, a dark
rod blurred to about 11 px over a wooden table, along its grain, across a
black lacquer rim onto a white face): the rule missed it over the cloth band,
where the rod was wider than the bar's square and its sides nearer than the
wood around it (``MAX_WIDTH_PX``, ``SIDE_OFFSETS_PX``).

Where the cloth band shows no bar, the rim band may stand for it
(:func:`rim_face_bar`): a rod from outside the plate crosses the rim too.
Fresh 1388241 (stick 800x600, a dark rod from a brown hand on brown wood,
across a black lacquer rim onto a white face): the hand lay over the cloth
band, so :func:`cloth_bars` found nothing; across the rim the rod measured
0.95 of :func:`vision.rim.rim_crossings`' floor.  The rule looks only where
:func:`vision.rim.rim_streaks` sees a streak across the rim band at half
that floor, only at faces clear of the band (``RIM_FACE_CLEAR_RADII``), and
over the face along its outer part (``RIM_FACE_PART_RADII``: that rod ended
short of the line's point nearest the face's centre).

The cloth rule measures the face part both ways (``FACE_PARTS_RADII``): from
the line's point nearest the face's centre, and over the outer
``FACE_OUTER_PART_RADII`` alone, the larger share counting.  Fresh 1461030
(stick 1280x720, a rod on black lacquer over a face, ending short of the
nearest point): the plate search's intrusion rule stops it, but with that and
the rim rules off the nearest-point part alone read an outcome.  Lines tied
on their cloth part are never cut by their angle order, and about every line
is measured (``CHECKED_LINES``; on a wooden table hundreds lie on the grain
along all of their cloth part, fresh 1463229): each over the face first,
then over the cloth only where its face part can carry the bar.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from . import thin_rod as _thin_rod
from .canonical import _radius_grid
from .rim import RIM_BAND_FRAC

#: Lines through the face, one every this many degrees ...
ANGLE_STEP_DEG = 2.0
#: ... at offsets from the face's centre every this many canonical pixels ...
OFFSET_STEP_PX = 1.0
#: ... up to this many token radii: a stick over the face's chord nearer its
#: edge hides a sliver only (the synthesizer's sticks end within 0.6 radii).
MAX_OFFSET_RADII = 0.75
#: A bar is narrower than this, canonical pixels (the side of the square of
#: :func:`cloth_bars`' closing and opening; the canonical plate is 128 px in
#: radius, so a stick 0.03-0.06 plate radii thick is 4-8 px wide, and blur
#: widens it).  Was 9: fresh scene 1361861 (stick 800x600, a dark rod 0.035
#: plate radii thick, motion blur 7.5 px) lies over the wood about 11 px wide
#: from shoulder to shoulder, its middle 7-10 L* under the wood beside it; a
#: 9 px square closed over it only in part (the bar's pixels 62 % of the line
#: over the cloth band, under ``MIN_SHARE``), an 11 px one all of it.  A
#: wood's dark grain lines (the synthesizer's about 6 px wide, one every 15 px)
#: are bars under either square: the face part keeps them out (no grain over
#: a face), not the width.
MAX_WIDTH_PX = 11
#: A pixel is on a bar when it differs from both of its sides by at least
#: this much, Lab units.
MIN_RIDGE_LAB = 6.0
#: Over the face, the line is measured from its nearest point to the face's
#: centre to this many token radii short of the face's edge (the face's own
#: edge is a step, not a bar).
FACE_EDGE_INSET_RADII = 0.25
#: ... and must be at least this long there, token radii (a chord near the
#: face's edge is too short to tell a bar from the face's own marks).
MIN_FACE_LENGTH_RADII = 0.4
#: Over the cloth, the line is measured between these radii, fractions of the
#: plate radius (outside the plate's outline and its shadow).
OUTSIDE_BAND_FRAC = (1.05, 1.25)
#: ... and along the line at most this far from where it enters the band,
#: fraction of the plate radius (a line crossing the band slantwise).
MAX_OUTSIDE_LENGTH_FRAC = 0.3
#: The cloth part must be at least this long (fraction of the plate radius)
#: inside the canvas and the source frame, else the line is not judged; and a
#: region of :func:`cloth_bars` must reach across this much in radius.
MIN_OUTSIDE_LENGTH_FRAC = 0.1
#: A bar: its pixels make this share of the line, both over the face and over
#: the cloth ...
MIN_SHARE = 0.7
#: ... and its colour (the median over each part's bar pixels) differs between
#: the two by at most this much, Lab units.
MAX_COLOUR_DIFF_LAB = 25.0
#: ... or, as an alternative to that part, along only its last this many
#: token radii before the edge's inset (the larger share of the two counts):
#: a rod may end short of the line's nearest point to the face's centre.  A
#: rod 0.45 radii off the centre that ends 0.3 radii past that point fills
#: 0.67 of the part from there (under ``MIN_SHARE``), all of its outer 0.5
#: radii (as the rim variant's ``RIM_FACE_PART_RADII``, fresh 1388241).
FACE_OUTER_PART_RADII = 0.5
#: The face parts a line is measured along (None: from the line's nearest
#: point to the face's centre; a number: its outer part of that many radii).
FACE_PARTS_RADII = (None, FACE_OUTER_PART_RADII)
#: The lines whose cloth part is most on :func:`cloth_bars` are measured across
#: (both parts, ``SIDE_OFFSETS_PX``), at least this many: lines tied with the
#: last one taken are all taken too (the cut never falls inside a tie, where
#: the order is only the angles').  4096 is about every line through a face
#: (180 angles by 23 offsets at a token radius of 15 canonical px).  Was 256:
#: on a wooden table hundreds of lines lie on the grain along all of their
#: cloth part and ranked above the rod's (fresh 1463229, stick 800x600, wood
#: and black lacquer: the rod's line 0.93 on the cloth; with the other stick
#: rules off read an outcome of 2 red).  Each line is measured over the face
#: first, the cheaper part, and over the cloth only if its face part can carry
#: the bar: on wood about +0.7 ms a frame over 256 (CPU, 800x600, up to +16 ms
#: on 1463229).
CHECKED_LINES = 4096
#: Across a line, its colour is compared with the colour this far to either
#: side, canonical pixels (half a stick's width and more).  7 px: half the
#: widest bar (``MAX_WIDTH_PX``) and more.  Fresh 1361861 (above): over the
#: cloth band the blurred rod differs from the wood 3 px off by 2.5-3.1 Lab
#: and 5 px off by 4.5-6 (6 or more, ``MIN_RIDGE_LAB``, along 12 % of the
#: line), 7 px off by 6.3 or more along all of it; over the white face by 7.7
#: or more at every offset.
SIDE_OFFSETS_PX = (3.0, 5.0, 7.0)
#: ... but over the face at most this far, canonical pixels: a face is 16-18
#: px in radius and a line is measured up to ``MAX_OFFSET_RADII`` off its
#: centre, so a side farther out lies on the face's edge or the plate beyond,
#: and a face's own rim (a ring of another shade) passes for a bar there (fresh
#: four flat 1382350, 800x600, a dark red face on pale blue by a wooden table:
#: 7 px off, the line 0.38 radii off the centre differs from the face's middle
#: and the plate by 6-35 Lab along 73 % of it, an outcome lost).  Over the face
#: the rod of 1361861 differs from the face 5 px off by 11 Lab or more.
FACE_MAX_SIDE_PX = 5.0
#: Both sides differ from the line the same way: cosine at least this.
MIN_SIDES_COSINE = 0.5


#: Where the cloth band shows no bar (a hand over it, of the cloth's colour),
#: the rim band (``vision.rim.RIM_BAND_FRAC``, 0.88-0.97 of the plate radius)
#: stands for it (:func:`rim_face_bar`): a rod from outside crosses it.  There
#: the line's rim part must be at least this long, fraction of the plate
#: radius (most of the band's 0.09 width: the line crosses the whole band) ...
RIM_MIN_LENGTH_FRAC = 0.07
#: ... and is measured at most this far from where it enters the band (a line
#: more slanted than about 27 deg from the rim's tangent runs along the rim's
#: own concentric bands).
RIM_MAX_LENGTH_FRAC = 0.2
#: Over the face, the line is measured along only its last this many token
#: radii before ``FACE_EDGE_INSET_RADII`` short of the face's edge: the rod's
#: end may lie short of the line's point nearest the face's centre (fresh
#: 1388241: a rod 0.45 radii off the centre of a white face ends about 0.3
#: radii past that point; over the chord from that point the bar fills 0.67
#: of it, over its last 0.5 radii all of it).
RIM_FACE_PART_RADII = 0.5
#: Only faces whose centre lies at least this many token radii inside the rim
#: band are judged: a face against the well's wall reaches into the band, and
#: its own edge and shadow would lie on the line's rim part.
RIM_FACE_CLEAR_RADII = 1.5
#: Lines through a face whose rim part lies on :func:`vision.rim.rim_streaks`
#: are all measured across, up to this many (``CHECKED_LINES`` is for the cloth
#: band, where the lines are ranked by their share of bar pixels; on a streak
#: most lines tie at all of it, and a cap of 256 taken in angle order, before
#: ties were kept whole, dropped 1388241's rod once the streaks were widened
#: at a third of the floor).
RIM_CHECKED_LINES = 4096


@dataclass(frozen=True)
class BarFind:
    """The best line through a face (:func:`face_bar`).

    Attributes
    ----------
    share : float
        The lesser of the two shares (over the face, over the cloth) of the
        line's points on a bar, 0-1.
    angle_deg : float
        The line's direction from the face outwards, degrees (canvas axes).
    offset_radii : float
        Its distance from the face's centre, token radii (signed).
    colour_diff_lab : float
        The bar's colour over the face less its colour over the cloth, Lab
        units (inf for no line).
    """

    share: float
    angle_deg: float
    offset_radii: float
    colour_diff_lab: float


NO_BAR = BarFind(share=0.0, angle_deg=0.0, offset_radii=0.0, colour_diff_lab=math.inf)


def _check_lab(lab: np.ndarray) -> np.ndarray:
    lab = np.asarray(lab)
    if lab.ndim != 3 or lab.shape[2] != 3 or min(lab.shape[:2]) < 1:
        raise ValueError(f"lab: expected an (H, W, 3) array, got shape {lab.shape}")
    if not np.issubdtype(lab.dtype, np.floating):
        raise ValueError(f"lab: expected Lab units as floats, got {lab.dtype}")
    return np.ascontiguousarray(lab, dtype=np.float32)


def _finite(v: object) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(v)


def _ridge(lab: np.ndarray, xs: np.ndarray, ys: np.ndarray, vx: np.ndarray, vy: np.ndarray,
           side_px: float) -> tuple[np.ndarray, np.ndarray]:
    """At each point (xs, ys: lines by points) whether it differs from the
    colour ``side_px`` to either side of its line ((vx, vy) per line) by
    ``MIN_RIDGE_LAB`` or more, both the same way (``MIN_SIDES_COSINE``):
    bool, the points' shape; and the points' colours, float32 (..., 3)."""
    n = xs.shape[0]
    mx = np.concatenate([xs, xs - side_px * vx[:, None], xs + side_px * vx[:, None]]).astype(np.float32)
    my = np.concatenate([ys, ys - side_px * vy[:, None], ys + side_px * vy[:, None]]).astype(np.float32)
    got = cv2.remap(lab, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mid, da, db = got[:n], got[:n] - got[n:2 * n], got[:n] - got[2 * n:]
    na2 = np.einsum("ijk,ijk->ij", da, da)
    nb2 = np.einsum("ijk,ijk->ij", db, db)
    dot = np.einsum("ijk,ijk->ij", da, db)
    floor2 = MIN_RIDGE_LAB ** 2
    on = (na2 >= floor2) & (nb2 >= floor2) & (dot >= MIN_SIDES_COSINE * np.sqrt(na2 * nb2))
    return on, mid


def cloth_bars(lab: np.ndarray, plate_r: float, inside: np.ndarray | None = None) -> np.ndarray:
    """The pixels of the cloth band ``OUTSIDE_BAND_FRAC`` on a bar that crosses it.

    A bar is what a morphological closing (a darker bar, per Lab channel) or
    opening (a lighter one) with a square ``MAX_WIDTH_PX`` across takes away
    by ``MIN_RIDGE_LAB`` or more (the norm over the channels of each channel's
    larger of the two): it differs from the pixels on both of its sides, in
    any direction.  Of these, only the connected regions that reach across
    ``MIN_OUTSIDE_LENGTH_FRAC`` of the plate radius in radius are kept, as a
    stick from outside the plate does; the cloth's specks and its weave go.

    Parameters
    ----------
    lab : ndarray, float, (H, W, 3)
        The canonical view's colours, CIE Lab, the plate's centre at the
        canvas's centre.
    plate_r : float
        The plate's radius, canvas pixels (> 0).
    inside : ndarray, bool, (H, W), or None
        Canvas pixels that show the source frame (outside it the canvas
        repeats the frame's border, which draws straight streaks); None: all.

    Returns
    -------
    ndarray, bool, (H, W)

    Raises
    ------
    ValueError
        ``lab`` not a square (S, S, 3) float array, ``plate_r`` not finite and
        > 0, ``inside`` not of the canvas's shape.
    """
    lab = _check_lab(lab)
    if not (_finite(plate_r) and plate_r > 0):
        raise ValueError(f"plate_r: expected a finite value > 0, got {plate_r!r}")
    h, w = lab.shape[:2]
    if h != w:
        raise ValueError(f"lab: expected a square canvas (a canonical view's), got shape {lab.shape}")
    if inside is not None and np.shape(inside) != (h, w):
        raise ValueError(f"inside: expected shape {(h, w)}, got {np.shape(inside)}")
    rad = _radius_grid(h)
    band = (rad >= OUTSIDE_BAND_FRAC[0] * plate_r) & (rad <= OUTSIDE_BAND_FRAC[1] * plate_r)
    if inside is not None:
        band &= np.asarray(inside, bool)
    if not band.any():
        return band
    # on 8 bits (L* x 2.55, a* and b* + 128: steps of 0.4 and 1 Lab unit), where
    # the closing and opening run several times faster than on floats
    q = np.clip(cv2.add(cv2.multiply(lab, (2.55, 1.0, 1.0, 0.0)), (0.5, 128.5, 128.5, 0.0)), 0, 255).astype(np.uint8)
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (MAX_WIDTH_PX, MAX_WIDTH_PX))
    d = cv2.max(cv2.morphologyEx(q, cv2.MORPH_TOPHAT, square, borderType=cv2.BORDER_REPLICATE),
                cv2.morphologyEx(q, cv2.MORPH_BLACKHAT, square, borderType=cv2.BORDER_REPLICATE))
    dl, da, db = (c.astype(np.float32) for c in cv2.split(d))
    on = (dl * dl / 2.55 ** 2 + da * da + db * db) >= MIN_RIDGE_LAB ** 2
    on &= band
    n, labels = cv2.connectedComponents(on.astype(np.uint8), connectivity=8)
    if n <= 1:
        return on
    idx, r = labels[on], rad[on]
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, idx, r)
    np.maximum.at(hi, idx, r)
    keep = (hi - lo) >= MIN_OUTSIDE_LENGTH_FRAC * plate_r
    keep[0] = False
    return keep[labels]


def face_bar(lab: np.ndarray, cloth: np.ndarray, x: float, y: float, token_r: float, plate_r: float, *,
             band_frac: tuple[float, float] = OUTSIDE_BAND_FRAC, min_length_frac: float = MIN_OUTSIDE_LENGTH_FRAC,
             max_length_frac: float = MAX_OUTSIDE_LENGTH_FRAC,
             face_parts_radii: tuple[float | None, ...] | None = None,
             checked_lines: int | None = None) -> BarFind:
    """The straight line through a face that best carries one bar both over
    the face and over the cloth beyond the plate (see the module's doc).

    Parameters
    ----------
    lab : ndarray, float, (H, W, 3)
        The canonical view's colours (CIE Lab), the plate's centre at the
        canvas's centre.
    cloth : ndarray, bool, (H, W)
        :func:`cloth_bars` of ``lab``: only lines whose cloth part lies on
        these pixels (``MIN_SHARE`` of it) are measured across.
    x, y : float
        The face's centre, canvas pixels.
    token_r : float
        The frame's token radius, canvas pixels (> 0).
    plate_r : float
        The plate's radius, canvas pixels (> 0).
    band_frac : (float, float)
        The band standing outside the face (inner, outer radius, fractions of
        the plate radius): ``OUTSIDE_BAND_FRAC``, the cloth's.
    min_length_frac, max_length_frac : float
        The line's least length in that band (shorter: not judged) and the
        most of it measured, fractions of the plate radius.
    face_parts_radii : tuple of (float or None), or None
        The parts over the face a line may fill, the largest share counting:
        a number, the line's last this many token radii before the edge's
        inset; None, from its point nearest the centre.  None:
        ``FACE_PARTS_RADII`` (read at the call).
    checked_lines : int or None
        At least this many lines (those most on ``cloth``; all lines tied with
        the last one taken too) are measured across.  None:
        ``CHECKED_LINES`` (read at the call).

    Returns
    -------
    BarFind
        The line of the largest share (``MIN_SHARE`` or more) whose bar is
        of one colour over the face and over the cloth
        (``MAX_COLOUR_DIFF_LAB``); ``NO_BAR`` when there is none.

    Raises
    ------
    ValueError
        ``lab`` not an (H, W, 3) float array, ``cloth`` not a bool array of
        its (H, W), a radius not finite and > 0, a centre not finite, no face
        part or one neither None nor finite and > 0.
    """
    lab = _check_lab(lab)
    h, w = lab.shape[:2]
    cloth = np.asarray(cloth)
    if cloth.shape != (h, w) or cloth.dtype != bool:
        raise ValueError(f"cloth: expected bool {(h, w)} from cloth_bars(lab, ...), got {cloth.dtype} {cloth.shape}")
    for name, v in (("token_r", token_r), ("plate_r", plate_r)):
        if not (_finite(v) and v > 0):
            raise ValueError(f"{name}: expected a finite value > 0, got {v!r}")
    if not (_finite(x) and _finite(y)):
        raise ValueError(f"x, y: expected finite values, got {x!r}, {y!r}")
    if face_parts_radii is None:
        face_parts_radii = FACE_PARTS_RADII
    if checked_lines is None:
        checked_lines = CHECKED_LINES
    parts = tuple(face_parts_radii) if isinstance(face_parts_radii, (tuple, list)) else ()
    if not parts or not all(v is None or (_finite(v) and v > 0) for v in parts):
        raise ValueError(f"face_parts_radii: expected a non-empty tuple of None or finite values > 0, "
                         f"got {face_parts_radii!r}")
    cx, cy = w / 2.0 - 0.5, h / 2.0 - 0.5
    bys, bxs = np.nonzero(cloth)
    if bxs.size == 0:
        return NO_BAR
    # only directions that reach a bar pixel from within MAX_OFFSET_RADII of the centre
    n_ang = int(round(360.0 / ANGLE_STEP_DEG))
    step = 2.0 * math.pi / n_ang
    dist = np.maximum(np.hypot(bxs - x, bys - y), 1e-6)
    toward = np.arctan2(bys - y, bxs - x)
    spread = np.arcsin(np.minimum(1.0, MAX_OFFSET_RADII * token_r / dist)) + step
    hit = np.bincount(np.rint(toward / step).astype(np.intp) % n_ang, minlength=n_ang) > 0
    reach_bins = int(math.ceil(float(spread.max()) / step))
    hit = cv2.dilate(np.concatenate([hit[-reach_bins:], hit, hit[:reach_bins]]).astype(np.uint8)[None, :],
                     np.ones((1, 2 * reach_bins + 1), np.uint8))[0, reach_bins:reach_bins + n_ang] > 0
    phi = np.flatnonzero(hit) * step
    if phi.size == 0:
        return NO_BAR
    offs = np.arange(-MAX_OFFSET_RADII * token_r, MAX_OFFSET_RADII * token_r + 1e-6, OFFSET_STEP_PX)
    pp, dd = (a.ravel() for a in np.meshgrid(phi, offs, indexing="ij"))
    ux, uy = np.cos(pp), np.sin(pp)
    vx, vy = -uy, ux
    px, py = x + dd * vx, y + dd * vy  # each line's point nearest the face's centre
    # the cloth part: where the line (outwards) is between the band's radii
    qx, qy = px - cx, py - cy
    b = qx * ux + qy * uy
    q2 = qx * qx + qy * qy

    def reach(frac: float) -> np.ndarray:
        return -b + np.sqrt(np.maximum(b * b - (q2 - (frac * plate_r) ** 2), 0.0))

    s0 = reach(band_frac[0])
    s1 = np.minimum(reach(band_frac[1]), s0 + max_length_frac * plate_r)
    steps = np.arange(int(math.ceil(float((s1 - s0).max()))) + 1, dtype=np.float64)
    s = s0[:, None] + steps[None, :]
    ix = np.rint(px[:, None] + s * ux[:, None]).astype(np.intp)
    iy = np.rint(py[:, None] + s * uy[:, None]).astype(np.intp)
    valid = (s <= s1[:, None]) & (ix >= 0) & (iy >= 0) & (ix <= w - 1) & (iy <= h - 1)
    ix, iy = np.clip(ix, 0, w - 1), np.clip(iy, 0, h - 1)
    n_out = np.count_nonzero(valid, axis=1)
    # the face parts: from the nearest point to the centre (or over the outer
    # part only) to short of the edge
    chord = np.sqrt(np.maximum(token_r ** 2 - dd * dd, 0.0)) - FACE_EDGE_INSET_RADII * token_r
    fsteps = np.arange(0.0, token_r, 1.0)
    whole = fsteps[None, :] <= chord[:, None]
    fparts = [whole if v is None else whole & (fsteps[None, :] >= chord[:, None] - v * token_r) for v in parts]
    n_faces = [np.count_nonzero(f, axis=1) for f in fparts]
    long_enough = [n >= MIN_FACE_LENGTH_RADII * token_r for n in n_faces]
    judged = (n_out >= min_length_frac * plate_r) & np.logical_or.reduce(long_enough)
    if not judged.any():
        return NO_BAR
    # the cloth part first, on the bars found there (few lines pass)
    out_share = np.count_nonzero(cloth[iy, ix] & valid, axis=1) / np.maximum(n_out, 1)
    cands = np.flatnonzero(judged & (out_share >= MIN_SHARE))
    if cands.size == 0:
        return NO_BAR
    cands = cands[np.argsort(-out_share[cands], kind="stable")]
    if cands.size > checked_lines:  # never cut inside a tie
        cands = cands[out_share[cands] >= out_share[cands[checked_lines - 1]]]
    best = NO_BAR
    face_at = {}
    for side in SIDE_OFFSETS_PX:
        # the bar measured across each line: over the face first (its sides at
        # most ``FACE_MAX_SIDE_PX`` off), then over the cloth for the lines
        # whose face part may carry it, its sides ``side`` px off
        face_side = min(side, FACE_MAX_SIDE_PX)
        if face_side not in face_at:
            f_on, f_mid = _ridge(lab, px[cands, None] + fsteps[None, :] * ux[cands, None],
                                 py[cands, None] + fsteps[None, :] * uy[cands, None], vx[cands], vy[cands],
                                 face_side)
            f_share = np.zeros(cands.size)
            f_part = np.zeros((cands.size, fsteps.size), bool)
            for fpart, n_face, ok in zip(fparts, n_faces, long_enough, strict=True):
                share = np.where(ok[cands], np.count_nonzero(f_on & fpart[cands], axis=1)
                                 / np.maximum(n_face[cands], 1), 0.0)
                more = share > f_share
                f_share[more] = share[more]
                f_part[more] = fpart[cands[more]]
            face_at[face_side] = (f_on & f_part, f_mid, f_share)
        f_on, f_mid, f_share = face_at[face_side]
        sub = np.flatnonzero((f_share >= MIN_SHARE) & (f_share > best.share))
        if sub.size == 0:
            continue
        lines = cands[sub]
        o_on, o_mid = _ridge(lab, px[lines, None] + s[lines] * ux[lines, None],
                             py[lines, None] + s[lines] * uy[lines, None], vx[lines], vy[lines], side)
        o_on &= valid[lines]
        both = np.minimum(np.count_nonzero(o_on, axis=1) / np.maximum(n_out[lines], 1), f_share[sub])
        for j in np.argsort(-both, kind="stable"):
            if both[j] < MIN_SHARE or both[j] <= best.share:
                break
            k = sub[j]
            i = lines[j]
            f_col, o_col = np.median(f_mid[k][f_on[k]], axis=0), np.median(o_mid[j][o_on[j]], axis=0)
            diff = float(np.linalg.norm(f_col - o_col))
            # a thin rod takes the chroma of what it lies on: its lightness, unmixed, may still be one rod's
            if diff <= MAX_COLOUR_DIFF_LAB or _thin_rod.unmixes_to_one_rod(
                    lab, (px[i], py[i], ux[i], uy[i]), (x, y, token_r), plate_r, fsteps[f_on[k]], s[i][o_on[j]],
                    (face_side, side), (f_col, o_col)):
                best = BarFind(share=float(both[j]), angle_deg=float(math.degrees(pp[i])),
                               offset_radii=float(dd[i] / token_r), colour_diff_lab=diff)
                break
    return best


def rim_face_bar(lab: np.ndarray, streaks: np.ndarray, x: float, y: float, token_r: float,
                 plate_r: float) -> BarFind:
    """:func:`face_bar` with the rim band standing for the cloth band: the
    straight line through a face that carries one bar over the face's outer
    ``RIM_FACE_PART_RADII`` and across the rim band, of one colour.

    For a stick whose cloth part is hidden (a hand of the cloth's colour over
    the cloth band, so :func:`cloth_bars` finds nothing there): fresh 1388241
    (stick 800x600, a dark rod from a brown hand on wood across a black
    lacquer rim onto a white face; the rim crossing at 0.95 of
    :func:`vision.rim.rim_crossings`' floor).

    Parameters
    ----------
    lab : ndarray, float, (H, W, 3)
        The canonical view's colours (CIE Lab), the plate's centre at the
        canvas's centre.
    streaks : ndarray, bool, (H, W)
        :func:`vision.rim.rim_streaks` of the view: only lines whose rim part
        lies on these pixels (``MIN_SHARE`` of it) are measured across.
    x, y : float
        The face's centre, canvas pixels.
    token_r, plate_r : float
        The frame's token radius and the plate's, canvas pixels (> 0).

    Returns
    -------
    BarFind
        As :func:`face_bar`; ``NO_BAR`` for a face less than
        ``RIM_FACE_CLEAR_RADII`` inside the rim band.

    Raises
    ------
    ValueError
        As :func:`face_bar`.
    """
    lab = _check_lab(lab)
    for name, v in (("token_r", token_r), ("plate_r", plate_r)):
        if not (_finite(v) and v > 0):
            raise ValueError(f"{name}: expected a finite value > 0, got {v!r}")
    if not (_finite(x) and _finite(y)):
        raise ValueError(f"x, y: expected finite values, got {x!r}, {y!r}")
    h, w = lab.shape[:2]
    if math.hypot(x - (w / 2.0 - 0.5), y - (h / 2.0 - 0.5)) > RIM_BAND_FRAC[0] * plate_r - RIM_FACE_CLEAR_RADII * token_r:
        return NO_BAR
    return face_bar(lab, streaks, x, y, token_r, plate_r, band_frac=RIM_BAND_FRAC,
                    min_length_frac=RIM_MIN_LENGTH_FRAC, max_length_frac=RIM_MAX_LENGTH_FRAC,
                    face_parts_radii=(RIM_FACE_PART_RADII,), checked_lines=RIM_CHECKED_LINES)
