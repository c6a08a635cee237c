"""vision.reader: a count below four on a plate at the sensor's ceiling is uncertain.

Where the well is at the ceiling a white face does not show: the outcome
test (``SATURATED_ROOM_MIN_RADII``) already stops four tokens there, since a
fifth could hide; a count below four is the same evidence the other way,
since the missing token may lie there.  Scene 1150018 (natural mix,
touching, 640x480, +1.28 stops, white porcelain): the whole well at 254-255,
the white face invisible, three reds counted and a reshake called on a round
whose four tokens all lay flat.

Checklist: real pixels (the scene; the clipped well measured, not assumed),
the rule shown to be what changes the verdict, a count below four on a plate
with room to spare keeps its reshake.
"""
from __future__ import annotations

import re

import numpy as np

from vision import reader
from vision.reader import read_frame
from vision.synth import render_scene

CEILING = re.compile(r"(\d) tokens found on a plate over-exposed: a region (\d+\.\d) token radii across is at the "
                     r"sensor's ceiling, where a white token would not show; lower the exposure "
                     r"\(reshake if one is missing\)")


def test_three_reds_on_a_clipped_well_wait_for_the_check(monkeypatch):
    scene = render_scene(1150018, None, size=(640, 480), conditions={"exposure_stops": 1.2819})
    assert scene.label["verdict"] == "outcome" and scene.label["red"] == 3
    white = next(t for t in scene.label["tokens"] if t["face"] == "white")
    # the white face is at the ceiling: nothing on it differs from the plate beside it
    x, y, rad = int(round(white["x"])), int(round(white["y"])), int(0.6 * white["radius"])
    face = scene.image[y - rad:y + rad, x - rad:x + rad].reshape(-1, 3)
    assert np.median(face, axis=0).min() >= 250
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    m = CEILING.match(got.reason)
    assert m is not None, got.reason
    assert m.group(1) == "3" and float(m.group(2)) >= 2 * reader.SATURATED_ROOM_MIN_RADII
    assert sorted(t.face for t in got.tokens) == ["red"] * 3
    monkeypatch.setattr(reader, "FEWER_ON_CEILING_UNCERTAIN", False)
    assert read_frame(scene.image).reason == "3 tokens on the plate, not 4"


def test_three_tokens_on_a_plate_with_room_stay_a_reshake():
    # the same count on a plate well below the ceiling: the rule does not touch it
    scene = render_scene(1135400, None, size=(1024, 768))
    assert scene.label["kind"] == "three_tokens"
    got = read_frame(scene.image)
    assert (got.verdict, got.reason) == ("reshake", "3 tokens on the plate, not 4")
