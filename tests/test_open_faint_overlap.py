"""A known wrong outcome, kept in view until a rule stops it (strict xfail: it fails the suite once fixed).

Fresh forced overlap 244792 (1280x720, white porcelain, camera tilted 30 deg):
a white token resting on another white.  The disc filter found both faces
faintly, each off its centre and away from the other (0.22 and 0.39 token
radii), 2.04 radii apart where their true centres are 1.77 apart; the faint
pair bound (``FAINT_PAIR_MIN_CENTRE_DIST_RADII``, 2.0) passed them as
touching faces and the frame was read as an outcome of 1 red.

What was measured and left for the next round: the two faces' half-value
region (the residual along their mean colour above half their value) joins
them with a waist of 1.88 token radii; right touching outcomes with a faint
face measured at most 1.45 at 1280x720 (46 pairs, 245000-245799) but up to
2.2 at 640x480 (7 of 48 pairs at 1.55 or more, 204500-205499), and raising
the distance bound to 2.05 would cost 24 of 308 right touching outcomes at
640x480.  No bound was set on one case.
"""
from __future__ import annotations

import pytest

from vision.reader import read_frame
from vision.synth import render_scene


@pytest.mark.xfail(strict=True, reason="open class: an overlap of two faint white faces found 2.04 radii apart "
                                       "is read as touching faces")
def test_faint_white_overlap_found_as_touching_is_not_an_outcome():
    scene = render_scene(244792, "overlap", size=(1280, 720))
    assert scene.label["verdict"] == "rearrange"
    got = read_frame(scene.image)
    assert got.verdict != "outcome", (got.verdict, got.red, got.reason)
