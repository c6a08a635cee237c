"""vision.outline_faces: an arc darker than a face counted by its outline beside it stays a suspect.

An uneven outline within ``SUSPECT_EXCLUSION_RADII`` of a counted face is
dropped as that face's own wall or shadow.  A face counted by its outline
alone explains only arcs no darker than its own circle
(``outline_faces.ARC_DARKER_THAN_OUTLINE_STAYS``): its circle runs through the
whole of its shadow side, so an arc seen from another centre cannot average
darker.  Fresh leaning overlap 814400 at 640x480: the white face under a
leaning white was missed, a phantom outline of 1.69 L counted in its place,
and the under face's edge, an arc of 2.43 L 1.64 radii from the phantom,
dropped beside it: four flat tokens read, a wrong outcome.

Checklist: real pixels (the wrong outcome stopped, and read again with the
rule off), the suspect being the darker arc, and the older phantom outlines
43149 and 43907 stopped by this rule alone.
"""
from __future__ import annotations

import math

import pytest

from vision import outline_faces, reader, tokens
from vision.reader import read_frame, search_tokens
from vision.canonical import make_canonical_view
from vision.plate import find_plate
from vision.synth import render_scene

from scene_truth import assert_wrong_outcome_without


def _scene():
    return render_scene(814400, "overlap", size=(640, 480), conditions={"overlap_style": "leaning"})


def test_darker_arc_beside_phantom_outline_stops_the_outcome(monkeypatch):
    scene = _scene()
    assert scene.label["verdict"] == "rearrange"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    assert "more disc-like evidence" in got.reason
    monkeypatch.setattr(outline_faces, "ARC_DARKER_THAN_OUTLINE_STAYS", False)
    assert_wrong_outcome_without(monkeypatch, scene)


def test_the_suspect_is_an_arc_darker_than_the_outline_beside_it():
    scene = _scene()
    view = make_canonical_view(scene.image, find_plate(scene.image).ellipse)
    _, search = search_tokens(view)
    r = search.token_radius_px
    outlines = [c for c in search.candidates if c.found_by == "outline"]
    assert len(search.candidates) == 4 and len(outlines) == 1
    (sx, sy, sc), = search.suspects
    o = outlines[0]
    assert math.hypot(sx - o.x, sy - o.y) < 2.0 * r
    assert sc > o.contrast


@pytest.mark.parametrize("seed", [43149, 43907])
def test_it_also_stops_the_wall_streak_outlines(seed, monkeypatch):
    # the older phantom outlines (the well's edge drawn into streaks, read as a
    # fourth pale face beside three tokens; tests/test_wall_outline.py), with
    # every rule that stops them off: this rule alone still does
    scene = render_scene(seed, size=(640, 480))
    monkeypatch.setattr(outline_faces, "WALL_OUTLINE_CONTRAST_FACTOR", 0.0)
    monkeypatch.setattr(tokens, "_suppressed_peaks", lambda *a, **k: [])
    monkeypatch.setattr(reader, "whites_alike_in_lightness", lambda readings: (True, 0.0))
    monkeypatch.setattr(reader, "whites_alike_in_yellowness", lambda readings: (True, 0.0))
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "more disc-like evidence" in got.reason, got.reason
    assert "outline" in got.details["candidates"]
    monkeypatch.setattr(outline_faces, "ARC_DARKER_THAN_OUTLINE_STAYS", False)
    assert read_frame(scene.image).verdict == "outcome"
