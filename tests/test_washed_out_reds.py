"""Known gap: red faces washed out past the sensor's ceiling are read white.

Forced four flat tokens on black lacquer under warm light (2700-3100 K) at
+2.6 to +3.6 stops, beyond the synthesizer's drawn +-1 stop (the conditions
set, the labels from how each scene was made): the reds' red and green
channels clip, they read as warm, yellow or neutral whites, and the plate,
dark, is not at the ceiling, so the over-exposure rule does not see it.
3 of 200 such scenes (scripts/synth_table.py --condition) were read as
outcomes with their reds counted white.  A guard that abstains on whites at
the ceiling in red and green unless a face read red shows the light cost
7-26 right outcomes per four-flat set inside the drawn range (README,
thirteenth round), so it was not kept; these tests fail until the gap is
closed (strict: a pass is reported, so the marker comes off then).
"""
from __future__ import annotations

import pytest

from vision.reader import read_frame
from vision.synth import render_scene

WASHED_OUT = [
    (430108, {"glaze": "black_lacquer", "kelvin": 2868.429047886647, "exposure_stops": 2.587033530941472}),
    (430123, {"glaze": "black_lacquer", "kelvin": 2730.005311600122, "exposure_stops": 3.6108002910287325}),
    (430124, {"glaze": "black_lacquer", "kelvin": 3048.7667751015583, "exposure_stops": 2.8700719206650973}),
]


@pytest.mark.xfail(strict=True, reason="known gap: reds washed out past the sensor's ceiling read white")
@pytest.mark.parametrize("seed, conditions", WASHED_OUT)
def test_reds_washed_out_past_the_ceiling_are_no_wrong_outcome(seed, conditions):
    scene = render_scene(seed, "outcome", size=(1280, 720), conditions=conditions)
    assert scene.label["red"] >= 1
    got = read_frame(scene.image)
    assert not (got.verdict == "outcome" and got.red != scene.label["red"]), (got.red, scene.label["red"])
