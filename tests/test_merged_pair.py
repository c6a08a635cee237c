"""Two tokens, one mostly on the other, read as one drawn-out face: a rearrange, not a reshake.

Clips 1300124 and 1300128 ``overlap_rearrange`` (640x360, 25 fps): after the
reveal the upper token lies 0.7-1.0 token radii off the lower one, whose
visible crescent merges with the upper face into one blob 1.15-1.18 face
areas large with axis ratio 0.72-0.79 (the other faces 0.91-0.93).  It was
kept as one flat face, the frame counted three tokens and the monitor ended
the round with ``reshake: 3 tokens on the plate, not 4`` where the dealer was
to rearrange.  ``vision.merged_pair`` takes such a face for two tokens when
the count is one short for it.

Checklist: the real frames (the clip's label says the overlap is on the
plate), the rule off (the reshake it stops), the merged face's colour not
reported (the upper face's: the rearrange's face check must not compare it
with the lower token), the whole round through the monitor, and the frames
after the rearrange still an outcome of the label's red count.
"""
from __future__ import annotations

import pytest

from vision import merged_pair
from vision.reader import read_frame
from vision.synth_clip import render_clip

from monitor_clips import final_events, run_clip

SIZE = (640, 360)
FPS = 25
#: (seed, a frame after the reveal, before the rearrange) of the clips that read a reshake.
MERGED = [(1300124, 103), (1300128, 104)]


@pytest.fixture(scope="module")
def clips():
    return {seed: render_clip(seed, "overlap_rearrange", fps=FPS, size=SIZE) for seed, _ in MERGED}


def _overlap_on_plate(clip, i: int) -> None:
    """The label says frame ``i`` shows the reveal with its overlap: revealed, before any rearrange."""
    phases = [fl["phase"] for fl in clip.frame_labels]
    assert phases[i] == "revealed"
    assert "rearrange" not in phases[:i] and "rearrange" in phases[i:]
    assert clip.label["rounds"][-1]["reveal_verdict"] == "rearrange"


@pytest.mark.parametrize("seed, i", MERGED)
def test_merged_pair_reads_rearrange(clips, seed, i):
    clip = clips[seed]
    _overlap_on_plate(clip, i)
    r = read_frame(clip.frames[i])
    assert r.verdict == "rearrange", r.reason
    assert "drawn out" in r.reason
    # three places: the merged pair's colour is not reported (it is only the upper face's)
    assert len(r.tokens) == 3
    assert sum(t.face == "unknown" for t in r.tokens) == 1


@pytest.mark.parametrize("seed, i", MERGED)
def test_rule_off_reads_the_reshake(clips, seed, i, monkeypatch):
    monkeypatch.setattr(merged_pair, "MERGED_PAIR_REARRANGE", False)
    r = read_frame(clips[seed].frames[i])
    assert r.verdict == "reshake", r.reason
    assert "3 tokens" in r.reason


@pytest.mark.parametrize("seed", [s for s, _ in MERGED])
def test_round_is_rearranged_then_read(seed):
    clip, events, _ = run_clip(seed, "overlap_rearrange", fps=FPS, size=SIZE)
    kinds = [e["event"] for e in events]
    assert "reshake" not in kinds
    assert "rearrange" in kinds
    final = final_events(events)
    assert [e["event"] for e in final] == ["outcome"]
    assert final[0]["red"] == clip.label["rounds"][-1]["red"]
