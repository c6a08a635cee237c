"""A pale token standing on edge: a solid bar below the upright contrast.

A token on edge seen from above is a thin bar.  Below ``UPRIGHT_MIN_CONTRAST``
it used to be read as a face partly hidden (``rearrange``); now a bar larger
than a speck and solid counts as upright (``reshake``), unless it lies
within ``SLIVER_MAX_DIST_RADII`` of another token: then it is the visible
sliver of a face partly under that token (``rearrange``).

Checklist: known values on constructed blobs (solid bar, ragged bar, a
speck-sized bar, a bright bar), the sliver rule on constructed candidates,
real pixels (tuning seeds, a bundled studio render), and the sliver rule
shown to be what reads the overlap seed.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision import tokens, upright_doubt
from vision.io import load_image
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import Candidate, _Blob, _classify_blob, _slivers_beside_faces

from scene_truth import RAISED

R_TOKEN = 15.0
FACE_AREA = math.pi * R_TOKEN ** 2
STUDIO = Path(__file__).resolve().parents[1] / "samples" / "studio"


def bar_blob(area_faces: float, solidity: float, contrast: float, length_radii: float = 2.0) -> _Blob:
    area = area_faces * FACE_AREA
    major = length_radii * R_TOKEN
    minor = 4.0 * area / (math.pi * major)  # an ellipse of that area
    return _Blob(x=100.0, y=100.0, area=area, major=major, minor=minor, angle_deg=0.0, solidity=solidity,
                 contrast=contrast, crosses_rim=False, mask=np.zeros((8, 8), bool))


def classify(b: _Blob) -> list[str]:
    """The candidate kinds the blob becomes, or ``["weak"]`` when it is left
    to the disc filter as a pale fragment."""
    cands: list[Candidate] = []
    weak: list[_Blob] = []
    _classify_blob(b, FACE_AREA, R_TOKEN, threshold=14.0, cands=cands, suspects=[], weak=weak)
    return [c.kind for c in cands] + ["weak"] * len(weak)


@pytest.mark.parametrize("area, solidity, contrast, expected", [
    (0.4, 0.95, 17.0, ["upright"]),    # solid, pale: a token on edge
    (0.4, 0.95, 30.0, ["upright"]),    # bright: as before
    (0.4, 0.60, 17.0, ["weak"]),       # ragged and pale: a pale face's fragment, for the disc filter
    (0.08, 0.95, 17.0, []),            # a speck: glare or a chip, dropped
])
def test_bar_by_size_solidity_and_contrast(area, solidity, contrast, expected):
    b = bar_blob(area, solidity, contrast)
    assert b.axis_ratio < tokens.UPRIGHT_MAX_AXIS_RATIO
    assert classify(b) == expected


def _cand(x: float, kind: str, contrast: float) -> Candidate:
    return Candidate(x, 100.0, R_TOKEN, kind, 0.4 * FACE_AREA, 0.3, 0.95, contrast)


def test_pale_bar_beside_a_face_is_a_sliver():
    near = [_cand(100.0, "upright", 17.0), _cand(100.0 + 1.5 * R_TOKEN, "disc", 40.0)]
    assert [c.kind for c in _slivers_beside_faces(near, R_TOKEN)] == ["partial", "disc"]
    far = [_cand(100.0, "upright", 17.0), _cand(100.0 + 3.0 * R_TOKEN, "disc", 40.0)]
    assert [c.kind for c in _slivers_beside_faces(far, R_TOKEN)] == ["upright", "disc"]
    bright = [_cand(100.0, "upright", 30.0), _cand(100.0 + 1.5 * R_TOKEN, "disc", 40.0)]
    assert [c.kind for c in _slivers_beside_faces(bright, R_TOKEN)] == ["upright", "disc"]
    beside_object = [_cand(100.0, "upright", 17.0), _cand(100.0 + 1.5 * R_TOKEN, "object", 40.0)]
    assert [c.kind for c in _slivers_beside_faces(beside_object, R_TOKEN)] == ["upright", "object"]
    assert _slivers_beside_faces([], R_TOKEN) == []


@pytest.mark.parametrize("seed", [1231, 1289])
def test_pale_upright_tokens_ask_for_a_reshake(seed, monkeypatch, size_by_scan_alone):
    """Tuning seeds with one white token on edge (contrast 14-18): read
    ``rearrange`` without the pale-bar rule (as sized before the tenth round)."""
    scene = render_scene(seed, conditions=RAISED)
    assert scene.label["kind"] == "upright"
    reading = read_frame(scene.image)
    assert reading.verdict == "reshake", reading.reason
    assert "standing on edge" in reading.reason
    size_by_scan_alone()
    monkeypatch.setattr(tokens, "UPRIGHT_PALE_MIN_SOLIDITY", np.inf)
    assert read_frame(scene.image).verdict == "rearrange"


def test_studio_pale_upright_asks_for_a_reshake():
    label = json.loads((STUDIO / "s2_006_upright.json").read_text())
    reading = read_frame(load_image(str(STUDIO / "s2_006_upright.jpg")))
    assert reading.verdict == label["verdict"] == "reshake", reading.reason
    assert sum(t.face == "upright" for t in reading.tokens) == 1


def test_sliver_of_a_face_under_a_token_asks_for_a_rearrange(monkeypatch):
    """Tuning seed 1350: a white face under a red one shows only a sliver,
    shaped like a pale upright bar, 1.6 radii from the red face."""
    scene = render_scene(1350, conditions=RAISED)
    assert scene.label["kind"] == "overlap"
    assert read_frame(scene.image).verdict == "rearrange"
    monkeypatch.setattr(tokens, "SLIVER_MAX_DIST_RADII", 0.0)
    # without it the sliver is a bar along the red face's edge (vision.upright_doubt): no reshake
    assert read_frame(scene.image).verdict == "uncertain"
    monkeypatch.setattr(upright_doubt, "UPRIGHT_DOUBT_RULE", False)
    assert read_frame(scene.image).verdict == "reshake"
