"""Painters of the table-scene synthesizer: cloth, plate, token, bowl, stick, hand.

Each painter models its element in 3D (plate radii, table plane ``z = 0``),
projects it through the :class:`~vision.synth_render.Camera` of a
:class:`~vision.synth_render.Canvas` and shades it with its
:class:`~vision.synth_render.Light`.  Colours are linear RGB float32 (3,).
Painters that need texture noise take an explicit ``numpy.random.Generator``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .synth_render import Canvas, circle_points, conic_ellipse, hull, moment_ellipse

UP = np.array([0.0, 0.0, 1.0])


def smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


# ---------------------------------------------------------------------------
# cloth
# ---------------------------------------------------------------------------
def paint_cloth(cv: Canvas, rng: np.random.Generator, *, albedo: np.ndarray, texture: str,
                albedo_alt: np.ndarray, weave_period_R: float, mottle_amp: float, fine_amp: float) -> None:
    """Fill the whole canvas with lit, textured cloth (or wood) on the table plane.

    Parameters
    ----------
    albedo, albedo_alt : ndarray float32 (3,)
        Main colour and, for ``wood``, the colour of the dark grain.
    texture : str
        ``felt`` (mottled noise), ``weave`` (a perspective-correct thread
        pattern) or ``wood`` (grain lines).
    weave_period_R : float
        Thread or grain period on the table, plate radii.
    mottle_amp, fine_amp : float
        Relative amplitude of the low-frequency and per-pixel texture.
    """
    h, w = cv.h, cv.w
    # irradiance is smooth: evaluate it on a coarse grid of the table and upsample
    step = 8
    gh, gw = -(-h // step) + 1, -(-w // step) + 1
    _, _, pc = cv.plane_points((0, 0, gw, gh), (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0),
                               pixel_scale=float(step))
    irr_c = cv.light.irradiance(pc, UP.astype(np.float32))
    irr = cv2.resize(irr_c, ((gw - 1) * step, (gh - 1) * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
    low = rng.standard_normal((max(h // 24, 2), max(w // 24, 2)), dtype=np.float32)
    low = cv2.resize(low, (w, h), interpolation=cv2.INTER_LINEAR)
    tex = rng.standard_normal((h, w), dtype=np.float32)
    tex *= np.float32(fine_amp)
    tex += 1.0
    tex += mottle_amp * low
    if texture in ("weave", "wood"):
        s, q, _ = cv.plane_points((0, 0, w, h), (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), points=False)
    if texture == "weave":
        k = np.float32(2 * math.pi / weave_period_R)
        tex *= 1.0 + 0.06 * (np.sin(s * k) * np.sin(q * k))
    tex *= irr
    if texture == "wood":
        warp = cv2.resize(rng.standard_normal((max(h // 64, 2), max(w // 64, 2)), dtype=np.float32), (w, h),
                          interpolation=cv2.INTER_LINEAR)
        g = 0.5 + 0.5 * np.sin(q * np.float32(2 * math.pi / weave_period_R) + 1.2 * warp + 0.15 * s)
        g = 0.6 * g ** 2
        np.multiply((albedo_alt - albedo)[None, None, :], g[..., None], out=cv.image)
        cv.image += albedo
        cv.image *= tex[..., None]
    else:
        np.multiply(tex[..., None], albedo, out=cv.image)


# ---------------------------------------------------------------------------
# plate
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PlateModel:
    """A round plate in plate-radius units.

    Attributes
    ----------
    well_R : float
        Radius of the flat well, where tokens lie.
    rim_inner_R : float
        Radius where the rim's inner slope reaches the rim top.
    foot_R : float
        Radius of the foot on the table.
    rim_height_R, well_height_R : float
        Heights of the rim top and of the well floor above the table.
    """

    well_R: float = 0.8
    rim_inner_R: float = 0.9
    foot_R: float = 0.86
    rim_height_R: float = 0.06
    well_height_R: float = 0.025

    def height(self, rho: np.ndarray) -> np.ndarray:
        t = smoothstep(self.well_R, self.rim_inner_R, rho)
        z = self.well_height_R + (self.rim_height_R - self.well_height_R) * t
        roll = np.clip((rho - 0.97) / 0.03, 0.0, 1.5)
        return (z - 0.015 * roll * roll).astype(np.float32)


def paint_plate_shadow(cv: Canvas, plate: PlateModel, *, blur_sigma_px: float, strength: float) -> None:
    """The plate's soft drop shadow and contact darkening on the cloth."""
    top = circle_points((0, 0, plate.rim_height_R), (1, 0, 0), (0, 1, 0), 1.0)
    foot = circle_points((0, 0, 0), (1, 0, 0), (0, 1, 0), plate.foot_R)
    pts = np.concatenate([cv.shadow_points(top, 0.0), cv.camera.project(foot)])
    cv.soft_shadow([hull(pts)], blur_sigma_px=blur_sigma_px, strength=strength)
    cv.soft_shadow([hull(cv.camera.project(circle_points((0, 0, 0), (1, 0, 0), (0, 1, 0), 1.0)))],
                   blur_sigma_px=blur_sigma_px * 0.3, strength=strength * 0.5)


def plate_outline(cv: Canvas, plate: PlateModel) -> np.ndarray:
    """Pixel polygon (N, 2) of the plate's silhouette."""
    top = circle_points((0, 0, plate.rim_height_R), (1, 0, 0), (0, 1, 0), 1.0)
    foot = circle_points((0, 0, 0), (1, 0, 0), (0, 1, 0), plate.foot_R)
    return hull(cv.camera.project(np.concatenate([top, foot])))


#: Texels across the decoration texture, which spans the plate's [-1, 1] x
#: [-1, 1] (plate radii): 0.001 plate radii a texel, under a pixel at 4K.
DECOR_TEXELS = 2048


@dataclass(frozen=True)
class Decor:
    """Painted decoration of a plate's glaze: a coverage texture and its colour.

    Attributes
    ----------
    coverage : ndarray, float32, (DECOR_TEXELS, DECOR_TEXELS)
        Paint coverage in [0, 1]; texel ``(i, j)`` is the plate point
        ``x = -1 + 2 j / (T - 1)``, ``y = -1 + 2 i / (T - 1)`` (plate radii).
    albedo : ndarray, float32, (3,)
        Linear-RGB albedo of the paint.
    """

    coverage: np.ndarray
    albedo: np.ndarray

    def __post_init__(self) -> None:
        t = DECOR_TEXELS
        if self.coverage.shape != (t, t) or self.coverage.dtype != np.float32:
            raise ValueError(f"coverage: expected float32 ({t}, {t}), got {self.coverage.dtype} {self.coverage.shape}")
        if np.shape(self.albedo) != (3,):
            raise ValueError(f"albedo: expected shape (3,), got {np.shape(self.albedo)}")


def _texel(v_R: float) -> float:
    """Plate radii to texels (a length)."""
    return v_R * (DECOR_TEXELS - 1) / 2.0


#: Fixed-point bits of the decoration's drawing (sub-texel placement).
_DECOR_SHIFT = 4


def _texel_point(x_R: float, y_R: float) -> tuple[int, int]:
    """A plate point (plate radii) to texel coordinates, fixed point (``_DECOR_SHIFT`` bits)."""
    f = (DECOR_TEXELS - 1) / 2.0 * (1 << _DECOR_SHIFT)
    return int(round((x_R + 1.0) * f)), int(round((y_R + 1.0) * f))


def _texel_length(v_R: float) -> int:
    """A length (plate radii) in texels, fixed point (``_DECOR_SHIFT`` bits): a radius or half-axis."""
    return int(round(_texel(v_R) * (1 << _DECOR_SHIFT)))


def _texel_width(v_R: float) -> int:
    """A line width (plate radii) in whole texels, at least one."""
    return max(1, int(round(_texel(v_R))))


def decor_coverage(kind: str, rng: np.random.Generator, plate: PlateModel) -> tuple[np.ndarray, dict]:
    """Draw a decoration's coverage texture (see :class:`Decor`) and describe it.

    ``speckle``: iron specks in the glaze, 0.004-0.012 plate radii, 300-1500
    of them over the plate.  ``rings``: one to three painted concentric lines,
    0.006-0.02 plate radii wide, in the well or on the rim.  ``motif``: a
    blue-and-white style medallion: a ring 0.2-0.35 plate radii out with
    6-10 petals round it, and two to five brush strokes (arcs) in the well.

    Returns
    -------
    coverage : ndarray, float32, (DECOR_TEXELS, DECOR_TEXELS)
    info : dict
        JSON-able description for the scene label.
    """
    t = DECOR_TEXELS
    canvas = np.zeros((t, t), np.uint8)
    aa, sh = cv2.LINE_AA, _DECOR_SHIFT
    info: dict = {"kind": kind}
    if kind == "speckle":
        n = int(rng.integers(300, 1500))
        rad = 0.98 * np.sqrt(rng.random(n))
        ang = rng.uniform(0, 2 * math.pi, n)
        size = rng.uniform(0.004, 0.012, n)
        strength = rng.uniform(0.4, 1.0, n)
        for r, a, s, k in zip(rad, ang, size, strength):
            cv2.circle(canvas, _texel_point(r * math.cos(a), r * math.sin(a)), _texel_length(s),
                       int(round(255 * k)), thickness=-1, lineType=aa, shift=sh)
        info["specks"] = n
    elif kind == "rings":
        k = int(rng.integers(1, 4))
        radii = sorted(float(rng.uniform(0.3, 0.97)) for _ in range(k))
        widths = [float(rng.uniform(0.006, 0.02)) for _ in range(k)]
        for r, w in zip(radii, widths):
            cv2.circle(canvas, _texel_point(0.0, 0.0), _texel_length(r), 255,
                       thickness=_texel_width(w), lineType=aa, shift=sh)
        info["rings_R"] = [round(r, 4) for r in radii]
        info["widths_R"] = [round(w, 4) for w in widths]
    elif kind == "motif":
        r0 = float(rng.uniform(0.2, 0.35))
        width = float(rng.uniform(0.01, 0.02))
        cv2.circle(canvas, _texel_point(0.0, 0.0), _texel_length(r0), 255,
                   thickness=_texel_width(width), lineType=aa, shift=sh)
        petals = int(rng.integers(6, 11))
        turn = float(rng.uniform(0, 2 * math.pi))
        length, breadth = float(rng.uniform(0.04, 0.07)), float(rng.uniform(0.015, 0.03))
        for i in range(petals):
            a = turn + 2 * math.pi * i / petals
            cx, cy = (r0 + length + width) * math.cos(a), (r0 + length + width) * math.sin(a)
            cv2.ellipse(canvas, _texel_point(cx, cy),
                        (_texel_length(length), _texel_length(breadth)),
                        math.degrees(a), 0, 360, 255, thickness=-1, lineType=aa, shift=sh)
        strokes = int(rng.integers(2, 6))
        for _ in range(strokes):
            rr = float(rng.uniform(0.45, plate.well_R - 0.05))
            a0 = float(rng.uniform(0, 360))
            span = float(rng.uniform(20, 70))
            sw = float(rng.uniform(0.008, 0.02))
            cv2.ellipse(canvas, _texel_point(0.0, 0.0), (_texel_length(rr),) * 2, 0.0, a0, a0 + span,
                        255, thickness=_texel_width(sw), lineType=aa, shift=sh)
        info.update(medallion_R=round(r0, 4), petals=petals, strokes=strokes)
    else:
        raise ValueError(f"kind: expected speckle, rings or motif, got {kind!r}")
    return canvas.astype(np.float32) * np.float32(1.0 / 255.0), info


def _decor_at(decor: Decor, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """The decoration's coverage at plate points (plate radii), bilinear, 0 off the texture."""
    f = np.float32((DECOR_TEXELS - 1) / 2.0)
    return cv2.remap(decor.coverage, ((px + 1.0) * f).astype(np.float32), ((py + 1.0) * f).astype(np.float32),
                     interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)


def paint_plate(cv: Canvas, plate: PlateModel, *, albedo: np.ndarray, band_albedo: np.ndarray,
                specular: float, shininess: float, decor: Decor | None = None) -> dict:
    """Paint the plate; returns the label ellipse of the outer rim (pixels).

    ``decor``: paint on the glaze (under the glaze's gloss), or None."""
    outline = plate_outline(cv, plate)
    roi = cv.roi(outline)
    rim = conic_ellipse(cv.camera.table_homography(plate.rim_height_R), 1.0)
    if roi is None:
        return rim
    alpha = cv.poly_mask([outline], roi)
    xs, ys = cv.grid(roi)
    d = cv.camera.rays(xs, ys)
    eye = cv.camera.centre.astype(np.float32)
    z = np.full(xs.shape, plate.well_height_R, np.float32)
    for _ in range(3):  # march the ray onto the plate's height field
        tt = (z - eye[2]) / d[..., 2]
        px = eye[0] + tt * d[..., 0]
        py = eye[1] + tt * d[..., 1]
        rho = np.sqrt(px * px + py * py)
        z = plate.height(rho)
    # normal from the radial slope of the height field
    eps = 0.004
    slope = (plate.height(rho + eps) - plate.height(rho - eps)) / (2 * eps)
    slope = np.where(rho > 1.0, np.float32(4.0), slope)
    inv = 1.0 / np.sqrt(1.0 + slope * slope)
    rr = np.maximum(rho, 1e-6)
    n = np.stack([-slope * px / rr * inv, -slope * py / rr * inv, inv], axis=-1)
    p = np.stack([px, py, z], axis=-1)
    irr = cv.light.irradiance(p, n)
    occl = 1.0 - 0.12 * np.exp(-((rho - plate.well_R) / 0.03) ** 2)
    band = smoothstep(plate.rim_inner_R - 0.02, plate.rim_inner_R + 0.02, rho)[..., None]
    alb = albedo * (1.0 - band) + band_albedo * band
    if decor is not None:
        cover = _decor_at(decor, px, py)[..., None]
        alb = alb * (1.0 - cover) + decor.albedo * cover
    spec = cv.light.specular(p, n, eye, shininess)
    colour = alb * (irr * occl)[..., None] + (specular * spec)[..., None]
    cv.blend(roi, alpha, colour)
    return rim


# ---------------------------------------------------------------------------
# tokens (thick discs)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Disc:
    """A token as a cylinder: bottom-face centre, orthonormal axes, size and colours.

    ``e1, e2`` span the faces and ``n`` points from the bottom face to the
    top face; ``top_albedo`` is the colour of the ``+n`` face.
    """

    base: np.ndarray
    e1: np.ndarray
    e2: np.ndarray
    n: np.ndarray
    radius: float
    thickness: float
    top_albedo: np.ndarray
    bottom_albedo: np.ndarray
    side_albedo: np.ndarray
    specular: float
    shininess: float

    @property
    def top(self) -> np.ndarray:
        return self.base + self.thickness * self.n

    def visible_face(self, eye: np.ndarray) -> str:
        """``top`` when the ``+n`` face looks towards ``eye``, else ``bottom``."""
        return "top" if float(np.dot(eye - self.top, self.n)) > 0 else "bottom"

    def points(self) -> np.ndarray:
        return np.concatenate([circle_points(self.base, self.e1, self.e2, self.radius),
                               circle_points(self.top, self.e1, self.e2, self.radius)])


def disc_outline(cv: Canvas, disc: Disc) -> np.ndarray:
    """Pixel polygon (N, 2) of a disc's silhouette."""
    return hull(cv.camera.project(disc.points()))


def disc_face_ellipse(cv: Canvas, disc: Disc) -> dict:
    """Label ellipse (pixels) of the face the camera sees."""
    face = disc.visible_face(cv.camera.centre)
    c = disc.top if face == "top" else disc.base
    return conic_ellipse(cv.camera.plane_homography(c, disc.e1, disc.e2), disc.radius)


def paint_disc_shadow(cv: Canvas, disc: Disc, *, z_recv: float, blur_sigma_px: float, strength: float) -> None:
    pts = cv.shadow_points(disc.points(), z_recv)
    cv.soft_shadow([hull(pts)], blur_sigma_px=blur_sigma_px, strength=strength)


def paint_disc(cv: Canvas, disc: Disc) -> dict:
    """Paint a token.

    Returns
    -------
    dict with ``face`` (``top``/``bottom``: which face is seen), ``ellipse``
    (the seen face, pixels), ``footprint`` (moment ellipse of the silhouette)
    and ``outline`` (pixel polygon).
    """
    eye = cv.camera.centre
    outline = disc_outline(cv, disc)
    face = disc.visible_face(eye)
    ell = disc_face_ellipse(cv, disc)
    info = {"face": face, "ellipse": ell, "footprint": moment_ellipse(outline), "outline": outline}
    roi = cv.roi(outline)
    if roi is None:
        return info
    x0, y0, x1, y1 = roi
    # side wall: one quad per segment, shaded by its outward normal, back faces culled
    nseg = 48
    a = np.linspace(0, 2 * math.pi, nseg + 1)
    radial = np.cos(a)[:, None] * disc.e1 + np.sin(a)[:, None] * disc.e2
    bot = disc.base + disc.radius * radial
    top = disc.top + disc.radius * radial
    pb, pt = cv.camera.project(bot), cv.camera.project(top)
    face_alb = disc.top_albedo if face == "top" else disc.bottom_albedo
    buf = np.empty((y1 - y0, x1 - x0, 3), np.float32)
    buf[...] = disc.side_albedo * 0.6
    mids = 0.5 * (bot[:-1] + top[1:])
    ns = 0.5 * (radial[:-1] + radial[1:])
    irr = cv.light.irradiance(mids, ns)
    for i in range(nseg):
        if np.dot(eye - mids[i], ns[i]) <= 0:
            continue
        quad = np.array([pb[i], pb[i + 1], pt[i + 1], pt[i]]) - (x0, y0)
        col = disc.side_albedo * irr[i]
        cv2.fillPoly(buf, [np.round(quad * 16).astype(np.int32)], tuple(float(c) for c in col), shift=4)
    cv.blend(roi, cv.poly_mask([outline], roi), buf)
    # the seen face, lit per pixel with a glossy highlight and a slight bevel
    fc = disc.top if face == "top" else disc.base
    fn = disc.n if face == "top" else -disc.n
    face_poly = cv.camera.project(circle_points(fc, disc.e1, disc.e2, disc.radius))
    alpha = cv.poly_mask([face_poly], roi)
    s, q, p = cv.plane_points(roi, fc, disc.e1, disc.e2)
    rho = np.sqrt(s * s + q * q) / disc.radius
    nn = np.broadcast_to(fn.astype(np.float32), p.shape)
    irr = cv.light.irradiance(p, nn) * (1.0 - 0.22 * smoothstep(0.82, 1.0, rho))
    spec = cv.light.specular(p, nn, eye.astype(np.float32), disc.shininess)
    colour = face_alb * irr[..., None] + (disc.specular * spec)[..., None]
    cv.blend(roi, alpha, colour)
    return info


# ---------------------------------------------------------------------------
# bowl (a shaded dome)
# ---------------------------------------------------------------------------
def dome_points(centre, radius: float, height: float) -> np.ndarray:
    lat = np.linspace(0, math.pi / 2, 10)
    lon = np.linspace(0, 2 * math.pi, 64, endpoint=False)
    la, lo = np.meshgrid(lat, lon)
    pts = np.stack([radius * np.cos(la) * np.cos(lo), radius * np.cos(la) * np.sin(lo), height * np.sin(la)], -1)
    return pts.reshape(-1, 3) + np.asarray(centre, float)


def paint_dome_shadow(cv: Canvas, centre, *, radius: float, height: float, z_recv: float,
                      blur_sigma_px: float, strength: float) -> None:
    pts = cv.shadow_points(dome_points(centre, radius, height), z_recv)
    cv.soft_shadow([hull(pts)], blur_sigma_px=blur_sigma_px, strength=strength)


def paint_dome(cv: Canvas, centre, *, radius: float, height: float, albedo: np.ndarray,
               specular: float, shininess: float) -> np.ndarray:
    """Paint an upturned bowl: the upper half of an ellipsoid, ray-cast per pixel.

    Returns the pixel outline polygon (N, 2).
    """
    c = np.asarray(centre, np.float32)
    outline = hull(cv.camera.project(dome_points(c, radius, height)))
    roi = cv.roi(outline)
    if roi is None:
        return outline
    alpha = cv.poly_mask([outline], roi)
    xs, ys = cv.grid(roi)
    d = cv.camera.rays(xs, ys)
    eye = cv.camera.centre.astype(np.float32)
    sc = np.array([1 / radius, 1 / radius, 1 / height], np.float32)
    o = (eye - c) * sc
    dd = d * sc
    qa = np.sum(dd * dd, -1)
    qb = 2 * np.sum(dd * o, -1)
    qc = float(o @ o) - 1.0
    disc = np.maximum(qb * qb - 4 * qa * qc, 0.0)
    tt = (-qb - np.sqrt(disc)) / (2 * qa)
    p = eye + tt[..., None] * d
    rel = (p - c) * sc
    n = rel * sc
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    irr = cv.light.irradiance(p, n)
    zrel = np.clip(rel[..., 2], 0.0, 1.0)
    lip = 1.0 - 0.25 * (1.0 - smoothstep(0.0, 0.08, zrel))
    foot = 1.0 - 0.12 * smoothstep(0.9, 0.93, zrel)
    spec = cv.light.specular(p, n, eye, shininess)
    colour = albedo * (irr * lip * foot)[..., None] + (specular * spec)[..., None]
    cv.blend(roi, alpha, colour)
    return outline


# ---------------------------------------------------------------------------
# dealer's stick and hand
# ---------------------------------------------------------------------------
def rod_polygon(cv: Canvas, tip3, tail3, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel polygon of a rod seen from the camera, and its projected end points."""
    pa, pb = cv.camera.project(np.array([tip3, tail3], float))
    cam = cv.camera
    da = (cam.R @ np.asarray(tip3, float) + cam.t)[2]
    db = (cam.R @ np.asarray(tail3, float) + cam.t)[2]
    f = cam.K[0, 0]
    wa, wb = radius * f / max(da, 1e-3), radius * f / max(db, 1e-3)
    v = pb - pa
    v = v / max(np.linalg.norm(v), 1e-9)
    nrm = np.array([-v[1], v[0]])
    round_tip = [pa + wa * (math.cos(t) * nrm + math.sin(t) * -v) for t in np.linspace(0, math.pi, 9)]
    poly = np.array(round_tip + [pb - wb * nrm, pb + wb * nrm])
    return poly, pa, pb


def paint_rod(cv: Canvas, tip3, tail3, *, radius: float, albedo: np.ndarray) -> np.ndarray:
    """A long round rod (the dealer's stick); returns its coverage mask (H, W) float32."""
    poly, pa, pb = rod_polygon(cv, tip3, tail3, radius)
    tip_s = np.array(tip3, float)
    tail_s = np.array(tail3, float)
    sh = cv.shadow_points(np.array([tip_s, tail_s]), 0.03)
    sw = max(radius * cv.camera.K[0, 0] / 8.0, 1.0)
    v = sh[1] - sh[0]
    v = v / max(np.linalg.norm(v), 1e-9)
    nrm = np.array([-v[1], v[0]]) * sw * 1.5
    cv.soft_shadow([np.array([sh[0] - nrm, sh[0] + nrm, sh[1] + nrm * 2, sh[1] - nrm * 2])],
                   blur_sigma_px=sw * 1.5, strength=0.35)
    mask = cv.full_mask([poly])
    roi = cv.roi(poly)
    if roi is None:
        return mask
    x0, y0, x1, y1 = roi
    xs, ys = cv.grid(roi)
    v = pb - pa
    length = max(float(np.linalg.norm(v)), 1e-6)
    u = v / length
    nrm = np.array([-u[1], u[0]])
    along = np.clip(((xs - pa[0]) * u[0] + (ys - pa[1]) * u[1]) / length, 0, 1)
    dist = (xs - pa[0]) * nrm[0] + (ys - pa[1]) * nrm[1]
    half = np.asarray(poly_half_width(poly, pa, pb, along), np.float32)
    x = np.clip(dist / np.maximum(half, 0.5), -1, 1)
    shade = 0.35 + 0.65 * np.sqrt(1 - x * x) + 0.5 * np.exp(-((x + 0.35) / 0.15) ** 2)
    cv.blend(roi, mask[y0:y1, x0:x1], albedo * shade[..., None])
    return mask


def poly_half_width(poly, pa, pb, along):
    wa = float(np.linalg.norm(poly[0] - pa))
    wb = float(np.linalg.norm(poly[-1] - pb))
    return wa + (wb - wa) * along


def paint_hand(cv: Canvas, anchor_px, direction, *, size_px: float, albedo: np.ndarray) -> np.ndarray:
    """A skin-toned hand blob (palm and four fingers) reaching from ``anchor_px`` along ``direction``.

    Returns its coverage mask (H, W) float32.
    """
    u = np.asarray(direction, float)
    u = u / max(np.linalg.norm(u), 1e-9)
    nrm = np.array([-u[1], u[0]])
    a = np.asarray(anchor_px, float)
    m = np.zeros((cv.h, cv.w), np.uint8)
    ang = math.degrees(math.atan2(u[1], u[0]))

    def ell(c, ax, bx):
        cv2.ellipse(m, (int(round(c[0] * 16)), int(round(c[1] * 16))), (int(ax * 16), int(bx * 16)), ang, 0, 360,
                    255, -1, cv2.LINE_AA, 4)

    ell(a, size_px * 0.9, size_px * 0.55)
    for k, off in enumerate((-0.39, -0.13, 0.13, 0.39)):
        length = size_px * (0.55 + 0.12 * (1.5 - abs(k - 1.5)))
        ell(a + u * (size_px * 0.75 + length * 0.5) + nrm * off * size_px, length * 0.55, size_px * 0.11)
    ell(a + u * size_px * 0.3 + nrm * size_px * 0.62, size_px * 0.4, size_px * 0.13)
    mask = m.astype(np.float32) / 255.0
    shadow = cv2.GaussianBlur(np.roll(mask, (int(size_px * 0.15), int(size_px * 0.1)), axis=(0, 1)), (0, 0),
                              size_px * 0.12)
    cv.image *= (1.0 - 0.4 * shadow)[..., None]
    shade = cv2.GaussianBlur(mask, (0, 0), max(size_px * 0.08, 1.0))
    colour = albedo * (0.5 + 0.6 * shade)[..., None]
    cv.image *= (1.0 - mask)[..., None]
    cv.image += colour * mask[..., None]
    return mask


def paint_card(cv: Canvas, centre_xy, *, half_w_R: float, half_h_R: float, angle_deg: float,
               albedo: np.ndarray) -> None:
    """A stray flat card on the table (for ``no_plate`` scenes)."""
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    corners = np.array([[-half_w_R, -half_h_R], [half_w_R, -half_h_R], [half_w_R, half_h_R], [-half_w_R, half_h_R]])
    rot = corners @ np.array([[c, s], [-s, c]]) + np.asarray(centre_xy, float)
    pts = np.concatenate([rot, np.full((4, 1), 0.004)], axis=1)
    poly = cv.camera.project(pts)
    cv.soft_shadow([poly + 2.0], blur_sigma_px=3.0, strength=0.3)
    roi = cv.roi(poly)
    if roi is None:
        return
    s2, q2, p = cv.plane_points(roi, (0, 0, 0.004), (1, 0, 0), (0, 1, 0))
    irr = cv.light.irradiance(p, np.broadcast_to(UP.astype(np.float32), p.shape))
    cv.blend(roi, cv.poly_mask([poly], roi), albedo * irr[..., None])
