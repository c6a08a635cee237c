"""vision.reader._whites_opposed: white faces of one frame differ from the plate the same way.

One light, one glaze and one token material: a frame's white faces are all
darker than the plate (grey whites on white porcelain) or all lighter (bright
whites on a dim glaze).  The bare plate where the plate model leans toward
pale faces differs from it the opposite way, and a faint find there can pass
every other white rule: in fresh leaning overlap 1082806 (800x600) three grey
whites in one ring band pulled the model down, the bare plate between them was
found as a faint white +5.1 L from it (cosine -0.99 with both other whites'
cores, -3.4 and -2.1 L) and completed a count of four: a wrong outcome.

Checklist: known values on drawn residuals (opposed, alike, a blob never the
one judged, a core too faint to have a direction left out, fewer than two
whites), and the real scene (abstains; read wrong with the rule off).
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from vision import reader
from vision.faces import FaceReading
from vision.reader import _whites_opposed, read_frame
from vision.synth import render_scene
from vision.tokens import Candidate

from drawn_residuals import TOKEN_R, residual_with


def cand(x: float, y: float, found_by: str = "disc_filter", contrast: float = 5.0) -> Candidate:
    kind = "disc" if found_by == "blob" else ("outline" if found_by == "outline" else "faint")
    return Candidate(x, y, TOKEN_R, kind, math.pi * TOKEN_R ** 2, 1.0, 1.0, contrast, found_by=found_by)


def white() -> FaceReading:
    return FaceReading("white", 0.05, 0.0, -3.0, 1.0, 3.0, a_star=-2.0, l_star=75.0)


def red() -> FaceReading:
    return FaceReading("red", 0.95, 40.0, -20.0, 45.0, 10.0, a_star=50.0, l_star=55.0)


def opposed(discs, cands, faces):
    view = SimpleNamespace(residual=residual_with(discs))
    return _whites_opposed(view, cands, faces, lambda c: TOKEN_R)


GREY = (-3.4, -0.3, 0.2)     # a grey white against the plate
MIRROR = (5.1, 0.0, -0.7)    # the bare plate against a model leaning toward grey whites


def test_find_opposite_to_every_white_is_reported():
    got = opposed([(40, 40, GREY), (120, 40, GREY), (80, 100, MIRROR)],
                  [cand(40, 40, "outline"), cand(120, 40, "outline"), cand(80, 100)], [white()] * 3)
    assert len(got) == 1 and got[0] < -0.95


def test_whites_alike_are_not():
    assert opposed([(40, 40, GREY), (120, 40, GREY), (80, 100, GREY)],
                   [cand(40, 40, "outline"), cand(120, 40, "outline"), cand(80, 100)], [white()] * 3) == []


def test_one_white_the_same_way_keeps_it():
    got = opposed([(40, 40, GREY), (120, 40, MIRROR), (80, 100, MIRROR)],
                  [cand(40, 40, "outline"), cand(120, 40), cand(80, 100)], [white()] * 3)
    assert len(got) == 1  # only the grey outline face is opposite to both others


def test_a_blob_face_is_never_the_one_judged():
    got = opposed([(40, 40, MIRROR), (120, 40, GREY)], [cand(40, 40, "blob"), cand(120, 40)], [white()] * 2)
    assert len(got) == 1  # the faint one, against the blob; the blob itself is not reported
    assert opposed([(40, 40, MIRROR), (120, 40, GREY)], [cand(40, 40, "blob"), cand(120, 40, "blob")],
                   [white()] * 2) == []


def test_a_core_at_the_plate_has_no_direction():
    # 0.5 Lab from the plate at contrast 5 (share 0.1 < 0.3): left out, one white left, nothing to compare
    assert opposed([(40, 40, (0.5, 0.0, 0.0)), (120, 40, GREY)], [cand(40, 40), cand(120, 40, "outline")],
                   [white()] * 2) == []


@pytest.mark.parametrize("faces", [[white(), red()], [white()], [None, white()]])
def test_fewer_than_two_whites(faces):
    cands = [cand(40, 40), cand(120, 40)][:len(faces)]
    assert opposed([(40, 40, MIRROR), (120, 40, GREY)], cands, faces) == []


def test_leaning_overlap_1082806_abstains(monkeypatch):
    scene = render_scene(1082806, "overlap", size=(800, 600), conditions={"overlap_style": "leaning"})
    assert scene.label["verdict"] == "rearrange"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "opposite way" in got.reason, got.reason
    monkeypatch.setattr(reader, "WHITES_SAME_WAY", False)
    off = read_frame(scene.image)
    assert off.verdict == "outcome"  # the wrong outcome the rule stops


def test_a_find_near_the_plate_is_not_judged():
    # 2 Lab from the plate (under SUSPECT_MIN_CONTRAST, 3), though 0.4 of its contrast: the model's own error
    # (the two grey faces, judged, each have the other the same way)
    small = (2.0, 0.0, 0.0)
    assert opposed([(40, 40, small), (120, 40, GREY), (80, 100, GREY)],
                   [cand(40, 40), cand(120, 40, "outline"), cand(80, 100, "outline")], [white()] * 3) == []
    # at 3 Lab it is judged
    assert len(opposed([(40, 40, (3.0, 0.0, 0.0)), (120, 40, GREY), (80, 100, GREY)],
                       [cand(40, 40), cand(120, 40, "outline"), cand(80, 100, "outline")], [white()] * 3)) == 1
