"""Synthetic, labelled Xoc Dia table scenes.

:func:`render_scene` draws every condition of a scene (camera, light, plate
glaze, cloth, token colours, noise, blur, JPEG quality) from one integer
seed, builds the scene in 3D (plate radius ``R = 1``, table plane ``z = 0``),
projects it through a pinhole camera and returns the frame with a label that
comes only from how the scene was made.

Kinds and the verdict each implies are in :data:`KIND_VERDICTS`; the label
format is described in ``samples/README.md``.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from . import synth_paint as sp
from .synth_render import (Camera, Canvas, Light, blackbody_gain, make_camera, motion_kernel, rot_axis,
                           srgb_to_linear, tone_map)

#: kind -> verdict ("stick" is "outcome" or "uncertain", decided by the scene).
KIND_VERDICTS: dict[str, str] = {
    "outcome": "outcome", "touching": "outcome", "tilted": "outcome", "overlap": "rearrange",
    "upright": "reshake", "offplate": "reshake", "three_tokens": "reshake", "five_tokens": "reshake",
    "covered": "covered", "stick": "outcome", "no_plate": "no_plate",
}
KINDS: tuple[str, ...] = tuple(KIND_VERDICTS)

GLAZES = {  # name: (sRGB albedo, specular, shininess)
    "white_porcelain": ((236, 236, 232), 0.22, 60.0), "cream": ((236, 222, 188), 0.2, 50.0),
    "gold": ((214, 170, 82), 0.35, 30.0), "pale_blue": ((188, 208, 232), 0.2, 60.0),
    "celadon": ((176, 204, 180), 0.22, 60.0), "black_lacquer": ((24, 21, 21), 0.3, 90.0),
}
CLOTHS = {  # name: (sRGB albedo, sRGB alternate (wood grain), textures)
    "green": ((28, 104, 52), (0, 0, 0), ("felt", "weave")), "red": ((132, 22, 28), (0, 0, 0), ("felt", "weave")),
    "blue": ((26, 42, 112), (0, 0, 0), ("felt", "weave")), "black": ((24, 24, 26), (0, 0, 0), ("felt", "weave")),
    "wood": ((132, 82, 44), (74, 42, 20), ("wood",)), "beige": ((202, 182, 146), (0, 0, 0), ("weave", "felt")),
}
REDS = {"classic": (200, 32, 36), "orange_red": (226, 72, 36), "crimson": (178, 20, 52),
        "dark_red": (124, 16, 22), "pinkish": (222, 98, 118)}
WHITES = {"cool": (232, 238, 246), "warm": (246, 238, 222), "ivory": (240, 233, 208), "grey": (206, 206, 200)}
BOWLS = {"grey": ((150, 150, 152), 0.2, 30.0), "metallic": ((120, 122, 128), 0.9, 60.0),
         "white_ceramic": ((232, 230, 224), 0.3, 50.0), "dark": ((44, 40, 38), 0.3, 40.0),
         "blue_white": ((200, 212, 230), 0.3, 50.0)}
SKINS = ((224, 172, 140), (198, 140, 104), (150, 100, 70), (96, 62, 44))
ROD_COLOURS = ((96, 60, 30), (60, 36, 18), (26, 22, 20), (140, 96, 56))
BLURS = ("none", "defocus", "motion")
#: How the upper token of an ``overlap`` scene lies: ``raised`` (flat, a
#: token's thickness up, as if on a pile) or ``leaning`` (its far edge on the
#: well, its near edge on the face under it: tilted by asin(thickness / diameter)).
OVERLAP_STYLES = ("raised", "leaning")
#: A leaning token's centre lies this many token radii from the centre of the
#: face it rests on (in the plate's plane): its near edge rests from that
#: face's centre (1.0) to a quarter radius inside its edge (1.75).  Resting
#: less far on it, the hidden sliver is within the camera's parallax of two
#: faces touching (a leaning face is raised up to twice a token's thickness),
#: and the rearrange the rule sheet asks for turns no face.
LEAN_OFFSET_RADII = (1.0, 1.75)

#: Condition names a caller may set through ``conditions=`` (others are refused).
CONDITION_KEYS = (
    "tilt_deg", "yaw_deg", "distance_R", "plate_frac", "offset_x_frac", "offset_y_frac", "kelvin",
    "exposure_stops", "noise_sigma", "blur", "blur_sigma_px", "motion_length_px", "motion_angle_deg",
    "jpeg_quality", "glaze", "cloth", "cloth_texture", "token_radius_frac", "token_thickness_frac",
    "red_style", "white_style", "token_body", "bowl", "light_x_R", "light_y_R", "light_height_R", "ambient",
    "vignette", "shadow_strength", "overlap_style", "plate_decor", "decor_colour", "fifth_place",
)
#: Painted decoration of the plate (``plate_decor``), never drawn: plain
#: unless the caller sets it, so every scene drawn before it existed is the
#: same.  Its details (and ``decor_colour`` when not set) come from a random
#: stream of their own (``[seed, 4]``); see :func:`vision.synth_paint.decor_coverage`.
DECORS = ("plain", "speckle", "rings", "motif")
#: Paint colours of a decoration (sRGB), and the ones each kind picks from.
DECOR_COLOURS = {"cobalt": (38, 66, 150), "iron": (92, 70, 52), "red": (176, 40, 36), "gold": (196, 152, 64),
                 "black": (30, 28, 28)}
DECOR_PALETTES = {"speckle": ("iron", "black"), "rings": ("cobalt", "red", "gold", "black"),
                  "motif": ("cobalt", "cobalt", "cobalt", "red")}
#: Where the fifth token of a ``five_tokens`` scene lies (``fifth_place``), never
#: drawn: ``free`` (unless the caller sets it: every scene drawn before it
#: existed is the same) is anywhere on the well like the other four, at least
#: :data:`SPOT_SEP_RADII` token radii from each; ``touching`` puts its centre
#: :data:`FIFTH_TOUCH_RADII` token radii from one of the four (edges touching
#: or nearly; at least 2.0 from the other three); ``wall`` puts it at the foot
#: of the well's wall, its edge at most :data:`FIFTH_WALL_GAP_RADII` token radii
#: inside the wall's foot (``well_R``: as far out as a flat token can lie), at
#: least :data:`SPOT_SEP_RADII` from the other four.  The free placement
#: reaches neither (two tokens are kept 2.4 radii apart, and a spot at the
#: wall's foot is a thin ring of the well).  The fifth's spot comes from a
#: random stream of its own (``[seed, 5]``), after the four's, which are drawn
#: as a four-token scene's are; its face is drawn with the others'.  Only
#: ``five_tokens`` (another kind with it set is refused): there a token the
#: reader misses, where its evidence is weakest, turns a reshake into a wrong
#: outcome; on a four-token scene a missed token leaves three (a reshake), a
#: touching pair is the ``touching`` kind already, and a face by the wall read
#: in the wrong colour is another question (another key, if ever).  The label's conditions keep the
#: placement (``fifth_gap_radii``: centre to nearest centre; ``fifth_wall_gap_radii``:
#: edge to the wall's foot, both in token radii) and the fifth is the last token.
FIFTH_PLACES = ("free", "touching", "wall")
#: Centre distance of two tokens placed apart, in token radii (``build_layout``).
SPOT_SEP_RADII = 2.4
#: Range of the centre distance of a touching fifth token to its neighbour, token radii.
FIFTH_TOUCH_RADII = (2.0, 2.4)
#: Largest gap from a wall fifth token's edge to the wall's foot, token radii.
FIFTH_WALL_GAP_RADII = 0.05


def source_digest() -> str:
    """First 12 hex digits of the SHA-256 of the synthesizer's source files
    (``synth.py``, ``synth_paint.py``, ``synth_render.py``): a cache of rendered
    scenes named with it is not read after the synthesizer changes."""
    h = hashlib.sha256()
    for name in ("synth.py", "synth_paint.py", "synth_render.py"):
        h.update((Path(__file__).with_name(name)).read_bytes())
    return h.hexdigest()[:12]


@dataclass(frozen=True)
class Scene:
    """A rendered scene.

    Attributes
    ----------
    image : ndarray, uint8, (H, W, 3)
        BGR frame; after the JPEG round trip when ``jpeg_bytes`` is not None.
    label : dict
        JSON-serialisable label (see ``samples/README.md``).
    jpeg_bytes : bytes or None
        The encoded JPEG whose decoding is ``image``, or None (no JPEG drawn).
    """

    image: np.ndarray
    label: dict = field(repr=False)
    jpeg_bytes: bytes | None = field(default=None, repr=False)


# ---------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------
def check_seed(seed: Any, name: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name}: expected a non-negative int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"{name}: expected a non-negative int, got {seed}")
    return int(seed)


def check_size(size: Any, name: str = "size") -> tuple[int, int]:
    if not isinstance(size, (tuple, list)) or len(size) != 2:
        raise TypeError(f"{name}: expected (width, height), got {size!r}")
    w, h = size
    for v in (w, h):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name}: expected two ints (width, height), got {size!r}")
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise ValueError(f"{name}: expected width and height in [64, 8192] px, got {w}x{h}")
    return int(w), int(h)


def check_kind(kind: Any) -> str | None:
    if kind is None:
        return None
    if not isinstance(kind, str) or kind not in KIND_VERDICTS:
        raise ValueError(f"kind: expected one of {KINDS} or None, got {kind!r}")
    return kind


# ---------------------------------------------------------------------------
# conditions
# ---------------------------------------------------------------------------
def draw_conditions(rng: np.random.Generator, size: tuple[int, int], overrides: dict | None) -> dict:
    """Draw every scene condition (a JSON-able dict), then apply ``overrides``."""
    if overrides is not None and not isinstance(overrides, dict):
        raise TypeError(f"conditions: expected a dict or None, got {type(overrides).__name__}")
    w, h = size
    c: dict[str, Any] = {}
    c["tilt_deg"] = float(rng.uniform(0, 40)) if rng.random() < 0.85 else 0.0
    c["yaw_deg"] = float(rng.uniform(0, 360))
    c["distance_R"] = float(rng.uniform(4.5, 9.0))
    c["plate_frac"] = float(rng.uniform(0.3, 0.8))
    c["offset_x_frac"] = float(rng.uniform(-1, 1))  # scaled to the room left, below
    c["offset_y_frac"] = float(rng.uniform(-1, 1))
    c["kelvin"] = float(rng.uniform(2700, 7000))
    c["exposure_stops"] = float(rng.uniform(-1, 1))
    c["noise_sigma"] = float(rng.uniform(0.5, 6.0))
    c["blur"] = str(rng.choice(BLURS, p=[0.6, 0.25, 0.15]))
    c["blur_sigma_px"] = float(rng.uniform(0.6, 2.2))
    c["motion_length_px"] = float(rng.uniform(3, 9))
    c["motion_angle_deg"] = float(rng.uniform(0, 180))
    c["jpeg_quality"] = int(rng.integers(40, 96)) if rng.random() < 0.9 else None
    c["glaze"] = str(rng.choice(list(GLAZES)))
    c["cloth"] = str(rng.choice(list(CLOTHS)))
    c["cloth_texture"] = str(rng.choice(CLOTHS[c["cloth"]][2]))
    c["token_radius_frac"] = float(rng.uniform(0.10, 0.15))
    c["token_thickness_frac"] = float(rng.uniform(0.2, 0.3))
    c["red_style"] = str(rng.choice(list(REDS)))
    c["white_style"] = str(rng.choice(list(WHITES)))
    c["token_body"] = str(rng.choice(["white", "red", "dark"]))
    c["bowl"] = str(rng.choice(list(BOWLS)))
    c["light_x_R"] = float(rng.uniform(-3, 3))
    c["light_y_R"] = float(rng.uniform(-3, 3))
    c["light_height_R"] = float(rng.uniform(3.5, 9))
    c["ambient"] = float(rng.uniform(0.3, 0.6))
    c["vignette"] = float(rng.uniform(0.0, 0.6))
    c["shadow_strength"] = float(rng.uniform(0.35, 0.6))
    c["_jitter"] = rng.uniform(0.88, 1.08, size=12).round(4).tolist()
    # drawn last, so that every condition above is what it was before styles
    # existed; not drawn when the caller sets it, so that a caller drawing on
    # from ``rng`` afterwards (the clip synthesizer) draws what it did before
    if not (overrides and "overlap_style" in overrides):
        c["overlap_style"] = str(rng.choice(OVERLAP_STYLES))
    if overrides:
        for k, v in overrides.items():
            if k not in CONDITION_KEYS:
                raise ValueError(f"conditions: unknown key {k!r}; expected some of {CONDITION_KEYS}")
            c[k] = v
        for k, table in (("glaze", GLAZES), ("cloth", CLOTHS), ("red_style", REDS), ("white_style", WHITES),
                         ("bowl", BOWLS)):
            if c[k] not in table:
                raise ValueError(f"conditions[{k!r}]: expected one of {tuple(table)}, got {c[k]!r}")
        if c["overlap_style"] not in OVERLAP_STYLES:
            raise ValueError(f"conditions['overlap_style']: expected one of {OVERLAP_STYLES}, got "
                             f"{c['overlap_style']!r}")
        if c["blur"] not in BLURS:
            raise ValueError(f"conditions['blur']: expected one of {BLURS}, got {c['blur']!r}")
        q = c["jpeg_quality"]
        if q is not None and (not isinstance(q, int) or not 1 <= q <= 100):
            raise ValueError(f"conditions['jpeg_quality']: expected an int in [1, 100] or None, got {q!r}")
        if c["cloth_texture"] not in ("felt", "weave", "wood"):
            raise ValueError(f"conditions['cloth_texture']: expected felt, weave or wood, got {c['cloth_texture']!r}")
        if c.get("plate_decor", "plain") not in DECORS:
            raise ValueError(f"conditions['plate_decor']: expected one of {DECORS}, got {c['plate_decor']!r}")
        if c.get("fifth_place", "free") not in FIFTH_PLACES:
            raise ValueError(f"conditions['fifth_place']: expected one of {FIFTH_PLACES}, got {c['fifth_place']!r}")
        if c.get("decor_colour") is not None and c["decor_colour"] not in DECOR_COLOURS:
            raise ValueError(f"conditions['decor_colour']: expected one of {tuple(DECOR_COLOURS)} or None, got "
                             f"{c['decor_colour']!r}")
    return c


def _jit(rgb, f) -> np.ndarray:
    return srgb_to_linear(np.clip(np.asarray(rgb, float) * np.asarray(f, float), 0, 255))


def build_camera(c: dict, size: tuple[int, int]) -> Camera:
    """The scene camera; shrinks the plate offset (and the tilt) until the view is sane."""
    w, h = size
    half = c["plate_frac"] * min(w, h) / 2.0
    room_x = max(0.5 - half / w - 0.04, 0.0)
    room_y = max(0.5 - half / h - 0.04, 0.0)
    ox, oy = c["offset_x_frac"] * room_x, c["offset_y_frac"] * room_y
    tilt = c["tilt_deg"]
    for _ in range(12):
        cam = make_camera(size, tilt_deg=tilt, yaw_deg=c["yaw_deg"], distance_R=c["distance_R"],
                          plate_frac=c["plate_frac"], offset_frac=(ox, oy))
        hi = np.linalg.inv(cam.table_homography(0.0))
        corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], float) @ hi.T
        far = np.abs(corners[:, :2] / corners[:, 2:3]).max() if np.all(corners[:, 2] > 0) else np.inf
        rim = cam.project(np.c_[np.cos(np.linspace(0, 6.28, 36)), np.sin(np.linspace(0, 6.28, 36)), np.zeros(36)])
        inside = rim.min() >= 2 and rim[:, 0].max() <= w - 2 and rim[:, 1].max() <= h - 2
        if far < 14.0 and inside:
            return cam
        ox, oy, tilt = ox * 0.6, oy * 0.6, tilt * 0.85
    return cam


# ---------------------------------------------------------------------------
# layouts (table coordinates, plate radii)
# ---------------------------------------------------------------------------
def _sample_spots(rng, n, r, taken, *, limit_R, min_dist, tries=4000):
    """``n`` random token centres within ``limit_R`` at least ``min_dist`` from each other and ``taken``."""
    spots = [np.asarray(t, float) for t in taken]
    out = []
    for _ in range(tries):
        if len(out) == n:
            break
        rad = limit_R * math.sqrt(rng.random())
        a = rng.uniform(0, 2 * math.pi)
        p = np.array([rad * math.cos(a), rad * math.sin(a)])
        if all(np.linalg.norm(p - s) >= min_dist for s in spots):
            spots.append(p)
            out.append(p)
    if len(out) < n:
        raise RuntimeError("could not place tokens")  # caller retries with another draw
    return out


def _fifth_spot(rng, place: str, four: list, r: float, limit_R: float) -> np.ndarray:
    """The fifth token's centre for ``fifth_place`` ``place`` (``touching`` or
    ``wall``) beside the centres ``four``, within ``limit_R`` of the plate's centre."""
    for _ in range(400):
        if place == "touching":
            s = four[int(rng.integers(len(four)))]
            d = float(rng.uniform(*FIFTH_TOUCH_RADII)) * r
            a = rng.uniform(0, 2 * math.pi)
            p = s + d * np.array([math.cos(a), math.sin(a)])
            if np.linalg.norm(p) > limit_R:
                continue
            min_dist = FIFTH_TOUCH_RADII[0] * r
        else:
            a = rng.uniform(0, 2 * math.pi)
            p = (limit_R - float(rng.uniform(0, FIFTH_WALL_GAP_RADII)) * r) * np.array([math.cos(a), math.sin(a)])
            min_dist = SPOT_SEP_RADII * r
        if all(np.linalg.norm(p - q) >= min_dist * (1 - 1e-9) for q in four):
            return p
    raise RuntimeError("could not place the fifth token")  # caller retries with another draw


@dataclass
class TokenSpec:
    disc: sp.Disc
    state: str
    z_recv: float
    level: int = 0


def _flat(p, z, r, h, top, bottom, side, gloss):
    return sp.Disc(np.array([p[0], p[1], z]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 1.0]),
                   r, h, top, bottom, side, gloss[0], gloss[1])


def build_layout(rng, kind: str, c: dict, plate: sp.PlateModel, cam: Camera, colours: dict, *,
                 fifth_rng: np.random.Generator | None = None) -> list[TokenSpec]:
    """The tokens of a scene as 3D discs with their label state.

    ``fifth_rng`` places the fifth token of a ``five_tokens`` scene whose
    ``c["fifth_place"]`` is set and not ``free`` (``rng`` when None)."""
    r = c["token_radius_frac"]
    h = r * c["token_thickness_frac"]
    z0 = plate.well_height_R
    limit = plate.well_R - r
    sep = 2.0 * r * 1.2  # SPOT_SEP_RADII token radii (written so, every scene as before)
    n = {"three_tokens": 3, "five_tokens": 5}.get(kind, 4)
    if kind == "no_plate" or kind == "covered":
        n = 0 if kind == "no_plate" else 4
    red_count = int(rng.integers(0, n + 1))
    faces = np.array([True] * red_count + [False] * (n - red_count))
    rng.shuffle(faces)
    red, white, side, gloss = colours["red"], colours["white"], colours["side"], colours["gloss"]

    def flat(p, is_red, z=z0, state="flat"):
        top, bot = (red, white) if is_red else (white, red)
        return TokenSpec(_flat(p, z, r, h, top, bot, side, gloss), state, z)

    specs: list[TokenSpec] = []
    place = c.get("fifth_place", "free") if kind == "five_tokens" else "free"
    if place != "free":
        spots = _sample_spots(rng, 4, r, [], limit_R=limit, min_dist=sep)
        fifth = _fifth_spot(rng if fifth_rng is None else fifth_rng, place, spots, r, limit)
        specs = [flat(p, f) for p, f in zip(spots + [fifth], faces)]
        c["fifth_gap_radii"] = round(min(float(np.linalg.norm(fifth - q)) for q in spots) / r, 4)
        c["fifth_wall_gap_radii"] = round((plate.well_R - r - float(np.linalg.norm(fifth))) / r, 4)
    elif kind in ("outcome", "stick", "three_tokens", "five_tokens", "covered"):
        spots = _sample_spots(rng, n, r, [], limit_R=limit, min_dist=sep)
        specs = [flat(p, f) for p, f in zip(spots, faces)]
    elif kind == "touching":
        a = _sample_spots(rng, 1, r, [], limit_R=limit - 2 * r, min_dist=sep)[0]
        ang = rng.uniform(0, 2 * math.pi)
        b = a + 2 * r * (1 + rng.uniform(0, 0.02)) * np.array([math.cos(ang), math.sin(ang)])
        if np.linalg.norm(b) > limit:
            raise RuntimeError("touching pair off the well")
        rest = _sample_spots(rng, 2, r, [a, b], limit_R=limit, min_dist=sep)
        specs = [flat(p, f) for p, f in zip([a, b] + rest, faces)]
    elif kind == "overlap" and c["overlap_style"] == "leaning":
        a = _sample_spots(rng, 1, r, [], limit_R=limit - 2.0 * r, min_dist=sep)[0]
        ang = rng.uniform(0, 2 * math.pi)
        off = float(rng.uniform(*LEAN_OFFSET_RADII))
        u = np.array([math.cos(ang), math.sin(ang)])
        centre_xy = a + off * r * u
        tilt = math.degrees(math.asin(h / (2 * r)))  # far edge on the well, near edge h up, on the face under
        radial = np.array([u[0], u[1], 0.0])
        tangent = np.cross([0, 0, 1.0], radial)
        rot = rot_axis(tangent, tilt)  # lowers the far (+radial) edge (the tilted kind's -tilt raises it)
        e1, nn = rot @ radial, rot @ np.array([0, 0, 1.0])
        far = np.array([*(centre_xy + u * r * math.cos(math.radians(tilt))), z0])
        if np.linalg.norm(far[:2]) > plate.well_R:
            raise RuntimeError("leaning token off the well")
        top, bot = (red, white) if faces[1] else (white, red)
        lean = TokenSpec(sp.Disc(far - r * e1, e1, tangent, nn, r, h, top, bot, side, gloss[0], gloss[1]),
                         "overlapped", z0, level=1)
        rest = _sample_spots(rng, 2, r, [a, centre_xy], limit_R=limit, min_dist=sep + 0.5 * r)
        specs = [flat(a, faces[0], state="under"), lean] + [flat(p, f) for p, f in zip(rest, faces[2:])]
        c["lean_offset_radii"], c["lean_tilt_deg"] = round(off, 4), round(tilt, 3)
    elif kind == "overlap":
        a = _sample_spots(rng, 1, r, [], limit_R=limit - 1.5 * r, min_dist=sep)[0]
        ang = rng.uniform(0, 2 * math.pi)
        b = a + r * rng.uniform(0.8, 1.5) * np.array([math.cos(ang), math.sin(ang)])
        if np.linalg.norm(b) > limit:
            raise RuntimeError("overlap pair off the well")
        rest = _sample_spots(rng, 2, r, [a, b], limit_R=limit, min_dist=sep + 0.5 * r)
        under = flat(a, faces[0], state="under")
        top = flat(b, faces[1], z=z0 + h, state="overlapped")
        top.level = 1
        specs = [under, top] + [flat(p, f) for p, f in zip(rest, faces[2:])]
    elif kind == "tilted":
        tilt = float(rng.uniform(4, 12))
        ang = rng.uniform(0, 2 * math.pi)
        radial = np.array([math.cos(ang), math.sin(ang), 0.0])
        tangent = np.cross([0, 0, 1.0], radial)
        rot = rot_axis(tangent, -tilt)  # raises the +radial edge
        e1, nn = rot @ radial, rot @ np.array([0, 0, 1.0])
        raise_R = 2 * r * math.sin(math.radians(tilt))
        rhos = np.linspace(plate.well_R, plate.rim_inner_R, 64)
        ok = plate.height(rhos) - z0 >= raise_R
        rho_edge = float(rhos[np.argmax(ok)]) if ok.any() else plate.rim_inner_R
        low = radial * (rho_edge - 2 * r * math.cos(math.radians(tilt)))
        low[2] = z0
        base = low + r * e1
        centre_xy = base[:2]
        top, bot = (red, white) if faces[0] else (white, red)
        tdisc = sp.Disc(base, e1, tangent, nn, r, h, top, bot, side, gloss[0], gloss[1])
        rest = _sample_spots(rng, 3, r, [centre_xy], limit_R=limit, min_dist=sep + 0.3 * r)
        specs = [TokenSpec(tdisc, "tilted", z0)] + [flat(p, f) for p, f in zip(rest, faces[1:])]
        c["token_tilt_deg"] = round(tilt, 3)
    elif kind == "upright":
        p = _sample_spots(rng, 1, r, [], limit_R=limit - 0.5 * r, min_dist=sep)[0]
        eye = cam.centre
        for _ in range(40):
            phi = rng.uniform(0, 2 * math.pi)
            nn = np.array([math.cos(phi), math.sin(phi), 0.0])
            e1 = np.array([-nn[1], nn[0], 0.0])
            base = np.array([p[0], p[1], z0 + r]) - 0.5 * h * nn
            top, bot = (red, white) if faces[0] else (white, red)
            udisc = sp.Disc(base, e1, np.array([0, 0, 1.0]), nn, r, h, top, bot, side, gloss[0], gloss[1])
            view = eye - np.array([p[0], p[1], z0 + r])
            if abs(view @ nn) / np.linalg.norm(view) < 0.35:
                break
        rest = _sample_spots(rng, 3, r, [p], limit_R=limit, min_dist=sep + 0.6 * r)
        specs = [TokenSpec(udisc, "upright", z0)] + [flat(q, f) for q, f in zip(rest, faces[1:])]
    elif kind == "offplate":
        spots = _sample_spots(rng, 3, r, [], limit_R=limit, min_dist=sep)
        w, hgt = cam.width, cam.height
        for _ in range(60):
            d = rng.uniform(max(1.15, 1.04 + r), 1.6)
            ang = rng.uniform(0, 2 * math.pi)
            q = np.array([d * math.cos(ang), d * math.sin(ang)])
            px = cam.project(np.array([[q[0] + dx * r * 1.2, q[1] + dy * r * 1.2, 0] for dx, dy in
                                       ((1, 0), (-1, 0), (0, 1), (0, -1))]))
            if px.min() > 4 and px[:, 0].max() < w - 4 and px[:, 1].max() < hgt - 4:
                break
        else:
            raise RuntimeError("no room for an offplate token")
        off = flat(q, faces[3], z=0.0, state="offplate")
        specs = [flat(p, f) for p, f in zip(spots, faces[:3])] + [off]
    return specs


# ---------------------------------------------------------------------------
# rendering
# ---------------------------------------------------------------------------
def scene_colours(c: dict) -> dict:
    """Linear-RGB albedos of the scene's materials, from the drawn conditions."""
    j = c["_jitter"]
    red = _jit(REDS[c["red_style"]], [j[0], j[1] * j[0], j[2] * j[0]])
    white = _jit(WHITES[c["white_style"]], [j[3], j[3], j[3]] if j[3] < 1 else [1, 1, 1])
    body = {"white": white, "red": red, "dark": srgb_to_linear((60, 50, 46))}[c["token_body"]]
    glaze_rgb, gspec, gshine = GLAZES[c["glaze"]]
    cloth_rgb, cloth_alt, _ = CLOTHS[c["cloth"]]
    bowl_rgb, bspec, bshine = BOWLS[c["bowl"]]
    return {
        "red": red, "white": white, "side": body * 0.55, "gloss": (0.12 + 0.2 * (j[4] - 0.88) / 0.2, 40.0 * j[5]),
        "glaze": _jit(glaze_rgb, [j[6], j[6], j[6]] if j[6] < 1 else [1, 1, 1]), "glaze_spec": gspec,
        "glaze_shine": gshine, "band": _jit(glaze_rgb, [j[7] * 0.95] * 3),
        "cloth": _jit(cloth_rgb, [j[8], j[9] * j[8], j[8]]), "cloth_alt": _jit(cloth_alt, [1, 1, 1]),
        "bowl": _jit(bowl_rgb, [j[10]] * 3), "bowl_spec": bspec, "bowl_shine": bshine,
    }


def _plate_decor(seed: int, c: dict, plate: sp.PlateModel) -> tuple[sp.Decor, dict]:
    """The plate's decoration for ``c["plate_decor"]`` (not plain), from its own stream
    ``[seed, 4]``; sets ``c["decor_colour"]`` when the caller did not."""
    rng = np.random.default_rng([seed, 4])
    kind = c["plate_decor"]
    colour = str(rng.choice(DECOR_PALETTES[kind]))
    if c.get("decor_colour") is None:
        c["decor_colour"] = colour
    coverage, info = sp.decor_coverage(kind, rng, plate)
    return sp.Decor(coverage, _jit(DECOR_COLOURS[c["decor_colour"]], [1, 1, 1]).astype(np.float32)), info


def make_light(c: dict) -> Light:
    return Light(np.array([c["light_x_R"], c["light_y_R"], c["light_height_R"]], float), float(c["ambient"]))


def finish(lin: np.ndarray, c: dict, rng: np.random.Generator, camera: Camera) -> tuple[np.ndarray, bytes | None]:
    """Camera response: white-balance error, exposure, vignetting, blur, noise, gamma, 8 bits, JPEG.

    Parameters
    ----------
    lin : ndarray, float32, (H, W, 3)
        Linear RGB scene radiance (modified in place).

    Returns
    -------
    (BGR uint8 (H, W, 3), JPEG bytes or None)
    """
    h, w = lin.shape[:2]
    gain = blackbody_gain(float(c["kelvin"])) * np.float32(2.0 ** float(c["exposure_stops"]))
    lin *= gain
    if c["vignette"] > 0:
        k = camera.K
        yy = ((np.arange(h, dtype=np.float32) - k[1, 2]) / k[1, 1]) ** 2
        xx = ((np.arange(w, dtype=np.float32) - k[0, 2]) / k[0, 0]) ** 2
        cos4 = 1.0 / (1.0 + yy[:, None] + xx[None, :]) ** 2
        lin *= (1.0 - c["vignette"] + c["vignette"] * cos4)[..., None]
    if c["blur"] == "defocus":
        cv2.GaussianBlur(lin, (0, 0), float(c["blur_sigma_px"]), dst=lin)
    elif c["blur"] == "motion":
        lin = cv2.filter2D(lin, -1, motion_kernel(float(c["motion_length_px"]), float(c["motion_angle_deg"])))
    out = tone_map(lin)
    # sensor noise after demosaicing: full-resolution luma, half-resolution chroma
    sigma = np.float32(c["noise_sigma"])
    luma = rng.standard_normal((h, w), dtype=np.float32)
    luma *= sigma * np.float32(0.8)
    chroma = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32)
    chroma *= sigma * np.float32(0.9)
    out += luma[..., None]
    out += cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    out += 0.5
    np.clip(out, 0, 255, out=out)
    bgr = out.astype(np.uint8)[:, :, ::-1].copy()
    if c["jpeg_quality"] is None:
        return bgr, None
    ok, enc = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(c["jpeg_quality"])])
    if not ok:  # pragma: no cover
        raise RuntimeError("JPEG encoding failed")
    data = enc.tobytes()
    return cv2.imdecode(enc, cv2.IMREAD_COLOR), data


def _visible_centre(face_mask: np.ndarray, cover: np.ndarray, roi) -> tuple[float, float]:
    """The visible pixel farthest from any edge of (face minus cover), in frame pixels."""
    vis = ((face_mask > 0.5) & (cover < 0.5)).astype(np.uint8)
    if not vis.any():
        return float("nan"), float("nan")
    dist = cv2.distanceTransform(np.pad(vis, 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
    iy, ix = np.unravel_index(int(np.argmax(dist)), dist.shape)
    return float(ix + roi[0]), float(iy + roi[1])


def _face_name(spec: TokenSpec, seen: str, colours: dict) -> str:
    alb = spec.disc.top_albedo if seen == "top" else spec.disc.bottom_albedo
    return "red" if alb is colours["red"] else "white"


def _paint_stick(rng, cv: Canvas, c: dict, plate: sp.PlateModel, specs, infos, colours) -> dict:
    """Paint a rod and/or hand entering from the frame edge; returns the stick label and cover mask."""
    r = c["token_radius_frac"]
    z_top = plate.well_height_R + r * c["token_thickness_frac"]
    mode = str(rng.choice(["rod", "hand", "rod+hand"], p=[0.5, 0.2, 0.3]))
    want_cover = bool(rng.random() < 0.5)
    rod_albedo = srgb_to_linear(ROD_COLOURS[int(rng.integers(len(ROD_COLOURS)))])
    skin = srgb_to_linear(SKINS[int(rng.integers(len(SKINS)))])
    base_img = cv.image.copy()
    for attempt in range(12):
        cv.image[...] = base_img
        if want_cover:
            tgt = specs[int(rng.integers(len(specs)))].disc.top[:2] + rng.uniform(-0.6, 0.6, 2) * r
        else:
            tgt = _sample_spots(rng, 1, r, [s.disc.top[:2] for s in specs], limit_R=0.75, min_dist=2.4 * r)[0]
        ang = rng.uniform(0, 2 * math.pi)
        u = np.array([math.cos(ang), math.sin(ang)])
        tip = np.array([tgt[0], tgt[1], z_top + 0.02])
        tail = np.array([tgt[0] + 4.0 * u[0], tgt[1] + 4.0 * u[1], z_top + 0.02 + 0.6])
        cover = np.zeros((cv.h, cv.w), np.float32)
        rod_radius = float(rng.uniform(0.015, 0.03))
        hand_px = float(rng.uniform(0.35, 0.5)) * cv.camera.K[0, 0] / float(np.linalg.norm(cv.camera.t))
        if mode in ("rod", "rod+hand"):
            cover = np.maximum(cover, sp.paint_rod(cv, tip, tail, radius=rod_radius, albedo=rod_albedo))
        if mode in ("hand", "rod+hand"):
            pt, pe = cv.camera.project(np.array([tip, tail]))
            d = pt - pe
            # the hand holds the rod where it leaves the frame, or reaches to the target itself
            anchor = pt - d / np.linalg.norm(d) * hand_px * 1.3 if mode == "hand" else _edge_point(pt, pe, cv, hand_px)
            cover = np.maximum(cover, sp.paint_hand(cv, anchor, d, size_px=hand_px, albedo=skin))
        fracs = []
        for info in infos:
            roi = cv.roi(info["face_poly"])
            if roi is None:
                fracs.append(0.0)
                continue
            fm = cv.poly_mask([info["face_poly"]], roi)
            x0, y0, x1, y1 = roi
            fracs.append(float((fm * cover[y0:y1, x0:x1]).sum() / max(fm.sum(), 1e-6)))
        worst = max(fracs)
        if (worst == 0.0 and not want_cover) or (0.08 <= worst <= 0.7 and want_cover):
            break
    covers = worst > 0.0
    return {"mode": mode, "covers_token": covers, "cover": cover, "fracs": fracs,
            "rod_radius_R": round(rod_radius, 4), "attempts": attempt + 1}


def _edge_point(pt, pe, cv: Canvas, inset_px: float):
    """Where the segment from ``pt`` towards ``pe`` leaves the frame, moved ``inset_px`` back inside."""
    d = pe - pt
    ts = []
    for k, lim in ((0, 0), (0, cv.w - 1), (1, 0), (1, cv.h - 1)):
        if abs(d[k]) > 1e-9:
            t = (lim - pt[k]) / d[k]
            if t > 0:
                ts.append(t)
    t = min(ts) if ts else 1.0
    e = pt + d * t
    return e - d / np.linalg.norm(d) * inset_px * 0.6


def render_scene(seed: int, kind: str | None = None, *, size: tuple[int, int] = (1280, 720),
                 conditions: dict | None = None) -> Scene:
    """Render one labelled table scene.

    Parameters
    ----------
    seed : int
        Non-negative; the whole scene (conditions, layout, noise) follows from it.
    kind : str or None
        One of :data:`KINDS`; None picks one from the seed.
    size : (int, int)
        (width, height) of the frame, pixels, each in [64, 8192].
    conditions : dict or None
        Overrides of drawn conditions, keys from :data:`CONDITION_KEYS`
        (e.g. ``{"tilt_deg": 0.0, "jpeg_quality": None}``).

    Returns
    -------
    Scene
        ``image`` BGR uint8 (H, W, 3), ``label`` dict, ``jpeg_bytes``.

    Raises
    ------
    TypeError, ValueError
        Bad ``seed``, ``kind``, ``size`` or ``conditions``; the message names it.
    """
    seed = check_seed(seed)
    kind = check_kind(kind)
    size = check_size(size)
    rng = np.random.default_rng(seed)
    if kind is None:
        kind = str(rng.choice(KINDS))
    c = draw_conditions(rng, size, conditions)
    if c.get("fifth_place", "free") != "free" and kind != "five_tokens":
        raise ValueError(f"conditions['fifth_place']: {c['fifth_place']!r} places a fifth token, for kind "
                         f"'five_tokens' only, got kind {kind!r} (use 'free' or leave it out)")
    cam = build_camera(c, size)
    plate = sp.PlateModel()
    colours = scene_colours(c)
    layout_rng = np.random.default_rng([seed, 1])
    fifth_rng = np.random.default_rng([seed, 5])
    for _ in range(50):
        try:
            specs = build_layout(layout_rng, kind, c, plate, cam, colours, fifth_rng=fifth_rng)
            break
        except RuntimeError:
            continue
    else:  # pragma: no cover
        raise RuntimeError(f"render_scene: no layout for kind {kind!r} with seed {seed}")
    w, h = size
    cv = Canvas(np.empty((h, w, 3), np.float32), cam, make_light(c))
    tex_rng = np.random.default_rng([seed, 2])
    sp.paint_cloth(cv, tex_rng, albedo=colours["cloth"], albedo_alt=colours["cloth_alt"], texture=c["cloth_texture"],
                   weave_period_R=float(tex_rng.uniform(0.012, 0.03)) if c["cloth_texture"] != "wood" else 0.12,
                   mottle_amp=0.05, fine_amp=0.03)
    px_per_R = cam.K[0, 0] / float(np.linalg.norm(cam.t))
    plate_label = decor_label = None
    if kind == "no_plate":
        if tex_rng.random() < 0.5:
            sp.paint_card(cv, tex_rng.uniform(-0.6, 0.6, 2), half_w_R=0.2, half_h_R=0.3,
                          angle_deg=float(tex_rng.uniform(0, 180)),
                          albedo=srgb_to_linear(tex_rng.integers(60, 240, 3)))
    else:
        sp.paint_plate_shadow(cv, plate, blur_sigma_px=0.05 * px_per_R, strength=c["shadow_strength"])
        decor = None
        if c.get("plate_decor", "plain") != "plain":
            decor, decor_label = _plate_decor(seed, c, plate)
        plate_label = sp.paint_plate(cv, plate, albedo=colours["glaze"], band_albedo=colours["band"],
                                     specular=colours["glaze_spec"], shininess=colours["glaze_shine"], decor=decor)
    tokens: list[dict] = []
    stick_label = None
    if kind == "covered":
        rb = float(tex_rng.uniform(0.8, 0.95))
        hb = rb * float(tex_rng.uniform(0.55, 0.85))
        ctr = (0.0, 0.0, float(plate.height(np.array([rb]))[0]))
        sp.paint_dome_shadow(cv, ctr, radius=rb, height=hb, z_recv=plate.well_height_R,
                             blur_sigma_px=0.06 * px_per_R, strength=c["shadow_strength"])
        sp.paint_dome(cv, ctr, radius=rb, height=hb, albedo=colours["bowl"], specular=colours["bowl_spec"],
                      shininess=colours["bowl_shine"])
        c["bowl_radius_R"], c["bowl_height_R"] = round(rb, 4), round(hb, 4)
    elif specs:
        for s in specs:
            sp.paint_disc_shadow(cv, s.disc, z_recv=s.z_recv, blur_sigma_px=0.25 * s.disc.radius * px_per_R,
                                 strength=c["shadow_strength"] * 0.8)
        eye = cam.centre
        order = sorted(range(len(specs)), key=lambda i: (specs[i].level, -np.linalg.norm(eye - specs[i].disc.top)))
        infos: list[dict] = [{}] * len(specs)
        for i in order:
            info = sp.paint_disc(cv, specs[i].disc)
            fc = specs[i].disc.top if info["face"] == "top" else specs[i].disc.base
            info["face_poly"] = cam.project(sp.circle_points(fc, specs[i].disc.e1, specs[i].disc.e2,
                                                             specs[i].disc.radius))
            infos[i] = info
        covers = [np.zeros((h, w), np.float32) for _ in specs]
        for i, s in enumerate(specs):
            if s.state == "under":
                j = next(k for k, t in enumerate(specs) if t.state == "overlapped")
                covers[i] = cv.full_mask([infos[j]["outline"]])
        if kind == "stick":
            st = _paint_stick(tex_rng, cv, c, plate, specs, infos, colours)
            for i in range(len(specs)):
                if st["fracs"][i] > 0:
                    covers[i] = st["cover"]
            stick_label = {k: v for k, v in st.items() if k not in ("cover", "fracs")}
        for i, s in enumerate(specs):
            info = infos[i]
            ell = info["ellipse"]
            state = s.state
            x, y = ell["cx"], ell["cy"]
            hidden = None
            if covers[i].any():
                roi = cv.roi(info["face_poly"])
                fm = cv.poly_mask([info["face_poly"]], roi)
                x0, y0, x1, y1 = roi
                x, y = _visible_centre(fm, covers[i][y0:y1, x0:x1], roi)
                hidden = float((fm * covers[i][y0:y1, x0:x1]).sum() / max(float(fm.sum()), 1e-9))
                if kind == "stick":
                    state = "occluded"
            label_ell = info["footprint"] if state == "upright" else ell
            tokens.append({"x": round(x, 2), "y": round(y, 2), "radius": round(ell["a"], 2),
                           "face": _face_name(s, info["face"], colours), "state": state, "ellipse": label_ell})
            if hidden is not None:
                tokens[-1]["hidden_share"] = round(hidden, 4)
    verdict = KIND_VERDICTS[kind]
    if kind == "stick" and stick_label["covers_token"]:
        verdict = "uncertain"
    red = white = None
    if verdict == "outcome":
        red = sum(t["face"] == "red" for t in tokens)
        white = len(tokens) - red
    fin_rng = np.random.default_rng([seed, 3])
    image, jpeg = finish(cv.image, c, fin_rng, cam)
    cond = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in c.items() if not k.startswith("_")}
    label = {
        "kind": kind, "verdict": verdict, "red": red, "white": white, "tokens": tokens, "plate": plate_label,
        "token_radius_frac": round(float(c["token_radius_frac"]), 4), "conditions": cond, "seed": seed,
        "size": [w, h], "generator": "vision.synth",
    }
    if stick_label is not None:
        label["stick"] = stick_label
    if decor_label is not None:
        label["decor"] = decor_label
    return Scene(image=image, label=label, jpeg_bytes=jpeg)
