"""vision.clipped_red: a red washed out to the ceiling in its red channel is read red.

Over-exposure stops a red face's red channel at the sensor's ceiling while
its green and blue rise: its a* only falls, below the face rule's absolute
bound.  Such a face, 18 or more a* above the plate at a hue redder than
orange (where whites measured a* 2 or less), is red.  Checklist: painted
faces on both sides of each bound (the ceiling, the hue, the a*), the rule
switched off, argument checks, and real pixels (synthesized over-exposed
scenes whose washed reds were undecided).
"""
from __future__ import annotations

import math

import pytest

import vision.clipped_red as clipped_red
from vision.clipped_red import is_clipped_red
from vision.faces import RED_HUE_RANGE_DEG, WHITE_WARM_MIN_HUE_DEG, classify_face, core_levels
from vision.synth import render_scene

from painted_faces import painted_face
from scripts.synth_table import draw_conditions, parse_condition

HUES = (RED_HUE_RANGE_DEG[0], WHITE_WARM_MIN_HUE_DEG)


def face_of(face_bgr):
    view, r = painted_face(face_bgr)
    c = view.canvas_px / 2
    return classify_face(view, c, c, r)


@pytest.mark.parametrize("face_bgr", [
    (192, 196, 252),   # L* 84, a* 19, hue 27: an orange red washed out (fresh scene 2131192 measured this)
    (150, 180, 253),   # L* 79, a* 23, hue 49: a pinkish red under warm light, washed out
])
def test_washed_red_at_the_ceiling_is_red(face_bgr, monkeypatch):
    got = face_of(face_bgr)
    assert got.face == "red", got
    assert got.a_star < 24.0  # below the absolute red bound: this rule decided it
    monkeypatch.setattr(clipped_red, "CLIPPED_RED_RULE", False)
    assert face_of(face_bgr).face == "unknown"


@pytest.mark.parametrize("face_bgr", [
    (180, 186, 240),   # a* 18.5, hue 30, red level 240: below the ceiling, its a* is measured
    (120, 175, 254),   # a* 23, hue 60: at the ceiling, but as yellow as a warm white
    (120, 190, 254),   # a* 15, hue 71: a white under a warm lamp, red channel clipped
])
def test_other_faces_stay_undecided(face_bgr):
    assert face_of(face_bgr).face == "unknown"


def test_white_at_the_ceiling_stays_white():
    assert face_of((240, 250, 254)).face == "white"


def test_bounds():
    # a* 19 above the plate, chroma 21, hue 27, red at 252
    args = dict(delta_a=19.0, chroma=21.0, a_star=19.0, b_star=10.0, red_level=252.0,
                min_delta_a=18.0, min_chroma=14.0, hue_range_deg=HUES)
    ok, margin = is_clipped_red(**args)
    assert ok and margin == pytest.approx(1.0)
    assert not is_clipped_red(**{**args, "red_level": 247.0})[0]
    assert not is_clipped_red(**{**args, "delta_a": 17.5})[0]
    assert not is_clipped_red(**{**args, "chroma": 13.0})[0]
    assert not is_clipped_red(**{**args, "b_star": 19.0 * math.tan(math.radians(55.0))})[0]  # hue 55: open end
    assert not is_clipped_red(**{**args, "b_star": -30.0})[0]                                # hue -58: purple
    assert is_clipped_red(**{**args, "b_star": float("nan")}) == (False, -math.inf)


def test_switch_off(monkeypatch):
    monkeypatch.setattr(clipped_red, "CLIPPED_RED_RULE", False)
    assert is_clipped_red(19.0, 21.0, 19.0, 10.0, 252.0, 18.0, 14.0, HUES) == (False, -math.inf)


def test_bad_hue_range():
    with pytest.raises(ValueError, match="hue_range_deg"):
        is_clipped_red(19.0, 21.0, 19.0, 10.0, 252.0, 18.0, 14.0, (55.0, -35.0))


@pytest.mark.parametrize("seed", [2131192, 2131269])
def test_washed_reds_of_synthesized_scenes(seed, monkeypatch):
    """Fresh four flat tokens over-exposed by 0.5-1 stop at 640x480: every
    true red face at the ceiling in red is read red, every white stays white;
    with the rule off some of those reds are undecided."""
    specs = [parse_condition("exposure_stops=0.5:1")]
    scene = render_scene(seed, "outcome", size=(640, 480), conditions=draw_conditions(seed, specs))
    tokens = scene.label["tokens"]

    def readings():
        from vision import reader
        seen = {}
        original = reader.decide

        def spy(view, search, plate, *args, **kwargs):
            out = original(view, search, plate, *args, **kwargs)
            seen["view"], seen["out"], seen["r"] = view, out, search.token_radius_px
            return out

        monkeypatch.setattr(reader, "decide", spy)
        reader.read_frame(scene.image)
        monkeypatch.setattr(reader, "decide", original)
        view, (_, _, cands, faces, _), r = seen["view"], seen["out"], seen["r"]
        rows = []
        for c, f in zip(cands, faces):
            if f is None:
                continue
            sx, sy = view.to_source(c.x, c.y)
            true = min(tokens, key=lambda t: (t["x"] - sx) ** 2 + (t["y"] - sy) ** 2)["face"]
            level = core_levels(view, c.x, c.y, c.radius if c.kind == "disc" else r)[2]
            rows.append((true, f.face, level))
        return rows

    on = readings()
    assert len(on) == 4
    clipped_reds = [face for true, face, level in on if true == "red" and level >= 248]
    assert clipped_reds and all(face == "red" for face in clipped_reds), on
    assert all(face == "white" for true, face, _ in on if true == "white"), on
    monkeypatch.setattr(clipped_red, "CLIPPED_RED_RULE", False)
    off = readings()
    assert any(face == "unknown" for _, face, _ in off), off
