"""vision.white_below_red: a face read white is no darker than the red faces.

A white token reflects more than a red one in every channel and every flat
face gets the table's one light, so a face read white far darker than the
darkest red face (as measured and relative to the plate) is no white token.
Scene 1868016 (three red tokens on a black lacquer plate over-exposed by a
stop) was read as an outcome with a fourth, white face: the lacquer's lit
sheen at the foot of the well, found by the faint-disc filter.

Checklist: known values (painted face readings: a white below the reds, a
white above them, one colour only, the switch off) and real pixels (scene
1868016 is not read as an outcome; a drawn scene whose true white lies
nearest the bound still reads its outcome).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import vision.white_below_red as white_below_red
from vision.faces import FaceReading
from vision.reader import read_frame
from vision.synth import render_scene
from vision.white_below_red import WHITE_BELOW_RED_MAX_L, white_below_red as gap_of, whites_below_reds

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import synth_table  # noqa: E402

#: Conditions of the sweep that found scene 1868016.
BLACK_WARM = [("glaze", "black_lacquer"), ("kelvin", (2000.0, 3800.0))]


def face(colour: str, l_star: float, delta_l: float) -> FaceReading:
    """A face reading of ``colour`` with only its lightness set (L*, and L* minus the plate's)."""
    return FaceReading(face=colour, p_red=0.99 if colour == "red" else 0.01, delta_a=0.0, delta_l=delta_l,
                       chroma=0.0, margin=10.0, l_star=l_star)


def test_white_darker_than_reds_both_ways_abstains():
    # the values measured on scene 1868016: reds L* 65-74, the sheen's 46
    faces = [face("red", 71.8, 47.6), face("red", 74.1, 50.8), face("red", 65.1, 51.6), face("white", 45.9, 19.4)]
    ok, gap = whites_below_reds(faces)
    assert not ok
    assert gap == pytest.approx(65.1 - 45.9)  # the smaller of 19.2 (as measured) and 28.2 (relative)


def test_white_lighter_than_reds_reads():
    faces = [face("red", 60.0, 30.0), face("white", 85.0, 55.0), None]
    ok, gap = whites_below_reds(faces)
    assert ok and gap == pytest.approx(-25.0)


def test_darker_one_way_only_reads():
    # darker than the red as measured but not relative to the plate (a dimmer part of the plate)
    ok, gap = whites_below_reds([face("red", 70.0, 20.0), face("white", 60.0, 40.0)])
    assert ok and gap == pytest.approx(-20.0)


def test_one_colour_only_has_no_gap():
    assert gap_of([face("white", 40.0, 10.0), face("white", 90.0, 60.0)]) == -math.inf
    assert gap_of([face("red", 40.0, 10.0)]) == -math.inf
    assert whites_below_reds([])[0]


def test_switch_off(monkeypatch):
    monkeypatch.setattr(white_below_red, "WHITE_BELOW_RED_UNCERTAIN", False)
    ok, gap = whites_below_reds([face("red", 70.0, 50.0), face("white", 40.0, 10.0)])
    assert ok and gap > WHITE_BELOW_RED_MAX_L


def test_lacquer_sheen_is_not_a_white_face():
    sc = render_scene(1868016, "three_tokens", size=(1024, 768),
                      conditions=synth_table.draw_conditions(1868016, BLACK_WARM))
    r = read_frame(sc.image)
    assert r.verdict != "outcome", r.reason
    assert "darker than every red face" in r.reason


def test_sheen_read_as_outcome_without_the_rule(monkeypatch):
    # the rule is what stops it (the detector still finds the sheen)
    monkeypatch.setattr(white_below_red, "WHITE_BELOW_RED_UNCERTAIN", False)
    sc = render_scene(1868016, "three_tokens", size=(1024, 768),
                      conditions=synth_table.draw_conditions(1868016, BLACK_WARM))
    r = read_frame(sc.image)
    assert r.verdict == "outcome" and r.red == 3


def test_drawn_white_nearest_the_bound_reads():
    # natural mix, 640x480: of 46 frames with both colours at the rule (1880000-1880399) this
    # one's true white lay nearest the darkest red, 18.2 L lighter; it still reads its outcome
    sc = render_scene(1880016, None, size=(640, 480), conditions=synth_table.draw_conditions(1880016, []))
    r = read_frame(sc.image)
    assert sc.label["verdict"] == "outcome"
    assert r.verdict == "outcome" and r.red == sc.label["red"], r.reason
    assert 0 < r.red < 4
