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

from vision import discs, plate, reader, tokens
from vision.discs import (_CROSS3, _PEAK_CHECK_CHUNK, _PEAK_PAIRS_MAX, _peak_kernel_px, _peak_neighbourhood,
                          _true_box)
from vision.io import load_image
from vision.plate import (PLATE_BLUR_SIGMA_PX, PLATE_MIN_AXIS_RATIO, PLATE_MIN_FILL, PLATE_MIN_MINOR_FRAC,
                          PLATE_OPEN_FRAC, PLATE_WORK_HEIGHT_PX, WORK_LAST_SHRINK_MIN, PlateFit, _components_with_stats,
                          _ellipse_area, _fill_holes, _open_ellipse, area_shrink, cloth_deviation, fast_median,
                          find_plate, not_cloth_mask)
from vision.reader import (read_frame, INTRUSION_BAND_FRAC, INTRUSION_MIN_LENGTH_DIAMS, OFFPLATE_AREA_RANGE,
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


def test_components_with_areas_same_with_threads():
    """OpenCV's parallel labelling (more than one thread, large masks) gives the same labels too."""
    rng = np.random.default_rng(9)
    threads = cv2.getNumThreads()
    try:
        for n_threads in (2, 4):
            cv2.setNumThreads(n_threads)
            for shape, density in (((320, 569), 0.02), ((320, 569), 0.3), ((500, 260), 0.55)):
                mask = (rng.random(shape) < density).astype(np.uint8)
                n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
                n2, labels2, areas = plate._components_with_areas(mask)
                assert labels2.dtype == np.uint16  # the labelling without statistics
                assert n2 == n and np.array_equal(labels2, labels)
                assert np.array_equal(areas, stats[:, cv2.CC_STAT_AREA])
    finally:
        cv2.setNumThreads(threads)


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
        for i in sorted({1, n - 1} | set(range(1, n, max(1, n // 150)))) if n > 1 else ():
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


def test_offplate_blobs_and_intrusions_same_as_before(frames, monkeypatch):
    """On the frames' plates (their own masks off the plate) and on masks with
    token-sized things, sticks and noise around them."""
    # the reference predates the off-plate shape test (twenty-sixth round; its
    # own tests: test_offplate_shape.py), so that test is off here
    monkeypatch.setattr(reader, "OFFPLATE_MIN_AXIS_RATIO_OF_PLATE", 0.0)
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


# --- bounding boxes of bool masks by cv2.boundingRect; the peaks' candidate box ----------------


def ref_true_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """``vision.discs._true_box`` before round 11, verbatim."""
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1



@pytest.mark.parametrize("seed", range(3))
def test_true_box_same_as_before(seed):
    """Empty, full, one pixel, sparse and dense masks; views (strided, transposed, cropped)."""
    rng = np.random.default_rng(seed)
    for _ in range(400):
        h, w = (int(v) for v in rng.integers(1, 70, 2))
        mask = rng.random((h, w)) < rng.choice([0.0, 0.0005, 0.02, 0.5, 1.0])
        for view in (mask, mask.T, mask[:, ::2], mask[::3], mask[1:, 2:]):
            if view.size:
                assert _true_box(view) == ref_true_box(view)
    one = np.zeros((320, 320), bool)
    one[319, 0] = True
    assert _true_box(one) == ref_true_box(one) == (319, 320, 0, 1)
    ints = (rng.random((30, 40)) < 0.1).astype(np.uint8)  # not bool: the rows' and columns' any
    assert _true_box(ints) == ref_true_box(ints)


def ref_peaks(response: np.ndarray, allowed: np.ndarray, min_value: float, min_dist_px: float, *,
           allowed_box: tuple[int, int, int, int] | None = None) -> list[tuple[int, int]]:
    """``vision.discs._peaks`` before round 11, verbatim (``ref_true_box``).

    Parameters
    ----------
    response : ndarray, float32, (H, W)
    allowed : ndarray, bool, (H, W)
        Where a peak may lie.
    min_value : float
        Smallest peak value.
    min_dist_px : float
        A peak is the maximum of the ``cv2.MORPH_ELLIPSE`` neighbourhood of
        :func:`_peak_kernel_px` pixels; kept peaks are at least this far apart
        (pixels), the stronger kept first.
    allowed_box : (int, int, int, int), optional
        ``(y0, y1, x0, x1)``, end-exclusive: the bounding box of ``allowed``'s
        true pixels, when the caller has it (the radius scan calls this with
        one mask 14 times).

    Returns
    -------
    list of (x, y), pixels
    """
    k = _peak_kernel_px(min_dist_px)
    # A peak is the maximum of its elliptical neighbourhood (the
    # cv2.MORPH_ELLIPSE element of size k, clipped to the image).  It is in
    # particular the maximum of its 4-neighbourhood and of the largest square
    # inside the ellipse (both cheap, separable or tiny dilations); only the
    # few candidates left are compared with every pixel of their own ellipse.
    # Comparisons only, so the peaks are exactly those of a full dilation.
    # The 4-neighbour test runs on the box of ``allowed`` grown by one pixel
    # (clipped): every allowed pixel has its neighbours there, as on the
    # whole image.
    h, w = response.shape
    if allowed_box is None:
        allowed_box = ref_true_box(allowed)
        if allowed_box is None:
            return []
    ay0, ay1 = max(0, allowed_box[0] - 1), min(h, allowed_box[1] + 1)
    ax0, ax1 = max(0, allowed_box[2] - 1), min(w, allowed_box[3] + 1)
    grown = response[ay0:ay1, ax0:ax1]
    # candidates, on the grown box only
    cand = ((grown >= cv2.dilate(grown, _CROSS3)) & allowed[ay0:ay1, ax0:ax1] & (grown >= min_value))
    rows, cols = np.flatnonzero(cand.any(axis=1)), np.flatnonzero(cand.any(axis=0))
    if rows.size == 0:
        return []
    cy0, cy1, cx0, cx1 = ay0 + int(rows[0]), ay0 + int(rows[-1]) + 1, ax0 + int(cols[0]), ax0 + int(cols[-1]) + 1
    half = k // 2
    y0, y1 = max(0, cy0 - half), min(h, cy1 + half)
    x0, x1 = max(0, cx0 - half), min(w, cx1 + half)
    box = response[y0:y1, x0:x1]
    square_half, dy, dx = _peak_neighbourhood(k)
    # ``inner``: the candidates' own box within ``box`` (no candidate outside it)
    inner = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    sub = cand[cy0 - ay0:cy1 - ay0, cx0 - ax0:cx1 - ax0]
    if square_half > 0:
        square = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * square_half + 1, 2 * square_half + 1))
        sub = sub & (box[inner] >= cv2.dilate(box, square)[inner])
    # row-major, as np.nonzero (cv2.findNonZero scans the rows in order)
    found = cv2.findNonZero(sub.view(np.uint8))
    if found is None:
        return []
    found = found.reshape(-1, 2)  # (x, y) points
    ys = found[:, 1].astype(np.intp) + (cy0 - y0)
    xs = found[:, 0].astype(np.intp) + (cx0 - x0)
    if ys.size:
        # The box padded by the kernel's half-size with -inf (outside the
        # image: never a neighbour), so every offset stays in the array.
        padded = np.full((box.shape[0] + 2 * half, box.shape[1] + 2 * half), -np.inf,
                         np.result_type(box.dtype, np.float32))
        padded[half:-half, half:-half] = box
        flat = padded.ravel()
        offsets = dy * padded.shape[1] + dx
        centres = (ys + half) * padded.shape[1] + (xs + half)
        keep = np.empty(ys.size, bool)
        for i in range(0, ys.size, _PEAK_CHECK_CHUNK):
            c = centres[i:i + _PEAK_CHECK_CHUNK]
            keep[i:i + _PEAK_CHECK_CHUNK] = ~(flat[c[:, None] + offsets[None, :]] > flat[c][:, None]).any(axis=1)
        ys, xs = ys[keep], xs[keep]
    ys, xs = ys + y0, xs + x0
    order = np.argsort(-response[ys, xs])
    if order.size > _PEAK_PAIRS_MAX:
        kept: list[tuple[int, int]] = []
        for i in order:
            x, y = int(xs[i]), int(ys[i])
            if all((x - kx) ** 2 + (y - ky) ** 2 >= min_dist_px ** 2 for kx, ky in kept):
                kept.append((x, y))
        return kept
    # Strongest first, each kept unless closer than min_dist_px to one kept
    # before it: the same test on every pair at once (whole squared distances,
    # exact in int64 and float64).
    xo, yo = xs[order].astype(np.int64), ys[order].astype(np.int64)
    near = (xo[:, None] - xo[None, :]) ** 2 + (yo[:, None] - yo[None, :]) ** 2 < min_dist_px ** 2
    # (``near`` is symmetric: a peak is dropped once one kept before it is near)
    keep = np.zeros(order.size, bool)
    alive = np.ones(order.size, bool)
    for i in range(order.size):
        if alive[i]:
            keep[i] = True
            alive &= ~near[i]
    return [(int(x), int(y)) for x, y in zip(xo[keep], yo[keep])]



@pytest.fixture(scope="module")
def peak_inputs(studio_dir):
    """The arguments of every ``_peaks`` call while the reader reads the frames (the radius scan's too)."""
    got = []
    real = discs._peaks

    def recording(response, allowed, min_value, min_dist_px, **kw):
        got.append((response.copy(), allowed.copy(), min_value, min_dist_px, kw))
        return real(response, allowed, min_value, min_dist_px, **kw)
    mp = pytest.MonkeyPatch()
    for mod in (discs, tokens):
        mp.setattr(mod, "_peaks", recording)
    try:
        for f in _frames(studio_dir, step=6):
            read_frame(f)
    finally:
        mp.undo()
    assert len(got) >= 50 and any(kw.get("allowed_box") for *_, kw in got)
    return got


def test_peaks_same_as_before(peak_inputs):
    found = 0
    for response, allowed, min_value, min_dist_px, kw in peak_inputs:
        got = discs._peaks(response, allowed, min_value, min_dist_px, **kw)
        # (round 29: the radius scan asks for its first four peaks only, ``limit``)
        ref_kw = {k: v for k, v in kw.items() if k != "limit"}
        ref = ref_peaks(response, allowed, min_value, min_dist_px, **ref_kw)
        assert got == (ref if kw.get("limit") is None else ref[:kw["limit"]])
        found += len(got)
    assert found >= 100


@pytest.mark.parametrize("seed", range(3))
def test_peaks_same_as_before_on_noise_ties_and_edges(seed):
    """Noise, plateaus (ties), NaN, peaks at the canvas edge, no candidate at all."""
    rng = np.random.default_rng(seed)
    for _ in range(8):
        s = int(rng.integers(30, 120))
        resp = cv2.GaussianBlur(rng.standard_normal((s, s)).astype(np.float32), (0, 0), float(rng.uniform(0.5, 4)))
        if rng.random() < 0.5:
            resp = np.round(resp * 4) / 4  # plateaus
        resp[0, int(rng.integers(0, s))] = 9.0  # a peak on the edge
        if rng.random() < 0.3:
            resp[int(rng.integers(0, s)), int(rng.integers(0, s))] = np.nan
        allowed = rng.random((s, s)) < rng.choice([0.0, 0.3, 1.0])
        for min_value in (-np.inf, 0.5, 10.0):
            for min_dist in (2.0, 7.3, 15.0):
                assert discs._peaks(resp, allowed, min_value, min_dist) == ref_peaks(resp, allowed, min_value, min_dist)


# --- the colourless test in 8 bits -------------------------------------------------------------


def ref_is_colourless(frame: np.ndarray) -> bool:
    """``vision.reader.is_colourless`` before round 11, verbatim."""
    sub = frame[::8, ::8].astype(np.int16)
    diff = max(int(np.abs(sub[..., 0] - sub[..., 1]).max()), int(np.abs(sub[..., 1] - sub[..., 2]).max()))
    return diff <= reader.COLOURLESS_MAX_CHANNEL_DIFF


def test_is_colourless_same_as_before(frames):
    rng = np.random.default_rng(8)
    cases = list(frames)
    for f in frames[:6]:
        grey = cv2.cvtColor(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        cases.append(grey)
        near = grey.copy()  # channels apart by up to the limit and one more
        for d in (reader.COLOURLESS_MAX_CHANNEL_DIFF, reader.COLOURLESS_MAX_CHANNEL_DIFF + 1):
            near[::8, ::8, int(rng.integers(0, 3))] = np.clip(grey[::8, ::8, 0].astype(int) + d, 0, 255)
            cases.append(near.copy())
            near[::8, ::8, 1] = np.clip(grey[::8, ::8, 1].astype(int) - d, 0, 255)
            cases.append(near.copy())
    cases += [np.zeros((37, 53, 3), np.uint8), np.full((9, 9, 3), 255, np.uint8),
              rng.integers(0, 256, (101, 67, 3), dtype=np.uint8),
              np.dstack([np.full((40, 40), 255, np.uint8), np.zeros((40, 40), np.uint8),
                         np.full((40, 40), 255, np.uint8)])]
    got = [reader.is_colourless(c) for c in cases]
    assert got == [ref_is_colourless(c) for c in cases]
    assert any(got) and not all(got)
