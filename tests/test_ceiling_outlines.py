"""vision.exposure_outline: a clipped well cleared only when found whites' outlines vouch for it.

A white token on a plate at the sensor's ceiling does not show by colour but
does by its edge (side wall, shadow).  When the white faces found at the
ceiling show their outline clearly, the clipped region is searched for such
an outline; the over-exposure abstention is lifted only when none there
reaches a fifth of the faintest found white's.

Checklist: real pixels (synthesized scenes, seeds and conditions given); the
rule shown to be what changes the verdict (switch off, or its share loosened);
a hidden fifth white token in the clipped region still stops the outcome; a
reference white too faint keeps the abstention.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision import exposure_outline
from vision.reader import read_frame
from vision.synth import render_scene

OVER_EXPOSED = "the plate is over-exposed: a region "


@pytest.fixture(autouse=True)
def _rule_on(monkeypatch):
    """These tests measure the rule itself, which is off by default since the
    twenty-ninth round (see exposure_outline.CEILING_OUTLINE_CLEAR and
    tests/test_ceiling_clear_off.py): switched on here, as it was measured."""
    monkeypatch.setattr(exposure_outline, "CEILING_OUTLINE_CLEAR", True)


def _evidence(monkeypatch) -> list:
    """Record every call of ceiling_outline_evidence (reference, strongest, n)."""
    seen = []
    orig = exposure_outline.ceiling_outline_evidence

    def spy(*args, **kwargs):
        out = orig(*args, **kwargs)
        seen.append(out)
        return out
    monkeypatch.setattr(exposure_outline, "ceiling_outline_evidence", spy)
    return seen


def test_four_flat_tokens_on_a_clipped_well_read_when_the_whites_outline_shows(monkeypatch):
    # 1454239: four flat, white porcelain, +0.61 stops, 640x480: 3 red and 1 white,
    # the white face lying in the clipped well with its outline 16 L dark on its shadow side
    scene = render_scene(1454239, "outcome", size=(640, 480), conditions={"exposure_stops": 0.6086837508736922})
    assert (scene.label["verdict"], scene.label["red"]) == ("outcome", 3)
    seen = _evidence(monkeypatch)
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", 3), got.reason
    reference, strongest, n_refs = seen[-1]
    assert n_refs >= 1 and reference >= exposure_outline.CEILING_REF_MIN_CONTRAST_L
    assert strongest < exposure_outline.CEILING_CLEAR_MAX_SHARE * reference
    monkeypatch.setattr(exposure_outline, "CEILING_OUTLINE_CLEAR", False)
    assert read_frame(scene.image).reason.startswith(OVER_EXPOSED)


def test_a_hidden_fifth_white_at_the_ceiling_still_stops_the_outcome(monkeypatch):
    # 1453311: five tokens, white porcelain, +0.69 stops, 640x480: the reader finds
    # three reds and one white (its outline 4.6 L on its shadow side); the fifth, a
    # white face in the clipped well, is not found, and its own outline (2.2 L) is
    # the strongest circle there: 0.48 of the reference, over the rule's share
    conditions = {"exposure_stops": 0.694337092337399, "glaze": "white_porcelain", "fifth_place": "free"}
    scene = render_scene(1453311, "five_tokens", size=(640, 480), conditions=conditions)
    assert scene.label["verdict"] == "reshake"
    assert sum(t["face"] == "white" for t in scene.label["tokens"]) == 2
    seen = _evidence(monkeypatch)
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(OVER_EXPOSED), got.reason
    assert sorted(t.face for t in got.tokens) == ["red", "red", "red", "white"]
    reference, strongest, n_refs = seen[-1]
    # the rule was in play (a found white at the ceiling, clearly outlined) ...
    assert n_refs == 1 and reference >= exposure_outline.CEILING_REF_MIN_CONTRAST_L
    # ... and the hidden white's outline is what keeps the abstention
    assert strongest >= exposure_outline.CEILING_CLEAR_MAX_SHARE * reference
    monkeypatch.setattr(exposure_outline, "CEILING_CLEAR_MAX_SHARE", 0.5)
    wrong = read_frame(scene.image)
    assert (wrong.verdict, wrong.red) == ("outcome", 3)  # what a looser share would have paid


def test_a_faint_reference_white_keeps_the_abstention(monkeypatch):
    # 1454203: four flat, white porcelain, +0.91 stops: two whites at the ceiling,
    # the fainter's outline under CEILING_REF_MIN_CONTRAST_L: nothing is cleared
    scene = render_scene(1454203, "outcome", size=(640, 480), conditions={"exposure_stops": 0.9065452015299829})
    seen = _evidence(monkeypatch)
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(OVER_EXPOSED), got.reason
    reference, strongest, n_refs = seen[-1]
    assert n_refs >= 1 and 0 < reference < exposure_outline.CEILING_REF_MIN_CONTRAST_L


def test_clipped_mask_and_inputs():
    bgr = np.full((40, 40, 3), 200, np.uint8)
    bgr[10:30, 10:30, 1:] = 255
    mask = exposure_outline.clipped_mask(bgr)
    assert mask[20, 20] and not mask[2, 2]
    with pytest.raises(ValueError):
        exposure_outline.clipped_mask(bgr.astype(np.float32))
    radius = np.zeros((40, 40), np.float32)
    with pytest.raises(ValueError):
        exposure_outline.ceiling_outline_evidence(np.zeros((40, 40), np.float32), bgr, radius, 0.0, [], [], 5.0)
    with pytest.raises(ValueError):
        exposure_outline.ceiling_outline_evidence(np.zeros((40, 40), np.float32), bgr, radius, 20.0, [], [], 1.0)
