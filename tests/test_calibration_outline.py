"""Calibration of the outline rule: pale faces on a pale plate.

* the ranking that completes a calibration frame from its outline peaks, and
  its refusal when the fourth token is not clearly stronger than the fifth mark;
* the studio outline rule learnt from the white faces, kept above the plate's
  own outline marks, with the default kept when the plate is as strong;
* end to end on a synthesized white-porcelain studio: the profile learns an
  outline rule (its outlines are clear, so the rule need not loosen) and reads other frames of the same studio (labels from the
  scenes) with no wrong outcome and no fewer right than the default;
* a frame whose pale faces the default search misses is completed from the
  ranked outlines (the default search is made blind to outlines for this);
* validation of the profile's new ``outline_rule`` field, and version 1 files.
"""
from __future__ import annotations

import json
from functools import lru_cache

import pytest

import vision.reader as reader_mod
from calibration.calibrate import (OUTLINE_FLOOR, PICK_SEPARATION, calibrate_frames, learn_outline_rule,
                                   measure_frame, rank_outlines, sha256_of)
from calibration.profile import VERSION, load_profile, profile_from_dict
from test_calibration_profile import make_profile, write
from vision.errors import ProfileError
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import DEFAULT_OUTLINE_RULE, Candidate, OutlineRule

SIZE = (1280, 720)
#: White porcelain plate, white tokens with white bodies (no dark side wall), soft light: the white faces
#: show mostly as a thin outline.
PALE = dict(tilt_deg=15.0, yaw_deg=30.0, distance_R=6.0, plate_frac=0.6, offset_x_frac=0.0, offset_y_frac=0.0,
            kelvin=5000.0, exposure_stops=0.0, noise_sigma=4.0, blur="defocus", jpeg_quality=70,
            glaze="white_porcelain", cloth="green", cloth_texture="felt", token_radius_frac=0.12,
            red_style="classic", white_style="warm", token_body="white", light_x_R=1.0, light_y_R=-1.0,
            light_height_R=6.0, ambient=0.7, vignette=0.1, shadow_strength=0.1)
CAL_SEEDS = (0, 1, 2)
READ_SEEDS = tuple(range(3, 11))


@lru_cache(maxsize=None)
def scene(seed: int, kind: str = "outcome"):
    return render_scene(seed, kind, size=SIZE, conditions=PALE)


def named(seed: int, kind: str = "outcome"):
    sc = scene(seed, kind)
    return (f"pale_{kind}_{seed}.jpg", sc.image, sha256_of(sc.jpeg_bytes))


def peak(x, y, z, sectors=16, contrast=3.0, evenness=0.6):
    return {"x": float(x), "y": float(y), "radius": 15.0, "z": float(z), "sectors": sectors, "contrast_l": contrast,
            "evenness": evenness}


def disc(x, y):
    return Candidate(float(x), float(y), 15.0, "disc", 700.0, 1.0, 1.0, 40.0)


# --- ranking -----------------------------------------------------------------------------------------------
def test_rank_picks_the_strongest_separated_circles():
    base = [disc(100, 100), disc(200, 100)]
    trace = [peak(100, 120, 40.0),            # a red face's own edge: within 1.8 radii of it, never a token
             peak(100, 200, 30.0), peak(110, 210, 29.0),  # a face and its own shadow ring
             peak(200, 200, 20.0, sectors=9),  # strong but not a circle
             peak(160, 240, 18.0),
             peak(60, 250, 5.0, contrast=0.8)]
    picked, rest, why = rank_outlines(trace, base, 15.0, 2)
    assert [(p["x"], p["y"]) for p in picked] == [(100.0, 200.0), (160.0, 240.0)] and why == ""
    # the rest is the plate's texture: no token's own edge or shadow in it
    assert {(t["x"], t["y"]) for t in rest} == {(200.0, 200.0), (60.0, 250.0)}


def test_rank_refuses_when_the_fourth_is_not_clearly_stronger_than_the_fifth():
    base = [disc(100, 100), disc(200, 100), disc(100, 200)]
    trace = [peak(200, 220, 12.0, contrast=2.0), peak(60, 250, 12.0 / PICK_SEPARATION + 0.5, contrast=1.5)]
    picked, _, why = rank_outlines(trace, base, 15.0, 1)
    assert len(picked) == 1 and "not 1.5 times stronger than the next circle-like mark" in why
    # ... but a clear fourth passes
    trace[1] = peak(60, 250, 5.0, contrast=0.9)
    assert rank_outlines(trace, base, 15.0, 1)[2] == ""


def test_rank_never_picks_a_mark_that_is_no_circle():
    picked, _, _ = rank_outlines([peak(200, 220, 30.0, sectors=8), peak(60, 250, 3.0)], [disc(100, 100)], 15.0, 3)
    assert picked == []


# --- learning the rule ---------------------------------------------------------------------------------------
def test_learnt_rule_loosens_to_the_weakest_white_face_within_floors():
    whites = [(27.0, 15, 5.9, 0.21), (7.8, 14, 2.2, 0.02), (9.6, 16, 2.8, 0.66)]
    rule, margins, note = learn_outline_rule(whites, [(0, 0, 9.0, 11, 0.4, -0.2), (0, 0, 5.1, 13, 1.0, 0.26)])
    assert note == ""
    assert rule.min_sectors == 12 and rule.min_evenness == 0.0          # the weakest face passes, two sectors slack
    assert OUTLINE_FLOOR.min_z <= rule.min_z <= 0.75 * 7.8 + 1e-6        # a fraction of the weakest face's z
    assert rule.min_contrast_l == DEFAULT_OUTLINE_RULE.min_contrast_l    # never looser than needed, never stricter
    assert all(getattr(rule, f) <= getattr(DEFAULT_OUTLINE_RULE, f)
               for f in ("min_z", "min_contrast_l", "min_sectors", "min_evenness"))
    assert margins["outline_white_min_z"] == pytest.approx(7.8) and margins["outline_plate_max_contrast_l"] == 1.0


def test_learnt_rule_stays_above_the_plates_marks():
    whites = [(20.0, 15, 4.0, 0.2)]
    # a plate mark that would pass the loosened rule: the contrast threshold is raised over it by the margin
    rule, _, note = learn_outline_rule(whites, [(0, 0, 12.0, 15, 1.6, 0.4)])
    assert note == "" and rule.min_contrast_l >= 1.6 / 0.8 and rule.min_contrast_l <= 4.0
    # a plate mark as strong as the faces: the default rule is kept, and the note says why
    rule, margins, note = learn_outline_rule(whites, [(0, 0, 30.0, 16, 4.5, 0.5)])
    assert rule == DEFAULT_OUTLINE_RULE and margins == {} and "as strong as the white faces" in note


def test_no_outlined_white_face_keeps_the_default():
    rule, _, note = learn_outline_rule([], [])
    assert rule == DEFAULT_OUTLINE_RULE and "default outline rule is kept" in note


# --- end to end on a synthesized pale studio -----------------------------------------------------------------
@pytest.fixture(scope="module")
def pale_result():
    return calibrate_frames([named(s) for s in CAL_SEEDS], source="pale.json")


def test_pale_studio_learns_an_outline_rule(pale_result):
    assert pale_result.ready, [str(p) for p in pale_result.problems]
    rule = pale_result.profile.outline_rule
    # learnt (not the fallback), never stricter than the default; these faces are clear, so it need not loosen
    assert not [p for p in pale_result.problems if p.code == "outline_default"]
    assert "outline_white_min_z" in pale_result.margins
    assert all(getattr(rule, f) <= getattr(DEFAULT_OUTLINE_RULE, f)
               for f in ("min_z", "min_contrast_l", "min_sectors", "min_evenness"))
    assert pale_result.profile.reader_settings().outline_rule == rule
    whites = [f.outline for f, lab in zip(pale_result.all_faces, pale_result.face_labels)
              if lab == "white" and f.outline]
    assert whites and all(w[0] >= rule.min_z and w[2] >= rule.min_contrast_l and w[1] >= rule.min_sectors
                          for w in whites)
    assert pale_result.margins["outline_white_margin_contrast_l"] >= 0


def test_pale_profile_reads_other_frames_of_the_studio(pale_result):
    right_default = right_profile = 0
    for s in READ_SEEDS:
        sc = scene(s)
        d, p = read_frame(sc.image), read_frame(sc.image, pale_result.profile)
        assert not (p.verdict == "outcome" and p.red != sc.label["red"]), (s, p)
        right_default += d.verdict == "outcome" and d.red == sc.label["red"]
        right_profile += p.verdict == "outcome" and p.red == sc.label["red"]
    assert right_profile >= right_default and right_profile >= len(READ_SEEDS) // 2
    for s, kind in ((11, "three_tokens"), (12, "overlap"), (13, "covered")):
        r = read_frame(scene(s, kind).image, pale_result.profile)
        assert r.verdict != "outcome", (kind, r)


def test_pale_face_missed_by_default_is_completed_from_the_outlines(monkeypatch):
    """The default search made blind to outlines (as on a real white-on-white studio): calibration still
    finds the four tokens from the ranked outline peaks, and the self-check uses the learnt rule."""
    real = reader_mod.find_tokens
    blind = OutlineRule(min_z=1e6)

    def find_tokens(view, **kw):
        if kw.get("outline_rule") is DEFAULT_OUTLINE_RULE:  # the default search of measure_frame
            kw["outline_rule"] = blind
        return real(view, **kw)

    # measure_frame searches through vision.reader.search_tokens, as the reader does
    monkeypatch.setattr(reader_mod, "find_tokens", find_tokens)
    name, image, sha = named(0)
    m, problems = measure_frame(image, name, sha)
    assert problems == [], [str(p) for p in problems]
    assert len(m.faces) == 4 and len(m.picked) == 2 and all(f.outline for f in m.faces[2:])
    assert scene(0).label["red"] == 2


def test_three_tokens_on_a_pale_plate_are_refused_naming_the_frame():
    res = calibrate_frames([named(0), named(11, "three_tokens"), named(2)])
    hits = [p for p in res.problems if p.fatal and p.frame == "pale_three_tokens_11.jpg"]
    assert hits and hits[0].code == "too_few" and res.profile is None


# --- the profile's outline_rule field ------------------------------------------------------------------------
def _with_rule(**rule):
    d = make_profile().to_dict()
    d["outline_rule"] = {**d["outline_rule"], **rule}
    return d


def test_outline_rule_round_trip(tmp_path):
    prof = make_profile()
    d = prof.to_dict()
    assert d["version"] == VERSION == 2 and d["outline_rule"]["min_sectors"] == DEFAULT_OUTLINE_RULE.min_sectors
    d["outline_rule"] = {"min_z": 5.5, "min_contrast_l": 1.2, "min_sectors": 13, "min_evenness": 0.0}
    back = load_profile(write(tmp_path, d))
    assert back.outline_rule == OutlineRule(5.5, 1.2, 13, 0.0)
    assert back.reader_settings().outline_rule == OutlineRule(5.5, 1.2, 13, 0.0)


@pytest.mark.parametrize("change, message", [
    ({"min_z": 0}, r"outline_rule\.min_z: expected a number > 0"),
    ({"min_z": "7"}, r"outline_rule\.min_z: expected a finite number"),
    ({"min_contrast_l": -1.0}, r"outline_rule\.min_contrast_l: expected a number > 0"),
    ({"min_sectors": 17}, r"outline_rule\.min_sectors: expected an integer from 1 to 16"),
    ({"min_sectors": 12.5}, r"outline_rule\.min_sectors: expected an integer"),
    ({"min_sectors": True}, r"outline_rule\.min_sectors: expected an integer"),
    ({"min_evenness": 2.0}, r"outline_rule\.min_evenness: expected a number from -1 to 1"),
    ({"min_evenness": None}, r"outline_rule\.min_evenness: expected a finite number"),
])
def test_outline_rule_validation(tmp_path, change, message):
    with pytest.raises(ProfileError, match=r"p\.json: " + message):
        load_profile(write(tmp_path, _with_rule(**change)))


def test_outline_rule_missing_fields(tmp_path):
    d = make_profile().to_dict()
    del d["outline_rule"]["min_z"]
    with pytest.raises(ProfileError, match=r"p\.json: outline_rule\.min_z: missing field"):
        load_profile(write(tmp_path, d))
    del d["outline_rule"]
    with pytest.raises(ProfileError, match=r"p\.json: outline_rule: missing field"):
        load_profile(write(tmp_path, d))
    d["outline_rule"] = [1, 2]
    with pytest.raises(ProfileError, match=r"p\.json: outline_rule: expected an object"):
        load_profile(write(tmp_path, d))


def test_version_1_profile_reads_with_the_default_outline_rule(tmp_path):
    d = make_profile().to_dict()
    d["version"] = 1
    del d["outline_rule"]
    prof = profile_from_dict(json.loads(json.dumps(d)), "old.json")
    assert prof.version == 1 and prof.outline_rule == DEFAULT_OUTLINE_RULE
