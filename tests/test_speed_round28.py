"""Speed work of the twenty-eighth round: each change gives the bits of the code it replaced.

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


def ref_dropped_bar(delta_e, claimed, x, y, token_r, threshold, *, length_radii, max_area_faces):
    """``vision.dropped_bar.dropped_bar`` before the regions' sizes were counted at once."""
    import math

    import cv2

    from vision.dropped_bar import (DROPPED_BAR_HYSTERESIS, DROPPED_BAR_MAX_SAGITTA_RADII,
                                    DROPPED_BAR_MAX_WIDTH_RADII, DROPPED_BAR_MIN_ABOVE_SHARE,
                                    DROPPED_BAR_REACH_RADII)
    h, w = delta_e.shape
    reach = int(math.ceil((DROPPED_BAR_REACH_RADII + length_radii[1] / 2 + 1.0) * token_r))
    x0, x1 = max(int(x) - reach, 0), min(int(x) + reach + 1, w)
    y0, y1 = max(int(y) - reach, 0), min(int(y) + reach + 1, h)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    de = delta_e[y0:y1, x0:x1]
    low = ((de >= DROPPED_BAR_HYSTERESIS * threshold) & (claimed[y0:y1, x0:x1] == 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(low, connectivity=8)
    face_area = math.pi * token_r ** 2
    for i in range(1, n):
        sel = labels == i
        above = de[sel] >= threshold
        count = int(sel.sum())
        if count < 5 or not above.any() or count >= max_area_faces * face_area:
            continue
        ys, xs = np.nonzero(sel)
        cx, cy = float(xs.mean()), float(ys.mean())
        if math.hypot(cx + x0 - x, cy + y0 - y) > DROPPED_BAR_REACH_RADII * token_r:
            continue
        if float(above.mean()) < DROPPED_BAR_MIN_ABOVE_SHARE:
            continue
        evals, evecs = np.linalg.eigh(np.cov(np.vstack([xs - cx, ys - cy])))
        length = math.sqrt(12.0 * max(float(evals[1]), 0.0))
        width = math.sqrt(12.0 * max(float(evals[0]), 0.0))
        if not (length_radii[0] * token_r <= length <= length_radii[1] * token_r
                and width <= DROPPED_BAR_MAX_WIDTH_RADII * token_r):
            continue
        along = (xs - cx) * evecs[0, 1] + (ys - cy) * evecs[1, 1]
        across = (xs - cx) * evecs[0, 0] + (ys - cy) * evecs[1, 0]
        bow = float(np.polyfit(along, across, 2)[0]) * (length / 2) ** 2
        if abs(bow) > DROPPED_BAR_MAX_SAGITTA_RADII * token_r:
            continue
        return cx + x0, cy + y0, float(count), width / length if length > 0 else 1.0
    return None


def test_dropped_bar_same_as_region_by_region():
    import math

    import cv2

    from vision import tokens
    from vision.dropped_bar import dropped_bar
    rng = np.random.default_rng(12)
    found = 0
    for t in range(150):
        de = rng.gamma(2.0, 1.5 + t % 4, (160, 160)).astype(np.float32)  # specks near the threshold
        claimed = np.zeros((160, 160), np.uint8)
        x, y = (float(v) for v in rng.uniform(40, 120, 2))
        for _ in range(t % 4):  # bars near (x, y) about an upright's length, some in fragments, some claimed
            angle, half = rng.uniform(0, math.pi), 17.0 * rng.uniform(0.5, 1.6)
            c = np.array([x, y]) + rng.normal(0, 8, 2)
            d = half * np.array([math.cos(angle), math.sin(angle)])
            cv2.line(de, tuple(int(v) for v in c - d), tuple(int(v) for v in c + d), float(rng.uniform(13, 30)),
                     int(rng.integers(2, 6)))
            if t % 2:
                cv2.circle(de, tuple(int(v) for v in c), 2, 0.0, -1)  # broken in two
        if t % 3 == 0:
            cv2.circle(claimed, (80, 80), 15, 1, -1)
        if t % 5 == 0:
            de[rng.uniform(size=de.shape) < 0.01] = np.nan
        kw = dict(length_radii=tokens.UPRIGHT_LENGTH_RADII, max_area_faces=tokens.UPRIGHT_MAX_AREA)
        got = dropped_bar(de, claimed, x, y, 17.0, 15.0, **kw)
        assert got == ref_dropped_bar(de, claimed, x, y, 17.0, 15.0, **kw)
        found += got is not None
    assert found > 5



def ref_is_rim_arc(region, radius_frac, token_radius_frac):
    """``vision.blobshape.is_rim_arc`` before the shortcut (checks left out)."""
    import math

    import cv2

    from vision.blobshape import (RIM_ARC_MAX_THICKNESS_FRAC, RIM_ARC_MIN_LENGTH_RADII, RIM_ARC_MIN_RADIUS_FRAC,
                                  _arc_is_even)
    found = cv2.findNonZero(np.ascontiguousarray(region if region.dtype == bool else region != 0).view(np.uint8))
    if found is None or found.shape[0] < 3:
        return False
    found = found.reshape(-1, 2)
    rr, cc = found[:, 1], found[:, 0]
    rho = radius_frac[rr, cc]
    lo, hi = np.percentile(rho, [5, 95])
    if lo < RIM_ARC_MIN_RADIUS_FRAC or hi - lo > RIM_ARC_MAX_THICKNESS_FRAC:
        return False
    c = radius_frac.shape[0] / 2.0 - 0.5
    theta = np.arctan2(rr - c, cc - c)
    order = np.sort(theta)
    gaps = np.diff(np.concatenate([order, order[:1] + 2 * math.pi]))
    widest = int(np.argmax(gaps))
    middle = float(np.median(rho))
    length_frac = (2 * math.pi - float(gaps[widest])) * middle
    if length_frac < RIM_ARC_MIN_LENGTH_RADII * token_radius_frac:
        return False
    start = order[(widest + 1) % order.size]
    along = ((theta - start) % (2 * math.pi)) * middle / token_radius_frac
    return _arc_is_even(along, rho / token_radius_frac)


def test_is_rim_arc_shortcut_same_as_percentile():
    import cv2

    from vision.blobshape import RIM_ARC_MIN_RADIUS_FRAC, is_rim_arc
    from vision.canonical import _radius_grid
    radius_frac = _radius_grid(320) / 128.0
    rng = np.random.default_rng(16)
    n_short = n_arcs = 0
    for t in range(400):
        region = np.zeros((320, 320), np.uint8)
        r_mid = rng.uniform(70, 135) if t % 2 else RIM_ARC_MIN_RADIUS_FRAC * 128.0 + rng.normal(0, 3)
        a0 = rng.uniform(0, 360)
        cv2.ellipse(region, (160, 160), (int(round(r_mid)), int(round(r_mid))), 0.0, a0, a0 + rng.uniform(3, 200),
                    1, int(rng.integers(1, 8)))
        if t % 3 == 0:  # a blob inside
            cv2.circle(region, tuple(int(v) for v in rng.uniform(60, 260, 2)), int(rng.integers(3, 20)), 1, -1)
        mask = region.astype(bool)
        token_frac = float(rng.uniform(0.05, 0.2))
        got = is_rim_arc(mask, radius_frac, token_frac)
        assert got == ref_is_rim_arc(mask, radius_frac, token_frac)
        rho = radius_frac[mask]
        n_short += np.count_nonzero(rho < RIM_ARC_MIN_RADIUS_FRAC) >= int(0.05 * (rho.size - 1)) + 3
        n_arcs += got
    assert 30 < n_short < 370 and n_arcs > 10
