"""Geometry and painting primitives of the table-scene synthesizer.

The world is the table plane ``z = 0`` in units of the plate's outer rim
radius (``R = 1``), with the plate centred at the origin.  A pinhole
:class:`Camera` maps world points to source pixels; every element (plate,
token, bowl, stick) is modelled in 3D, projected with the camera and shaded
with one point light, on a linear-RGB float32 canvas of shape (H, W, 3).
Nothing here draws random numbers: :mod:`vision.synth` decides the scene and
passes every value explicitly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: Sub-pixel bits used for anti-aliased polygon filling.
_SHIFT_BITS = 4
_SHIFT_SCALE = float(1 << _SHIFT_BITS)
#: Points used to sample a circle before projecting it.
CIRCLE_POINTS = 72


def srgb_to_linear(rgb255) -> np.ndarray:
    """sRGB 0-255 triple(s) to linear RGB in [0, 1] (gamma 2.2), float32."""
    return (np.asarray(rgb255, dtype=np.float32) / 255.0) ** 2.2


def rot_x(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def rot_z(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def rot_axis(axis, deg: float) -> np.ndarray:
    """Rodrigues rotation matrix about a unit ``axis`` by ``deg`` degrees."""
    k = np.asarray(axis, dtype=np.float64)
    k = k / np.linalg.norm(k)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    a = math.radians(deg)
    return np.eye(3) + math.sin(a) * kx + (1 - math.cos(a)) * (kx @ kx)


@dataclass(frozen=True)
class Camera:
    """A pinhole camera.

    Attributes
    ----------
    K : ndarray, float64, (3, 3)
        Intrinsics, pixels.
    R : ndarray, float64, (3, 3)
        World-to-camera rotation.
    t : ndarray, float64, (3,)
        World-to-camera translation (``X_cam = R X + t``), plate-radius units.
    width, height : int
        Frame size, pixels.
    """

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    @property
    def centre(self) -> np.ndarray:
        """Camera centre in world coordinates, (3,)."""
        return -self.R.T @ self.t

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) to pixels (N, 2), float64."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3) @ self.R.T + self.t
        uvw = p @ self.K.T
        return uvw[:, :2] / uvw[:, 2:3]

    def plane_homography(self, origin, e1, e2) -> np.ndarray:
        """3x3 homography from plane coordinates ``origin + s e1 + q e2`` to pixels."""
        cols = np.stack([self.R @ np.asarray(e1, float), self.R @ np.asarray(e2, float),
                         self.R @ np.asarray(origin, float) + self.t], axis=1)
        return self.K @ cols

    def table_homography(self, z: float = 0.0) -> np.ndarray:
        """Homography of the horizontal plane at height ``z`` (plate radii)."""
        return self.plane_homography((0.0, 0.0, z), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))

    def rays(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """World-space ray directions (unnormalised) through pixels, (..., 3)."""
        kinv = np.linalg.inv(self.K)
        m = (self.R.T @ kinv).astype(np.float32)
        return (xs[..., None] * m[:, 0] + ys[..., None] * m[:, 1] + m[:, 2]).astype(np.float32)


def make_camera(size, *, tilt_deg: float, yaw_deg: float, distance_R: float,
                plate_frac: float, offset_frac: tuple[float, float]) -> Camera:
    """Build a camera that looks down on the table.

    Parameters
    ----------
    size : (int, int)
        (width, height), pixels.
    tilt_deg : float
        Angle of the optical axis from the vertical, degrees.
    yaw_deg : float
        Rotation of the view about the vertical, degrees.
    distance_R : float
        Distance from the camera to the looked-at table point, plate radii.
    plate_frac : float
        Apparent plate diameter as a fraction of ``min(width, height)``.
    offset_frac : (float, float)
        Where the plate centre lands, as a fraction of (width, height) away
        from the frame centre.
    """
    w, h = size
    f = plate_frac * min(w, h) * distance_R / 2.0
    K = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1]], dtype=np.float64)
    R = rot_x(tilt_deg) @ np.diag([1.0, -1.0, -1.0]) @ rot_z(yaw_deg)
    forward = R.T @ np.array([0.0, 0.0, 1.0])
    cam0 = Camera(K, R, -R @ (-distance_R * forward), w, h)  # looks at the origin
    # Moving the camera parallel to the table moves the whole image content:
    # find the table point seen at the wanted pixel and shift the camera by it.
    want = np.array([w / 2.0 + offset_frac[0] * w, h / 2.0 + offset_frac[1] * h, 1.0])
    g = np.linalg.inv(cam0.table_homography(0.0)) @ want
    g = g[:2] / g[2]
    centre = cam0.centre - np.array([g[0], g[1], 0.0])
    return Camera(K, R, -R @ centre, w, h)


def circle_points(centre, e1, e2, radius: float, n: int = CIRCLE_POINTS) -> np.ndarray:
    """Points (n, 3) of a 3D circle with centre and orthonormal in-plane axes."""
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    c = np.asarray(centre, float)
    return c + radius * (np.cos(a)[:, None] * np.asarray(e1, float) + np.sin(a)[:, None] * np.asarray(e2, float))


def conic_ellipse(hom: np.ndarray, radius: float) -> dict:
    """Image ellipse of the circle of ``radius`` about the origin of a plane.

    ``hom`` maps that plane's coordinates to pixels.  Returns a dict with
    ``cx, cy, a, b, angle_deg`` (pixels, degrees in [0, 180), ``a >= b``).
    """
    q = np.diag([1.0, 1.0, -radius * radius])
    hi = np.linalg.inv(hom)
    c = hi.T @ q @ hi
    m = c[:2, :2]
    d = c[:2, 2]
    centre = np.linalg.solve(m, -d)
    s = -(d @ centre + c[2, 2])
    evals, evecs = np.linalg.eigh(m / s)
    evals = np.maximum(evals, 1e-12)
    a = 1.0 / math.sqrt(evals[0])  # smallest eigenvalue -> largest axis
    b = 1.0 / math.sqrt(evals[1])
    v = evecs[:, 0]
    ang = math.degrees(math.atan2(v[1], v[0])) % 180.0
    return _ell(centre[0], centre[1], a, b, ang)


def _ell(cx, cy, a, b, ang) -> dict:
    if b > a:
        a, b, ang = b, a, ang + 90.0
    ang = round(float(ang) % 180.0, 3) % 180.0
    return {"cx": round(float(cx), 3), "cy": round(float(cy), 3), "a": round(float(a), 3),
            "b": round(float(max(b, 1e-3)), 3), "angle_deg": ang}


def moment_ellipse(pts: np.ndarray) -> dict:
    """The ellipse with the same area moments as the convex polygon ``pts`` (N, 2)."""
    m = cv2.moments(np.asarray(pts, np.float32).reshape(-1, 1, 2))
    area = max(m["m00"], 1e-9)
    cx, cy = m["m10"] / area, m["m01"] / area
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / area
    evals, evecs = np.linalg.eigh(cov)
    a = 2.0 * math.sqrt(max(evals[1], 1e-9))
    b = 2.0 * math.sqrt(max(evals[0], 1e-9))
    v = evecs[:, 1]
    return _ell(cx, cy, a, b, math.degrees(math.atan2(v[1], v[0])))


def hull(pts: np.ndarray) -> np.ndarray:
    """Convex hull (M, 2) of pixel points (N, 2)."""
    return cv2.convexHull(np.asarray(pts, np.float32).reshape(-1, 1, 2)).reshape(-1, 2)


@dataclass(frozen=True)
class Light:
    """One point lamp above the table plus ambient light.

    Attributes
    ----------
    position : ndarray (3,)
        Lamp position, plate radii.
    ambient : float
        Ambient fraction of the irradiance, in [0, 1].
    """

    position: np.ndarray
    ambient: float

    def irradiance(self, p: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Irradiance at points ``p`` (..., 3) with unit normals ``n`` (..., 3); 1 at the origin."""
        d = self.position - p
        dist2 = np.sum(d * d, axis=-1)
        cos = np.clip(np.sum(d * n, axis=-1) / np.sqrt(dist2), 0.0, 1.0)
        ref2 = float(self.position @ self.position)
        ref_cos = self.position[2] / math.sqrt(ref2)
        diffuse = cos * (ref2 / dist2) / ref_cos
        return (self.ambient + (1.0 - self.ambient) * diffuse).astype(np.float32)

    def specular(self, p: np.ndarray, n: np.ndarray, eye: np.ndarray, shininess: float) -> np.ndarray:
        """Blinn-Phong specular term in [0, 1] at points ``p`` seen from ``eye``."""
        ldir = self.position - p
        ldir = ldir / np.linalg.norm(ldir, axis=-1, keepdims=True)
        vdir = eye - p
        vdir = vdir / np.linalg.norm(vdir, axis=-1, keepdims=True)
        hv = ldir + vdir
        hv = hv / np.linalg.norm(hv, axis=-1, keepdims=True)
        return (np.clip(np.sum(hv * n, axis=-1), 0.0, 1.0) ** shininess).astype(np.float32)


class Canvas:
    """A linear-RGB float32 image (H, W, 3) with the camera and light that paint it."""

    def __init__(self, image: np.ndarray, camera: Camera, light: Light):
        self.image = image
        self.camera = camera
        self.light = light
        self.h, self.w = image.shape[:2]

    # -- masks -------------------------------------------------------------
    def roi(self, pts: np.ndarray, pad: int = 2):
        """Integer bounding box (x0, y0, x1, y1) of ``pts`` clipped to the frame, or None."""
        p = np.asarray(pts, float).reshape(-1, 2)
        x0 = max(int(math.floor(p[:, 0].min())) - pad, 0)
        y0 = max(int(math.floor(p[:, 1].min())) - pad, 0)
        x1 = min(int(math.ceil(p[:, 0].max())) + pad + 1, self.w)
        y1 = min(int(math.ceil(p[:, 1].max())) + pad + 1, self.h)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    @staticmethod
    def poly_mask(polys, roi) -> np.ndarray:
        """Anti-aliased coverage in [0, 1], float32, of polygons within ``roi``."""
        x0, y0, x1, y1 = roi
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = [np.round((np.asarray(p, float) - (x0, y0)) * _SHIFT_SCALE).astype(np.int32) for p in polys]
        cv2.fillPoly(m, pts, 255, lineType=cv2.LINE_AA, shift=_SHIFT_BITS)
        return m.astype(np.float32) * (1.0 / 255.0)

    def full_mask(self, polys) -> np.ndarray:
        """Anti-aliased coverage (H, W) float32 of polygons over the whole frame."""
        return self.poly_mask(polys, (0, 0, self.w, self.h))

    def grid(self, roi):
        x0, y0, x1, y1 = roi
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        return xs, ys

    def plane_points(self, roi, origin, e1, e2, *, pixel_scale: float = 1.0, points: bool = True):
        """Plane coordinates (s, q) and world points (h, w, 3) seen at the pixels of ``roi``.

        With ``pixel_scale`` k, grid cell (i, j) of ``roi`` stands for pixel (k j, k i)
        (a coarse grid); with ``points=False`` the world points are None.
        """
        hom = self.camera.plane_homography(origin, e1, e2)
        hi = np.linalg.inv(hom).astype(np.float32)
        xs, ys = self.grid(roi)
        if pixel_scale != 1.0:
            xs, ys = xs * np.float32(pixel_scale), ys * np.float32(pixel_scale)
        w = hi[2, 0] * xs + hi[2, 1] * ys + hi[2, 2]
        # a pixel whose ray runs along the plane (a face seen edge-on) has
        # w = 0: it meets the plane nowhere, its s, q (and point) are NaN, and
        # blend paints nothing there
        with np.errstate(divide="ignore"):
            np.reciprocal(w, out=w)
        w[~np.isfinite(w)] = np.nan
        s = (hi[0, 0] * xs + hi[0, 1] * ys + hi[0, 2]) * w
        q = (hi[1, 0] * xs + hi[1, 1] * ys + hi[1, 2]) * w
        if not points:
            return s, q, None
        o = np.asarray(origin, np.float32)
        p = o + s[..., None] * np.asarray(e1, np.float32) + q[..., None] * np.asarray(e2, np.float32)
        return s, q, p

    # -- compositing -------------------------------------------------------
    def blend(self, roi, alpha: np.ndarray, colour: np.ndarray) -> None:
        """Paint ``colour`` ((h, w, 3) or (3,)) over ``roi`` with coverage ``alpha`` (h, w)."""
        x0, y0, x1, y1 = roi
        sub = self.image[y0:y1, x0:x1]
        a = alpha[..., None]
        if np.ndim(colour) == 3:
            # where ``colour`` is not finite (a plane seen edge-on, see
            # plane_points) nothing is painted, whatever the coverage
            ok = np.isfinite(colour).all(axis=-1, keepdims=True)
            if not ok.all():
                a = np.where(ok, a, np.float32(0))
                colour = np.where(ok, colour, np.float32(0))
        sub *= 1.0 - a
        sub += a * colour

    def darken(self, roi, alpha: np.ndarray, strength: float) -> None:
        """Multiply ``roi`` by ``1 - strength * alpha`` (a shadow)."""
        x0, y0, x1, y1 = roi
        self.image[y0:y1, x0:x1] *= (1.0 - strength * alpha)[..., None]

    def soft_shadow(self, polys, *, blur_sigma_px: float, strength: float) -> None:
        """A blurred shadow of polygons (pixels) darkening the canvas."""
        pad = int(3 * blur_sigma_px) + 3
        r = self.roi(np.concatenate([np.asarray(p).reshape(-1, 2) for p in polys]), pad=pad)
        if r is None:
            return
        m = self.poly_mask(polys, r)
        if blur_sigma_px > 0.3:
            m = cv2.GaussianBlur(m, (0, 0), blur_sigma_px)
        self.darken(r, m, strength)

    def shadow_points(self, pts3: np.ndarray, z_recv: float) -> np.ndarray:
        """Project world points from the lamp onto the plane z = ``z_recv`` and then to pixels."""
        lp = self.light.position
        p = np.asarray(pts3, float)
        k = (lp[2] - z_recv) / np.maximum(lp[2] - p[:, 2], 1e-6)
        s = lp + (p - lp) * k[:, None]
        s[:, 2] = z_recv
        return self.camera.project(s)


def blackbody_gain(kelvin: float, reference_kelvin: float = 5000.0) -> np.ndarray:
    """Linear RGB gain of a lamp at ``kelvin`` seen by a camera white-balanced at ``reference_kelvin``.

    Uses Tanner Helland's fit of the blackbody colour (sRGB), linearised and
    normalised to green = 1.  Returns float32 (3,) in RGB order.
    """
    def rgb(k: float) -> np.ndarray:
        t = k / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
        return srgb_to_linear(np.clip([r, g, b], 1.0, 255.0))

    g = rgb(kelvin) / rgb(reference_kelvin)
    return (g / g[1]).astype(np.float32)


#: Entries of the tone-curve look-up table, indexed by sqrt(linear value).
_TONE_LUT_SIZE = 4096
#: Largest linear value the look-up table covers (brighter values clip).
_TONE_MAX_LINEAR = 4.0


def _tone_lut() -> np.ndarray:
    root = np.linspace(0.0, math.sqrt(_TONE_MAX_LINEAR), _TONE_LUT_SIZE)
    lin = root * root
    knee = 0.8
    out = np.where(lin > knee, knee + (1.0 - knee) * (1.0 - np.exp(-(lin - knee) / (1.0 - knee))), lin)
    return (255.0 * np.clip(out, 0.0, 1.0) ** (1.0 / 2.2)).astype(np.float32)


_TONE_LUT = _tone_lut()


def tone_map(lin: np.ndarray) -> np.ndarray:
    """Linear RGB to display values in [0, 255] float32: soft highlight shoulder, gamma 1/2.2.

    A look-up table indexed by the square root of the linear value keeps
    shadow steps below 0.1 DN.
    """
    root = np.sqrt(np.maximum(lin, 0.0, out=lin), out=lin)
    root *= np.float32((_TONE_LUT_SIZE - 1) / math.sqrt(_TONE_MAX_LINEAR))
    np.minimum(root, np.float32(_TONE_LUT_SIZE - 1), out=root)
    return _TONE_LUT[root.astype(np.uint16)]


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A normalised line kernel for motion blur of ``length_px`` pixels at ``angle_deg``."""
    n = max(int(math.ceil(length_px)) | 1, 3)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    half = length_px / 2.0
    cv2.line(k, (int(round(c - dx * half)), int(round(c - dy * half))),
             (int(round(c + dx * half)), int(round(c + dy * half))), 1.0, 1, cv2.LINE_AA)
    return k / max(float(k.sum()), 1e-6)
