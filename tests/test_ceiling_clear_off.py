"""The over-exposure abstention is not cleared by found whites' outlines (the rule is off).

Two fresh five-token scenes each hid a white token in a clipped well whose
outline was under the clearing share of the found white's, so the rule
cleared the region and the reader paid an outcome on five tokens.  With the
rule off (the default since the twenty-ninth round) both abstain on the
over-exposure; switched back on they read the wrong outcome, which is what
makes these tests able to fail.

Checklist: real pixels (synthesized scenes by seed, conditions as drawn); the
label from how the scene was made; the default reading; the rule shown to be
what changes it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vision import exposure_outline
from vision.reader import read_frame
from vision.synth import render_scene

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from synth_table import draw_conditions  # noqa: E402

OVER_EXPOSED = "the plate is over-exposed: a region "


def test_the_rule_is_off_by_default():
    assert exposure_outline.CEILING_OUTLINE_CLEAR is False


@pytest.mark.parametrize("seed", [1909166, 1983025])
def test_a_white_hidden_in_a_clipped_well_stops_the_outcome(monkeypatch, seed):
    # 1909166: white porcelain, +0.91 stop, 640x480; 1983025: white porcelain, +0.64 stop
    scene = render_scene(seed, "five_tokens", size=(640, 480), conditions=draw_conditions(seed, []))
    assert scene.label["verdict"] == "reshake"
    assert sum(t["face"] == "white" for t in scene.label["tokens"]) == 2
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(OVER_EXPOSED), got.reason
    assert len(got.tokens) == 4  # the fifth, a white in the clipped well, is not found
    monkeypatch.setattr(exposure_outline, "CEILING_OUTLINE_CLEAR", True)
    wrong = read_frame(scene.image)
    assert (wrong.verdict, wrong.red) == ("outcome", 3)  # what the rule on paid


def test_four_flat_on_a_clipped_well_abstain_without_the_rule(monkeypatch):
    # the cost: 1454239 (four flat, white porcelain, +0.61 stop) read 3 red with the rule on
    scene = render_scene(1454239, "outcome", size=(640, 480), conditions={"exposure_stops": 0.6086837508736922})
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(OVER_EXPOSED), got.reason
    monkeypatch.setattr(exposure_outline, "CEILING_OUTLINE_CLEAR", True)
    assert (read_frame(scene.image).verdict, read_frame(scene.image).red) == ("outcome", 3)
