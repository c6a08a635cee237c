"""Speed, the thirty-first round (helper h4): each change gives the bits of the code it replaced.

The replaced functions are kept here verbatim (``ref_*``) and compared bit for
bit with the new ones on the arrays of real frames (synthesized scenes by
seed, as the reader makes them at two sizes) and on drawn arrays.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import plate
from vision.plate import CLOTH_MIN_SPREAD_LAB, MAD_TO_SIGMA, _border_geometry, _border_pixels, fast_median
from vision.synth import render_scene

#: Synthesized scenes (seed, kind), this round's own seeds, read at each size.
SCENES = ((2140000, "outcome"), (2140001, "touching"), (2140002, "overlap"), (2140003, "covered"),
          (2140004, "five_tokens"), (2140005, "no_plate"))
SIZES = ((1920, 1080), (1280, 720))


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    return [render_scene(seed, kind, size=size).image for seed, kind in SCENES for size in SIZES]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return (a.dtype == b.dtype and a.shape == b.shape
            and np.array_equal(a.view(np.uint8), b.view(np.uint8)))


# --- plate.cloth_deviation: the surface, residual and norm in fewer buffers ---------------

def ref_cloth_deviation(small_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``vision.plate.cloth_deviation`` before round 31 (main 93db743), verbatim."""
    if small_bgr.dtype != np.uint8 or small_bgr.ndim != 3 or small_bgr.shape[2] != 3:
        raise ValueError(f"small_bgr: expected uint8 (H, W, 3), got {small_bgr.dtype} {small_bgr.shape}")
    h, w = small_bgr.shape[:2]
    geo = _border_geometry(h, w)
    lab8 = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2Lab)
    border_lab = _border_pixels(lab8, geo).astype(np.float64)  # = lab8.reshape(-1, 3)[geo.flat]
    coefs = np.linalg.solve(geo.normal, geo.design.T @ border_lab).astype(np.float32)  # (6, 3)
    xs, ys, xy = geo.xs, geo.ys, geo.xy
    units = []
    for c, plane in enumerate(cv2.split(lab8)):
        c0, c1, c2, c3, c4, c5 = coefs[:, c]
        row = c0 + c1 * xs + c3 * (xs * xs)
        col = c2 * ys + c5 * (ys * ys)
        surface = row[None, :] + col[:, None]
        surface += c4 * xy
        residual = plane.astype(np.float32)
        residual -= surface
        # = fast_median(np.abs(residual.ravel()[geo.flat]))
        spread = np.float32(MAD_TO_SIGMA) * fast_median(np.abs(_border_pixels(residual, geo)))
        spread = max(spread, np.float32(CLOTH_MIN_SPREAD_LAB[c]))
        residual /= spread
        units.append(residual)
    u0, u1, u2 = units
    return np.sqrt(u0 * u0 + u1 * u1 + u2 * u2), u0


def _plate_inputs(frames: list[np.ndarray], monkeypatch) -> list[np.ndarray]:
    """The (shrunk, blurred) frames ``find_plate`` hands to ``cloth_deviation``."""
    seen: list[np.ndarray] = []
    real = plate.cloth_deviation

    def spy(small: np.ndarray):
        seen.append(small.copy())
        return real(small)

    monkeypatch.setattr(plate, "cloth_deviation", spy)
    for frame in frames:
        plate.find_plate(frame)
    monkeypatch.setattr(plate, "cloth_deviation", real)
    return seen


def test_cloth_deviation_bits_on_frames(frames, monkeypatch):
    smalls = _plate_inputs(frames, monkeypatch)
    assert len(smalls) == len(frames)
    for small in smalls:
        got, want = plate.cloth_deviation(small), ref_cloth_deviation(small)
        assert len(got) == 2
        for g, w in zip(got, want):
            assert _same_bits(g, w)
    # the scenes' plates do stand out of the cloth (the comparison is of real maps)
    assert max(float(plate.cloth_deviation(s)[0].max()) for s in smalls) > plate.CLOTH_DEVIATION_UNITS


@pytest.mark.parametrize("seed", range(2140010, 2140016))
def test_cloth_deviation_bits_on_drawn_arrays(seed):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(24, 200)), int(rng.integers(24, 260))
    kind = seed % 3
    if kind == 0:  # noise
        small = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif kind == 1:  # flat cloth (every spread at its floor) with a disc
        small = np.full((h, w, 3), rng.integers(0, 256, 3), np.uint8)
        cv2.circle(small, (w // 2, h // 2), min(h, w) // 4, tuple(int(v) for v in rng.integers(0, 256, 3)), -1)
    else:  # a lighting gradient
        yy, xx = np.mgrid[0:h, 0:w]
        small = np.clip(np.stack([40 + 150 * xx / w, 60 + 120 * yy / h, 90 + 0.3 * xx], axis=-1)
                        + rng.normal(0, 3, (h, w, 3)), 0, 255).astype(np.uint8)
    got, want = plate.cloth_deviation(small), ref_cloth_deviation(small)
    for g, x in zip(got, want):
        assert _same_bits(g, x)


def test_cloth_deviation_keeps_its_argument_checks():
    with pytest.raises(ValueError, match="small_bgr"):
        plate.cloth_deviation(np.zeros((20, 20), np.uint8))
