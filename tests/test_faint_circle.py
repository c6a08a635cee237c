"""A whole, even outline too faint for the outline rule, but clear of the
plate's noise: a suspect even when no outline counted.

Fresh scene 42635 (1280x720, five tokens) was read as an outcome of four red
faces: the fifth, a white face on over-exposed white porcelain, showed a
closed outline of 1.2 L (the rule wants 1.5) standing 17 noise units above
the plate; before, such a circle became a suspect only once another pale face
counted by its outline.  Fresh scene 43835 (640x480, five tokens, a white face
on defocused porcelain beside three reds and a counted outline face, 1.4 L,
just under half that face's contrast) is the same class.

Checklist: real pixels, with and without the rule, and a frame of pale faces
counted by their outlines that it leaves alone.
"""
from __future__ import annotations

import math

import pytest

from vision import outline_faces, reader
from vision.reader import read_frame
from vision.synth import render_scene


@pytest.mark.parametrize("seed, size", [(42635, (1280, 720)), (43835, (640, 480))])
def test_fifth_faint_face_stops_the_outcome(seed, size, monkeypatch):
    scene = render_scene(seed, size=size)
    assert scene.label["kind"] == "five_tokens"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    assert "more disc-like evidence" in got.reason
    # the rule is what stops it: without it, the wrong outcome of four
    monkeypatch.setattr(outline_faces, "FAINT_CIRCLE_MIN_Z_FACTOR", math.inf)
    # (both plates are also over-exposed, which stops them too: that rule off here)
    monkeypatch.setattr(reader, "SATURATED_ROOM_MIN_RADII", math.inf)
    assert read_frame(scene.image).verdict == "outcome"


def test_four_pale_faces_by_their_outlines_still_read():
    # tuning scene 1183: three of the four faces are counted by their outlines
    # alone (3.3-6.9 L) on white porcelain; the rule adds no suspect there
    scene = render_scene(1183, size=(1280, 720))
    got = read_frame(scene.image)
    assert got.verdict == "outcome", got.reason
    assert got.red == scene.label["red"]
    assert got.details["candidates"].count("outline") >= 2
