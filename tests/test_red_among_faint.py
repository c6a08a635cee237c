"""A red face among faint white faces is judged on its own floor.

Fresh scenes 75209 and 77297 (640x480, five tokens on black lacquer): the
lacquer's broad shading raised the blob threshold, so the four white faces,
30-48 L above the plate, were found by the disc filter ("faint"); the fifth,
a dark red face 11.7 and 17.3 Lab from the plate (mostly a*), was under the
floor relative to the faintest of them (``SUSPECT_REL_CONTRAST_ALL_FAINT`` =
0.4 of 30 and of 48 Lab) and taken for texture: the reader read four whites.
That floor says a fifth face is about as contrasty as the faint faces; a face
of the other colour differs from the plate in its own way.  A find at least
``RED_AMONG_FAINT_MIN_DELTA_A`` redder than every faint face keeps only the
absolute floor.

Checklist: known values of ``_other_colour``; constructed views (a red
fifth among four strong faint whites is a suspect, a pale one of the same
contrast is not, the rule off); real pixels (75209, 77297 with the rule on
and off).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from test_faces_by_the_wall import CENTRE, R, S, _at, faces_at
from vision import reader
from vision import tokens
from vision.canonical import CanonicalView, _radius_grid
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import RED_AMONG_FAINT_MIN_DELTA_A, _other_colour, find_tokens

WHITES = [np.array(v, np.float32) for v in ((30.1, 0.0, -4.1), (31.2, -2.3, -0.7), (32.5, 0.0, -5.2))]
FOUR = ((0.0, 0.35), (100.0, 0.4), (200.0, 0.3), (0.0, 0.0))
FIFTH = (290.0, 0.45)
#: white faces 30 L above a dark plate, a little bluer
WHITE = (30.0, -2.0, -3.0)
#: a dark red fifth: 7.8 Lab from the plate, under 0.4 of the whites' contrast
DARK_RED = (2.0, 7.5, 1.5)
#: a pale fifth of the same contrast, like the whites
PALE = (7.5, -0.5, -1.5)
#: lightness texture of the lacquer: standard deviation (L units) and scale (canonical pixels)
SHINE_STD_L = 6.0
SHINE_SIGMA_PX = 6.0
#: far above any of these faces: every face is left to the disc filter, as the
#: lacquer's shading did
BLOB_FLOOR_LAB = 60.0


def test_known_values():
    assert _other_colour(np.array([4.5, 10.8, 2.3], np.float32), WHITES)
    assert not _other_colour(np.array([4.5, 10.8, 2.3], np.float32), [])
    assert not _other_colour(np.array([3.0, -0.5, -1.0], np.float32), WHITES)  # a fainter white
    assert not _other_colour(np.array([-6.0, 0.5, 0.5], np.float32), WHITES)   # shading, darker
    just_under = RED_AMONG_FAINT_MIN_DELTA_A - 0.1
    assert not _other_colour(np.array([2.0, just_under, 0.0], np.float32), WHITES[:1])
    assert _other_colour(np.array([2.0, RED_AMONG_FAINT_MIN_DELTA_A + 0.1, 0.0], np.float32), WHITES[:1])
    # redder than some faint faces but not every one
    assert not _other_colour(np.array([2.0, 9.0, 0.0], np.float32), WHITES + [np.array([10.0, 5.0, 0.0])])


def view_of(fifth: tuple[float, float, float], seed: int = 5) -> CanonicalView:
    """A dark plate (Lab 25, 0, -2) with seeded noise, four white faces and a fifth face of colour ``fifth``."""
    rng = np.random.default_rng(seed)
    res = rng.normal(0.0, 0.8, (S, S, 3)).astype(np.float32)
    # the lacquer's uneven shine: lightness texture at about a token's scale,
    # which lifts the disc filter's noise-based face threshold over the fifth
    shine = cv2.GaussianBlur(rng.normal(0.0, 1.0, (S, S)).astype(np.float32), ksize=(0, 0), sigmaX=SHINE_SIGMA_PX)
    res[..., 0] += shine * (SHINE_STD_L / float(shine.std()))
    res[faces_at(*FOUR) > 0] += np.asarray(WHITE, np.float32)
    res[faces_at(FIFTH) > 0] += np.asarray(fifth, np.float32)
    res = cv2.GaussianBlur(res, ksize=(0, 0), sigmaX=1.0)
    radius = _radius_grid(S)
    res = np.where((radius < R)[..., None], res, 0.0).astype(np.float32)
    background = np.empty((S, S, 3), np.float32)
    background[:] = (25.0, 0.0, -2.0)
    return CanonicalView(bgr=np.zeros((S, S, 3), np.uint8), lab=background + res, background=background,
                         residual=res, delta_e=np.sqrt((res ** 2).sum(axis=2)).astype(np.float32),
                         radius_px=radius, to_canonical=np.eye(3), plate_radius_px=R)


def _near_fifth(suspects) -> bool:
    fx, fy = _at(*FIFTH)
    return any(math.hypot(x - fx, y - fy) < 0.5 * 0.11 * R for x, y, _ in suspects)


def test_the_views_are_what_the_tests_say():
    for fifth in (DARK_RED, PALE):
        found = find_tokens(view_of(fifth), min_blob_threshold_lab=BLOB_FLOOR_LAB)
        assert [c.kind for c in found.candidates] == ["faint"] * 4
        weakest = min(c.contrast for c in found.candidates)
        # the fifth face is under the floor relative to the faint whites
        assert math.hypot(*fifth) < tokens.SUSPECT_REL_CONTRAST_ALL_FAINT * weakest


def test_a_red_fifth_among_faint_whites_is_a_suspect(monkeypatch):
    found = find_tokens(view_of(DARK_RED), min_blob_threshold_lab=BLOB_FLOOR_LAB)
    assert _near_fifth(found.suspects)
    monkeypatch.setattr(tokens, "RED_AMONG_FAINT_MIN_DELTA_A", math.inf)
    found = find_tokens(view_of(DARK_RED), min_blob_threshold_lab=BLOB_FLOOR_LAB)
    assert not _near_fifth(found.suspects)


def test_a_pale_fifth_keeps_the_relative_floor():
    found = find_tokens(view_of(PALE), min_blob_threshold_lab=BLOB_FLOOR_LAB)
    assert not _near_fifth(found.suspects)


@pytest.mark.parametrize("seed", [75209, 77297])
def test_scenes_are_not_read_as_four_whites(seed, monkeypatch):
    scene = render_scene(seed, size=(640, 480))
    assert scene.label["kind"] == "five_tokens"
    assert [t["face"] for t in scene.label["tokens"]].count("red") == 1
    # on the smooth plate model (reader.SMOOTH_PLATE_MODEL) the five faces are
    # blobs: the label's verdict
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and got.reason.startswith("5 tokens"), got.reason
    # on the rings, as found, the red fifth is a suspect
    monkeypatch.setattr(reader, "SMOOTH_PLATE_MODEL", False)
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "more disc-like evidence" in got.reason, got.reason
    # (BLIND_BLOB_SEARCH_UNCERTAIN, its faces under the blob search's threshold, stops it too: off here)
    monkeypatch.setattr(reader, "BLIND_BLOB_SEARCH_UNCERTAIN", False)
    monkeypatch.setattr(tokens, "RED_AMONG_FAINT_MIN_DELTA_A", math.inf)
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", 0)
