"""vision.shrink and the canonical view's shrink of a large frame.

Checklist: smoke, shapes, bad input table, empty/degenerate input, known
values (2x2 block means; where a drawn disc lands), and closeness to one plain
``cv2.resize`` (INTER_AREA) on real pixels (seeded textures and synthesized
scenes).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.canonical import (CANON_BLUR_SIGMA_PX, CANVAS_PX, PLATE_RADIUS_PX, WARP_SHRINK, halved_region,
                              make_canonical_view, warp_box)
from vision.plate import find_plate, plate_to_canonical, rectify
from vision.shrink import area_shrink, halve, halvings_for, halvings_within
from vision.synth import render_scene
from vision.types import Ellipse


def _textured(h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    return cv2.GaussianBlur(img, ksize=(0, 0), sigmaX=1.5)


def _disc_frame(h: int, w: int, cx: float, cy: float, r: float) -> np.ndarray:
    """Grey frame with a white disc, anti-aliased by 8x supersampling."""
    s = 8
    big = np.zeros((h * s, w * s), np.uint8)
    cv2.circle(big, (int(round((cx + 0.5) * s - 0.5)), int(round((cy + 0.5) * s - 0.5))), int(round(r * s)),
               255, -1)
    small = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return cv2.merge([small, small, small])


def _centroid(img: np.ndarray) -> tuple[float, float]:
    g = img[..., 0].astype(np.float64) if img.ndim == 3 else img.astype(np.float64)
    rr, cc = np.mgrid[0:g.shape[0], 0:g.shape[1]]
    return float((cc * g).sum() / g.sum()), float((rr * g).sum() / g.sum())


# --- halve -------------------------------------------------------------------

def test_halve_known_values_are_rounded_block_means():
    a = np.array([[0, 1, 10, 11, 7], [1, 1, 20, 21, 7], [5, 5, 5, 5, 7]], np.uint8)
    got = halve(a, 1)  # odd width and height: the last column and row go
    assert got.shape == (1, 2)
    assert got.tolist() == [[1, 16]]  # (0+1+1+1+2)//4, (10+11+20+21+2)//4


@pytest.mark.parametrize("times", [0, 1, 2, 3])
def test_halve_equals_block_means_on_real_pixels(times):
    img = _textured(96, 160, seed=times)
    got = halve(img, times)
    k = 1 << times
    assert got.shape == (96 // k, 160 // k, 3) and got.dtype == np.uint8
    want = img.astype(np.int64)
    for _ in range(times):  # one rounding per halving, as the halvings do
        h, w = want.shape[:2]
        want = (want.reshape(h // 2, 2, w // 2, 2, 3).sum(axis=(1, 3)) + 2) // 4
    assert np.array_equal(got, want)


def test_halve_never_returns_the_callers_array():
    img = _textured(8, 8, seed=1)
    out = halve(img, 0)
    assert out is not img and np.array_equal(out, img)
    out[0, 0] = 0
    assert not np.shares_memory(out, img)


@pytest.mark.parametrize("frame, times, match", [
    (np.zeros((8, 8, 3), np.float32), 1, "frame"),
    (np.zeros((8,), np.uint8), 1, "frame"),
    ([[1, 2], [3, 4]], 1, "frame"),
    (np.zeros((8, 8, 3), np.uint8), -1, "times"),
    (np.zeros((8, 8, 3), np.uint8), 1.0, "times"),
    (np.zeros((8, 8, 3), np.uint8), True, "times"),
    (np.zeros((8, 8, 3), np.uint8), 4, "times"),  # 8 -> 4 -> 2 -> 1 -> nothing
])
def test_halve_bad_arguments(frame, times, match):
    with pytest.raises(ValueError, match=match):
        halve(frame, times)


# --- counts ------------------------------------------------------------------

@pytest.mark.parametrize("src, dst, want", [(2160, 320, 2), (1080, 320, 1), (720, 320, 1), (639, 320, 0),
                                            (640, 320, 1), (480, 320, 0), (320, 320, 0), (2160, 640, 1)])
def test_halvings_within_known_values(src, dst, want):
    assert halvings_within(src, dst) == want


@pytest.mark.parametrize("shrink, want", [(1.01, 1), (1.6, 1), (2.8, 1), (2.9, 2), (4.0, 2), (5.6, 2),
                                          (5.7, 3), (11.0, 3)])
def test_halvings_for_known_values(shrink, want):
    assert halvings_for(shrink) == want


@pytest.mark.parametrize("bad", [1.0, 0.5, -3.0, math.inf, math.nan])
def test_halvings_for_bad_shrink(bad):
    with pytest.raises(ValueError, match="shrink"):
        halvings_for(bad)


def test_halvings_within_bad_lengths():
    with pytest.raises(ValueError, match="src_px"):
        halvings_within(0, 320)


# --- area_shrink ---------------------------------------------------------------

@pytest.mark.parametrize("src, size", [((2160, 3840), (569, 320)), ((1080, 1920), (569, 320)),
                                       ((720, 1280), (569, 320)), ((1080, 1920), (960, 540)),
                                       ((1000, 1500), (301, 200))])
def test_area_shrink_is_close_to_one_plain_resize(src, size):
    """With the last shrink by at least two (the plate search's setting), on
    a texture with detail down to the pixel."""
    img = _textured(*src, seed=src[0] + size[0])
    got = area_shrink(img, size, last_min_factor=2.0)
    want = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    assert got.shape == want.shape and got.dtype == np.uint8
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    assert diff.mean() < 1.0 and diff.max() <= 12
    if src[0] < 4 * size[1]:  # under four times the size: one plain shrink
        assert np.array_equal(got, want)


@pytest.mark.parametrize("last_min_factor", [1.0, 2.0])
@pytest.mark.parametrize("src", [(2160, 3840), (1080, 1920), (720, 1280)])
def test_area_shrink_keeps_the_geometry(src, last_min_factor):
    """A disc lands where one plain resize puts it (pixel centres mapped as
    ``(x + 0.5) / scale - 0.5``), within 0.05 pixel."""
    cx, cy, r = 0.37 * src[1] + 0.3, 0.61 * src[0] + 0.7, 0.05 * src[0]
    img = _disc_frame(src[0], src[1], cx, cy, r)
    size = (569, 320)
    got = _centroid(area_shrink(img, size, last_min_factor=last_min_factor))
    sx, sy = src[1] / size[0], src[0] / size[1]
    assert got == pytest.approx(((cx + 0.5) / sx - 0.5, (cy + 0.5) / sy - 0.5), abs=0.05)


def test_area_shrink_to_the_same_size_is_a_copy():
    img = _textured(40, 60, seed=2)
    out = area_shrink(img, (60, 40))
    assert np.array_equal(out, img) and not np.shares_memory(out, img)


@pytest.mark.parametrize("size, factor, match", [((100, 60), 1.0, "size"), ((0, 10), 1.0, "size"),
                                                 ((30, 20), 0.5, "last_min_factor"),
                                                 ((30, 20), math.nan, "last_min_factor")])
def test_area_shrink_bad_arguments(size, factor, match):
    with pytest.raises(ValueError, match=match):
        area_shrink(np.zeros((40, 60, 3), np.uint8), size, last_min_factor=factor)


def test_find_plate_on_a_4k_frame_matches_the_plain_shrink():
    """The plate search's shrink of a 3840x2160 frame (halved, then shrunk by
    at least two) finds the ellipse one plain shrink finds, to 0.5 px of the
    working image's scale."""
    scene = render_scene(33, "outcome", size=(1280, 720))
    frame = cv2.resize(scene.image, (3840, 2160), interpolation=cv2.INTER_CUBIC)
    got = find_plate(frame).ellipse
    want = find_plate(cv2.resize(frame, (1920, 1080), interpolation=cv2.INTER_AREA)).ellipse
    assert got is not None and want is not None
    for g, w in ((got.cx, 2 * want.cx), (got.cy, 2 * want.cy), (got.a, 2 * want.a), (got.b, 2 * want.b)):
        assert abs(g - w) <= 0.5 * 2160 / 320


def test_find_plate_on_a_1080p_frame_is_halved_first_and_finds_the_same_plate(monkeypatch):
    """A 1920x1080 frame is halved once before the plate search's last shrink
    (540 rows to 320: by 1.69, at least ``WORK_LAST_SHRINK_MIN``), a 1280x720
    frame not at all; the 1080p ellipse is the one a single plain shrink
    finds to 0.5 px of the working image's scale, and the label's plate
    centre to 1 % of its radius (the fit's axes run 0-5 % longer than the
    label's: it takes in the rim's blurred edge)."""
    from vision import plate, shrink

    halvings: list[int] = []
    real_halve = shrink.halve

    def counted(frame, times):
        halvings.append(int(times))
        return real_halve(frame, times)

    monkeypatch.setattr(shrink, "halve", counted)
    scene = render_scene(33, "outcome", size=(1920, 1080))
    got = find_plate(scene.image).ellipse
    find_plate(cv2.resize(scene.image, (1280, 720), interpolation=cv2.INTER_AREA))
    assert halvings == [1]
    monkeypatch.setattr(plate, "WORK_LAST_SHRINK_MIN", 4.0)  # no halving: one plain INTER_AREA shrink
    want = find_plate(scene.image).ellipse
    assert halvings == [1] and got is not None and want is not None
    work_px = scene.image.shape[0] / plate.PLATE_WORK_HEIGHT_PX  # source pixels per working pixel
    for g, w in ((got.cx, want.cx), (got.cy, want.cy), (got.a, want.a), (got.b, want.b)):
        assert abs(g - w) <= 0.5 * work_px
    label = scene.label["plate"]
    assert math.hypot(got.cx - label["cx"], got.cy - label["cy"]) <= 0.01 * label["a"]
    assert 1.0 <= got.a / label["a"] <= 1.05 and 1.0 <= got.b / label["b"] <= 1.05


# --- the canonical view of a large frame ------------------------------------------

def test_warp_box_bounds_every_sample():
    e = Ellipse(700.0, 500.0, 330.0, 300.0, 25.0)
    to_canon = plate_to_canonical(e, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
    x_min, y_min, x_max, y_max = warp_box(to_canon, CANVAS_PX)
    inv = np.linalg.inv(to_canon)
    ys, xs = np.mgrid[0:CANVAS_PX, 0:CANVAS_PX]
    pts = inv @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    assert pts[0].min() >= x_min - 1e-9 and pts[1].min() >= y_min - 1e-9
    assert pts[0].max() <= x_max + 1e-9 and pts[1].max() <= y_max + 1e-9
    with pytest.raises(ValueError, match="canvas_px"):
        warp_box(to_canon, 0)


@pytest.mark.parametrize("halvings", [1, 2])
def test_halved_region_puts_a_disc_where_the_plate_map_does(halvings):
    """Known values: a disc at a known source point lands, in the warped
    canvas, where ``to_canonical`` maps that point (within 0.1 canvas px)."""
    h, w = 2160, 3840
    cx, cy = 1900.3, 1100.6
    e = Ellipse(2000.0, 1000.0, 620.0, 560.0, 10.0)
    frame = _disc_frame(h, w, cx, cy, 60.0)
    to_canon = plate_to_canonical(e, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
    small, to_small_canvas = halved_region(frame, to_canon, CANVAS_PX, halvings)
    assert small.shape[0] < h >> halvings and small.shape[1] < w >> halvings  # only the warp's region
    canvas = rectify(small, to_small_canvas, CANVAS_PX)
    p = to_canon @ np.array([cx, cy, 1.0])
    assert _centroid(canvas) == pytest.approx((p[0], p[1]), abs=0.1)


def test_halved_region_bad_arguments():
    e = Ellipse(200.0, 150.0, 100.0, 90.0, 0.0)
    to_canon = plate_to_canonical(e, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
    frame = np.zeros((300, 400, 3), np.uint8)
    with pytest.raises(ValueError, match="halvings"):
        halved_region(frame, to_canon, CANVAS_PX, 0)
    far = np.array([[1.0, 0.0, -5000.0], [0.0, 1.0, -5000.0], [0.0, 0.0, 1.0]])  # reads only off the frame
    with pytest.raises(ValueError, match="to_canonical"):
        halved_region(frame, far, CANVAS_PX, 1)


@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160)])
def test_canonical_view_of_a_large_frame_is_close_to_the_plain_area_shrink(size):
    """On real pixels (a synthesized scene scaled up), the view through exact
    halvings differs from the view through one plain area shrink to the same
    scale by under 1.5 levels on average (noise and edges move a little)."""
    scene = render_scene(21, "outcome", size=(960, 540))
    frame = cv2.resize(scene.image, size, interpolation=cv2.INTER_CUBIC)
    plate = find_plate(frame).ellipse
    shrink = plate.b / (PLATE_RADIUS_PX * WARP_SHRINK)
    assert shrink > 1.5  # the shrink path is the one under test
    got = make_canonical_view(frame, plate).bgr
    h, w = frame.shape[:2]
    small_size = (int(round(w / shrink)), int(round(h / shrink)))
    small = cv2.resize(frame, small_size, interpolation=cv2.INTER_AREA)
    sx, sy = w / small_size[0], h / small_size[1]
    to_canon = plate_to_canonical(plate, plate_radius_px=PLATE_RADIUS_PX, canvas_px=CANVAS_PX)
    small_to_source = np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1.0]])
    want = cv2.GaussianBlur(rectify(small, to_canon @ small_to_source, CANVAS_PX), ksize=(0, 0),
                            sigmaX=CANON_BLUR_SIGMA_PX)
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    assert diff.mean() < 1.5 and np.percentile(diff, 99) <= 12


@pytest.mark.parametrize("seed", range(4))
def test_area_resize_same_bytes_as_cv2_resize(seed):
    """``_area_resize`` (a float32 shrink rounded by ``cv2.convertScaleAbs``)
    gives the bytes of ``cv2.resize`` INTER_AREA on uint8 pixels, for any
    factor (whole factors take cv2.resize itself) and channel count; on
    textures, flat and two-level images (ties) and a synthesized scene."""
    from vision.shrink import _area_resize
    rng = np.random.default_rng(seed)
    for i in range(150):
        h, w = int(rng.integers(2, 300)), int(rng.integers(2, 400))
        shape = ((h, w), (h, w, 1), (h, w, 3), (h, w, 4))[i % 4]
        img = (rng.integers(0, 256, shape, dtype=np.uint8), np.full(shape, i % 256, np.uint8),
               rng.integers(0, 2, shape, dtype=np.uint8) * 255)[i % 3]
        size = (int(rng.integers(1, w + 1)), int(rng.integers(1, h + 1)))
        got, want = _area_resize(img, size), cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want), (shape, size)
    scene = render_scene(8000 + seed, "outcome", size=(640, 360)).image
    for size in ((569, 320), (284, 160), (320, 180)):  # the last: whole factors (OpenCV's integer path)
        assert np.array_equal(_area_resize(scene, size), cv2.resize(scene, size, interpolation=cv2.INTER_AREA))
