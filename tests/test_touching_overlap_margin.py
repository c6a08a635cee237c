"""A leaning overlap that looks, blob for blob, like two touching faces must stay ``rearrange``.

Twenty-ninth round (helper h4): of forced touching scenes 1950000-1950399 at
1024x768, 81 read ``rearrange``; 22 of them through one blob of the pair read
as an overlap.  Cut at half its contrast, such a blob is two round lobes of a
face each (the test of :func:`vision.touching_lobes.touching_lobes`) but the
lobes' centroids are only 1.70-1.92 token radii apart (touching pairs at a
camera tilt of 20-39 deg: the canonical view is affine, so a pair on the far
side of the plate measures short in the frame's token radius), under
``TOUCHING_MIN_DIST_RADII`` (1.85) and the reader's close-pair bound
(``OVERLAP_MAX_CENTRE_DIST_RADII``, 1.8).  Measured in the lobes' own
inscribed radius instead (the local scale), the touching pairs are
1.88-2.14 apart and 22 of 200 overlaps at 1024x768 at most 1.79; but fresh
leaning overlap 1954014 at 1280x720 (a red token leaning on a white one,
offset 1.74 radii, black lacquer, no blur) is one region of two round lobes,
1.83 frame radii and 1.97 lobe radii apart: no measure of the pair's
distance tells it from a touching pair.  With the touching-lobe floor, the
close-pair bound and the split-halves edge bound all lowered to 1.7 token
radii it reads ``outcome`` (3 red): a wrong outcome.  These tests pin that
the reader stops it, and that the close-pair bound stops it even where the
lobe floor is lowered.
"""
from __future__ import annotations

import pytest

import vision.touching_lobes as touching_lobes_module
from vision.reader import read_frame
from vision.synth import render_scene

#: The fresh leaning overlap whose pair measures like touching faces.
LEANING_SEED = 1954014
LEANING_SIZE = (1280, 720)


@pytest.fixture(scope="module")
def leaning_scene():
    scene = render_scene(LEANING_SEED, "overlap", size=LEANING_SIZE)
    assert scene.label["conditions"]["overlap_style"] == "leaning"
    assert scene.label["verdict"] == "rearrange"
    return scene


def test_leaning_overlap_between_the_bounds_reads_rearrange(leaning_scene):
    reading = read_frame(leaning_scene.image)
    assert reading.verdict == "rearrange", reading.reason
    assert reading.red is None


def test_close_pair_bound_stops_it_when_the_lobe_floor_is_lowered(leaning_scene, monkeypatch):
    # the lobes are split as two faces 1.83 radii apart; the reader's
    # close-pair bound (1.8 by centres or edges) is then what stops them
    monkeypatch.setattr(touching_lobes_module, "TOUCHING_MIN_DIST_RADII", 1.7)
    reading = read_frame(leaning_scene.image)
    assert reading.verdict != "outcome", reading.reason
    assert reading.verdict == "rearrange", reading.reason
