"""A red under the lamp's reflection is no decisive white beside darker reds.

Fresh scene 1642383 (640x480, forced outcome on black lacquer, 3014 K, +0.79
stops, four orange reds): the red nearest the top wall lies in the lamp's
reflection on the glossy faces, which adds the light's own colour on top of
the pigment's: its core measured BGR 125, 192, 255 (a* 15, b* 42, L* 82: a
warm white's colour, read white on the smooth plate view and on the ring
view alike).  The smooth plate model (``reader.SMOOTH_PLATE_MODEL``) found it
where the ring search had not, and the reader said 3 red.  The washed-out
rule (:func:`vision.reader.washed_out_whites`) let it pass: the darkest red's
green (112, linear 0.16) was under half its green (linear 0.54), though the
reds themselves (greens 112, 113, 158) were already 2.1-fold apart, more than
the rule's bound between two faces' light.  Against the most lit red
(``reader.WASHED_WHITE_AGAINST_MOST_LIT_RED``: green 158, linear 0.35, a
ratio of 1.5) it is in doubt and the frame abstains.

Checklist: real pixels, the scene abstains with the washed-out reason and
reads the wrong outcome (3 red) with the switch off, so the test can fail;
the measured levels behind it.
"""
from __future__ import annotations

import pytest

from vision import reader
from vision.canonical import make_canonical_view
from vision.exposure import linear_light
from vision.faces import core_levels
from vision.reader import read_frame
from vision.synth import render_scene

SEED = 1642383
CONDITIONS = {"glaze": "black_lacquer"}


@pytest.fixture(scope="module")
def scene():
    return render_scene(SEED, "outcome", size=(640, 480), conditions=CONDITIONS)


def test_the_label_is_four_red(scene):
    assert scene.label["red"] == 4


def test_abstains_with_the_most_lit_red(scene):
    assert reader.WASHED_WHITE_AGAINST_MOST_LIT_RED is True
    assert reader.SMOOTH_PLATE_MODEL is True
    got = read_frame(scene.image)
    assert got.verdict == "uncertain"
    assert "at the sensor's ceiling in red" in got.reason


def test_reads_the_wrong_outcome_with_the_switch_off(scene, monkeypatch):
    monkeypatch.setattr(reader, "WASHED_WHITE_AGAINST_MOST_LIT_RED", False)
    got = read_frame(scene.image)
    assert got.verdict == "outcome" and got.red == 3


def test_the_reds_greens_behind_it(scene):
    # the four flat faces found on the smooth view, their cores' median levels
    plate = reader.find_plate(scene.image)
    view = make_canonical_view(scene.image, plate.ellipse, plate.halved)
    searched, search = reader.search_tokens(view)
    flat = [c for c in search.candidates if c.kind in reader.FLAT_KINDS]
    assert len(flat) == 4
    r = search.token_radius_px
    levels = sorted((core_levels(searched, c.x, c.y, c.radius if c.kind == "disc" else r) for c in flat),
                    key=lambda bgr: bgr[1])
    *reds, pale = levels
    assert pale[2] >= reader.WHITE_CEILING_RED_LEVEL  # the pale one clips in red
    assert [round(float(b[1])) for b in levels] == pytest.approx([112, 113, 158, 192], abs=3)
    ratio_darkest = linear_light(pale[1]) / linear_light(reds[0][1])
    ratio_most_lit = linear_light(pale[1]) / linear_light(reds[-1][1])
    assert ratio_darkest > reader.RED_LIGHT_MIN_RATIO > ratio_most_lit
