"""vision.reader.decide: a faint white face much darker than the plate and colourless stops an outcome.

The shadow of a token on edge falls beside it as a round patch about a
face's size; where the token's bar is weak (under the upright contrast
floor, or merged into one blob with its shadow) the disc filter or the
outline search found the shadow and read it as the frame's white face: fresh
scenes 193949 (natural mix, 1280x720), 202861 (forced upright, 640x480) and
206238 (natural mix, 640x480) were each read as an outcome.  A face read
white but found only faintly (not a clear blob), at least
``FAINT_WHITE_MAX_DARK_L`` darker than the plate and darker by more than its
chroma, makes the reading ``uncertain``.  True white faces found faintly
were that dark once in 1,442 (a grey white on white porcelain).

Checklist: real pixels (the three scenes, each shown to be stopped by this
rule), and the rule's reach (a clear blob is not judged by it).
"""
from __future__ import annotations

import math

import pytest

from vision import reader
from vision.reader import read_frame
from vision.synth import render_scene


@pytest.mark.parametrize("seed, kind, size", [(193949, None, (1280, 720)), (202861, "upright", (640, 480)),
                                             (206238, None, (640, 480))])
def test_shadow_of_a_token_on_edge_is_not_read_as_a_white_face(seed, kind, size, monkeypatch):
    scene = render_scene(seed, kind, size=size)
    assert scene.label["kind"] == "upright"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "faint white face" in got.reason, got.reason
    whites = [t for t in got.tokens if t.face == "white"]
    assert len(whites) == 1
    # the white face found is the shadow, within about a token of the token on edge
    upright = next(t for t in scene.label["tokens"] if t["state"] == "upright")
    assert math.hypot(whites[0].x - upright["x"], whites[0].y - upright["y"]) < 1.5 * upright["radius"]
    # the rule is what stops it: without it, the wrong outcome
    monkeypatch.setattr(reader, "FAINT_WHITE_MAX_DARK_L", math.inf)
    assert read_frame(scene.image).verdict == "outcome"


def test_the_rule_looks_only_at_faint_finds(monkeypatch):
    """With the bound so low that a white face of any lightness darker than
    its own chroma would stop the frame, a frame whose faces are all clear
    blobs (150007: a white among three reds) still reads its outcome."""
    monkeypatch.setattr(reader, "FAINT_WHITE_MAX_DARK_L", -100.0)
    clear = render_scene(150007, "outcome", size=(640, 480))
    got = read_frame(clear.image)
    assert got.details["candidates"] == ["disc"] * 4
    assert (got.verdict, got.red) == ("outcome", clear.label["red"]), got.reason
