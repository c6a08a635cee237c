"""Synthetic round clips: bowl on, shake, lift, reveal, with per-frame phase labels.

:func:`render_clip` builds one table (conditions, camera, cloth) from a seed,
paints the static cloth once and composites the moving parts (plate, tokens,
bowl, stick) per frame.  A rigid motion of the plate is rendered by moving the
camera and lamp the opposite way in the plate's frame, over the cached cloth.

Phases, in order within a round: ``idle``, ``bowl_on``, ``shake`` (absent
in ``no_shake``), ``still``, ``lift``, ``revealed`` and, for
``overlap_rearrange``, ``rearrange`` then ``revealed`` again.  ``gap`` is a
stretch of time with no frames (``camera_gap``); it appears in the clip's
``phases`` list, never as a frame's phase.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from . import synth as sy
from . import synth_paint as sp
from .synth_render import Camera, Canvas, Light, conic_ellipse, rot_z, srgb_to_linear

VARIANTS = ("normal", "no_shake", "touched", "upright", "overlap_rearrange", "camera_gap", "same_layout")
PHASES = ("idle", "bowl_on", "shake", "still", "lift", "revealed", "gap", "rearrange")
#: Round result expected from a whole-round reader, per variant.
VARIANT_RESULTS = {"normal": "outcome", "no_shake": "void", "touched": "void", "upright": "reshake",
                   "overlap_rearrange": "outcome", "camera_gap": "void", "same_layout": "void"}


class ClipFrames:
    """The frames of a clip, rendered on demand: ``len()``, iteration and indexing give BGR uint8 (H, W, 3)."""

    def __init__(self, render, count: int):
        self._render = render
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> np.ndarray:
        if not -self._count <= i < self._count:
            raise IndexError(f"frame index {i} out of range for {self._count} frames")
        return self._render(i % self._count)

    def __iter__(self):
        for i in range(self._count):
            yield self._render(i)


@dataclass(frozen=True)
class Clip:
    """A rendered round clip.

    Attributes
    ----------
    name : str
        File stem, e.g. ``clip_7_normal``.
    frames : ClipFrames
        Re-iterable BGR uint8 (H, W, 3) frames, rendered on demand.
    frame_labels : list of dict
        Per frame: ``index``, ``t`` (seconds), ``phase``, ``round``, ``plate`` (rim ellipse, pixels).
    label : dict
        Round-level labels (see ``samples/README.md``).
    """

    name: str
    frames: ClipFrames = field(repr=False)
    frame_labels: list = field(repr=False)
    label: dict = field(repr=False)


@dataclass
class _Pose:
    """Rigid plate pose on the table (plate radii, degrees) and bowl centre in the plate frame."""

    dx: float = 0.0
    dy: float = 0.0
    rot_deg: float = 0.0
    bowl: tuple | None = None


def _moved(cam: Camera, light: Light, pose: _Pose) -> tuple[Camera, Light]:
    """Camera and lamp expressed in the frame of a plate moved by ``pose``."""
    rz = rot_z(pose.rot_deg)
    d = np.array([pose.dx, pose.dy, 0.0])
    cam2 = Camera(cam.K, cam.R @ rz, cam.R @ d + cam.t, cam.width, cam.height)
    return cam2, Light(rz.T @ (light.position - d), light.ambient)


def _layout(seed_seq, kind, c, plate, cam, colours):
    rng = np.random.default_rng(seed_seq)
    for _ in range(60):
        try:
            return sy.build_layout(rng, kind, c, plate, cam, colours)
        except RuntimeError:
            continue
    raise RuntimeError(f"render_clip: no layout for {kind!r}")  # pragma: no cover


def _faces(specs, colours) -> list[str]:
    return ["red" if s.disc.top_albedo is colours["red"] else "white" for s in specs]


def _moved_disc(spec: sy.TokenSpec, dxy, *, z=None, flip=False) -> sy.TokenSpec:
    d = spec.disc
    base = d.base + np.array([dxy[0], dxy[1], 0.0])
    if z is not None:
        base[2] = z
    top, bot = (d.bottom_albedo, d.top_albedo) if flip else (d.top_albedo, d.bottom_albedo)
    disc = sp.Disc(base, d.e1, d.e2, d.n, d.radius, d.thickness, top, bot, d.side_albedo, d.specular, d.shininess)
    return sy.TokenSpec(disc, spec.state, spec.z_recv, spec.level)


def _schedule(variant: str, rng) -> list[tuple[str, float, int]]:
    """(phase, duration s, round) segments of the clip."""
    short = variant == "same_layout"
    rounds = 2 if short else 1
    seg = []
    for k in range(rounds):
        seg.append(("idle", 0.6 if short else 1.0, k))
        seg.append(("bowl_on", float(rng.uniform(0.4, 0.6)), k))
        if variant != "no_shake":
            seg.append(("shake", float(rng.uniform(1.0, 1.6 if short else 2.0)), k))
        seg.append(("still", 0.5 if short else 0.8, k))
        seg.append(("lift", float(rng.uniform(0.3, 0.6)), k))
        if variant == "overlap_rearrange":
            seg += [("revealed", 1.2, k), ("rearrange", 1.6, k), ("revealed", 1.5, k)]
        else:
            seg.append(("revealed", 1.6 if short else 2.0, k))
    return seg


def render_clip(seed: int, variant: str = "normal", *, fps: float = 25, size: tuple[int, int] = (1280, 720),
                seconds: float | None = None) -> Clip:
    """Render a short labelled round clip.

    Parameters
    ----------
    seed : int
        Non-negative; everything in the clip follows from it.
    variant : str
        One of :data:`VARIANTS`.
    fps : float
        Frame rate, frames per second, in (0, 120].
    size : (int, int)
        (width, height), pixels.
    seconds : float or None
        Cut the clip at this many seconds (None: the whole round, 5-12 s).

    Returns
    -------
    Clip
    """
    seed = sy.check_seed(seed)
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {VARIANTS}, got {variant!r}")
    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= 120:
        raise ValueError(f"fps: expected a number in (0, 120], got {fps!r}")
    size = sy.check_size(size)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0):
        raise ValueError(f"seconds: expected a positive number or None, got {seconds!r}")
    rng = np.random.default_rng([seed, 20])
    # a rearranged overlap slides its upper token flat: always the raised style
    c = sy.draw_conditions(rng, size, {"jpeg_quality": None, "blur": "none", "overlap_style": "raised"})
    c["tilt_deg"] = min(c["tilt_deg"], 30.0)
    c["plate_frac"] = min(c["plate_frac"], 0.6)  # room around the plate for the bowl and the shake
    cam = sy.build_camera(c, size)
    plate = sp.PlateModel()
    colours = sy.scene_colours(c)
    light = sy.make_light(c)
    w, h = size
    px_per_R = cam.K[0, 0] / float(np.linalg.norm(cam.t))

    # -- layouts of the rounds ---------------------------------------------
    prev = _layout([seed, 21], "outcome", c, plate, cam, colours)
    reveal_kind = {"upright": "upright", "overlap_rearrange": "overlap"}.get(variant, "outcome")
    rounds = [_layout([seed, 22], reveal_kind, c, plate, cam, colours)]
    if variant == "same_layout":
        rounds.append(rounds[0])
    segs = _schedule(variant, rng)
    starts = np.cumsum([0.0] + [s[1] for s in segs])
    total = float(starts[-1])
    if seconds is not None:
        total = min(total, float(seconds))
    shake = {"amp_R": float(rng.uniform(0.025, 0.05)), "rot_deg": float(rng.uniform(3, 8)),
             "hz": rng.uniform(2.0, 4.0, 3).tolist(), "phase": rng.uniform(0, 2 * math.pi, 3).tolist()}
    bowl_r = float(rng.uniform(0.82, 0.95))
    bowl_h = bowl_r * float(rng.uniform(0.55, 0.8))
    bowl_rest = (0.0, 0.0, float(plate.height(np.array([bowl_r]))[0]))
    ang_in, ang_out = rng.uniform(0, 2 * math.pi, 2)
    touch = None
    if variant == "touched":
        touch = {"token": int(rng.integers(4)), "action": str(rng.choice(["nudge", "flip"])),
                 "nudge_R": (rng.uniform(0.4, 0.8) * c["token_radius_frac"]) * np.array(
                     [math.cos(a := rng.uniform(0, 2 * math.pi)), math.sin(a)])}
    gap = None
    if variant == "camera_gap":
        lift_i = [s[0] for s in segs].index("lift")
        g0 = float(starts[lift_i] - rng.uniform(0.2, 0.4))
        gap = (g0, g0 + float(rng.uniform(0.6, 1.2)))
    # rearrange: the stick pushes the top token to a free spot in the well
    push = None
    if variant == "overlap_rearrange":
        spec_top = next(s for s in rounds[0] if s.state == "overlapped")
        r = c["token_radius_frac"]
        others = [s.disc.base[:2] for s in rounds[0] if s.state != "overlapped"]
        spot = sy._sample_spots(np.random.default_rng([seed, 23]), 1, r, others, limit_R=plate.well_R - r,
                                min_dist=2.8 * r)[0]
        push = {"from": spec_top.disc.base[:2].copy(), "to": spot}

    def phase_at(t):
        i = int(np.searchsorted(starts, t, side="right") - 1)
        i = min(max(i, 0), len(segs) - 1)
        return segs[i][0], segs[i][2], (t - starts[i]) / segs[i][1]

    def state_at(t):
        """(pose, token specs, rod (tip, tail) or None) at time t."""
        ph, k, u = phase_at(t)
        pose = _Pose()
        specs = prev if ph in ("idle",) or (ph == "bowl_on" and u < 0.999) else rounds[k]
        if k > 0 and ph == "idle":
            specs = rounds[k - 1]
        air = np.array([3.0 * math.cos(ang_in), 3.0 * math.sin(ang_in), 1.6])
        out = np.array([3.0 * math.cos(ang_out), 3.0 * math.sin(ang_out), 1.8])
        rest = np.array(bowl_rest)
        if ph == "bowl_on":
            e = 0.5 - 0.5 * math.cos(math.pi * u)
            pose.bowl = tuple(air + (rest - air) * e)
        elif ph in ("shake", "still"):
            pose.bowl = tuple(rest)
            if ph == "shake":
                env = math.sin(math.pi * u)
                pose.dx = env * shake["amp_R"] * math.sin(2 * math.pi * shake["hz"][0] * t + shake["phase"][0])
                pose.dy = env * shake["amp_R"] * math.sin(2 * math.pi * shake["hz"][1] * t + shake["phase"][1])
                pose.rot_deg = env * shake["rot_deg"] * math.sin(2 * math.pi * shake["hz"][2] * t + shake["phase"][2])
        elif ph == "lift":
            e = u * u
            up = rest + np.array([0, 0, 0.5]) * min(u * 3, 1.0)
            pose.bowl = tuple(up + (out - up) * e)
        rod = None
        if touch is not None and ph in ("lift", "revealed") and k == len(rounds) - 1:
            f = min(u, 1.0) if ph == "lift" else 1.0
            sp_ = specs[touch["token"]]
            if touch["action"] == "nudge":
                specs = list(specs)
                specs[touch["token"]] = _moved_disc(sp_, touch["nudge_R"] * f)
            elif f >= 0.5:
                specs = list(specs)
                specs[touch["token"]] = _moved_disc(sp_, (0.0, 0.0), flip=True)
        if push is not None and (ph == "rearrange" or (ph == "revealed" and t > starts[-1] - 1.6)):
            f = min(max((u - 0.25) / 0.5, 0.0), 1.0) if ph == "rearrange" else 1.0
            i_top = next(i for i, s in enumerate(specs) if s.state == "overlapped")
            sp_ = specs[i_top]
            pos = push["from"] + (push["to"] - push["from"]) * (0.5 - 0.5 * math.cos(math.pi * f))
            z = sp_.disc.base[2] if f < 0.5 else plate.well_height_R
            specs = list(specs)
            moved = _moved_disc(sp_, pos - sp_.disc.base[:2], z=z)
            specs[i_top] = sy.TokenSpec(moved.disc, "flat" if f >= 0.5 else "overlapped", moved.z_recv,
                                        0 if f >= 0.5 else 1)
            if f >= 0.5:
                i_under = next(i for i, s in enumerate(specs) if s.state == "under")
                specs[i_under] = sy.TokenSpec(specs[i_under].disc, "flat", specs[i_under].z_recv, 0)
            if ph == "rearrange":
                direction = (push["to"] - push["from"]) / max(np.linalg.norm(push["to"] - push["from"]), 1e-9)
                enter = min(u / 0.25, 1.0) if u < 0.75 else max((1.0 - u) / 0.25, 0.0)
                tipxy = pos - direction * c["token_radius_frac"] * 1.05
                if u < 0.25 or u > 0.75:
                    tipxy = push["from"] - direction * c["token_radius_frac"] * (1.05 + 3 * (1 - enter))
                ztip = plate.well_height_R + c["token_radius_frac"] * c["token_thickness_frac"] * 0.6
                tip = np.array([tipxy[0], tipxy[1], ztip])
                rod = (tip, tip + np.array([-direction[0] * 4, -direction[1] * 4, 0.8]))
        return pose, specs, rod

    def key_of(t):
        pose, specs, rod = state_at(t)
        return (round(pose.dx, 6), round(pose.dy, 6), round(pose.rot_deg, 5),
                None if pose.bowl is None else tuple(round(v, 6) for v in pose.bowl),
                tuple(tuple(np.round(s.disc.base, 6)) + (id(s.disc.top_albedo),) for s in specs),
                None if rod is None else tuple(np.round(rod[0], 6)))

    # -- static background, once -------------------------------------------
    bg = Canvas(np.empty((h, w, 3), np.float32), cam, light)
    tex_rng = np.random.default_rng([seed, 24])
    sp.paint_cloth(bg, tex_rng, albedo=colours["cloth"], albedo_alt=colours["cloth_alt"], texture=c["cloth_texture"],
                   weave_period_R=float(tex_rng.uniform(0.012, 0.03)) if c["cloth_texture"] != "wood" else 0.12,
                   mottle_amp=0.05, fine_amp=0.03)
    cache: dict = {}

    def paint(t):
        k = key_of(t)
        if cache.get("key") == k:
            return cache["img"]
        pose, specs, rod = state_at(t)
        cam_f, light_f = _moved(cam, light, pose)
        cv = Canvas(bg.image.copy(), cam_f, light_f)
        sp.paint_plate_shadow(cv, plate, blur_sigma_px=0.05 * px_per_R, strength=c["shadow_strength"])
        sp.paint_plate(cv, plate, albedo=colours["glaze"], band_albedo=colours["band"],
                       specular=colours["glaze_spec"], shininess=colours["glaze_shine"])
        for s in specs:
            sp.paint_disc_shadow(cv, s.disc, z_recv=s.z_recv, blur_sigma_px=0.25 * s.disc.radius * px_per_R,
                                 strength=c["shadow_strength"] * 0.8)
        eye = cam_f.centre
        for s in sorted(specs, key=lambda s: (s.level, -np.linalg.norm(eye - s.disc.top))):
            sp.paint_disc(cv, s.disc)
        if pose.bowl is not None:
            z_recv = plate.well_height_R if pose.bowl[2] < 0.2 else 0.0
            sp.paint_dome_shadow(cv, pose.bowl, radius=bowl_r, height=bowl_h, z_recv=z_recv,
                                 blur_sigma_px=(0.06 + 0.1 * pose.bowl[2]) * px_per_R,
                                 strength=c["shadow_strength"])
            sp.paint_dome(cv, pose.bowl, radius=bowl_r, height=bowl_h, albedo=colours["bowl"],
                          specular=colours["bowl_spec"], shininess=colours["bowl_shine"])
        if rod is not None:
            sp.paint_rod(cv, rod[0], rod[1], radius=0.022, albedo=srgb_to_linear((90, 56, 28)))
        cache["key"], cache["img"] = k, cv.image
        return cv.image

    # -- frames and labels --------------------------------------------------
    times = [i / fps for i in range(int(math.floor(total * fps + 1e-9)))]
    if gap is not None:
        times = [t for t in times if not gap[0] <= t < gap[1]]
    frame_labels = []
    for i, t in enumerate(times):
        ph, k, _ = phase_at(t)
        pose, _, _ = state_at(t)
        cam_f, _ = _moved(cam, light, pose)
        frame_labels.append({"index": i, "t": round(t, 4), "phase": ph, "round": k,
                             "bowl_over_plate": bool(pose.bowl is not None and pose.bowl[2] < 0.3),
                             "plate": conic_ellipse(cam_f.table_homography(plate.rim_height_R), 1.0)})

    def render(i):
        lin = paint(times[i]).copy()
        img, _ = sy.finish(lin, c, np.random.default_rng([seed, 25, i]), cam)
        return img

    phases = [{"phase": p, "t_start": round(float(starts[j]), 4), "t_end": round(float(starts[j + 1]), 4), "round": k}
              for j, (p, _, k) in enumerate(segs) if starts[j] < total]
    if gap is not None:
        phases.append({"phase": "gap", "t_start": round(gap[0], 4), "t_end": round(gap[1], 4),
                       "round": phase_at(gap[0])[1]})
        phases.sort(key=lambda p: (p["t_start"], p["phase"] != "gap"))
    round_labels = []
    for k, specs in enumerate(rounds):
        faces = _faces(specs, colours)
        if touch is not None and touch["action"] == "flip":
            faces[touch["token"]] = "white" if faces[touch["token"]] == "red" else "red"
        expected = VARIANT_RESULTS[variant] if k == len(rounds) - 1 else "outcome"
        j = next(j for j, sg in enumerate(segs) if sg[0] == "lift" and sg[2] == k)  # from the uncut schedule
        rl = {"round": k, "t_lift": round(float(starts[j]), 4), "t_reveal": round(float(starts[j + 1]), 4),
              "expected": expected,
              "reveal_verdict": {"overlap": "rearrange", "upright": "reshake"}.get(reveal_kind, "outcome"),
              "faces": faces, "shaken": variant != "no_shake",
              "tokens_R": [{"x": round(float(s.disc.base[0]), 4), "y": round(float(s.disc.base[1]), 4),
                            "state": s.state} for s in specs]}
        if expected == "outcome" or (expected == "void" and reveal_kind == "outcome"):
            rl["red"] = faces.count("red")
            rl["white"] = faces.count("white")
        else:
            rl["red"] = rl["white"] = None
        if variant == "same_layout" and k == 1:
            rl["same_layout_as_previous"] = True
        round_labels.append(rl)
    label = {
        "name": f"clip_{seed}_{variant}", "variant": variant, "seed": seed, "fps": fps, "size": [w, h],
        "frame_count": len(times), "duration_s": round(total, 4), "phases": phases,
        "gaps": [] if gap is None else [{"t_start": round(gap[0], 4), "t_end": round(gap[1], 4)}],
        "rounds": round_labels, "expected": round_labels[-1]["expected"],
        "touched": None if touch is None else {"token": touch["token"], "action": touch["action"],
                                               "round": len(rounds) - 1},
        "rearrange": None if push is None else {"from_R": push["from"].round(4).tolist(),
                                                "to_R": np.round(push["to"], 4).tolist(), "flipped": False},
        "conditions": {k2: (round(v, 4) if isinstance(v, float) else v) for k2, v in c.items() if k2[0] != "_"},
        "generator": "vision.synth_clip",
    }
    return Clip(label["name"], ClipFrames(render, len(times)), frame_labels, label)


def write_clip(clip: Clip, out_dir, *, video: bool = True, folder: bool = True) -> dict:
    """Write a clip as ``<name>.avi`` (MJPG, else mp4v ``.mp4``) and/or ``<name>/000000.jpg ...``, plus ``<name>.json``.

    Returns a dict of the written paths (``video``, ``folder``, ``json``).
    """
    if not isinstance(clip, Clip):
        raise TypeError(f"clip: expected a Clip, got {type(clip).__name__}")
    if not (video or folder):
        raise ValueError("video, folder: at least one must be True")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    w, h = clip.label["size"]
    written: dict = {}
    writer = None
    if video:
        for suffix, fourcc in ((".avi", "MJPG"), (".mp4", "mp4v")):
            path = out / f"{clip.name}{suffix}"
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), float(clip.label["fps"]), (w, h))
            if writer.isOpened():
                written["video"] = str(path)
                written["codec"] = fourcc
                break
            writer.release()
            writer = None
        if writer is None:
            raise RuntimeError(f"{out}: no video writer could be opened (tried MJPG, mp4v)")
    if folder:
        (out / clip.name).mkdir(exist_ok=True)
        written["folder"] = str(out / clip.name)
    for i, frame in enumerate(clip.frames):
        if writer is not None:
            writer.write(frame)
        if folder:
            cv2.imwrite(str(out / clip.name / f"{i:06d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if writer is not None:
        writer.release()
    meta = dict(clip.label, frames=clip.frame_labels, video=Path(written.get("video", "")).name or None,
                codec=written.get("codec"))
    jp = out / f"{clip.name}.json"
    jp.write_text(json.dumps(meta, indent=1))
    written["json"] = str(jp)
    return written
