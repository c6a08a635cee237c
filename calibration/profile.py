"""The studio profile: what ``xocdia calibrate`` learnt about one studio.

A profile is a versioned JSON file::

    {"format": "xocdia-profile", "version": 2, "created_at": "2024-05-01T12:00:00Z",
     "frames": [{"path": "cal/a.jpg", "sha256": "...", "role": "tokens"}, ...],
     "plate": {"cx", "cy", "a", "b", "angle_deg",           # mean rim ellipse, source px
               "homography": [[...], [...], [...]],         # source px -> canonical px
               "fixed_camera": true,                       # false: any camera position is accepted
               "tolerance": {"centre_frac", "axes_frac", "angle_deg"}},
     "plate_colour": {"lab_mean": [L, a, b], "lab_cov": 3x3},
     "token_radius_frac": [lo, hi],                          # fraction of the plate radius
     "faces": {"red":   {"lab_mean", "lab_cov", "delta_mean", "n"},
               "white": {"lab_mean", "lab_cov", "delta_mean", "n"}},
     "thresholds": {"red_min_delta_a", "white_max_delta_a", "red_min_abs_a", "white_max_abs_a",
                    "red_min_chroma", "margins": {name: float}},
     "outline_rule": {"min_z", "min_contrast_l", "min_sectors", "min_evenness"}}   # version >= 2

``outline_rule`` says when a dark outline alone counts as a pale face (see
:class:`vision.tokens.OutlineRule`), learnt from the white faces of the
calibration frames and the plate's own outline marks.

Lab values are CIE L*a*b* units (see :mod:`vision.colour`); ``delta_mean`` is
the face minus the plate right next to it.  :func:`load_profile` validates
every field and raises :class:`vision.errors.ProfileError` naming the file
and the field.  The reader uses a profile through two methods only:
:meth:`Profile.reader_settings` and :meth:`Profile.check_plate`.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.colour import lab_to_bgr
from vision.errors import ProfileError
from vision.faces import FaceRule
from vision.reader import LightReference, ReaderSettings
from vision.tokens import DEFAULT_OUTLINE_RULE, DEFAULT_TOKEN_RADIUS_FRAC, OUTLINE_SECTORS, OutlineRule
from vision.types import Ellipse

FORMAT = "xocdia-profile"
#: Version 2 added ``outline_rule``; version 1 files are still read (default outline rule).
VERSION = 2

#: The plate may move this much before the reader says the camera moved:
#: centre, fraction of the semi-major axis ...
CENTRE_TOLERANCE_FRAC = 0.04
#: ... each semi-axis, relative ...
AXES_TOLERANCE_FRAC = 0.06
#: ... and the major axis' angle, degrees (only checked when the rim is
#: clearly elliptical, see ANGLE_MIN_FLATTENING).
ANGLE_TOLERANCE_DEG = 8.0
#: 1 - b/a above which the ellipse's angle is meaningful.
ANGLE_MIN_FLATTENING = 0.04

#: A profile is a few kilobytes; anything much larger is not one.
MAX_PROFILE_CHARS = 1_000_000

THRESHOLD_FIELDS = ("red_min_delta_a", "white_max_delta_a", "red_min_abs_a", "white_max_abs_a", "red_min_chroma")


@dataclass(frozen=True)
class PlateTolerance:
    centre_frac: float = CENTRE_TOLERANCE_FRAC
    axes_frac: float = AXES_TOLERANCE_FRAC
    angle_deg: float = ANGLE_TOLERANCE_DEG


@dataclass(frozen=True)
class ColourModel:
    """Lab mean (3) and covariance (3x3) of a set of pixels, Lab units."""

    lab_mean: tuple[float, float, float]
    lab_cov: tuple[tuple[float, float, float], ...]


@dataclass(frozen=True)
class FaceModel:
    """One face colour: absolute Lab model, mean Lab difference from the plate, number of faces seen."""

    lab_mean: tuple[float, float, float]
    lab_cov: tuple[tuple[float, float, float], ...]
    delta_mean: tuple[float, float, float]
    n: int


def plate_difference(expected: Ellipse, seen: Ellipse, tol: PlateTolerance) -> str | None:
    """Why ``seen`` is not the plate at ``expected`` (a short phrase), or None when it is within ``tol``."""
    d = math.hypot(seen.cx - expected.cx, seen.cy - expected.cy)
    if d > tol.centre_frac * expected.a:
        return (f"plate centre ({seen.cx:.0f}, {seen.cy:.0f}) is {d:.0f} px from ({expected.cx:.0f}, "
                f"{expected.cy:.0f}) (tolerance {tol.centre_frac * expected.a:.0f} px)")
    for name, e, s in (("semi-major axis", expected.a, seen.a), ("semi-minor axis", expected.b, seen.b)):
        if abs(s - e) > tol.axes_frac * e:
            return f"plate {name} is {s:.0f} px, expected {e:.0f} px (tolerance {tol.axes_frac:.0%})"
    flat = max(1.0 - expected.b / expected.a, 1.0 - seen.b / seen.a)
    if flat > ANGLE_MIN_FLATTENING:
        da = abs(seen.angle_deg - expected.angle_deg) % 180.0
        da = min(da, 180.0 - da)
        if da > tol.angle_deg:
            return (f"plate axis angle is {seen.angle_deg:.0f} deg, expected {expected.angle_deg:.0f} deg "
                    f"(tolerance {tol.angle_deg:.0f} deg)")
    return None


@dataclass(frozen=True)
class Profile:
    """A loaded (or freshly learnt) studio profile; see the module docstring.

    ``source`` is the file it was loaded from (or will be saved to), used in
    messages; it is not stored in the JSON.
    """

    created_at: str
    frames: tuple[dict, ...]
    plate: Ellipse
    homography: tuple[tuple[float, float, float], ...]
    fixed_camera: bool
    tolerance: PlateTolerance
    plate_colour: ColourModel
    token_radius_frac: tuple[float, float]
    red: FaceModel
    white: FaceModel
    face_rule: FaceRule
    outline_rule: OutlineRule = DEFAULT_OUTLINE_RULE
    margins: dict = field(default_factory=dict)
    version: int = VERSION
    source: str = field(default="<profile>", compare=False)

    # -- the reader's interface -------------------------------------------------
    def reader_settings(self) -> ReaderSettings:
        """The reader's settings: the learnt face rule; the learnt token radius as the floor of the search range.

        The ceiling stays at least the default's: :func:`vision.tokens.find_tokens`
        uses the range both as the token size and as the ceiling of its radius
        scan, and a tight ceiling let a bowl's shading and overlapping pairs
        pass as token-sized faint discs (measured on studio s1: a covered frame
        read ``rearrange``, an overlap ``uncertain``).  See the report's
        proposed reader hook (a separate expected radius).
        """
        lo, hi = self.token_radius_frac
        return ReaderSettings(token_radius_frac=(lo, max(hi, DEFAULT_TOKEN_RADIUS_FRAC[1])), face_rule=self.face_rule,
                              outline_rule=self.outline_rule, light=self.light_reference())

    def light_reference(self) -> LightReference | None:
        """The studio's light at calibration: the plate's mean L* and the red faces' green.

        The green is the camera's 8-bit level of the red faces' mean Lab (the
        reader's Lab: OpenCV's 8-bit conversion, see :mod:`vision.colour`).
        None when the plate's L* is not strictly between 0 and 100 or the
        green is 0 (nothing to scale).
        """
        plate_l = float(self.plate_colour.lab_mean[0])
        green = float(lab_to_bgr(np.asarray(self.red.lab_mean, np.float64).reshape(1, 1, 3))[0, 0, 1])
        if not 0.0 < plate_l < 100.0 or green <= 0.0:
            return None
        return LightReference(plate_l=plate_l, red_green_level=green)

    def check_plate(self, ellipse: Ellipse) -> str | None:
        """A reason naming the profile when the plate is not where the profile expects it, else None."""
        if not self.fixed_camera:
            return None
        why = plate_difference(self.plate, ellipse, self.tolerance)
        if why is None:
            return None
        return (f"camera moved since calibration: {why} in profile {self.source}; "
                f"recalibrate with xocdia calibrate")

    # -- serialisation ----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        r = self.face_rule
        return {
            "format": FORMAT,
            "version": self.version,
            "created_at": self.created_at,
            "frames": [dict(f) for f in self.frames],
            "plate": {**{k: float(v) for k, v in (("cx", self.plate.cx), ("cy", self.plate.cy), ("a", self.plate.a),
                                                   ("b", self.plate.b), ("angle_deg", self.plate.angle_deg))},
                      "homography": [[float(v) for v in row] for row in self.homography],
                      "fixed_camera": bool(self.fixed_camera),
                      "tolerance": {"centre_frac": self.tolerance.centre_frac, "axes_frac": self.tolerance.axes_frac,
                                    "angle_deg": self.tolerance.angle_deg}},
            "plate_colour": {"lab_mean": list(self.plate_colour.lab_mean),
                             "lab_cov": [list(row) for row in self.plate_colour.lab_cov]},
            "token_radius_frac": list(self.token_radius_frac),
            "faces": {name: {"lab_mean": list(m.lab_mean), "lab_cov": [list(row) for row in m.lab_cov],
                             "delta_mean": list(m.delta_mean), "n": m.n}
                      for name, m in (("red", self.red), ("white", self.white))},
            "thresholds": {**{k: float(getattr(r, k)) for k in THRESHOLD_FIELDS},
                           "margins": {k: float(v) for k, v in self.margins.items()}},
            "outline_rule": {"min_z": float(self.outline_rule.min_z),
                             "min_contrast_l": float(self.outline_rule.min_contrast_l),
                             "min_sectors": int(self.outline_rule.min_sectors),
                             "min_evenness": float(self.outline_rule.min_evenness)},
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the JSON (atomically: a temporary file renamed over ``path``)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)


# ---------------------------------------------------------------------------
# loading and validation
# ---------------------------------------------------------------------------
class _Checker:
    """Field access with messages of the form ``FILE: FIELD: expected ..., got ...``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, what: str) -> ProfileError:
        return ProfileError(f"{self.source}: {where}: {what}" if where else f"{self.source}: {what}")

    def obj(self, d: Any, where: str) -> dict:
        if not isinstance(d, dict):
            raise self.fail(where, f"expected an object, got {type(d).__name__}")
        return d

    def get(self, d: dict, key: str, where: str) -> Any:
        if key not in d:
            raise self.fail(f"{where}.{key}" if where else key, "missing field")
        return d[key]

    def num(self, v: Any, where: str, *, positive: bool = False) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise self.fail(where, f"expected a finite number, got {v!r}")
        if positive and not v > 0:
            raise self.fail(where, f"expected a number > 0, got {v!r}")
        return float(v)

    def vec(self, v: Any, n: int, where: str) -> tuple[float, ...]:
        if not isinstance(v, list) or len(v) != n:
            raise self.fail(where, f"expected a list of {n} numbers, got {v!r}")
        return tuple(self.num(x, f"{where}[{i}]") for i, x in enumerate(v))

    def mat(self, v: Any, n: int, where: str) -> tuple[tuple[float, ...], ...]:
        if not isinstance(v, list) or len(v) != n:
            raise self.fail(where, f"expected a {n}x{n} list of lists, got {v!r}")
        return tuple(self.vec(row, n, f"{where}[{i}]") for i, row in enumerate(v))

    def field(self, d: dict, key: str, where: str, kind: str = "num", **kw) -> Any:
        full = f"{where}.{key}" if where else key
        v = self.get(d, key, where)
        if kind == "num":
            return self.num(v, full, **kw)
        if kind == "vec":
            return self.vec(v, kw["n"], full)
        if kind == "mat":
            return self.mat(v, kw["n"], full)
        if kind == "obj":
            return self.obj(v, full)
        if kind == "str":
            if not isinstance(v, str) or not v:
                raise self.fail(full, f"expected a non-empty string, got {v!r}")
            return v
        if kind == "bool":
            if not isinstance(v, bool):
                raise self.fail(full, f"expected true or false, got {v!r}")
            return v
        raise AssertionError(kind)


def profile_from_dict(data: Any, source: str = "<profile>") -> Profile:
    """Validate a parsed profile and build the :class:`Profile`; raises ProfileError naming ``source``."""
    ck = _Checker(source)
    if not isinstance(data, dict):
        raise ck.fail("", f"expected a JSON object at the top level, got {type(data).__name__}")
    fmt = ck.get(data, "format", "")
    if fmt != FORMAT:
        raise ck.fail("format", f"expected {FORMAT!r}, got {fmt!r} (not an xocdia profile)")
    version = ck.get(data, "version", "")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ck.fail("version", f"expected a positive integer, got {version!r}")
    if version > VERSION:
        raise ck.fail("version", f"profile version {version} is newer than this xocdia understands "
                      f"(up to {VERSION}); upgrade xocdia or recalibrate")
    created_at = ck.field(data, "created_at", "", "str")

    frames_raw = ck.get(data, "frames", "")
    if not isinstance(frames_raw, list) or not frames_raw:
        raise ck.fail("frames", f"expected a non-empty list, got {frames_raw!r}")
    frames = []
    for i, fr in enumerate(frames_raw):
        w = f"frames[{i}]"
        ck.obj(fr, w)
        path = ck.field(fr, "path", w, "str")
        sha = ck.field(fr, "sha256", w, "str")
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            raise ck.fail(f"{w}.sha256", f"expected 64 lowercase hex digits, got {sha!r}")
        frames.append({"path": path, "sha256": sha, "role": str(fr.get("role", "tokens"))})

    plate = ck.field(data, "plate", "", "obj")
    vals = {k: ck.field(plate, k, "plate", positive=k in ("a", "b")) for k in ("cx", "cy", "a", "b", "angle_deg")}
    try:
        ellipse = Ellipse(**vals)
    except ValueError as exc:
        raise ck.fail("plate", str(exc)) from None
    homography = ck.field(plate, "homography", "plate", "mat", n=3)
    fixed = ck.field(plate, "fixed_camera", "plate", "bool")
    tol_raw = ck.field(plate, "tolerance", "plate", "obj")
    tolerance = PlateTolerance(**{k: ck.field(tol_raw, k, "plate.tolerance", positive=True)
                                  for k in ("centre_frac", "axes_frac", "angle_deg")})

    pc = ck.field(data, "plate_colour", "", "obj")
    plate_colour = ColourModel(ck.field(pc, "lab_mean", "plate_colour", "vec", n=3),
                               ck.field(pc, "lab_cov", "plate_colour", "mat", n=3))

    trf = ck.field(data, "token_radius_frac", "", "vec", n=2)
    if not 0 < trf[0] < trf[1] < 0.5:
        raise ck.fail("token_radius_frac", f"expected 0 < lo < hi < 0.5, got {list(trf)}")

    faces = ck.field(data, "faces", "", "obj")
    models = {}
    for name in ("red", "white"):
        w = f"faces.{name}"
        m = ck.field(faces, name, "faces", "obj")
        n = ck.get(m, "n", w)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ck.fail(f"{w}.n", f"expected a positive integer, got {n!r}")
        models[name] = FaceModel(ck.field(m, "lab_mean", w, "vec", n=3), ck.field(m, "lab_cov", w, "mat", n=3),
                                 ck.field(m, "delta_mean", w, "vec", n=3), n)

    th = ck.field(data, "thresholds", "", "obj")
    rule_vals = {k: ck.field(th, k, "thresholds") for k in THRESHOLD_FIELDS}
    try:
        rule = FaceRule(**rule_vals)
    except ValueError as exc:
        raise ck.fail("thresholds", str(exc)) from None
    margins_raw = ck.field(th, "margins", "thresholds", "obj")
    margins = {str(k): ck.num(v, f"thresholds.margins.{k}") for k, v in margins_raw.items()}

    outline_rule = DEFAULT_OUTLINE_RULE
    if version >= 2 or "outline_rule" in data:
        orl = ck.field(data, "outline_rule", "", "obj")
        min_z = ck.field(orl, "min_z", "outline_rule", positive=True)
        min_c = ck.field(orl, "min_contrast_l", "outline_rule", positive=True)
        sectors = ck.get(orl, "min_sectors", "outline_rule")
        if isinstance(sectors, bool) or not isinstance(sectors, int) or not 1 <= sectors <= OUTLINE_SECTORS:
            raise ck.fail("outline_rule.min_sectors", f"expected an integer from 1 to {OUTLINE_SECTORS}, "
                          f"got {sectors!r}")
        evenness = ck.field(orl, "min_evenness", "outline_rule")
        if not -1.0 <= evenness <= 1.0:
            raise ck.fail("outline_rule.min_evenness", f"expected a number from -1 to 1, got {evenness!r}")
        outline_rule = OutlineRule(min_z, min_c, sectors, evenness)

    return Profile(created_at=created_at, frames=tuple(frames), plate=ellipse, homography=homography,
                   fixed_camera=fixed, tolerance=tolerance, plate_colour=plate_colour,
                   token_radius_frac=(trf[0], trf[1]), red=models["red"], white=models["white"], face_rule=rule,
                   outline_rule=outline_rule, margins=margins, version=version, source=source)


def load_profile(path: str | os.PathLike) -> Profile:
    """Read and validate a profile file.

    Raises
    ------
    ProfileError
        The file cannot be read, is not JSON, is not a profile, is from a newer
        version, or a field is missing or of the wrong type; the message names
        the file and the field.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{source}: cannot read profile: {exc}") from None
    if len(text) > MAX_PROFILE_CHARS:
        raise ProfileError(f"{source}: too large for a profile ({len(text)} characters, at most {MAX_PROFILE_CHARS})")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of 5000 digits, nesting 100000 deep
        raise ProfileError(f"{source}: not a usable JSON profile ({type(exc).__name__}: {str(exc)[:120]})") from None
    return profile_from_dict(data, source)
