"""Learn a studio profile from 2 to 5 frames of the plate with four flat, separated tokens.

Nobody tells the tool the tokens' colours.  Each frame goes through the
reader's own stages (:func:`vision.plate.find_plate`,
:func:`vision.canonical.make_canonical_view`, :func:`vision.tokens.find_tokens`
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
                          WHITE_MAX_DELTA_A, FaceRule, classify_face)
from vision.io import DEFAULT_MAX_PIXELS, decode_image
from vision.plate import find_plate, plate_to_canonical
from vision.reader import OVERLAP_MAX_CENTRE_DIST_RADII, is_colourless
from vision.tokens import Candidate, find_tokens
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


def _face_sample(view: CanonicalView, c: Candidate, r: float, idx: int) -> FaceSample:
    radius = c.radius if c.kind == "disc" else r
    fr = classify_face(view, c.x, c.y, radius)  # the reader's own measurement
    r_in = max(1.0, FACE_SAMPLE_FRAC * radius)
    rr, cc = np.ogrid[0:view.canvas_px, 0:view.canvas_px]
    sel = (cc - c.x) ** 2 + (rr - c.y) ** 2 <= r_in ** 2
    face, plate = view.lab[sel], view.background[sel]
    lab = np.median(face, axis=0)
    delta_b = float(np.median(face[:, 2]) - np.median(plate[:, 2]))
    return FaceSample(idx, c.x, c.y, radius, (fr.delta_l, fr.delta_a, delta_b),
                      tuple(float(v) for v in lab), fr.chroma, face.astype(np.float32))


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
    view = make_canonical_view(image, plate.ellipse)
    search = find_tokens(view)
    cands = search.candidates
    r = search.token_radius_px
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
                                 plate_pixels=plate_pixels, plate_l=plate_l, glare_frac=glare), problems)

    kinds = [c.kind for c in cands]
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
    elif len(flat) < 4:
        problems.append(Problem(name, f"fewer than four tokens visible: found {len(flat)} flat token(s); "
                                "lay four tokens flat and apart on the plate (if a token is there, it is too "
                                "close to the plate's colour to be seen)", "too_few"))
    elif len(flat) > 4:
        problems.append(Problem(name, f"{len(flat)} token-like discs found, expected four", "too_many"))
    faces = tuple(_face_sample(view, c, r, index) for c in flat)
    return (FrameMeasurement(name, sha256, role, image, plate.ellipse, plate.reason, view, tuple(cands),
                             token_radius_frac=r / view.plate_radius_px, faces=faces, plate_pixels=plate_pixels,
                             plate_l=plate_l, glare_frac=glare), problems)


# ---------------------------------------------------------------------------
# across frames
# ---------------------------------------------------------------------------
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
                    # the learnt rule must read every calibration face as its group
                    for m in token_frames:
                        for f in m.faces:
                            got = classify_face(m.view, f.x, f.y, f.radius, rule).face
                            want = "red" if f.delta_a >= cut else "white"
                            if got != want:
                                problems.append(Problem(m.name, f"a {want} face at canonical ({f.x:.0f}, {f.y:.0f}) "
                                                        f"reads {got} with the learnt thresholds", "self_check"))

    profile = None
    if not any(p.fatal for p in problems) and rule is not None:
        ref_frames = [m for m in measured if m.plate is not None]
        empty_m = [m for m in ref_frames if m.role == "empty"]
        ellipse = mean_ellipse([m.plate for m in (empty_m or ref_frames)])
        plate_px = np.concatenate([m.plate_pixels for m in (empty_m or ref_frames)])
        r_frac = float(np.median([m.token_radius_frac for m in token_frames]))
        lo = max(0.02, round(r_frac * (1 - TOKEN_RADIUS_SLACK), 4))
        hi = min(0.49, round(r_frac * (1 + TOKEN_RADIUS_SLACK), 4))
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
            margins=margins, source=source)
    return CalibrationResult(profile=profile, frames=tuple(measured), problems=tuple(problems),
                             face_labels=tuple(labels), rule=rule, margins=margins)


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
