"""vision.thin_rod: a thin rod over a face and over the cloth is one rod by its unmixed lightness.

Scene 1470826 (kind stick, 800x600, label ``uncertain``): a dark rod 0.0167
plate radii thick (about 2 px), defocus blur about 2 px, JPEG 73, held by a
hand at the bottom of the frame, runs across a wooden table and a black
lacquer rim onto a pink red face, hiding 15 % of it.  The line through the
rod is on a bar along all of its part over the face and over the cloth band,
but blur and the JPEG's half-resolution chroma give the rod the face's
chroma there: 28 Lab apart from the rod over the wood, above
``face_bar.MAX_COLOUR_DIFF_LAB``, so the scene read an outcome of 2 red.

Checklist: real pixels (the scene; the rule shown to be what stops it; the
same scene without the stick keeps its outcome; a face's wall in line with a
wood grain line, kept out by the plate between), the unmixing measured on
the scene's own colours, a faint mark beside a grain line that is no rod,
and bad inputs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision import thin_rod
from vision.reader import read_frame
from vision.synth import render_scene

BAR = "a straight bar runs over a face"
SIZE = (800, 600)


def test_thin_rod_over_a_pink_face_is_not_an_outcome(monkeypatch):
    scene = render_scene(1470826, "stick", size=SIZE)
    assert scene.label["verdict"] == "uncertain" and scene.label["stick"]["covers_token"]
    assert scene.label["conditions"]["cloth_texture"] == "wood"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(BAR), got.reason
    # the rule is what stops it: without it, an outcome (a wrong one: a stick lies over a face)
    monkeypatch.setattr(thin_rod, "THIN_ROD_UNMIX", False)
    off = read_frame(scene.image)
    assert (off.verdict, off.red) == ("outcome", 2), off.reason


def test_the_same_table_without_the_stick_keeps_its_outcome():
    # the same conditions (black lacquer, wooden table and its grain, blur, JPEG), four flat tokens
    conditions = render_scene(1470826, "stick", size=SIZE).label["conditions"]
    scene = render_scene(1470826, "outcome", size=SIZE, conditions=conditions)
    assert scene.label["verdict"] == "outcome"
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason


def test_a_face_wall_in_line_with_a_grain_line_is_no_rod(monkeypatch):
    # bench 7005 (four flat, 960x540, white porcelain by a wooden table): a
    # white face's dark side wall, 20 L under the face, lines up with a grain
    # line 6 L under the wood; their lightness unmixes to one dark rod (alpha
    # 0.53), which would lie about 40 L under the white plate between the two,
    # where nothing is
    scene = render_scene(7005, "outcome", size=(960, 540))
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    # the plate part is what keeps it: without it, the bar rule stops it
    monkeypatch.setattr(thin_rod, "PLATE_MIN_SHOWN_SHARE", -math.inf)
    loose = read_frame(scene.image)
    assert loose.verdict == "uncertain" and loose.reason.startswith(BAR), loose.reason


# 1470826's rod over the face and over the wood, and each part's sides 5 px off (Lab)
FACE_BAR, FACE_SIDES = (40.1, 43.3, 25.9), (59.5, 54.6, 23.5)
WOOD_BAR, WOOD_SIDES = (29.7, 18.4, 31.5), (39.9, 25.0, 33.8)


def test_the_rod_of_1470826_unmixes_to_one_rod():
    assert math.dist(FACE_BAR, WOOD_BAR) > 25.0  # the colour test alone keeps it out
    alpha = thin_rod.one_rod_share(FACE_BAR, FACE_SIDES, WOOD_BAR, WOOD_SIDES)
    assert alpha == pytest.approx(0.68, abs=0.03)


def test_a_faint_mark_on_a_pale_face_beside_a_grain_line_is_no_rod():
    # a white face with a mark 3 L darker, and a dark grain line 8 L under the wood
    assert math.isnan(thin_rod.one_rod_share((88.0, 1.0, 6.0), (91.0, 1.0, 6.0), (32.0, 18.0, 31.0),
                                             (40.0, 25.0, 34.0)))


def test_sides_of_one_lightness_cannot_be_unmixed():
    assert math.isnan(thin_rod.one_rod_share((30.0, 40.0, 20.0), (45.0, 50.0, 20.0), (30.0, 10.0, 30.0),
                                             (45.0, 20.0, 35.0)))


def test_linear_luminance_ends():
    y = thin_rod.linear_luminance(np.array([[0.0, 0.0, 0.0], [100.0, 0.0, 0.0], [50.0, 0.0, 0.0]]))
    assert y[0] == pytest.approx(0.0, abs=1e-3) and y[1] == pytest.approx(1.0, abs=1e-2)
    assert y[2] == pytest.approx(0.184, abs=0.01)


def test_off_or_empty_parts_are_no_rod(monkeypatch):
    lab = np.zeros((8, 8, 3), np.float32)
    line, face = (3.0, 3.0, 1.0, 0.0), (3.0, 3.0, 1.0)
    args = ((3.0, 3.0), (np.array(FACE_BAR), np.array(WOOD_BAR)))
    assert not thin_rod.unmixes_to_one_rod(lab, line, face, 3.0, np.zeros(0), np.ones(1), *args)
    monkeypatch.setattr(thin_rod, "THIN_ROD_UNMIX", False)
    assert not thin_rod.unmixes_to_one_rod(lab, line, face, 3.0, np.ones(1), np.ones(1), *args)


@pytest.mark.parametrize("bad", [(1.0, 2.0), (math.nan, 0.0, 0.0), "abc"])
def test_bad_colours_raise(bad):
    with pytest.raises(ValueError):
        thin_rod.one_rod_share(bad, FACE_SIDES, WOOD_BAR, WOOD_SIDES)


@pytest.mark.parametrize("bad", [np.zeros((2, 2)), np.zeros((2, 3), np.uint8)])
def test_bad_lab_raises(bad):
    with pytest.raises(ValueError):
        thin_rod.linear_luminance(bad)
