"""vision.tokens: disc evidence with contrast all round stops an outcome out to the wall's reach.

A face whose disc differs from the plate in all eight sectors is kept as a
suspect even when its region is not token-like (it leaks into the shading
round it).  That held only on the flat of the well (0.72 of the plate
radius, ``FAINT_SEARCH_RADIUS_FRAC``), though a token's centre lies out to
0.80 against the wall (``FAINT_ACCEPT_RADIUS_FRAC``), and there the wall's
shading joins its region all the more.  Scene 1050276 (natural mix,
640x480, five tokens on black lacquer, small at 9 px radius): the fifth,
a dark red 0.722 of the plate radius out, contrast 18.9 in all eight
sectors, its region 1.76 face areas at axis ratio 0.39 with the wall's
shading; it was neither counted nor kept as a suspect, and the other four
were read as an outcome.

Checklist: real pixels (the scene, the bound shown to be what stops it),
the reason names the evidence.
"""
from __future__ import annotations

import re

from vision import tokens
from vision.reader import read_frame
from vision.synth import render_scene

FIFTH = re.compile(r"four tokens found but more disc-like evidence on the plate \(contrast (\d+\.\d) Lab units\)")


def test_fifth_face_by_the_wall_stops_an_outcome(monkeypatch):
    scene = render_scene(1050276, None, size=(640, 480))
    assert scene.label["kind"] == "five_tokens" and scene.label["verdict"] == "reshake"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    m = FIFTH.match(got.reason)
    assert m is not None, got.reason
    assert float(m.group(1)) >= tokens.ROUND_SUSPECT_MIN_CONTRAST
    # the four read are four of the five true tokens
    truth = scene.label["tokens"]
    assert len(got.tokens) == 4
    for tok in got.tokens:
        assert min((t["x"] - tok.x) ** 2 + (t["y"] - tok.y) ** 2 for t in truth) < 4.0 ** 2
    # the bound is what stops it: at the well's flat only, four tokens read as an outcome
    monkeypatch.setattr(tokens, "ROUND_SUSPECT_MAX_RADIUS_FRAC", tokens.FAINT_SEARCH_RADIUS_FRAC)
    off = read_frame(scene.image)
    assert off.verdict == "outcome", off.reason

