"""Speed round 9 (the eleventh round, branch speed11): each change gives the bits of the code it replaced.

The replaced functions are kept here verbatim (``ref_*``) and compared bit for
bit with the new ones on the arrays of real frames (studio renders and
synthesized scenes at fixed seeds) and on adversarial random arrays.
"""
from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import plate, reader
from vision.io import load_image
from vision.plate import (PLATE_BLUR_SIGMA_PX, PLATE_MIN_AXIS_RATIO, PLATE_MIN_FILL, PLATE_MIN_MINOR_FRAC,
                          PLATE_OPEN_FRAC, PLATE_WORK_HEIGHT_PX, WORK_LAST_SHRINK_MIN, PlateFit, _components_with_stats,
                          _ellipse_area, _fill_holes, _open_ellipse, area_shrink, cloth_deviation, fast_median,
                          find_plate, not_cloth_mask)
from vision.reader import (INTRUSION_BAND_FRAC, INTRUSION_MIN_LENGTH_DIAMS, OFFPLATE_AREA_RANGE,
                           OFFPLATE_PLATE_MARGIN_FRAC, outside_plate_mask, plate_ellipse_mask)
from vision.synth import render_scene
from vision.types import Ellipse

#: Synthesized scenes (seed, kind) beside the studio renders.
SYNTH = ((11100, "outcome"), (11101, "touching"), (11102, "overlap"), (11103, "upright"), (11104, "tilted"),
         (11105, "covered"), (11106, "stick"), (11107, "outcome"))
#: Frame sizes the studio renders (1280x720) are also read at.
SIZES = ((1920, 1080), (960, 540))


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _frames(studio_dir: Path, step: int = 4) -> list[np.ndarray]:
    """Every ``step``-th studio render at its size and scaled, and the synthesized scenes at 1280x720."""
    frames = []
    for p in sorted(studio_dir.glob("*.jpg"))[::step]:
        img = load_image(p)
        frames.append(img)
        frames += [cv2.resize(img, size, interpolation=cv2.INTER_AREA if size[0] < img.shape[1] else cv2.INTER_CUBIC)
                   for size in SIZES]
    frames += [render_scene(seed, kind, size=(1280, 720)).image for seed, kind in SYNTH]
    return frames


@pytest.fixture(scope="module")
def frames(studio_dir):
    return _frames(studio_dir)


# --- the plate search: labels without OpenCV's statistics ---------------------------------------


def ref_grown_box(stat: np.ndarray, grow_px: int, width: int, height: int) -> tuple[int, int, int, int]:
    """``vision.plate._grown_box`` before round 11, verbatim."""
    x, y = int(stat[cv2.CC_STAT_LEFT]), int(stat[cv2.CC_STAT_TOP])
    bw, bh = int(stat[cv2.CC_STAT_WIDTH]), int(stat[cv2.CC_STAT_HEIGHT])
    return (max(0, x - grow_px), max(0, y - grow_px), min(width, x + bw + grow_px), min(height, y + bh + grow_px))


def ref_find_plate(frame: np.ndarray) -> PlateFit:
    """``vision.plate.find_plate`` before round 11, verbatim (``ref_grown_box``).

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3), BGR
        The camera frame.

    Returns
    -------
    PlateFit
        ``ellipse`` in source pixels, or None with the reason.
    """
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame: expected BGR uint8 (H, W, 3), got {getattr(frame, 'dtype', type(frame))} "
                         f"{getattr(frame, 'shape', '')}")
    h, w = frame.shape[:2]
    scale = PLATE_WORK_HEIGHT_PX / h
    # a frame four or more times the working size is halved first (exact
    # halvings, see vision.shrink), then area-shrunk by at least two: nearly
    # the same area average, several times faster
    work_size = (max(8, int(round(w * scale))), PLATE_WORK_HEIGHT_PX)
    if work_size[0] <= w and work_size[1] <= h:
        small = area_shrink(frame, work_size, last_min_factor=WORK_LAST_SHRINK_MIN)
    else:  # a frame smaller than the working size is enlarged
        small = cv2.resize(frame, work_size, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, ksize=(0, 0), sigmaX=PLATE_BLUR_SIGMA_PX)
    dev, dev_l = cloth_deviation(small)
    not_cloth = not_cloth_mask(dev, dev_l)
    not_cloth.setflags(write=False)  # kept in the PlateFit
    mask = cv2.morphologyEx(not_cloth, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, labels, stats, _ = _components_with_stats(mask)
    sh, sw = mask.shape
    min_minor_px = PLATE_MIN_MINOR_FRAC * sh
    min_area_px = math.pi * (min_minor_px / 2.0) ** 2 * 0.8
    best: tuple[float, tuple, float, float] | None = None
    reasons = []
    for i in np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1:
        if stats[i, cv2.CC_STAT_AREA] < min_area_px:
            break
        # Work on the component's bounding box grown by more than the opening
        # kernel's radius (clipped to the frame): erosion and dilation of the
        # component never reach past it, and where it is clipped the crop's
        # edge is the frame's edge, so every pixel comes out as on the whole
        # frame.  The kernel grows with the filled area, at most the box's.
        bw, bh = int(stats[i, cv2.CC_STAT_WIDTH]), int(stats[i, cv2.CC_STAT_HEIGHT])
        k_max = max(3, int(2 * round(PLATE_OPEN_FRAC * math.sqrt(bw * bh / math.pi)) + 1))
        x0, y0, x1, y1 = ref_grown_box(stats[i], k_max // 2 + 1, sw, sh)
        region = _fill_holes((labels[y0:y1, x0:x1] == i).astype(np.uint8))
        eq_radius = math.sqrt(region.sum() / math.pi)
        k = max(3, int(2 * round(PLATE_OPEN_FRAC * eq_radius) + 1))
        region = _open_ellipse(region, k)
        m2, lab2, st2, _ = _components_with_stats(region)
        if m2 < 2:
            continue
        region = (lab2 == 1 + int(np.argmax(st2[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
        hull = cv2.convexHull(max(contours, key=cv2.contourArea))
        if len(hull) < 5:
            continue
        fit = cv2.fitEllipse(hull)
        (ecx, ecy), (d1, d2), ang = fit
        minor, major = min(d1, d2), max(d1, d2)
        fill = float(region.sum()) / max(_ellipse_area(fit), 1.0)
        if minor < min_minor_px:
            reasons.append(f"region too small ({minor / sh:.0%} of frame height)")
            continue
        if minor / major < PLATE_MIN_AXIS_RATIO:
            reasons.append(f"region not round enough (axis ratio {minor / major:.2f})")
            continue
        if fill < PLATE_MIN_FILL:
            reasons.append(f"region not elliptical (fills {fill:.0%} of its ellipse)")
            continue
        contrast = float(fast_median(dev[y0:y1, x0:x1][region > 0]))
        score = _ellipse_area(fit) * min(fill, 1.0)
        if best is None or score > best[0]:
            best = (score, fit, fill, contrast)
    if best is None:
        why = "; ".join(dict.fromkeys(reasons)) if reasons else "nothing on the table differs from the cloth"
        return PlateFit(ellipse=None, fill=0.0, contrast=0.0, reason=f"no plate found: {why}",
                        cloth_deviation=dev, cloth_lightness=dev_l, work_scale=scale, frame_size=(w, h),
                        not_cloth=not_cloth)
    _, ((ecx, ecy), (d1, d2), ang), fill, contrast = best
    inv = 1.0 / scale
    # OpenCV's RotatedRect angle belongs to the first axis (width, d1).
    ellipse = Ellipse.from_axes(ecx * inv, ecy * inv, d1 / 2 * inv, d2 / 2 * inv, ang)
    return PlateFit(ellipse=ellipse, fill=min(fill, 1.0), contrast=contrast,
                    reason=f"plate fitted (fills {fill:.0%} of its ellipse, contrast {contrast:.0f} cloth spreads)",
                    cloth_deviation=dev, cloth_lightness=dev_l, work_scale=scale, frame_size=(w, h),
                    not_cloth=not_cloth)



def _same_fit(got: PlateFit, want: PlateFit) -> bool:
    for name in ("cloth_deviation", "cloth_lightness", "not_cloth"):
        a, b = getattr(got, name), getattr(want, name)
        if a.dtype != b.dtype or not np.array_equal(_bits(a), _bits(b)):
            return False
    return (got.ellipse == want.ellipse and got.fill == want.fill and got.contrast == want.contrast
            and got.reason == want.reason and got.work_scale == want.work_scale and got.frame_size == want.frame_size)


def test_find_plate_same_as_before(frames):
    found = 0
    for f in frames:
        got, want = find_plate(f), ref_find_plate(f)
        assert _same_fit(got, want)
        found += got.found
    assert found >= len(frames) - 3


def _masks(seed: int) -> list[np.ndarray]:
    """Noise (many components, ties in area), blobs (one or a few), empty and full masks."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, density in (((320, 569), 0.02), ((320, 569), 0.3), ((227, 227), 0.0), ((97, 131), 0.6),
                           ((320, 569), 0.0), ((64, 80), 1.0)):
        mask = (rng.random(shape) < density).astype(np.uint8)
        out.append(mask.copy())
        cv2.circle(mask, (shape[1] // 2, shape[0] // 3), min(shape) // 3, 1, -1)
        out.append(mask.copy())
        for _ in range(4):  # blocks of equal area: ties in the sort
            y, x = int(rng.integers(0, shape[0] - 8)), int(rng.integers(0, shape[1] - 8))
            mask[y:y + 6, x:x + 6] = 1
        out.append(mask)
    ring = np.zeros((200, 200), np.uint8)
    cv2.circle(ring, (100, 100), 80, 1, 12)
    cv2.circle(ring, (100, 100), 20, 1, -1)  # a component inside another's hole
    out.append(ring)
    out.append(np.full((40, 60), 255, np.uint8))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_components_with_areas_same_as_statistics(seed):
    for mask in _masks(seed):
        n, labels, stats, _ = _components_with_stats(mask)
        n2, labels2, areas = plate._components_with_areas(mask)
        assert n2 == n and labels2.dtype == labels.dtype and np.array_equal(labels2, labels)
        assert areas.dtype == np.int32 and np.array_equal(areas, stats[:, cv2.CC_STAT_AREA])
        # the same order of components (ties included) and the same boxes
        assert np.array_equal(np.argsort(-areas[1:]), np.argsort(-stats[1:, cv2.CC_STAT_AREA]))
        for i in range(1, n):
            want = tuple(int(v) for v in stats[i, :4])
            assert plate._component_box(mask, labels2, n2, i) == want
            assert plate._grown_box(want, 7, mask.shape[1], mask.shape[0]) == ref_grown_box(stats[i], 7, mask.shape[1],
                                                                                             mask.shape[0])


def test_components_with_areas_falls_back_beyond_16_bit_labels():
    mask = (np.random.default_rng(5).random((320, 900)) < 0.3).astype(np.uint8)
    n, labels, stats, _ = _components_with_stats(mask)
    n2, labels2, areas = plate._components_with_areas(mask)
    assert labels2.dtype == np.int32 and n2 == n and np.array_equal(labels2, labels)
    assert np.array_equal(areas, stats[:, cv2.CC_STAT_AREA])
    assert plate._component_box(mask, labels2, n2, n2 - 1) == tuple(int(v) for v in stats[n2 - 1, :4])
    with pytest.raises(ValueError, match="component"):
        plate._component_box(mask, labels2, n2, 0)


@pytest.mark.parametrize("seed", range(4))
def test_component_centroid_same_as_statistics(seed):
    for mask in _masks(seed):
        n, labels, stats, cents = _components_with_stats(mask)
        for i in range(1, n):
            got = plate._component_centroid(labels, i, int(stats[i, cv2.CC_STAT_AREA]))
            assert type(got[0]) is float and got == (float(cents[i][0]), float(cents[i][1]))
    with pytest.raises(ValueError, match="area"):
        plate._component_centroid(np.zeros((4, 4), np.uint16), 1, 0)


# --- things off the plate: the labels without OpenCV's statistics -------------------------------


def ref_offplate_blobs(plate: PlateFit, token_area_src_px: float,
                   outside: np.ndarray | None = None) -> list[tuple[float, float, float]]:
    """``vision.reader.offplate_blobs`` before round 11, verbatim.

    Parameters
    ----------
    plate : PlateFit
        A found plate, with its cloth-deviation maps.
    token_area_src_px : float
        Expected area of one face in source pixels squared.
    outside : ndarray, uint8, optional
        :func:`outside_plate_mask` of ``plate``, when the caller has it.

    Returns
    -------
    list of (x, y, radius) in source pixels; empty when there is none.
    """
    s = plate.work_scale
    mask = outside_plate_mask(plate) if outside is None else outside
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if not cv2.hasNonZero(mask):
        return []  # no component (the usual bare cloth): no labelling pass
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    expected = token_area_src_px * s * s
    # The size and squareness tests on every component at once (the same
    # comparisons, component by component), then the few that pass in order.
    area = stats[1:, cv2.CC_STAT_AREA]
    bw, bh = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    sized = (OFFPLATE_AREA_RANGE[0] * expected <= area) & (area <= OFFPLATE_AREA_RANGE[1] * expected)
    square = ~(np.minimum(bw, bh) < 0.35 * np.maximum(bw, bh))
    out = []
    for i in np.flatnonzero(sized & square) + 1:
        area = stats[i, cv2.CC_STAT_AREA]
        out.append((float(cents[i][0] / s), float(cents[i][1] / s), float(math.sqrt(area / math.pi) / s)))
    return out


def ref_plate_intrusions(plate: PlateFit, token_area_src_px: float,
                     outside: np.ndarray | None = None) -> list[tuple[float, float, float]]:
    """``vision.reader.plate_intrusions`` before round 11, verbatim.

    Parameters
    ----------
    plate : PlateFit
        A found plate, with its cloth-deviation maps.
    token_area_src_px : float
        Expected area of one face, source pixels squared.
    outside : ndarray, uint8, optional
        :func:`outside_plate_mask` of ``plate``, when the caller has it.

    Returns
    -------
    list of (x, y, length_px) in source pixels: each not-cloth region outside
    the plate that touches the band just around the plate's outline and is
    larger or longer than a token; empty when there is none.
    """
    s = plate.work_scale
    outside = outside_plate_mask(plate) if outside is None else outside
    if not cv2.hasNonZero(outside):
        return []  # no component (the usual bare cloth): no labelling pass
    band = plate_ellipse_mask(plate, 1.0 + INTRUSION_BAND_FRAC) & (1 - plate_ellipse_mask(
        plate, 1.0 + OFFPLATE_PLATE_MARGIN_FRAC))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(outside, connectivity=8)
    token_area = token_area_src_px * s * s
    token_diam = 2.0 * math.sqrt(token_area / math.pi)
    # The components with a pixel in the band, from the band's labels (one
    # pass, instead of one whole-frame comparison per component).
    touching = np.zeros(n, bool)
    touching[labels[band > 0]] = True
    out = []
    for i in np.flatnonzero(touching[1:]) + 1:
        length = float(max(stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]))
        if (stats[i, cv2.CC_STAT_AREA] > OFFPLATE_AREA_RANGE[1] * token_area
                or length > INTRUSION_MIN_LENGTH_DIAMS * token_diam):
            out.append((float(cents[i][0] / s), float(cents[i][1] / s), length / s))
    return out


def _outside_masks(fit: PlateFit, seed: int) -> list[np.ndarray]:
    """Not-cloth masks outside a real plate: the frame's own, and token-sized
    discs, squares, thin sticks reaching into the band around the plate, noise."""
    rng = np.random.default_rng(seed)
    h, w = fit.cloth_deviation.shape
    inner = plate_ellipse_mask(fit, 1.0 + OFFPLATE_PLATE_MARGIN_FRAC)
    out = [outside_plate_mask(fit)]
    e, s = fit.ellipse, fit.work_scale
    for _ in range(3):
        m = (rng.random((h, w)) < rng.uniform(0.0, 0.02)).astype(np.uint8)
        for _ in range(int(rng.integers(1, 9))):
            x, y, r = int(rng.integers(0, w)), int(rng.integers(0, h)), int(rng.integers(2, 12))
            if rng.random() < 0.5:
                cv2.circle(m, (x, y), r, 1, -1)
            else:
                cv2.rectangle(m, (x, y), (x + int(rng.integers(1, 30)), y + int(rng.integers(1, 8))), 1, -1)
        for _ in range(int(rng.integers(0, 3))):  # a stick from the frame's edge to the plate
            cx, cy = e.cx * s, e.cy * s
            cv2.line(m, (int(rng.integers(0, w)), 0), (int(cx), int(cy)), 1, int(rng.integers(2, 7)))
        out.append(m & (1 - inner))
    return out


def test_offplate_blobs_and_intrusions_same_as_before(frames):
    """On the frames' plates (their own masks off the plate) and on masks with
    token-sized things, sticks and noise around them."""
    fits = [f for f in (find_plate(frame) for frame in frames[::3]) if f.found]
    assert len(fits) >= 8
    seen = 0
    for k, fit in enumerate(fits):
        for area in (40.0 * 40.0, 25.0 * 25.0 * math.pi):
            for outside in _outside_masks(fit, k):
                got = reader.offplate_blobs(fit, area, outside)
                assert got == ref_offplate_blobs(fit, area, outside)
                got2 = reader.plate_intrusions(fit, area, outside)
                assert got2 == ref_plate_intrusions(fit, area, outside)
                seen += bool(got) + bool(got2)
            assert reader.offplate_blobs(fit, area) == ref_offplate_blobs(fit, area)
            assert reader.plate_intrusions(fit, area) == ref_plate_intrusions(fit, area)
    assert seen >= 10  # things found, not only empty lists compared
