"""Speed work of branch h4: each change gives the bits of the code it replaced.

The replaced arithmetic is kept here (``ref_*``) and compared with the new
code on random and adversarial inputs.
"""
from __future__ import annotations

import numpy as np

from vision.canonical import CanonicalView, _all_in_frame


def ref_in_source_frame(inv: np.ndarray, xs, ys, frame_size) -> np.ndarray:
    """``CanonicalView.in_source_frame`` before the all-inside shortcut (per point)."""
    sw = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    sx = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / sw
    sy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / sw
    w, h = frame_size
    return (sx >= 0) & (sx <= w - 1) & (sy >= 0) & (sy <= h - 1)


def _view(to_canonical: np.ndarray) -> CanonicalView:
    s = 8
    z3, z2 = np.zeros((s, s, 3), np.float32), np.zeros((s, s), np.float32)
    return CanonicalView(bgr=np.zeros((s, s, 3), np.uint8), lab=z3, background=z3, residual=z3, delta_e=z2,
                         radius_px=z2, to_canonical=to_canonical, plate_radius_px=3.0)


def test_in_source_frame_shortcut_same_as_per_point():
    rng = np.random.default_rng(4)
    n_short = 0
    for t in range(3000):
        inv = np.eye(3)
        inv[:2, :2] = np.diag([1.8, 1.8]) + rng.normal(0.0, 0.2, (2, 2))  # canonical -> source
        inv[:2, 2] = rng.normal([600.0, 60.0], [250.0, 60.0])
        if t % 2:
            inv[2, :2] = rng.normal(0.0, 3e-4, 2)
        frame = (1920, 1080) if t % 3 else (1280, 720)
        if t % 4 == 0:
            axis = np.arange(320, dtype=np.float32)
            xs, ys = axis[None, :], axis[:, None]
        else:
            xs = rng.uniform(-20, 340, (7, 90)).astype(np.float32).astype(np.float64)
            ys = rng.uniform(-20, 340, (7, 90))
        view = _view(np.linalg.inv(inv))
        got = view.in_source_frame(xs, ys, frame)
        ref = ref_in_source_frame(np.linalg.inv(view.to_canonical), xs, ys, frame)
        assert got.shape == ref.shape and np.array_equal(got, ref)
        n_short += _all_in_frame(np.linalg.inv(view.to_canonical), xs, ys, frame)
    assert n_short > 50  # the shortcut was taken


def test_in_source_frame_edges_and_bad_points():
    # a point exactly on the frame's edge, NaN, inf, empty: the per-point result
    inv = np.eye(3)
    view = _view(inv)
    for xs in (np.array([0.0, 5.0, 1919.0]), np.array([1.0, np.nan]), np.array([1.0, np.inf]), np.zeros(0)):
        ys = np.full(xs.shape, 3.0)
        assert np.array_equal(view.in_source_frame(xs, ys, (1920, 1080)), ref_in_source_frame(inv, xs, ys, (1920, 1080)))


def ref_colour_joined_to_faces(residual, radius_px, plate_radius_px, faces, token_radius_px):
    """``vision.joined_colour.colour_joined_to_faces`` before the chroma on the well's box (checks left out)."""
    import math

    import cv2

    from vision.joined_colour import (JOINED_COLOUR_DISC_RADII, JOINED_COLOUR_MIN_LAB, JOINED_COLOUR_NOISE_UNITS,
                                      JOINED_COLOUR_WELL_FRAC)
    from vision.plate import median_and_noise
    if not faces:
        return []
    well = radius_px < JOINED_COLOUR_WELL_FRAC * plate_radius_px
    chroma = np.hypot(residual[..., 1], residual[..., 2])
    median, noise = median_and_noise(chroma[well])
    threshold = max(JOINED_COLOUR_MIN_LAB, float(median) + JOINED_COLOUR_NOISE_UNITS * noise)
    above = ((chroma >= threshold) & well).astype(np.uint8)
    _, labels = cv2.connectedComponents(above, connectivity=8)
    h, w = above.shape
    yy, xx = np.ogrid[0:h, 0:w]
    discs = np.zeros((h, w), bool)
    for x, y in faces:
        discs |= (xx - x) ** 2 + (yy - y) ** 2 < (JOINED_COLOUR_DISC_RADII * token_radius_px) ** 2
    outside = np.where(discs, 0, labels)
    areas = np.bincount(outside.ravel(), minlength=int(labels.max()) + 1)
    token_area = math.pi * token_radius_px ** 2
    out = []
    for x, y in faces:
        i, j = min(max(int(round(y)), 0), h - 1), min(max(int(round(x)), 0), w - 1)
        label = int(labels[i, j])
        out.append(float(areas[label]) / token_area if label else 0.0)
    return out


def test_colour_joined_to_faces_same_as_whole_canvas():
    import cv2

    from vision.canonical import _radius_grid
    from vision.joined_colour import colour_joined_to_faces
    rng = np.random.default_rng(8)
    radius = _radius_grid(320)
    for t in range(40):
        residual = rng.normal(0.0, 2.0, (320, 320, 3)).astype(np.float32)
        residual[..., 1:] = cv2.GaussianBlur(residual[..., 1:], (0, 0), 2.0) * (1 + t % 5)
        faces = [(float(v), float(u)) for u, v in rng.uniform(60, 260, (1 + t % 4, 2))]
        for x, y in faces:  # coloured faces with colour joined to some
            cv2.circle(residual, (int(x), int(y)), 14, (0.0, 20.0, 10.0), -1)
            cv2.line(residual, (int(x), int(y)), (int(x) + 40, int(y) + 5), (0.0, 15.0, 8.0), 5)
        if t % 2:
            faces.append((3.0, 300.0) if t % 4 == 1 else (40.0, 160.0))  # outside the well's box, or on its edge
        r_plate = 128.0 if t % 3 else 150.0
        got = colour_joined_to_faces(residual, radius, r_plate, faces, 14.0)
        assert got == ref_colour_joined_to_faces(residual, radius, r_plate, faces, 14.0)
