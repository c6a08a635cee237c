"""Learn a studio profile from 2 to 5 frames of the plate with four flat, separated tokens.

Nobody tells the tool the tokens' colours.  Each frame goes through the
reader's own stages (:func:`vision.plate.find_plate`,
:func:`vision.canonical.make_canonical_view`, :func:`vision.reader.search_tokens`
with the default, wide settings); the four flat faces of every frame are
measured (face minus plate in Lab, and absolute a*) and all faces are split
into two groups at the widest gap along a* (the red group has the higher a*).
The profile's face thresholds sit between the groups, each class keeping a
margin, with an undecided band in the middle; they never accept a face that
the default rule considers strongly the other colour.

A calibration set is refused (:class:`CalibrationResult.problems`, each naming
its frame) when a frame has no plate, is too dark, is not four flat separated
tokens, or the frames were taken from different camera positions, or when the
faces do not form two well separated colour groups.

Pure logic only: drawing is in :mod:`calibration.report`; input frames are
never modified.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.canonical import CANVAS_PX, PLATE_RADIUS_PX, CanonicalView, make_canonical_view
from vision.errors import FrameError
from vision.faces import (DEFAULT_FACE_RULE, FACE_SAMPLE_FRAC, RED_MIN_ABS_A, RED_MIN_DELTA_A, WHITE_MAX_ABS_A,
                          WHITE_MAX_DELTA_A, FaceRule, classify_face, core_levels)
from vision.io import DEFAULT_MAX_PIXELS, decode_image
from vision.plate import find_plate, plate_to_canonical
from vision.exposure import saturated_room
from vision.reader import (FLAT_KINDS, OVERLAP_MAX_CENTRE_DIST_RADII, SATURATED_ROOM_MIN_RADII,
                           WHITE_CEILING_RED_LEVEL, is_colourless, search_tokens)
from vision.tokens import (DEFAULT_OUTLINE_RULE, OUTLINE_SUSPECT_MIN_SECTORS, Candidate, OutlineRule,
                           blob_threshold, find_tokens)
from vision.types import Ellipse

from .profile import ColourModel, FaceModel, PlateTolerance, Profile, plate_difference

MIN_FRAMES, MAX_FRAMES = 2, 5
#: Token radius range of the profile: the measured radius times (1 -/+ this).
TOKEN_RADIUS_SLACK = 0.15
#: Two colour groups are well separated when the gap between them along
#: (face - plate) a* is at least this (Lab units) ...
MIN_CLUSTER_GAP = 8.0
#: ... and at least this many times the larger group's robust spread.
MIN_GAP_SPREAD_RATIO = 1.5
#: All faces are one colour when their a* range is below MIN_CLUSTER_GAP or
#: this share of their median a* over the plate (red faces vary more), or when
#: the default rule calls every one of them the same colour.
SINGLE_COLOUR_REL_RANGE = 0.5
#: Thresholds sit this far across the gap from each class' closest member
#: (fraction of the gap); the band between them is undecided.
BOUNDARY_FRAC = 0.6
#: A threshold is only made stricter than the default when the default is
#: closer than this to the other class' closest member (Lab units).
CLASS_MARGIN = 5.0
#: Safety bounds: a learnt rule never calls red a face whose (face - plate) a*
#: is within this distance of the default white bound (or white a face this
#: close to the default red bound), Lab units; the same for absolute a*.
DEFAULT_GUARD_DELTA_A = 3.0
DEFAULT_GUARD_ABS_A = 2.0
#: Smallest red chroma threshold a profile may set.
MIN_RED_CHROMA = 8.0
#: Exposure: median plate L* below this is too dark ...
MIN_PLATE_L = 25.0
#: ... and more than this share of clipped white pixels (all channels >= 250) on the
#: plate is glare.
MAX_GLARE_FRAC = 0.03
#: Outline evidence (see :func:`vision.tokens.outline_support`).  At
#: calibration time every outline peak on the plate is listed (a rule that
#: accepts everything above this z) ...
TRACE_MIN_Z = 2.0
TRACE_RULE = OutlineRule(min_z=TRACE_MIN_Z, min_contrast_l=1e-6, min_sectors=1, min_evenness=-1.0)
#: ... and a frame short of four tokens is completed with the strongest
#: separated outlines that are circles at all (this many of 16 sectors, this
#: strong: z and L units) ...
PICK_MIN_SECTORS = OUTLINE_SUSPECT_MIN_SECTORS
PICK_MIN_Z = 5.0
PICK_MIN_CONTRAST_L = 1.0
#: ... when every picked outline is this many times stronger (both z and L
#: contrast) than any other circle-like outline on the plate (the fifth).
PICK_SEPARATION = 1.5
#: The studio's outline rule: each threshold this fraction of the weakest
#: calibrated white face's value (never stricter than the default) ...
OUTLINE_TRUE_FRAC = 0.75
#: ... this many sectors fewer than the weakest face's (a face's outline
#: breaks where its shadow or a highlight falls, which moves with the light
#: and the camera), evenness this much lower (its lower quartile moves the
#: same way: the renders' white faces measure 0.02-0.84) ...
OUTLINE_SECTOR_SLACK = 2
OUTLINE_EVENNESS_SLACK = 0.25
#: ... never below these floors (plate texture: the renders' plates show
#: outline peaks up to z 9 but below 1.4 L units of contrast) ...
OUTLINE_FLOOR = OutlineRule(min_z=PICK_MIN_Z, min_contrast_l=PICK_MIN_CONTRAST_L, min_sectors=PICK_MIN_SECTORS,
                            min_evenness=0.0)
#: ... and every other outline peak of the calibration frames (the plate's own
#: texture) must fail the rule by this margin: it would fail even with z and
#: contrast thresholds this fraction of the learnt ones and one sector fewer.
OUTLINE_PLATE_MARGIN_FRAC = 0.8
#: A colour group closer than this to the plate (Lab distance of face - plate)
#: is reported as hard to see (a warning, the frame was still read).
MIN_FACE_PLATE_DELTA_E = 6.0


@dataclass(frozen=True)
class Problem:
    """Why a calibration set is refused (or a warning): which frame, what to fix."""

    frame: str | None
    message: str
    code: str
    fatal: bool = True

    def __str__(self) -> str:
        return f"{self.frame}: {self.message}" if self.frame else self.message


@dataclass(frozen=True)
class FaceSample:
    """One flat face of a calibration frame.

    ``delta`` is (L*, a*, b*) of the face minus the plate next to it,
    ``lab`` the face's own median Lab, ``chroma`` the norm of delta (a*, b*).
    ``x, y, radius`` are canonical pixels.
    """

    frame_index: int
    x: float
    y: float
    radius: float
    delta: tuple[float, float, float]
    lab: tuple[float, float, float]
    chroma: float
    pixels: np.ndarray = field(repr=False, compare=False)  # (n, 3) Lab of the face sample
    #: (z, sectors, contrast_l, evenness) when this face was seen by its dark outline, else None.
    outline: tuple[float, int, float, float] | None = None

    @property
    def delta_a(self) -> float:
        return self.delta[1]

    @property
    def abs_a(self) -> float:
        return self.lab[1]


@dataclass(frozen=True, eq=False)
class FrameMeasurement:
    """What one calibration frame shows; ``plate`` None when no plate was found."""

    name: str
    sha256: str
    role: str  # "tokens" or "empty"
    image: np.ndarray | None = field(repr=False)
    plate: Ellipse | None = None
    plate_reason: str = ""
    view: CanonicalView | None = field(default=None, repr=False)
    candidates: tuple[Candidate, ...] = ()
    token_radius_frac: float = 0.0
    faces: tuple[FaceSample, ...] = ()
    plate_pixels: np.ndarray | None = field(default=None, repr=False)
    plate_l: float = 0.0
    glare_frac: float = 0.0
    #: Outline peaks on the plate that are none of the four tokens: (x, y, z, sectors, contrast_l, evenness).
    plate_peaks: tuple[tuple[float, float, float, int, float, float], ...] = ()
    #: Token candidates added from the ranked outline evidence (not seen with the default settings).
    picked: tuple[Candidate, ...] = ()
    #: The blob threshold of the plain ring model (``view`` has its angular shading out; see
    #: :func:`vision.reader.search_tokens`), Lab units.
    blob_floor_lab: float = 0.0


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """Everything ``calibrate`` found: the profile (None when refused), the per-frame
    measurements, the face labels, and the problems (fatal ones refuse)."""

    profile: Profile | None
    frames: tuple[FrameMeasurement, ...]
    problems: tuple[Problem, ...]
    face_labels: tuple[str, ...] = ()  # "red" / "white" per face of all token frames, in order
    rule: FaceRule | None = None
    margins: dict = field(default_factory=dict)
    outline_rule: OutlineRule | None = None

    @property
    def ready(self) -> bool:
        return self.profile is not None and not any(p.fatal for p in self.problems)

    @property
    def all_faces(self) -> list[FaceSample]:
        return [f for m in self.frames if m.role == "tokens" for f in m.faces]


# ---------------------------------------------------------------------------
# per frame
# ---------------------------------------------------------------------------
def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _face_sample(view: CanonicalView, c: Candidate, r: float, idx: int,
                 outline: tuple[float, int, float, float] | None = None) -> FaceSample:
    radius = c.radius if c.kind == "disc" else r
    fr = classify_face(view, c.x, c.y, radius)  # the reader's own measurement
    r_in = max(1.0, FACE_SAMPLE_FRAC * radius)
    rr, cc = np.ogrid[0:view.canvas_px, 0:view.canvas_px]
    sel = (cc - c.x) ** 2 + (rr - c.y) ** 2 <= r_in ** 2
    face, plate = view.lab[sel], view.background[sel]
    lab = np.median(face, axis=0)
    delta_b = float(np.median(face[:, 2]) - np.median(plate[:, 2]))
    return FaceSample(idx, c.x, c.y, radius, (fr.delta_l, fr.delta_a, delta_b),
                      tuple(float(v) for v in lab), fr.chroma, face.astype(np.float32), outline)


def _outline_stats(t: dict) -> tuple[float, int, float, float]:
    return (round(t["z"], 3), int(t["sectors"]), round(t["contrast_l"], 3), round(t["evenness"], 3))


def rank_outlines(trace: list[dict], base: list[Candidate], r: float, need: int
                  ) -> tuple[list[dict], list[dict], str]:
    """Complete a calibration frame's tokens from its ranked outline peaks.

    Parameters
    ----------
    trace : list of dict
        Every outline peak examined (``find_tokens(..., outline_trace=...)``), strongest (z) first.
    base : list of Candidate
        The flat faces already found by colour (blobs, disc filter).
    r : float
        The frame's token radius, canonical pixels.
    need : int
        How many more faces the frame must have (0-4).

    Returns
    -------
    picked : list of dict
        The ``need`` strongest separated outline peaks that are circles
        (``PICK_MIN_SECTORS``, ``PICK_MIN_Z``, ``PICK_MIN_CONTRAST_L``).
    rest : list of dict
        Every other peak that is no token's own edge or shadow (further than
        ``OVERLAP_MAX_CENTRE_DIST_RADII`` radii from every token): the plate's texture.
    why : str
        Empty when ``need`` peaks were picked and each is ``PICK_SEPARATION``
        times stronger than every circle-like peak left; else the reason.
    """
    sep = OVERLAP_MAX_CENTRE_DIST_RADII * r
    picked: list[dict] = []
    for t in trace:
        if len(picked) >= need:
            break
        if any(math.hypot(t["x"] - c.x, t["y"] - c.y) < sep for c in base):
            continue
        if any(math.hypot(t["x"] - p["x"], t["y"] - p["y"]) < sep for p in picked):
            continue
        if t["sectors"] >= PICK_MIN_SECTORS and t["z"] >= PICK_MIN_Z and t["contrast_l"] >= PICK_MIN_CONTRAST_L:
            picked.append(t)
    rest = [t for t in trace if t not in picked
            and all(math.hypot(t["x"] - c.x, t["y"] - c.y) >= sep for c in base)
            and all(math.hypot(t["x"] - p["x"], t["y"] - p["y"]) >= sep for p in picked)]
    if len(picked) < need:
        return picked, rest, ""
    circles = [t for t in rest if t["sectors"] >= PICK_MIN_SECTORS]
    if picked and circles:
        weakest = min(picked, key=lambda t: (t["z"], t["contrast_l"]))
        z5 = max(t["z"] for t in circles)
        c5 = max(t["contrast_l"] for t in circles)
        if (min(p["z"] for p in picked) < PICK_SEPARATION * z5
                or min(p["contrast_l"] for p in picked) < PICK_SEPARATION * c5):
            return picked, rest, (f"the weakest outline that would be a token "
                                  f"(canonical ({weakest['x']:.0f}, {weakest['y']:.0f}), z {weakest['z']:.1f}, "
                                  f"contrast {weakest['contrast_l']:.1f} L) is not {PICK_SEPARATION} times "
                                  f"stronger than the next circle-like mark on the plate (z {z5:.1f}, contrast "
                                  f"{c5:.1f} L)")
    return picked, rest, ""


def measure_frame(image: np.ndarray, name: str, sha256: str, role: str = "tokens", index: int = 0
                  ) -> tuple[FrameMeasurement, list[Problem]]:
    """Measure one calibration frame (``role`` ``tokens``: four flat tokens; ``empty``: the bare plate).

    Returns the measurement and the problems found in this frame alone.
    """
    problems: list[Problem] = []
    if is_colourless(image):
        return (FrameMeasurement(name, sha256, role, image),
                [Problem(name, "frame has no colour (greyscale camera?): red and white cannot be learnt", "colour")])
    plate = find_plate(image)
    if not plate.found:
        return (FrameMeasurement(name, sha256, role, image, plate_reason=plate.reason),
                [Problem(name, f"plate not found ({plate.reason}); frame the whole plate on a plain cloth",
                         "no_plate")])
    # the view the reader searches (its angular shading out), so that what is
    # learnt here is what the reader will measure
    raw = make_canonical_view(image, plate.ellipse)
    blob_floor = blob_threshold(raw)
    view, search = search_tokens(raw)
    cands = search.candidates
    r = search.token_radius_px
    trace: list[dict] = []
    if role == "tokens":
        # the same search listing every outline peak (the candidates it keeps are not used)
        find_tokens(view, outline_rule=TRACE_RULE, outline_trace=trace, min_blob_threshold_lab=blob_floor)
    # exposure and glare, on the plate itself
    inside = view.radius_px < 0.95 * view.plate_radius_px
    plate_l = float(np.median(view.lab[..., 0][inside]))
    glare = float((view.bgr[inside] >= 250).all(axis=-1).mean())
    if plate_l < MIN_PLATE_L:
        problems.append(Problem(name, f"too dark: the plate's median L* is {plate_l:.0f} (need at least "
                                f"{MIN_PLATE_L:.0f}); add light or open the aperture", "dark"))
    if glare > MAX_GLARE_FRAC:
        problems.append(Problem(name, f"glare: {glare:.0%} of the plate is clipped white (at most "
                                f"{MAX_GLARE_FRAC:.0%}); move or diffuse the lights", "glare"))
    # the reader's own over-exposure test (vision.exposure): where it holds,
    # every round would be refused, so the set-up is
    room = saturated_room(view.bgr, view.radius_px, view.plate_radius_px, [(c.x, c.y) for c in cands], r)
    if room >= SATURATED_ROOM_MIN_RADII:
        problems.append(Problem(name, f"over-exposed: a region of the plate {2 * room:.1f} token radii across "
                                f"is at the sensor's ceiling, where the reader cannot see a white token and "
                                f"abstains on every round; lower the exposure", "over_exposed"))
    flat = [c for c in cands if c.kind in ("disc", "faint", "outline")]
    # plate colour: the plate well without the tokens
    keep = view.radius_px < 0.8 * view.plate_radius_px
    yy, xx = np.mgrid[0:view.canvas_px, 0:view.canvas_px]
    for c in cands:
        keep &= (xx - c.x) ** 2 + (yy - c.y) ** 2 > (1.6 * max(c.radius, r)) ** 2
    plate_pixels = view.lab[keep][::7].astype(np.float32)

    if role == "empty":
        if cands:
            problems.append(Problem(name, f"the empty-plate frame shows {len(cands)} token-like thing(s) "
                                    f"({', '.join(c.kind for c in cands)}); clear the plate", "not_empty"))
        return (FrameMeasurement(name, sha256, role, image, plate.ellipse, plate.reason, view, tuple(cands),
                                 plate_pixels=plate_pixels, plate_l=plate_l, glare_frac=glare,
                                 blob_floor_lab=blob_floor), problems)

    kinds = [c.kind for c in cands]
    # The default search may miss a pale face (white on a white plate); four
    # flat tokens are known to be there, so the strongest separated outlines
    # complete the four, and the other outline peaks measure the plate's texture.
    sep = OVERLAP_MAX_CENTRE_DIST_RADII * r
    stats: dict[int, tuple[float, int, float, float]] = {}
    picked_c: list[Candidate] = []
    why_pick = ""
    if any(k in kinds for k in ("overlap", "object", "upright", "partial")):
        rest = [t for t in trace if all(math.hypot(t["x"] - c.x, t["y"] - c.y) >= sep for c in cands)]
    else:
        by_colour = [c for c in flat if c.kind != "outline"]
        picked, rest, why_pick = rank_outlines(trace, by_colour, r, max(0, 4 - len(by_colour)))
        new = [Candidate(t["x"], t["y"], r, "outline", math.pi * r * r, 1.0, 1.0, t["contrast_l"]) for t in picked]
        completes = len(flat) < 4 and len(by_colour) + len(new) == 4
        if completes and not why_pick:
            picked_c = [c for c in new if all(math.hypot(c.x - o.x, c.y - o.y) > 0.5 * r
                                               for o in flat if o.kind == "outline")]
            flat = by_colour + new
            for c, t in zip(new, picked):
                stats[id(c)] = _outline_stats(t)
        else:
            if not completes:
                why_pick = ""  # the default search's own faces stand (or are refused as they are)
            rest = [t for t in trace if all(math.hypot(t["x"] - c.x, t["y"] - c.y) >= sep for c in flat)]
            for c in flat:
                near = [t for t in trace if c.kind == "outline" and math.hypot(t["x"] - c.x, t["y"] - c.y) <= 0.5 * r]
                if near:
                    stats[id(c)] = _outline_stats(near[0])
    plate_peaks = tuple((round(t["x"], 1), round(t["y"], 1), round(t["z"], 3), int(t["sectors"]),
                         round(t["contrast_l"], 3), round(t["evenness"], 3)) for t in rest)
    close = [(a, b) for i, a in enumerate(flat) for b in flat[i + 1:]
             if math.hypot(a.x - b.x, a.y - b.y) < OVERLAP_MAX_CENTRE_DIST_RADII * r]
    if "overlap" in kinds or close:
        problems.append(Problem(name, "overlapping (or touching) tokens: separate the four tokens", "overlap"))
    elif "object" in kinds:
        problems.append(Problem(name, "something larger than a token is on the plate (hand, stick or bowl)",
                                "object"))
    elif "upright" in kinds or "partial" in kinds:
        problems.append(Problem(name, "a token is standing on edge or partly hidden: lay all four flat",
                                "not_flat"))
    elif len(flat) < 4 and why_pick:
        problems.append(Problem(name, f"fewer than four tokens visible: found {len(flat)} flat token(s), and "
                                f"{why_pick}; lay four tokens flat and apart on the plate, away from marks on the "
                                "glaze", "too_few"))
    elif len(flat) < 4:
        problems.append(Problem(name, f"fewer than four tokens visible: found {len(flat)} flat token(s); "
                                "lay four tokens flat and apart on the plate (if a token is there, it is too "
                                "close to the plate's colour to be seen)", "too_few"))
    elif len(flat) > 4:
        problems.append(Problem(name, f"{len(flat)} token-like discs found, expected four", "too_many"))
    faces = tuple(_face_sample(view, c, r, index, stats.get(id(c))) for c in flat)
    shown = tuple(c for c in cands if c.kind not in FLAT_KINDS) + tuple(flat)
    return (FrameMeasurement(name, sha256, role, image, plate.ellipse, plate.reason, view, shown,
                             token_radius_frac=r / view.plate_radius_px, faces=faces, plate_pixels=plate_pixels,
                             plate_l=plate_l, glare_frac=glare, plate_peaks=plate_peaks,
                             picked=tuple(picked_c), blob_floor_lab=blob_floor), problems)


# ---------------------------------------------------------------------------
# across frames
# ---------------------------------------------------------------------------
def clipped_whites(token_frames: list[FrameMeasurement], labels: list[str]) -> list[tuple[float, str]]:
    """The white faces whose core is at the ceiling in the camera's red channel.

    Parameters
    ----------
    token_frames : list of FrameMeasurement
        The token frames; their faces, frame by frame, are the faces labelled.
    labels : list of str
        ``red`` or ``white`` per face of ``token_frames``, in that order.

    Returns
    -------
    list of (level, frame name)
        Median red level (8-bit, 0-255) of each such face's core, with its
        frame; empty when none is at :data:`vision.reader.WHITE_CEILING_RED_LEVEL`.
    """
    pairs = [(m, f) for m in token_frames for f in m.faces]
    if len(labels) != len(pairs):
        raise ValueError(f"labels: expected one per face ({len(pairs)}), got {len(labels)}")
    levels = [(float(core_levels(m.view, f.x, f.y, f.radius)[2]), m.name)
              for (m, f), lab in zip(pairs, labels) if lab == "white" and m.view is not None]
    return [(v, name) for v, name in levels if v >= WHITE_CEILING_RED_LEVEL]


def mean_ellipse(ellipses: list[Ellipse]) -> Ellipse:
    """Mean centre and axes, circular mean of the axis angle (period 180 deg)."""
    t = np.radians([2.0 * e.angle_deg for e in ellipses])
    ang = math.degrees(math.atan2(float(np.sin(t).mean()), float(np.cos(t).mean()))) / 2.0
    return Ellipse.from_axes(float(np.mean([e.cx for e in ellipses])), float(np.mean([e.cy for e in ellipses])),
                             float(np.mean([e.a for e in ellipses])), float(np.mean([e.b for e in ellipses])),
                             ang % 180.0)


def split_colours(values: list[float]) -> tuple[float, int, float]:
    """Widest gap of sorted values: (gap, index of the first value above it, larger group's robust spread)."""
    v = np.sort(np.asarray(values, float))
    gaps = np.diff(v)
    k = int(np.argmax(gaps))
    lo, hi = v[:k + 1], v[k + 1:]

    def spread(x):
        return float(1.4826 * np.median(np.abs(x - np.median(x)))) if len(x) > 1 else 0.0

    return float(gaps[k]), k + 1, max(spread(lo), spread(hi))


def default_colour(f: FaceSample, rule: FaceRule = DEFAULT_FACE_RULE) -> str:
    """The colour the (default) rule gives a measured face: red, white or unknown."""
    if f.delta_a >= rule.red_min_delta_a and f.chroma >= rule.red_min_chroma and f.abs_a >= rule.red_min_abs_a:
        return "red"
    if f.delta_a <= rule.white_max_delta_a and f.abs_a <= rule.white_max_abs_a:
        return "white"
    return "unknown"


def _boundaries(white_max: float, red_min: float, red_default: float, white_default: float, red_floor: float,
                white_ceil: float) -> tuple[float, float]:
    """(red threshold, white threshold) between the classes' closest members.

    Each threshold starts ``BOUNDARY_FRAC`` of the gap away from the other
    class, but is never stricter than the default where the default already
    keeps ``CLASS_MARGIN`` from the other class' closest member, and never
    crosses the safety bounds (``red_floor``, ``white_ceil``).
    """
    gap = red_min - white_max
    red_t = max(red_floor, min(white_max + BOUNDARY_FRAC * gap, max(red_default, white_max + CLASS_MARGIN)))
    white_t = min(white_ceil, max(red_min - BOUNDARY_FRAC * gap, min(white_default, red_min - CLASS_MARGIN)))
    return red_t, white_t


def learn_rule(red: list[FaceSample], white: list[FaceSample]) -> tuple[FaceRule, dict]:
    """Face thresholds between the red and white groups, with their margins.

    Raises ValueError when the groups cannot be separated within the safety
    bounds (the message says which).
    """
    d = DEFAULT_FACE_RULE
    red_da_min, white_da_max = min(f.delta_a for f in red), max(f.delta_a for f in white)
    red_abs_min, white_abs_max = min(f.abs_a for f in red), max(f.abs_a for f in white)
    red_min_delta_a, white_max_delta_a = _boundaries(white_da_max, red_da_min, RED_MIN_DELTA_A, WHITE_MAX_DELTA_A,
                                                     WHITE_MAX_DELTA_A + DEFAULT_GUARD_DELTA_A,
                                                     RED_MIN_DELTA_A - DEFAULT_GUARD_DELTA_A)
    if red_abs_min > white_abs_max:
        red_min_abs_a, white_max_abs_a = _boundaries(white_abs_max, red_abs_min, RED_MIN_ABS_A, WHITE_MAX_ABS_A,
                                                     WHITE_MAX_ABS_A + DEFAULT_GUARD_ABS_A,
                                                     RED_MIN_ABS_A - DEFAULT_GUARD_ABS_A)
    else:
        raise ValueError(f"token colours too close to each other: absolute a* of the red faces (from "
                         f"{red_abs_min:.1f}) overlaps the white faces' (up to {white_abs_max:.1f})")
    red_chroma_min = min(f.chroma for f in red)
    white_chroma_max = max(f.chroma for f in white)
    red_min_chroma = max(MIN_RED_CHROMA, min(d.red_min_chroma,
                                             red_chroma_min - (1 - BOUNDARY_FRAC) * max(red_chroma_min
                                                                                         - white_chroma_max, 0.0)))
    if red_min_delta_a <= white_max_delta_a or red_min_abs_a <= white_max_abs_a:
        raise ValueError("token colours too close to each other: no room for an undecided band between "
                         "the learnt red and white thresholds")
    if red_min_delta_a > red_da_min or red_min_abs_a > red_abs_min or red_min_chroma > red_chroma_min:
        raise ValueError(f"red faces too close to the plate or to white: the weakest red face (a* "
                         f"{red_da_min:+.1f} over the plate, {red_abs_min:.1f} absolute, chroma {red_chroma_min:.1f}) "
                         f"falls inside the safety bounds")
    if white_max_delta_a < white_da_max or white_max_abs_a < white_abs_max:
        raise ValueError(f"white faces too red: the reddest white face (a* {white_da_max:+.1f} over the plate, "
                         f"{white_abs_max:.1f} absolute) falls inside the safety bounds")
    rule = FaceRule(red_min_delta_a=round(red_min_delta_a, 2), white_max_delta_a=round(white_max_delta_a, 2),
                    red_min_abs_a=round(red_min_abs_a, 2), white_max_abs_a=round(white_max_abs_a, 2),
                    red_min_chroma=round(red_min_chroma, 2))
    margins = {
        "delta_a_gap": round(red_da_min - white_da_max, 2),
        "abs_a_gap": round(red_abs_min - white_abs_max, 2),
        "red_margin_delta_a": round(red_da_min - rule.red_min_delta_a, 2),
        "white_margin_delta_a": round(rule.white_max_delta_a - white_da_max, 2),
        "red_margin_abs_a": round(red_abs_min - rule.red_min_abs_a, 2),
        "white_margin_abs_a": round(rule.white_max_abs_a - white_abs_max, 2),
        "red_margin_chroma": round(red_chroma_min - rule.red_min_chroma, 2),
        "undecided_band_delta_a": round(rule.red_min_delta_a - rule.white_max_delta_a, 2),
    }
    return rule, margins


def _passes(peak: tuple, rule: OutlineRule, frac: float = 1.0, sector_slack: int = 0,
            evenness_slack: float = 0.0) -> bool:
    """Would an outline peak (x, y, z, sectors, contrast_l, evenness) count under ``rule`` loosened by the margins?"""
    _, _, z, sectors, contrast, evenness = peak
    return (z >= frac * rule.min_z and contrast >= frac * rule.min_contrast_l
            and sectors >= rule.min_sectors - sector_slack and evenness >= rule.min_evenness - evenness_slack)


def learn_outline_rule(whites: list[tuple[float, int, float, float]],
                       plate_peaks: list[tuple[float, float, float, int, float, float]]
                       ) -> tuple[OutlineRule, dict, str]:
    """The studio's outline rule from the white faces seen by their outline, and the plate's own peaks.

    Each threshold is ``OUTLINE_TRUE_FRAC`` of the weakest white face's value
    (sectors: ``OUTLINE_SECTOR_SLACK`` fewer, evenness ``OUTLINE_EVENNESS_SLACK``
    lower), never stricter than the default and never below ``OUTLINE_FLOOR``.
    Then every plate peak must fail the rule even loosened by the plate margin
    (z and contrast times ``OUTLINE_PLATE_MARGIN_FRAC``, one sector fewer,
    evenness 0.1 lower); where one does not, the contrast (or else the z)
    threshold is raised above it by that margin, as long as every white face
    still passes.

    Returns
    -------
    rule, margins, note
        ``note`` is empty when the rule was learnt; otherwise the default rule
        is returned and the note says why (no white face was seen by its
        outline, or the plate's texture is as strong as the faces).
    """
    d, fl = DEFAULT_OUTLINE_RULE, OUTLINE_FLOOR
    if not whites:
        return d, {}, "no white face was found by its outline alone: the default outline rule is kept"
    zt = min(w[0] for w in whites)
    st = min(w[1] for w in whites)
    ct = min(w[2] for w in whites)
    et = min(w[3] for w in whites)
    min_z = max(fl.min_z, min(d.min_z, OUTLINE_TRUE_FRAC * zt))
    min_c = max(fl.min_contrast_l, min(d.min_contrast_l, OUTLINE_TRUE_FRAC * ct))
    min_s = max(fl.min_sectors, min(d.min_sectors, st - OUTLINE_SECTOR_SLACK))
    min_e = max(fl.min_evenness, min(d.min_evenness, et - OUTLINE_EVENNESS_SLACK))
    m = OUTLINE_PLATE_MARGIN_FRAC

    def offenders(rule):
        return [p for p in plate_peaks if _passes(p, rule, m, 1, 0.1)]

    rule = OutlineRule(round(min_z, 3), round(min_c, 3), int(min_s), round(min_e, 3))
    off = offenders(rule)
    if off:
        need_c = max(p[4] for p in off) / m + 1e-3
        need_z = max(p[2] for p in off) / m + 1e-3
        if need_c <= ct:
            rule = OutlineRule(rule.min_z, round(need_c, 3), rule.min_sectors, rule.min_evenness)
        elif need_z <= zt:
            rule = OutlineRule(round(need_z, 3), rule.min_contrast_l, rule.min_sectors, rule.min_evenness)
        off = offenders(rule)
        if off:
            worst = max(off, key=lambda p: p[4])
            return d, {}, (f"the plate shows outline marks as strong as the white faces (z {worst[2]:.1f}, contrast "
                           f"{worst[4]:.1f} L; the weakest white face: z {zt:.1f}, contrast {ct:.1f} L): the "
                           f"default outline rule is kept")
    if not all(_passes((0, 0) + w, rule) for w in whites):
        return d, {}, "the learnt outline rule would miss a calibrated white face: the default outline rule is kept"
    circles = [p for p in plate_peaks if p[3] >= rule.min_sectors - 1]
    margins = {
        "outline_white_min_z": round(zt, 2), "outline_white_min_contrast_l": round(ct, 2),
        "outline_white_min_sectors": float(st), "outline_white_min_evenness": round(et, 3),
        "outline_plate_peaks": float(len(plate_peaks)),
        "outline_plate_max_z": round(max((p[2] for p in circles), default=0.0), 2),
        "outline_plate_max_contrast_l": round(max((p[4] for p in circles), default=0.0), 2),
        "outline_white_margin_z": round(zt - rule.min_z, 2),
        "outline_white_margin_contrast_l": round(ct - rule.min_contrast_l, 2),
    }
    return rule, margins, ""


def _radius_range(r_frac: float) -> tuple[float, float]:
    """The profile's token radius range around the measured radius (``TOKEN_RADIUS_SLACK``)."""
    return (max(0.02, round(r_frac * (1 - TOKEN_RADIUS_SLACK), 4)), min(0.49, round(r_frac * (1 + TOKEN_RADIUS_SLACK), 4)))


def _colour_model(pixels: np.ndarray) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...]]:
    mean = pixels.mean(axis=0)
    cov = np.cov(pixels.T) if len(pixels) > 1 else np.zeros((3, 3))
    return (tuple(round(float(v), 3) for v in mean), tuple(tuple(round(float(v), 3) for v in row) for row in cov))


def calibrate_frames(frames: list[tuple[str, np.ndarray, str]], *, empty: tuple[str, np.ndarray, str] | None = None,
                     fixed_camera: bool = True, source: str = "profile.json",
                     created_at: str | None = None) -> CalibrationResult:
    """Learn a profile from decoded frames.

    Parameters
    ----------
    frames : list of (name, BGR uint8 image, sha256)
        2 to 5 frames, each the plate with four flat, separated tokens.
    empty : (name, image, sha256) or None
        A frame of the bare plate from the same camera (refines the plate model).
    fixed_camera : bool
        True (the studio case): all frames must show the plate in the same
        place and the profile will report a moved camera.  False: frames may
        come from different camera positions and the profile never checks the
        plate's position (colours and sizes only).
    source : str
        The profile's file name, used in the reader's messages.

    Returns
    -------
    CalibrationResult
        ``profile`` is None when any fatal problem was found.
    """
    problems: list[Problem] = []
    if not MIN_FRAMES <= len(frames) <= MAX_FRAMES:
        problems.append(Problem(None, f"need {MIN_FRAMES} to {MAX_FRAMES} frames of the plate with four flat "
                                f"tokens, got {len(frames)}", "frame_count"))
    measured: list[FrameMeasurement] = []
    for i, (name, image, sha) in enumerate(frames):
        m, p = measure_frame(image, name, sha, "tokens", i)
        measured.append(m)
        problems += p
    if empty is not None:
        m, p = measure_frame(empty[1], empty[0], empty[2], "empty", len(frames))
        measured.append(m)
        problems += p

    with_plate = [m for m in measured if m.plate is not None]
    # one camera position: every plate within tolerance of the first frame's
    tol = PlateTolerance()
    if fixed_camera and with_plate:
        ref = with_plate[0]
        for m in with_plate[1:]:
            why = plate_difference(ref.plate, m.plate, tol)
            if why:
                problems.append(Problem(m.name, f"taken from a different camera position than {ref.name}: {why}; "
                                        "all calibration frames must come from the studio's one camera position",
                                        "camera"))

    token_frames = [m for m in measured if m.role == "tokens" and m.plate is not None]
    faces = [f for m in token_frames for f in m.faces]
    labels: list[str] = []
    rule, margins = None, {}
    frame_level_ok = not any(p.fatal for p in problems)
    if frame_level_ok and faces:
        da = [f.delta_a for f in faces]
        default_faces = {default_colour(f) for f in faces}
        if (max(da) - min(da) < max(MIN_CLUSTER_GAP, SINGLE_COLOUR_REL_RANGE * abs(float(np.median(da))))
                or default_faces in ({"red"}, {"white"})):
            problems.append(Problem(None, f"need both colours among the calibration frames: all {len(faces)} faces "
                                    f"look alike (a* over the plate from {min(da):+.1f} to {max(da):+.1f}); "
                                    "turn some tokens over", "one_colour"))
        else:
            gap, k, spread = split_colours(da)
            if gap < MIN_CLUSTER_GAP or gap < MIN_GAP_SPREAD_RATIO * spread:
                problems.append(Problem(None, f"token colours too close to each other: the faces do not form two "
                                        f"well separated groups (widest a* gap {gap:.1f} Lab units, need "
                                        f"{MIN_CLUSTER_GAP:.0f} and {MIN_GAP_SPREAD_RATIO} x the spread "
                                        f"{spread:.1f})", "colours_close"))
            else:
                cut = sorted(da)[k]
                labels = ["red" if f.delta_a >= cut else "white" for f in faces]
                red = [f for f, lab in zip(faces, labels) if lab == "red"]
                white = [f for f, lab in zip(faces, labels) if lab == "white"]
                try:
                    rule, margins = learn_rule(red, white)
                except ValueError as exc:
                    problems.append(Problem(None, str(exc), "colours_close"))
                else:
                    for face_set, name in ((white, "white"), (red, "red")):
                        de = float(np.median([np.linalg.norm(f.delta) for f in face_set]))
                        if de < MIN_FACE_PLATE_DELTA_E:
                            problems.append(Problem(None, f"{name} faces barely differ from the plate (median "
                                                    f"colour difference {de:.1f} Lab units): the reader may miss "
                                                    f"them; a plate of another colour would help", "close_to_plate",
                                                    fatal=False))
                    clipped = clipped_whites(token_frames, labels)
                    if clipped:
                        level, frame = max(clipped)
                        problems.append(Problem(frame, f"{len(clipped)} white face(s) at the sensor's ceiling in "
                                                f"red (level up to {level:.0f}; the reader needs {WHITE_CEILING_RED_LEVEL - 1} or "
                                                f"less): a washed-out red looks the same, so the reader abstains "
                                                f"on every round of four whites (1 in 16); lower the exposure",
                                                "whites_clipped", fatal=False))
                    # the learnt rule must read every calibration face as its group
                    for m in token_frames:
                        for f in m.faces:
                            got = classify_face(m.view, f.x, f.y, f.radius, rule).face
                            want = "red" if f.delta_a >= cut else "white"
                            if got != want:
                                problems.append(Problem(m.name, f"a {want} face at canonical ({f.x:.0f}, {f.y:.0f}) "
                                                        f"reads {got} with the learnt thresholds", "self_check"))

    outline_rule, outline_note = DEFAULT_OUTLINE_RULE, ""
    if rule is not None and not any(p.fatal for p in problems):
        whites = [f.outline for f, lab in zip(faces, labels) if lab == "white" and f.outline is not None]
        peaks = [p for m in token_frames for p in m.plate_peaks]
        outline_rule, outline_margins, outline_note = learn_outline_rule(whites, peaks)
        margins = {**margins, **outline_margins}
        if outline_note:
            problems.append(Problem(None, outline_note, "outline_default", fatal=False))

    profile = None
    if not any(p.fatal for p in problems) and rule is not None:
        ref_frames = [m for m in measured if m.plate is not None]
        empty_m = [m for m in ref_frames if m.role == "empty"]
        ellipse = mean_ellipse([m.plate for m in (empty_m or ref_frames)])
        plate_px = np.concatenate([m.plate_pixels for m in (empty_m or ref_frames)])
        r_frac = float(np.median([m.token_radius_frac for m in token_frames]))
        lo, hi = _radius_range(r_frac)
        models = {}
        for name in ("red", "white"):
            group = [f for f, lab in zip(faces, labels) if lab == name]
            mean, cov = _colour_model(np.concatenate([f.pixels for f in group]))
            delta = tuple(round(float(v), 3) for v in np.mean([f.delta for f in group], axis=0))
            models[name] = FaceModel(mean, cov, delta, len(group))
        pc_mean, pc_cov = _colour_model(plate_px)
        homography = plate_to_canonical(ellipse, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
        profile = Profile(
            created_at=created_at or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            frames=tuple({"path": m.name, "sha256": m.sha256, "role": m.role} for m in measured),
            plate=Ellipse(*(round(v, 3) for v in (ellipse.cx, ellipse.cy, ellipse.a, ellipse.b)),
                          round(ellipse.angle_deg, 3) % 180.0),
            homography=tuple(tuple(round(float(v), 6) for v in row) for row in homography),
            fixed_camera=fixed_camera, tolerance=tol, plate_colour=ColourModel(pc_mean, pc_cov),
            token_radius_frac=(lo, hi), red=models["red"], white=models["white"], face_rule=rule,
            outline_rule=outline_rule, margins=margins, source=source)
        # the profile's settings must find exactly the four tokens of every calibration frame
        settings = profile.reader_settings()
        for m in token_frames:
            got = find_tokens(m.view, token_radius_frac=settings.token_radius_frac, outline_rule=settings.outline_rule,
                              min_blob_threshold_lab=m.blob_floor_lab)
            flat = [c for c in got.candidates if c.kind in FLAT_KINDS]
            r_px = m.token_radius_frac * m.view.plate_radius_px
            matched = all(any(math.hypot(c.x - f.x, c.y - f.y) < r_px for c in flat) for f in m.faces)
            if len(got.candidates) != 4 or len(flat) != 4 or not matched:
                problems.append(Problem(m.name, f"with the learnt settings the reader finds "
                                        f"{', '.join(c.kind for c in got.candidates) or 'nothing'} here, not the "
                                        f"four calibrated tokens", "self_check"))
        if any(p.fatal for p in problems):
            profile = None
    return CalibrationResult(profile=profile, frames=tuple(measured), problems=tuple(problems),
                             face_labels=tuple(labels), rule=rule, margins=margins,
                             outline_rule=outline_rule if rule is not None else None)


def load_frame_file(path: str, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> tuple[np.ndarray | None, str, str]:
    """(image or None, sha256 of the file or "", error message or "")."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return None, "", f"cannot read the file: {exc.strerror or exc}"
    try:
        return decode_image(data, name=path, max_pixels=max_pixels), sha256_of(data), ""
    except FrameError as exc:
        msg = str(exc)
        return None, sha256_of(data), msg[len(path) + 2:] if msg.startswith(path + ": ") else msg


def calibrate_files(paths: list[str], *, empty: str | None = None, fixed_camera: bool = True,
                    source: str = "profile.json") -> CalibrationResult:
    """:func:`calibrate_frames` on image files; an unreadable file is a problem naming it."""
    problems: list[Problem] = []
    frames = []
    for p in paths:
        img, sha, err = load_frame_file(p)
        if img is None:
            problems.append(Problem(p, f"unreadable: {err}", "unreadable"))
        else:
            frames.append((p, img, sha))
    empty_frame = None
    if empty is not None:
        img, sha, err = load_frame_file(empty)
        if img is None:
            problems.append(Problem(empty, f"unreadable: {err}", "unreadable"))
        else:
            empty_frame = (empty, img, sha)
    if problems:
        # still measure what could be read, so the report shows it
        res = calibrate_frames(frames, empty=empty_frame, fixed_camera=fixed_camera, source=source)
        extra = tuple(p for p in res.problems if p.code != "frame_count") if len(paths) >= MIN_FRAMES else res.problems
        return CalibrationResult(profile=None, frames=res.frames, problems=tuple(problems) + extra,
                                 face_labels=res.face_labels, rule=res.rule, margins=res.margins)
    return calibrate_frames(frames, empty=empty_frame, fixed_camera=fixed_camera, source=source)
