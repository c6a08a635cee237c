"""A glossy dark plate whose faces are all found by the disc filter.

On glossy black lacquer the plain ring model leaves the glaze's gloss, so the
blob floor (held to that model) is 39-58 Lab and faces 23-63 Lab from the
plate are found by the disc filter, not as blobs.  The frame then had no
"clear face" (a blob disc) for ``_plate_darker_than_faces``: the dark shading
of the well was never split off as shading, and outline finds on it were
counted as a fifth and sixth token (fresh forced four flat tokens 303009,
303297, 303565, 303586 at 640x480).  A disc-filter face of at least
``SHADING_CLEAR_FAINT_MIN_CONTRAST`` now stands for a clear face in a frame
with no blob disc.  Checklist: known values on drawn residuals (faint faces
that count, too faint to count, one darker than the plate, a blob disc present,
nothing), then the real frame with the rule shown to be what reads it.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision import tokens
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import Candidate, _plate_darker_than_faces

S = 240
R_TOKEN = 14.0
FACE_AREA = math.pi * R_TOKEN ** 2
CENTRES = [(60.0, 60.0), (180.0, 60.0), (60.0, 180.0)]


def _painted(labs: list[tuple[float, float, float]]) -> np.ndarray:
    """Residual (S, S, 3) float32, Lab units: a disc of each colour at CENTRES."""
    res = np.zeros((S, S, 3), np.float32)
    yy, xx = np.mgrid[0:S, 0:S]
    for (x, y), lab in zip(CENTRES, labs):
        res[np.hypot(xx - x, yy - y) <= R_TOKEN] = lab
    return res


def _faint(i: int, contrast: float) -> Candidate:
    x, y = CENTRES[i]
    return Candidate(x, y, R_TOKEN, "faint", FACE_AREA, 1.0, 1.0, contrast, found_by="disc_filter")


LIGHT = (45.0, 0.0, 10.0)     # a white face on black lacquer
RED = (15.0, 35.0, 15.0)      # a red face on black lacquer: lighter too
DARK = (-20.0, 30.0, 10.0)    # a red face darker than a pale plate


@pytest.mark.parametrize("labs, contrasts, expected", [
    ([LIGHT, RED, LIGHT], [50.0, 30.0, 45.0], True),     # every clear faint face lighter
    ([LIGHT, DARK, LIGHT], [50.0, 30.0, 45.0], False),   # one clear face darker: not a dark plate
    ([LIGHT, DARK, LIGHT], [50.0, 9.0, 45.0], True),     # the darker one too faint to count as clear
    ([LIGHT, RED, LIGHT], [9.9, 9.0, 5.0], False),       # no face clear enough: nothing to go by
])
def test_clear_faint_faces_stand_for_blob_discs(labs, contrasts, expected):
    res = _painted(labs)
    cands = [_faint(i, c) for i, c in enumerate(contrasts)]
    assert _plate_darker_than_faces(res, cands) is expected


def test_blob_discs_decide_when_there_are_any():
    """With a blob disc in the frame the faint faces are not consulted (as before)."""
    res = _painted([LIGHT, DARK, LIGHT])
    disc = Candidate(*CENTRES[0], R_TOKEN, "disc", FACE_AREA, 1.0, 1.0, 60.0)
    assert _plate_darker_than_faces(res, [disc, _faint(1, 30.0)]) is True
    assert _plate_darker_than_faces(res, [_faint(1, 30.0)]) is False


def test_outline_and_partial_finds_are_not_clear_faces():
    res = _painted([LIGHT, LIGHT, LIGHT])
    x, y = CENTRES[0]
    outline = Candidate(x, y, R_TOKEN, "outline", FACE_AREA, 1.0, 1.0, 40.0, found_by="outline")
    partial = Candidate(x, y, R_TOKEN, "partial", FACE_AREA, 0.6, 1.0, 40.0, found_by="disc_filter")
    assert _plate_darker_than_faces(res, [outline, partial]) is False


def test_empty():
    assert _plate_darker_than_faces(np.zeros((S, S, 3), np.float32), []) is False


@pytest.mark.parametrize("seed, red", [(303297, 1), (303009, 2)])
def test_glossy_black_plate_with_every_face_faint_is_read(seed, red, monkeypatch):
    """Real pixels: four flat tokens on glossy black lacquer at 640x480, no
    face a blob.  Read right; without the faint faces standing for clear
    ones, the well's shading gave extra outline tokens (six and five)."""
    scene = render_scene(seed, "outcome", size=(640, 480))
    assert scene.label["conditions"]["glaze"] == "black_lacquer"
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"] == red
    assert "disc" not in reading.details["candidates"]  # every face from the disc filter
    monkeypatch.setattr(tokens, "SHADING_CLEAR_FAINT_MIN_CONTRAST", math.inf)
    before = read_frame(scene.image)
    assert before.verdict == "reshake" and "tokens on the plate" in before.reason, before.reason
