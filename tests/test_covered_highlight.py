"""A bowl's highlight taken for one face does not hide the bowl.

A lit dome shows a highlight about a face's size, which the token search can
find as a disc: a covered plate then read ``reshake`` ("1 tokens on the
plate") or ``uncertain``.  With the bowl's cues seen, up to
``COVERED_MAX_FLAT_FINDS`` flat find still reads ``covered``; four tokens
show two or more.

Checklist: known values of ``covered_verdict`` (no find, one, two, an
overlap, weak cues), real pixels (synthesized covered scenes 97106 and 97432
at 640x480 with the rule on and off).
"""
from __future__ import annotations

import pytest

from vision import reader
from vision.reader import COVERED_MIN_DOME_DELTA_E, covered_verdict, read_frame
from vision.synth import render_scene
from vision.tokens import Candidate, TokenSearch

STRONG = (3.0 * COVERED_MIN_DOME_DELTA_E, 0.0)
WEAK = (0.5 * COVERED_MIN_DOME_DELTA_E, 0.0)


def disc(x: float, kind: str = "disc") -> Candidate:
    return Candidate(x, 100.0, 14.0, kind, 615.0, 0.95, 0.97, 20.0)


def search_of(*cands: Candidate) -> TokenSearch:
    return TokenSearch(candidates=tuple(cands), token_radius_px=14.0, radius_source="discs")


@pytest.mark.parametrize("cands, evidence, covered", [
    ((), STRONG, True),
    ((disc(100.0),), STRONG, True),
    ((disc(100.0, "faint"), disc(60.0, "outline")), STRONG, True),   # an outline alone is weak evidence
    ((disc(100.0), disc(160.0)), STRONG, False),                     # two faces: tokens, not a highlight
    ((disc(100.0, "overlap"),), STRONG, False),
    ((disc(100.0),), WEAK, False),
    ((), WEAK, False),
])
def test_known_values(cands, evidence, covered):
    got = covered_verdict(None, search_of(*cands), evidence)
    assert (got is not None) == covered
    if covered:
        assert got[0] == "covered" and got[2] == [] and 0.5 <= got[4] <= 1.0


@pytest.mark.parametrize("seed", [97106, 97432])
def test_covered_scenes_with_a_highlight_read_covered(seed, monkeypatch):
    scene = render_scene(seed, size=(640, 480))
    assert scene.label["kind"] == "covered"
    got = read_frame(scene.image)
    assert got.verdict == "covered" and "one token-like find" in got.reason, got.reason
    monkeypatch.setattr(reader, "COVERED_MAX_FLAT_FINDS", 0)
    assert read_frame(scene.image).verdict != "covered"
