"""The smooth plate model (``vision.smooth_plate``, ``reader.SMOOTH_PLATE_MODEL``).

On black lacquer lit from one side the plate's lightness runs across the
well by tens of L; the ring model with its angular shading leaves the blob
search's threshold at 45-80 Lab, above every face, and the blind search's
rule (``reader.BLIND_BLOB_SEARCH_UNCERTAIN``) stops right outcomes.  A robust
cubic of the well's colour brings the threshold to its floor there, and the
faces are blobs again.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision import read_frame, reader, tokens
from vision.canonical import make_canonical_view
from vision.plate import find_plate
from vision.reader import ReaderSettings, search_tokens
from vision.shading import without_shading
from vision.smooth_plate import smooth_plate_surface, with_smooth_plate
from vision.synth import render_scene

LACQUER = {"glaze": "black_lacquer"}

#: Fresh four flat tokens on black lacquer at 640x480 that the blind rule
#: stopped on the rings (threshold 68.9 and 78.6 Lab, faces 40 and 61 at most).
SHADED_SEEDS = (1590028, 1590135)


def _views(seed: int):
    scene = render_scene(seed, "outcome", size=(640, 480), conditions=LACQUER)
    plate = find_plate(scene.image)
    view = make_canonical_view(scene.image, plate.ellipse, plate.halved)
    return scene, view, without_shading(view)


@pytest.mark.parametrize("seed", SHADED_SEEDS)
def test_the_smooth_model_brings_the_threshold_to_its_floor(seed):
    _, _, flat = _views(seed)
    assert tokens.blob_threshold(flat) > 60.0  # the rings and their shading do not fit
    smooth = with_smooth_plate(flat)
    assert smooth is not None
    assert tokens.blob_threshold(smooth) <= reader.SMOOTH_PLATE_MAX_THRESHOLD_LAB
    # the same colours, only the plate model changed
    assert smooth.lab is flat.lab and smooth.radius_px is flat.radius_px
    np.testing.assert_allclose(smooth.background + smooth.residual, flat.lab, atol=1e-3)


@pytest.mark.parametrize("seed", SHADED_SEEDS)
def test_the_fit_does_not_take_the_faces(seed):
    # every face stays a blob on the smooth model: its core well above the threshold
    _, view, _ = _views(seed)
    _, search = search_tokens(view, ReaderSettings())
    faces = search.of_kind(*tokens.FLAT_KINDS)
    assert len(faces) == 4 and all(c.found_by == "blob" for c in faces)
    assert search.well_blob_threshold_lab is not None
    assert min(c.contrast for c in faces) > 2.0 * search.well_blob_threshold_lab


@pytest.mark.parametrize("seed", SHADED_SEEDS)
def test_a_smoothly_shaded_plate_reads_its_outcome(seed, monkeypatch):
    scene, _, _ = _views(seed)
    got = read_frame(scene.image)
    assert got.verdict == "outcome" and got.red == scene.label["red"], got.reason
    monkeypatch.setattr(reader, "SMOOTH_PLATE_MODEL", False)
    before = read_frame(scene.image)
    assert before.verdict == "uncertain" and "varies too much" in before.reason, before.reason


def test_a_lit_gradient_is_fitted_and_a_disc_is_not():
    # a plane of lightness across a canvas (a lamp from one side), one dark
    # disc on it: the surface follows the plane and passes under the disc
    s, r = 320, 128.0
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    lab = np.zeros((s, s, 3), np.float32)
    lab[..., 0] = 40.0 + 20.0 * (xx - s / 2) / r
    disc = np.hypot(xx - 190, yy - 150) < 18
    lab[disc] = (20.0, 30.0, 10.0)
    surface = smooth_plate_surface(lab, r)
    assert surface is not None
    well = np.hypot(xx - s / 2 + 0.5, yy - s / 2 + 0.5) < 0.8 * r
    err = np.abs(surface[..., 0] - lab[..., 0])[well & ~disc]
    assert err.max() < 0.5
    assert abs(surface[150, 190, 0] - (40.0 + 20.0 * (190 - s / 2) / r)) < 0.5


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        smooth_plate_surface(np.zeros((10, 12, 3), np.float32), 4.0)
    with pytest.raises(ValueError):
        smooth_plate_surface(np.zeros((10, 10, 3), np.float32), 0.0)
    with pytest.raises(TypeError):
        with_smooth_plate(np.zeros((10, 10, 3)))
