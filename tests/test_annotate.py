"""vision.annotate: drawing a reading never touches the input, and draws where the reading says."""
from __future__ import annotations

import numpy as np
import pytest

from vision import annotate
from vision.annotate import draw_reading, thumbnail


def _frame(seed: int = 0, size=(360, 640)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.full((*size, 3), (40, 110, 50), np.uint8)  # cloth-green, with noise
    return base + rng.integers(0, 8, base.shape, dtype=np.uint8)


OUTCOME = {
    "verdict": "outcome", "red": 3, "white": 1, "reason": "four flat tokens, every face decisive",
    "confidence": 0.97,
    "tokens": [{"x": 280.0, "y": 200.0, "radius": 14.0, "face": "red", "p_red": 0.99},
               {"x": 330.0, "y": 190.0, "radius": 14.0, "face": "red", "p_red": 0.98},
               {"x": 300.0, "y": 240.0, "radius": 14.0, "face": "white", "p_red": 0.02},
               {"x": 360.0, "y": 235.0, "radius": 14.0, "face": "red", "p_red": 0.97}],
    "plate": {"cx": 320.0, "cy": 215.0, "a": 120.0, "b": 90.0, "angle_deg": 10.0},
}


def test_input_is_never_modified_and_a_new_image_is_returned():
    frame = _frame()
    before = frame.copy()
    out = draw_reading(frame, OUTCOME)
    assert np.array_equal(frame, before)
    assert out is not frame and out.shape == frame.shape and out.dtype == np.uint8
    assert not np.shares_memory(out, frame)


def test_plate_and_tokens_are_drawn_where_the_reading_says():
    frame = _frame()
    out = draw_reading(frame, OUTCOME)
    diff = np.abs(out.astype(int) - frame.astype(int)).sum(axis=2) > 30
    # on the plate ellipse's rightmost point (angle 10 deg), and on a token outline
    px = int(round(320 + 120 * np.cos(np.radians(10))))
    py = int(round(215 + 120 * np.sin(np.radians(10))))
    assert diff[py - 3:py + 4, px - 3:px + 4].any()
    assert diff[200, 280 + 14 - 2:280 + 14 + 3].any()
    # a red token's outline is drawn in the red face colour
    ring = out[200, 280 + 13:280 + 16].astype(int)
    assert any(tuple(p) == annotate.FACE_COLOURS_BGR["red"] or (p[2] > 200 and p[0] < 90) for p in ring)
    # far from everything (bottom-left corner, below the banner) nothing changed
    assert not diff[300:, :150].any()


def test_error_reading_draws_only_the_banner():
    frame = _frame(1)
    out = draw_reading(frame, {"verdict": "error", "reason": "x.jpg: truncated JPEG", "red": None,
                               "white": None, "confidence": 0.0, "tokens": [], "plate": None})
    diff = np.abs(out.astype(int) - frame.astype(int)).sum(axis=2) > 0
    rows = np.nonzero(diff.any(axis=1))[0]
    assert rows.size and rows.max() < frame.shape[0] // 3


def test_label_line_and_long_or_non_ascii_reasons():
    frame = _frame(2)
    reading = dict(OUTCOME, reason="\u00e9" * 10 + " word" * 200)
    a = draw_reading(frame, reading)
    b = draw_reading(frame, reading, {"kind": "outcome", "verdict": "outcome", "red": 2})
    assert not np.array_equal(a, b)  # the expected line is drawn
    text, bucket = annotate.expected_line(reading, {"kind": "outcome", "verdict": "outcome", "red": 2})
    assert bucket == "wrong_outcome" and text.endswith("WRONG OUTCOME")
    assert annotate.expected_line(reading, {"kind": "touching", "verdict": "outcome", "red": 3})[1] == "right"


@pytest.mark.parametrize("verdict, label, bucket, word", [
    ("uncertain", {"verdict": "outcome", "red": 0, "kind": "tilted"}, "abstained", "ABSTAINED"),
    ("rearrange", {"verdict": "reshake", "kind": "upright"}, "other_wrong", "OTHER VERDICT"),
    ("error", {"verdict": "outcome", "red": 1}, "errors", "ERROR"),
    ("reshake", {"verdict": "reshake", "kind": "upright"}, "right", "OK"),
])
def test_the_expected_line_names_the_replay_bucket(verdict, label, bucket, word, monkeypatch):
    """An abstention is not called wrong: the line names the bucket the replay
    table counts the frame in, and is amber, not red, for all but a wrong
    outcome."""
    reading = dict(OUTCOME, verdict=verdict, red=None, white=None)
    text, got = annotate.expected_line(reading, label)
    assert (got, text.rsplit("  ", 1)[1]) == (bucket, word)
    frame = _frame(4)
    before = draw_reading(frame, reading, label)
    monkeypatch.setattr(annotate, "ABSTAIN_COLOUR_BGR", (255, 0, 255))
    after = draw_reading(frame, reading, label)
    # only an amber line is drawn in the abstain colour
    assert (not np.array_equal(before, after)) == (bucket != "right")


def test_expected_line_needs_a_verdict():
    with pytest.raises(ValueError, match="label"):
        annotate.expected_line(dict(OUTCOME), {"kind": "outcome"})


@pytest.mark.parametrize("bucket, colour", [
    ("right", annotate.MATCH_COLOUR_BGR), ("wrong_outcome", annotate.MISMATCH_COLOUR_BGR),
    ("abstained", annotate.ABSTAIN_COLOUR_BGR), ("other_wrong", annotate.ABSTAIN_COLOUR_BGR),
    ("errors", annotate.ABSTAIN_COLOUR_BGR),
])
def test_expected_colour_known_values(bucket, colour):
    assert annotate.expected_colour(bucket) == colour


def test_expected_colour_bad_bucket():
    with pytest.raises(ValueError, match="bucket"):
        annotate.expected_colour("wrong")


@pytest.mark.parametrize("size", [(48, 64), (2160, 3840)])
def test_tiny_and_large_frames(size):
    frame = _frame(3, size)
    out = draw_reading(frame, dict(OUTCOME, tokens=[], plate=None))
    assert out.shape == frame.shape


def test_bad_frame_is_refused():
    with pytest.raises(ValueError, match="frame"):
        draw_reading(np.zeros((10, 10), np.float32), OUTCOME)


def test_thumbnail_width_and_no_upscale():
    big = _frame(4, (720, 1280))
    t = thumbnail(big)
    assert t.shape[1] == annotate.THUMB_WIDTH_PX and abs(t.shape[0] - 720 * annotate.THUMB_WIDTH_PX / 1280) <= 1
    small = _frame(5, (100, 200))
    assert thumbnail(small).shape == small.shape
