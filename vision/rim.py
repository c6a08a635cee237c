"""Things that cross the plate's rim: a stick, a hand, a token lying on the rim.

Nothing that takes part in a valid result crosses the rim: tokens lie in the
well, the cloth lies outside.  A dealer's stick is a thin rod reaching from
outside the frame over the rim to a token; on a dark cloth, or where the plate
sits near the frame's edge, so little of it shows on the cloth that
:func:`vision.reader.plate_intrusions` (which looks for things on the cloth at
the plate search's coarse scale) cannot see it.  On the rim it is plain: a
narrow band across the whole rim, of a colour the rim does not have at that
angle.  A black stick on a black rim shows on the cloth just outside it
instead, so that band is searched too.

:func:`rim_crossings` samples the canonical view on a polar grid over each
band, takes out what varies slowly around the plate (the rim's own glaze,
gloss and lighting, the cloth's weave, and a plate outline fitted a pixel
off), and looks for angles where what is left is strong at every radius of
the band; or, where neither band shows one, at angles close together in both
bands at a share of their floors (a rod too thin or blurred for either band
alone: fresh scene 131641, 7.0 Lab across the rim against a floor of 8.4, 9.5
on the wood cloth against 13.1).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from .canonical import CanonicalView

#: The bands searched, fractions of the plate radius (inner, outer): the rim
#: (the well's edge lies inside it, the plate's outline outside it), and the
#: cloth just outside the plate (a black stick on a black rim shows there).
RIM_BAND_FRAC = (0.88, 0.97)
CLOTH_BAND_FRAC = (1.03, 1.13)
BANDS_FRAC = {"rim": RIM_BAND_FRAC, "cloth": CLOTH_BAND_FRAC}
#: Angular samples around the plate.
RIM_ANGLE_SAMPLES = 720
#: What varies around the plate more slowly than this (half-window, in face
#: radii of arc along the rim) is the rim itself, not something on it.
RIM_HIGHPASS_HALF_RADII = 1.5
#: A rod may cross the band slanted: each radius's difference is widened by
#: this many angular samples either side before the band's minimum is taken.
RIM_SLANT_SAMPLES = 3
#: A crossing differs from the rim around it by at least this much (Lab
#: units) at every radius of the band ...
RIM_CROSSING_MIN_DELTA_E = 8.0
#: ... and by this many times the band's typical (median) difference: the
#: rim's own texture and the frame's noise.
RIM_CROSSING_NOISE_UNITS = 6.0
#: A thin rod may stay under the floor in each band alone: where both bands
#: reach this share of their floors at angles this close (the rod is straight
#: and crosses the two bands next to each other), it crosses (``band`` "both").
JOINT_FLOOR_SHARE = 0.7
JOINT_MAX_ANGLE_DEG = 12.0


@dataclass(frozen=True)
class RimCrossing:
    """Something across the rim band at one angle.

    Attributes
    ----------
    x, y : float
        Where it crosses the middle of the band, canonical pixels.
    strength : float
        Its smallest difference from the rim across the band, Lab units.
    width_px : float
        Its width along the rim, canonical pixels.
    band : str
        Where it was found: ``"rim"`` (``RIM_BAND_FRAC``), ``"cloth"``
        (``CLOTH_BAND_FRAC``), or ``"both"``: in the two at once, each under
        its own floor (``JOINT_FLOOR_SHARE``); x, y are then on the rim band.
    """

    x: float
    y: float
    strength: float
    width_px: float
    band: str

    def __post_init__(self) -> None:
        if self.band not in (*BANDS_FRAC, "both"):
            raise ValueError(f"band: expected one of {sorted((*BANDS_FRAC, 'both'))}, got {self.band!r}")
        if not (math.isfinite(self.strength) and self.strength >= 0):
            raise ValueError(f"strength: expected a finite value >= 0, got {self.strength}")
        if not (math.isfinite(self.width_px) and self.width_px > 0):
            raise ValueError(f"width_px: expected a finite value > 0, got {self.width_px}")


@dataclass(frozen=True, eq=False)
class _BandMeasure:
    """One band's measure (:func:`_band_profile`), over ``RIM_ANGLE_SAMPLES`` angles.

    Attributes
    ----------
    profile : ndarray, float32, (angles,)
        The weakest radius's difference from the slow rim at each angle, Lab units.
    floor : float
        A crossing's least ``profile``, Lab units.
    visible : ndarray, bool, (angles,)
        The whole band at that angle lies in the source frame.
    theta : ndarray, float64, (angles,)
        The angles, radians.
    mid_r : float
        The band's middle radius, canonical pixels.
    step : float
        Arc per angle sample at ``mid_r``, canonical pixels.
    """

    profile: np.ndarray
    floor: float
    visible: np.ndarray
    theta: np.ndarray
    mid_r: float
    step: float


_GRIDS: dict[tuple[int, float, tuple[float, float]], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _polar_grid(canvas_px: int, plate_radius_px: float, band_frac: tuple[float, float]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """map_x, map_y (rows = radii across the band, columns = angles), float32,
    and the angles (radians) of the columns."""
    key = (canvas_px, plate_radius_px, band_frac)
    grid = _GRIDS.get(key)
    if grid is None:
        c = canvas_px / 2.0 - 0.5
        radii = np.arange(band_frac[0] * plate_radius_px, band_frac[1] * plate_radius_px + 1e-6, 1.0)
        theta = np.arange(RIM_ANGLE_SAMPLES) * (2 * math.pi / RIM_ANGLE_SAMPLES)
        map_x = (c + radii[:, None] * np.cos(theta)[None, :]).astype(np.float32)
        map_y = (c + radii[:, None] * np.sin(theta)[None, :]).astype(np.float32)
        for a in (map_x, map_y, theta):
            a.setflags(write=False)
        grid = _GRIDS[key] = (map_x, map_y, theta)
    return grid


def _visible_angles(view: CanonicalView, map_x: np.ndarray, map_y: np.ndarray,
                    frame_size: tuple[int, int]) -> np.ndarray:
    """bool (angles,): the whole band at that angle maps inside the source frame."""
    return view.in_source_frame(map_x.astype(np.float64), map_y.astype(np.float64), frame_size).all(axis=0)


class RimBands:
    """The rim and cloth bands of one view, sampled once for the three band
    measures (:func:`rim_crossings`, :func:`rim_streaks`,
    :func:`rim_hidden_arcs`) on one frame.

    Each band's polar samples of ``view.lab``, its visible angles and its
    :func:`_band_profile` are made on first use and kept: the same
    arrays each measure would make on its own, bit for bit.  Read-only.

    Parameters
    ----------
    view : CanonicalView
        The canonical view (its ``lab``, CIE Lab).
    token_radius_px : float
        The frame's face radius, canonical pixels (> 0).
    frame_size : (int, int) or None
        Source frame (width, height), as the measures take it.

    Raises
    ------
    TypeError
        ``view`` not a CanonicalView.
    ValueError
        ``token_radius_px`` not finite and > 0, ``frame_size`` not two whole
        pixel counts > 0.
    """

    def __init__(self, view: CanonicalView, token_radius_px: float,
                 frame_size: tuple[int, int] | None = None) -> None:
        _check_band_args(view, token_radius_px, frame_size)
        self.view = view
        self.token_radius_px = token_radius_px
        self.frame_size = frame_size
        self._samples: dict[str, np.ndarray] = {}
        self._visible: dict[str, np.ndarray] = {}
        self._measures: dict[str, _BandMeasure | None] = {}

    def grid(self, band: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The band's :func:`_polar_grid` (map_x, map_y, theta)."""
        return _polar_grid(self.view.canvas_px, float(self.view.plate_radius_px), BANDS_FRAC[band])

    def samples(self, band: str) -> np.ndarray:
        """``view.lab`` on the band's grid, float32 (radii, angles, 3); read-only."""
        got = self._samples.get(band)
        if got is None:
            map_x, map_y, _ = self.grid(band)
            got = cv2.remap(self.view.lab, map_x, map_y, interpolation=cv2.INTER_LINEAR)
            got.setflags(write=False)
            self._samples[band] = got
        return got

    def visible(self, band: str) -> np.ndarray:
        """bool (angles,): the whole band at that angle lies in the source frame
        (all True when ``frame_size`` is None); read-only."""
        got = self._visible.get(band)
        if got is None:
            if self.frame_size is None:
                got = np.ones(RIM_ANGLE_SAMPLES, bool)
            else:
                map_x, map_y, _ = self.grid(band)
                got = _visible_angles(self.view, map_x, map_y, self.frame_size)
            got.setflags(write=False)
            self._visible[band] = got
        return got

    def measure(self, band: str) -> _BandMeasure | None:
        """The band's :func:`_band_profile` (its arrays read-only)."""
        if band not in self._measures:
            m = self._measures[band] = _band_profile(self, band)
            if m is not None:
                m.profile.setflags(write=False)
        return self._measures[band]


def _bands_for(view: CanonicalView, token_radius_px: float, frame_size: tuple[int, int] | None,
               bands: RimBands | None) -> RimBands:
    """``bands`` when given (checked to be of these arguments), else a new
    :class:`RimBands` (which checks the arguments)."""
    if bands is None:
        return RimBands(view, token_radius_px, frame_size)
    if not isinstance(bands, RimBands):
        raise TypeError(f"bands: expected RimBands, got {type(bands).__name__}")
    if bands.view is not view or bands.token_radius_px != token_radius_px or bands.frame_size != frame_size:
        raise ValueError("bands: sampled for another view, token radius or frame size")
    return bands


def rim_crossings(view: CanonicalView, token_radius_px: float,
                  frame_size: tuple[int, int] | None = None,
                  bands: RimBands | None = None) -> list[RimCrossing]:
    """Narrow things across the whole rim band, or the cloth band just outside
    it: a stick, a hand, a token on the rim.

    Parameters
    ----------
    view : CanonicalView
        The canonical view (its ``lab``, CIE Lab: L in [0, 100]).
    token_radius_px : float
        The frame's face radius, canonical pixels (> 0): sets how slowly the
        rim's own appearance may vary around the plate.
    frame_size : (int, int) or None
        Source frame (width, height) in pixels: angles where the band leaves
        the frame (its pixels there are the frame's border, replicated) are
        not judged.  None: every angle is judged.
    bands : RimBands or None
        The bands of these arguments, sampled once for the frame's band
        measures.  None: sampled here.

    Returns
    -------
    list of RimCrossing
        Strongest first; empty when nothing crosses the rim.

    Raises
    ------
    TypeError
        ``view`` not a CanonicalView, ``bands`` not a RimBands.
    ValueError
        ``token_radius_px`` not finite and > 0, ``frame_size`` not two whole
        pixel counts > 0, ``bands`` of other arguments.
    """
    bands = _bands_for(view, token_radius_px, frame_size, bands)
    out: list[RimCrossing] = []
    measured = {}
    for band in BANDS_FRAC:
        m = bands.measure(band)
        if m is None:
            continue
        measured[band] = m
        out.extend(_band_crossings(view, m, band))
    if len(measured) == 2 and not out:
        out.extend(_joint_crossings(view, measured["rim"], measured["cloth"]))
    return sorted(out, key=lambda c: -c.strength)


def _joint_crossings(view: CanonicalView, rim: _BandMeasure, cloth: _BandMeasure) -> list[RimCrossing]:
    """Angles where the rim band reaches ``JOINT_FLOOR_SHARE`` of its floor and
    the cloth band does too within ``JOINT_MAX_ANGLE_DEG``: one crossing
    (``band`` "both") per run of such angles, at its strongest."""
    reach = max(1, int(round(JOINT_MAX_ANGLE_DEG / 360.0 * RIM_ANGLE_SAMPLES)))
    cloth_near = cv2.dilate(_wrapped((cloth.profile * cloth.visible)[None, :].astype(np.float32), reach),
                            np.ones((1, 2 * reach + 1), np.uint8))[0, reach:-reach]
    above = (rim.visible & (rim.profile >= JOINT_FLOOR_SHARE * rim.floor)
             & (cloth_near >= JOINT_FLOOR_SHARE * cloth.floor))
    # the joint strength: each band's share of its own floor, the lesser
    share = np.minimum(rim.profile / rim.floor, cloth_near / cloth.floor)
    return _runs(view, above, share * rim.floor, rim, "both")


def _wrapped(a: np.ndarray, half: int) -> np.ndarray:
    """``a`` (rows, angles, ...) with ``half`` (>= 1) columns of the far end put
    on either side: the angles go round the circle."""
    if half < 1:
        raise ValueError(f"half: expected >= 1, got {half}")
    return np.concatenate([a[:, -half:], a, a[:, :half]], axis=1)


def _band_profile(bands: RimBands, band: str) -> _BandMeasure | None:
    """One band's measure for :func:`rim_crossings`, or None when no angle of
    the band is in the frame."""
    band_frac = BANDS_FRAC[band]
    R = bands.view.plate_radius_px
    token_radius_px = bands.token_radius_px
    _, _, theta = bands.grid(band)
    lab = bands.samples(band)  # (radii, angles, 3)
    mid_r = float(np.mean(band_frac)) * R
    # the band's slow variation around the plate: a circular box mean per radius
    step = 2 * math.pi * mid_r / RIM_ANGLE_SAMPLES  # px of arc per sample
    half = max(RIM_SLANT_SAMPLES, int(round(RIM_HIGHPASS_HALF_RADII * token_radius_px / step)))
    half = min(half, RIM_ANGLE_SAMPLES // 4)
    slow = cv2.blur(_wrapped(lab, half), (2 * half + 1, 1), borderType=cv2.BORDER_ISOLATED)[:, half:-half]
    diff = lab - slow
    strength = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    slant = np.ones((1, 2 * RIM_SLANT_SAMPLES + 1), np.uint8)
    widened = cv2.dilate(_wrapped(strength, RIM_SLANT_SAMPLES), slant)[:, RIM_SLANT_SAMPLES:-RIM_SLANT_SAMPLES]
    profile = widened.min(axis=0)  # (angles,): the weakest radius at each angle
    visible = bands.visible(band)
    if not visible.any():
        return None
    noise = float(np.median(profile[visible]))
    floor = max(RIM_CROSSING_MIN_DELTA_E, RIM_CROSSING_NOISE_UNITS * noise)
    return _BandMeasure(profile=profile, floor=floor, visible=visible, theta=theta, mid_r=mid_r, step=step)


def _band_crossings(view: CanonicalView, measured: _BandMeasure, band: str) -> list[RimCrossing]:
    """:func:`rim_crossings` in one band (``"rim"`` or ``"cloth"``), from its
    :func:`_band_profile`."""
    return _runs(view, (measured.profile >= measured.floor) & measured.visible, measured.profile, measured, band)


def _runs(view: CanonicalView, above: np.ndarray, profile: np.ndarray, geometry: _BandMeasure,
          band: str) -> list[RimCrossing]:
    """One crossing per run of ``above`` angles (around the circle), at the
    run's largest ``profile``, placed on ``geometry``'s middle radius; none
    when no angle or every angle is above."""
    theta, mid_r, step = geometry.theta, geometry.mid_r, geometry.step
    if not above.any() or above.all():
        return []  # nothing; or the whole band differs from itself: nothing narrow to find
    # runs of angles above the floor (around the circle), one crossing each
    out: list[RimCrossing] = []
    c = view.canvas_px / 2.0 - 0.5
    for run in _circular_runs(above):
        best = max(run, key=lambda j: profile[j])
        out.append(RimCrossing(x=c + mid_r * math.cos(theta[best]), y=c + mid_r * math.sin(theta[best]),
                               strength=float(profile[best]), width_px=len(run) * step, band=band))
    return out


def _circular_runs(above: np.ndarray) -> list[list[int]]:
    """The runs of True in ``above`` (bool, (angles,)) around the circle, each
    its indices in order, walked from a False angle (there must be one)."""
    n = len(above)
    start = int(np.flatnonzero(~above)[0])
    runs: list[list[int]] = []
    run: list[int] = []
    for k in range(1, n + 1):
        i = (start + k) % n
        if above[i]:
            run.append(i)
        elif run:
            runs.append(run)
            run = []
    return runs


#: :func:`rim_streaks`: an angle of the rim band is a streak where its
#: :func:`rim_crossings` measure (the weakest radius's difference from the slow
#: rim) reaches this share of the band's floor.  It only chooses where
#: :func:`vision.face_bar.face_bar` looks along the rim band, which then asks
#: for one bar over a face and across the rim; a rod too faint for the floor
#: alone shows above half of it (fresh 1388241: 0.95 of the floor).
STREAK_FLOOR_SHARE = 0.5
#: ... and is widened by this many token radii of arc either side (the rod's
#: width and a line through it slanted across the band).
STREAK_HALF_WIDTH_RADII = 0.3


def rim_streaks(view: CanonicalView, token_radius_px: float,
                frame_size: tuple[int, int] | None = None, bands: RimBands | None = None) -> np.ndarray:
    """The rim band's pixels (``RIM_BAND_FRAC``) at angles where something
    narrow crosses it at ``STREAK_FLOOR_SHARE`` or more of the rim-crossing
    floor: where a rod may cross the rim, to be confirmed by a bar over a face
    on the same line (:func:`vision.face_bar.face_bar`).

    Parameters
    ----------
    view : CanonicalView
        The canonical view (its ``lab``, CIE Lab).
    token_radius_px : float
        The frame's face radius, canonical pixels (> 0).
    frame_size : (int, int) or None
        Source frame (width, height): angles where the band leaves the frame
        are left out.  None: every angle.
    bands : RimBands or None
        The bands of these arguments, sampled once for the frame's band
        measures.  None: sampled here.

    Returns
    -------
    ndarray, bool, (canvas_px, canvas_px)
        Empty (all False) when no angle reaches the share, or every angle
        does (nothing narrow).

    Raises
    ------
    TypeError
        ``view`` not a CanonicalView, ``bands`` not a RimBands.
    ValueError
        ``token_radius_px`` not finite and > 0, ``frame_size`` not two whole
        pixel counts > 0, ``bands`` of other arguments.
    """
    bands = _bands_for(view, token_radius_px, frame_size, bands)
    n = view.canvas_px
    none = np.zeros((n, n), bool)
    m = bands.measure("rim")
    if m is None:
        return none
    above = m.visible & (m.profile >= STREAK_FLOOR_SHARE * m.floor)
    if not above.any() or above.all():
        return none
    half = max(1, int(round(STREAK_HALF_WIDTH_RADII * token_radius_px / m.step)))
    above = cv2.dilate(_wrapped(above[None, :].astype(np.uint8), half),
                       np.ones((1, 2 * half + 1), np.uint8))[0, half:-half] > 0
    rad, idx = _canvas_polar(n, RIM_ANGLE_SAMPLES)
    R = view.plate_radius_px
    band = (rad >= RIM_BAND_FRAC[0] * R) & (rad <= RIM_BAND_FRAC[1] * R)
    return band & above[idx]


@functools.lru_cache(maxsize=8)
def _canvas_polar(n: int, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel of an ``n`` x ``n`` canvas: its distance from the centre
    (float64) and its angle's sample index of ``samples`` around the circle
    (intp, 0 .. samples - 1); read-only (shared by every call)."""
    c = n / 2.0 - 0.5
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float64)
    rad = np.hypot(xx - c, yy - c)
    idx = np.rint(np.mod(np.arctan2(yy - c, xx - c), 2 * math.pi) / (2 * math.pi) * samples)
    idx = idx.astype(np.intp) % samples
    for a in (rad, idx):
        a.setflags(write=False)
    return rad, idx


#: :func:`rim_hidden_arcs`: at an angle, the rim band looks like the cloth band
#: just outside it where their colours (each the median over the band's radii)
#: differ by at most this many Lab units ...
HIDDEN_MAX_DELTA_E = 6.0
#: ... and by at most this share of their typical (median over the visible
#: angles) difference: the rim band is hidden by whatever also lies on the cloth
#: there (a hand over the rim: both bands are the hand).
HIDDEN_MAX_SHARE = 0.25
#: The cue is only judged where the rim band and the cloth band differ
#: typically by this many Lab units or more (a rim like its cloth shows no
#: interruption; fresh 1463193 on black lacquer and wood: 32.8).
HIDDEN_MIN_CONTRAST_LAB = 15.0
#: A hidden arc is this many token radii long or more along the rim band's
#: middle: wider than any token lying against the well's wall can hide (a
#: token is two radii across, and hides more than half the band's radii over
#: less than that); the hand over the rim in fresh 1463193 hides 3.3.
HIDDEN_MIN_ARC_RADII = 3.0
#: ... and, where the plate search's mask is given, the plate's outline is seen
#: as cloth over this share of the arc's angles or more (fresh 1463193: 0.8,
#: the fingers' gaps showing the rim; fresh 1491113, a gold rim's highlight on
#: beige cloth: 0.0).
HIDDEN_OUTLINE_MIN_SHARE = 0.5


@dataclass(frozen=True)
class HiddenArc:
    """A stretch of the rim band that looks like the cloth just outside it.

    Attributes
    ----------
    angle_deg : float
        The arc's middle, degrees (canonical view, x right, y down).
    length_radii : float
        Its length along the rim band's middle, token radii.
    """

    angle_deg: float
    length_radii: float


def _check_band_args(view: CanonicalView, token_radius_px: float, frame_size: tuple[int, int] | None) -> None:
    """Raise TypeError / ValueError for the arguments the band measures share."""
    if not isinstance(view, CanonicalView):
        raise TypeError(f"view: expected CanonicalView, got {type(view).__name__}")
    if not (math.isfinite(token_radius_px) and token_radius_px > 0):
        raise ValueError(f"token_radius_px: expected a finite value > 0, got {token_radius_px}")
    if frame_size is not None and not (len(frame_size) == 2 and all(int(v) == v and v > 0 for v in frame_size)):
        raise ValueError(f"frame_size: expected (width, height) in whole pixels > 0, got {frame_size}")


def band_angles_deg() -> np.ndarray:
    """The angles of the band grid (``RIM_ANGLE_SAMPLES``), degrees."""
    return np.arange(RIM_ANGLE_SAMPLES) * (360.0 / RIM_ANGLE_SAMPLES)


def _band_colours(bands: RimBands, band: str) -> np.ndarray:
    """One band's colour per angle (median Lab over its radii, (angles, 3))."""
    lab = np.sort(bands.samples(band), axis=0)  # (radii, angles, 3)
    # the median per channel over the radii (a sort: np.median is four times slower here)
    k = lab.shape[0] // 2
    return lab[k] if lab.shape[0] % 2 else 0.5 * (lab[k - 1] + lab[k])


def rim_hidden_arcs(view: CanonicalView, token_radius_px: float,
                    frame_size: tuple[int, int] | None = None,
                    outline_cloth: np.ndarray | None = None, bands: RimBands | None = None) -> list[HiddenArc]:
    """Stretches of the rim band, wider than a token, that look like the
    cloth band just outside them: the rim hidden by something lying over it
    and on out over the cloth (a hand of the cloth's colour, which the plate
    search takes for cloth, so it is not seen reaching onto the plate).

    Parameters
    ----------
    view : CanonicalView
        The canonical view (its ``lab``, CIE Lab).
    token_radius_px : float
        The frame's face radius, canonical pixels (> 0).
    frame_size : (int, int) or None
        Source frame (width, height): angles where either band leaves the
        frame are not judged.  None: every angle.
    outline_cloth : ndarray, bool, (RIM_ANGLE_SAMPLES,), or None
        Where the plate search saw the cloth on the plate's outline (the
        angles of the band grid): an arc is hidden only where it is so over
        ``HIDDEN_OUTLINE_MIN_SHARE`` of its angles or more.  A rim whose
        lit stretch has the cloth's colour still shows its outline against
        the cloth; a hand lying over it hides the outline too (fresh 1491113,
        natural 1280x720: a gold rim's highlight on beige cloth matched the
        cloth band over 5.1 token radii, its outline seen all along).
        None: not used.
    bands : RimBands or None
        The bands of these arguments, sampled once for the frame's band
        measures.  None: sampled here.

    Returns
    -------
    list of HiddenArc
        Empty when none, when the rim band and the cloth band differ
        typically by less than ``HIDDEN_MIN_CONTRAST_LAB``, or when every
        visible angle is hidden (nothing to tell an interruption from).

    Raises
    ------
    TypeError
        ``view`` not a CanonicalView, ``bands`` not a RimBands.
    ValueError
        ``token_radius_px`` not finite and > 0, ``frame_size`` not two whole
        pixel counts > 0, ``outline_cloth`` not of ``RIM_ANGLE_SAMPLES``,
        ``bands`` of other arguments.
    """
    bands = _bands_for(view, token_radius_px, frame_size, bands)
    if outline_cloth is not None and np.shape(outline_cloth) != (RIM_ANGLE_SAMPLES,):
        raise ValueError(f"outline_cloth: expected shape ({RIM_ANGLE_SAMPLES},), got {np.shape(outline_cloth)}")
    rim = _band_colours(bands, "rim")
    cloth = _band_colours(bands, "cloth")
    visible = bands.visible("rim") & bands.visible("cloth")
    if not visible.any():
        return []
    diff = np.linalg.norm(rim - cloth, axis=1)
    contrast = float(np.median(diff[visible]))
    if contrast < HIDDEN_MIN_CONTRAST_LAB:
        return []
    hidden = visible & (diff <= min(HIDDEN_MAX_DELTA_E, HIDDEN_MAX_SHARE * contrast))
    if not hidden.any() or hidden[visible].all():
        return []
    step_radii = 2 * math.pi * float(np.mean(RIM_BAND_FRAC)) * view.plate_radius_px / RIM_ANGLE_SAMPLES \
        / token_radius_px
    out: list[HiddenArc] = []
    for run in _circular_runs(hidden):
        if len(run) * step_radii >= HIDDEN_MIN_ARC_RADII and (
                outline_cloth is None or float(np.mean(outline_cloth[run])) >= HIDDEN_OUTLINE_MIN_SHARE):
            mid = run[len(run) // 2]
            out.append(HiddenArc(angle_deg=mid * 360.0 / RIM_ANGLE_SAMPLES, length_radii=len(run) * step_radii))
    return out

