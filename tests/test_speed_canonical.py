"""The canonical view's background model from 8-bit Lab codes gives the same bits.

Reference: the model as computed before the speed work (round 3): Lab by
``colour.bgr_to_lab``, the ring medians by ``colour.radial_median_profile``,
the residual and its norm over the whole canvas.  No timing here.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import canonical as C
from vision.colour import (_LAB_TABLE, bgr_to_lab, radial_median_profile, radial_median_profile_codes,
                           ring_code_keys)
from vision.io import load_image
from vision.plate import find_plate
from vision.synth import render_scene

REPO = Path(__file__).resolve().parent.parent


def ref_model(bgr):
    lab = bgr_to_lab(bgr)
    geo = C._canvas_geometry(C.CANVAS_PX)
    profile = radial_median_profile(lab, geo.radius, geo.inside, C.RING_BIN_PX, geo.n_bins)
    profile[:geo.n_pool] = np.median(lab[geo.centre], axis=0)
    # rings tokens cover in part are measured without them, then rings filled
    # by tokens take their plate pixels' level (the rules themselves are
    # tested in test_background_rings)
    cleared = C._levels_clear_of_tokens(lab, cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab), profile,
                                        model(lab, profile, geo)[3], geo)
    levels = C._levels_where_tokens_dominate(lab, profile if cleared is None else cleared, geo)
    profile = profile if levels is None and cleared is None else (cleared if levels is None else levels)
    return model(lab, profile, geo)


def model(lab, profile, geo):
    background = np.take(profile, geo.ring_flat, axis=0).reshape(lab.shape)
    residual = np.zeros_like(lab)
    np.subtract(lab, background, out=residual, where=geo.inside3)
    r0, r1, r2 = residual[..., 0], residual[..., 1], residual[..., 2]
    return lab, background, residual, np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)


def test_canonical_model_same_bits():
    frames = [load_image(p) for p in sorted((REPO / "samples" / "studio").glob("*.jpg"))]
    frames += [render_scene(9300 + i, kind, size=(1920, 1080)).image
               for i, kind in enumerate(("outcome", "covered", "stick", "five_tokens"))]
    n = 0
    for f in frames:
        plate = find_plate(f)
        if not plate.found:
            continue
        view = C.make_canonical_view(f, plate.ellipse)
        for got, want in zip((view.lab, view.background, view.residual, view.delta_e), ref_model(view.bgr)):
            assert got.dtype == want.dtype and np.array_equal(got.view(np.uint32), want.view(np.uint32))
        n += 1
    assert n >= 8


@pytest.mark.parametrize("seed", range(4))
def test_profile_from_codes_same_bits_on_any_codes(seed):
    """Random codes (every level, skewed channels, a ring left empty)."""
    rng = np.random.default_rng(seed)
    h, w, n_bins = 60, 70, 12
    lab8 = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    lab8[..., 1] = np.clip(rng.normal(128 + 40 * seed, 3, (h, w)), 0, 255).astype(np.uint8)
    yy, xx = np.mgrid[0:h, 0:w]
    radius = np.hypot(xx - 35.0, yy - 30.0).astype(np.float32)
    mask = rng.random((h, w)) < 0.8
    mask[(radius >= 8) & (radius < 12)] = False  # rings 2 (bin 4 px) empty
    ring = np.minimum((radius / 4.0).astype(np.int32), n_bins - 1)
    want = radial_median_profile(cv2.LUT(lab8, _LAB_TABLE), radius, mask, 4.0, n_bins)
    got = radial_median_profile_codes(lab8, ring_code_keys(np.where(mask, ring, -1), n_bins), n_bins)
    assert np.array_equal(got, want)
    none = np.zeros((h, w), bool)
    assert np.array_equal(radial_median_profile_codes(lab8, ring_code_keys(np.full((h, w), -1), n_bins), n_bins),
                          radial_median_profile(cv2.LUT(lab8, _LAB_TABLE), radius, none, 4.0, n_bins))


@pytest.mark.parametrize("seed", range(6))
def test_median_from_codes_same_bits_as_np_median(seed):
    """Odd and even counts, narrow and wide code ranges, one pixel."""
    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 4, 101, 4608, 4609):
        codes = rng.integers(0, 256, (n, 3), dtype=np.uint8)
        codes[:, 1] = np.clip(rng.normal(128 + 30 * (seed - 3), 2, n), 0, 255).astype(np.uint8)
        codes[:, 2] = codes[0, 2]  # one code only
        want = np.median(cv2.LUT(codes[None], _LAB_TABLE)[0], axis=0)
        got = C._median_from_codes(codes)
        assert got.dtype == want.dtype == np.float32 and np.array_equal(got.view(np.uint32), want.view(np.uint32))
    with pytest.raises(ValueError, match="codes"):
        C._median_from_codes(np.zeros((0, 3), np.uint8))


@pytest.mark.parametrize("size", [(1920, 1080), (1921, 1081), (3840, 2160)])
def test_view_from_the_plate_searchs_halving_same_bits(size):
    """The canonical view cut from the plate search's first halving
    (``PlateFit.halved``) is the view halved from the frame's own pixels: the
    plate's ellipse and others reaching past the frame's edges (odd sizes
    drop a last row and column)."""
    from vision.shrink import halve
    from vision.types import Ellipse
    frame = cv2.resize(render_scene(9400, "outcome", size=(1280, 720)).image, size, interpolation=cv2.INTER_CUBIC)
    plate = find_plate(frame)
    assert plate.found and plate.halved is not None and not plate.halved.flags.writeable
    assert np.array_equal(plate.halved, halve(frame, 1))
    w, h = size
    rng = np.random.default_rng(size[0])
    ellipses = [plate.ellipse] + [Ellipse.from_axes(rng.uniform(-0.1 * w, 1.1 * w), rng.uniform(-0.1 * h, 1.1 * h),
                                                    a := rng.uniform(0.2, 0.5) * h, a * rng.uniform(0.6, 1.0),
                                                    rng.uniform(0, 180)) for _ in range(4)]
    for e in ellipses:
        want, got = C.make_canonical_view(frame, e), C.make_canonical_view(frame, e, plate.halved)
        for name in ("bgr", "lab", "background", "residual", "delta_e"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
    with pytest.raises(ValueError, match="halved"):
        C.halved_region(frame, C.plate_to_canonical(plate.ellipse, plate_radius_px=C.PLATE_RADIUS_PX,
                                                      canvas_px=C.CANVAS_PX), C.CANVAS_PX, 1, plate.halved[1:])
