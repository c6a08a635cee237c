"""xocdia calibrate on real pixels: one fixed synthetic studio, its refusals, the CLI end to end.

The studio (celadon plate, green felt, 4200 K, camera 20 deg from vertical)
is one where the default face rule abstains on white faces: the glaze is
green, so white sits about +10 a* above the plate.  The profile learns that.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibrate import calibrate_files, calibrate_frames, sha256_of
from calibration.profile import load_profile
from vision.reader import read_frame
from vision.synth import render_scene

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)
STUDIO = dict(tilt_deg=20.0, yaw_deg=30.0, distance_R=6.0, plate_frac=0.6, offset_x_frac=0.0, offset_y_frac=0.0,
              kelvin=4200.0, exposure_stops=0.0, noise_sigma=2.0, blur="none", jpeg_quality=90, glaze="celadon",
              cloth="green", cloth_texture="felt", token_radius_frac=0.12, red_style="classic", white_style="cool",
              token_body="dark", light_x_R=1.0, light_y_R=-1.0, light_height_R=6.0, ambient=0.45, vignette=0.1,
              shadow_strength=0.45)
#: Calibration seeds (outcome scenes with both colours among them) and reading seeds (never calibrated on).
CAL_SEEDS = (100, 101, 103)
READ_SEEDS = tuple(range(0, 8))


@lru_cache(maxsize=None)
def scene(seed: int, kind: str = "outcome", **changes):
    return render_scene(seed, kind, size=SIZE, conditions=dict(STUDIO, **changes))


def named(seed: int, kind: str = "outcome", **changes):
    sc = scene(seed, kind, **changes)
    return (f"{kind}_{seed}.jpg", sc.image, sha256_of(sc.jpeg_bytes))


@pytest.fixture(scope="module")
def result():
    return calibrate_frames([named(s) for s in CAL_SEEDS], source="studio_a.json")


@pytest.fixture(scope="module")
def frames_dir(tmp_path_factory):
    """Calibration frames, an empty plate and a labelled check folder as files."""
    d = tmp_path_factory.mktemp("studio")
    cal = []
    for s in CAL_SEEDS:
        p = d / f"cal_{s}.jpg"
        p.write_bytes(scene(s).jpeg_bytes)
        cal.append(p)
    check = d / "check"
    check.mkdir()
    for s, kind in ((2, "outcome"), (5, "outcome"), (3, "overlap"), (4, "upright")):
        sc = scene(s, kind)
        (check / f"{kind}_{s}.jpg").write_bytes(sc.jpeg_bytes)
        (check / f"{kind}_{s}.json").write_text(json.dumps(sc.label))
    return d, cal, check


def test_learns_the_studio(result):
    assert result.ready, [str(p) for p in result.problems]
    prof = result.profile
    assert prof.red.n + prof.white.n == 12 and prof.red.n >= 1 and prof.white.n >= 1
    rule = prof.face_rule
    # white faces on celadon sit ~+10 a* over the plate: the profile lets them be white ...
    assert rule.white_max_delta_a >= max(f.delta_a for f, lab in zip(result.all_faces, result.face_labels)
                                         if lab == "white")
    # ... keeps an undecided band and never accepts as red what is strongly white by default
    assert rule.red_min_delta_a > rule.white_max_delta_a
    assert result.margins["red_margin_delta_a"] > 0 and result.margins["white_margin_delta_a"] >= 0
    lo, hi = prof.token_radius_frac
    assert 0.07 < lo < hi < 0.2 and hi / lo == pytest.approx(1.15 / 0.85, rel=0.01)
    assert len(prof.frames) == 3 and all(len(f["sha256"]) == 64 for f in prof.frames)


def test_profile_reads_other_frames_of_the_studio(result):
    right_default = right_profile = 0
    for s in READ_SEEDS:
        sc = scene(s)
        d, p = read_frame(sc.image), read_frame(sc.image, result.profile)
        assert not (p.verdict == "outcome" and p.red != sc.label["red"]), (s, p)
        right_default += d.verdict == "outcome" and d.red == sc.label["red"]
        right_profile += p.verdict == "outcome" and p.red == sc.label["red"]
    assert right_profile >= right_default
    assert right_profile >= 2  # seeds 2 and 5: the default abstains on 'neither red nor white'


def test_camera_moved_is_uncertain_naming_the_profile(result):
    # (a pure yaw around a round plate, or a dolly with a zoom, leaves the rim ellipse where it was: not
    # detectable from the plate alone)
    for changes in ({"tilt_deg": 32.0}, {"offset_x_frac": 0.6}):
        sc = scene(2, **changes)
        r = read_frame(sc.image, result.profile)
        assert r.verdict == "uncertain", (changes, r.reason)
        assert "studio_a.json" in r.reason and "camera moved" in r.reason
    # the same camera: not flagged
    assert "camera moved" not in read_frame(scene(5).image, result.profile).reason


def _refusal(res, code):
    hits = [p for p in res.problems if p.code == code and p.fatal]
    assert hits, [str(p) for p in res.problems]
    assert res.profile is None and not res.ready
    return hits


def test_refuses_three_tokens_naming_the_frame():
    res = calibrate_frames([named(100), named(7, "three_tokens"), named(103)])
    (p,) = _refusal(res, "too_few")
    assert p.frame == "three_tokens_7.jpg" and "fewer than four tokens" in str(p)
    assert str(p).startswith("three_tokens_7.jpg: ")


def test_refuses_overlap_naming_the_frame():
    res = calibrate_frames([named(100), named(3, "overlap"), named(103)])
    (p,) = _refusal(res, "overlap")
    assert p.frame == "overlap_3.jpg" and "overlapping" in p.message


def test_refuses_two_camera_positions_naming_the_frame():
    moved = scene(101, tilt_deg=32.0, offset_x_frac=0.5)
    res = calibrate_frames([named(100), ("moved.jpg", moved.image, sha256_of(moved.jpeg_bytes)), named(103)])
    (p,) = _refusal(res, "camera")
    assert p.frame == "moved.jpg" and "different camera position" in p.message and "outcome_100.jpg" in p.message
    # the same frames are accepted when the camera is declared free
    assert calibrate_frames([named(100), ("moved.jpg", moved.image, "0" * 64), named(103)],
                            fixed_camera=False).ready


def test_refuses_a_single_frame():
    res = calibrate_frames([named(100)])
    _refusal(res, "frame_count")
    assert "need 2 to 5 frames" in str(res.problems[0])


def test_refuses_single_colour_sets():
    # outcome seeds 5 and 6 of this studio are all white, 7 and 10 all red
    for seeds in ((5, 6), (7, 10)):
        assert {scene(x).label["red"] for x in seeds} in ({0}, {4})
        res = calibrate_frames([named(x) for x in seeds])
        (p,) = _refusal(res, "one_colour")
        assert "need both colours among the calibration frames" in p.message


def test_refuses_an_unreadable_file(tmp_path, frames_dir):
    _, cal, _ = frames_dir
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    res = calibrate_files([str(cal[0]), str(bad), str(cal[2])])
    (p,) = _refusal(res, "unreadable")
    assert p.frame == str(bad)


def test_frames_are_not_modified():
    img = scene(100).image
    before = img.copy()
    res = calibrate_frames([("a.jpg", img, "0" * 64), named(101)])
    from calibration.report import draw_frame, draw_scatter

    draw_frame(res.frames[0])
    draw_scatter(res)
    assert np.array_equal(img, before)


def _xocdia(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "vision", *map(str, args)], capture_output=True, text=True,
                          timeout=240, cwd=cwd)


def test_cli_end_to_end(tmp_path, frames_dir):
    d, cal, check = frames_dir
    prof = tmp_path / "studio.json"
    rep = tmp_path / "rep"
    out = _xocdia("calibrate", *cal, "--out", prof, "--report", rep, "--check", check)
    assert out.returncode == 0, out.stderr
    assert "profile written" in out.stdout and "TOTAL" in out.stdout and "outcome" in out.stdout
    loaded = load_profile(prof)
    assert [f["path"] for f in loaded.frames] == [str(c) for c in cal]
    html = (rep / "calibration.html").read_text()
    assert "READY" in html
    pngs = re.findall(r'src="([^"]+\.png)"', html)
    assert "faces.png" in pngs and len(pngs) == 4
    for name in pngs:
        assert cv2.imread(str(rep / name)) is not None
    # read with the profile: JSON lines, no wrong outcome on the check frames
    out = _xocdia("read", "--profile", prof, *sorted(check.glob("*.jpg")))
    assert out.returncode == 0, out.stderr
    for line in out.stdout.splitlines():
        row = json.loads(line)
        label = json.loads(Path(row["source"]).with_suffix(".json").read_text())
        assert row["verdict"] != "outcome" or row["red"] == label["red"]


def test_cli_refusal_exit_1_and_report(tmp_path, frames_dir):
    d, cal, _ = frames_dir
    three = tmp_path / "three.jpg"
    three.write_bytes(scene(7, "three_tokens").jpeg_bytes)
    prof = tmp_path / "p.json"
    rep = tmp_path / "rep"
    out = _xocdia("calibrate", cal[0], three, "--out", prof, "--report", rep)
    assert out.returncode == 1
    assert f"{three}: fewer than four tokens visible" in out.stderr
    assert not prof.exists()
    assert "NOT READY" in (rep / "calibration.html").read_text()


def test_cli_usage_errors(tmp_path, frames_dir):
    _, cal, _ = frames_dir
    out = _xocdia("calibrate", *cal)
    assert out.returncode == 2 and "--out" in out.stderr
    out = _xocdia("calibrate", *cal, "--out", tmp_path / "p.json", "--check", tmp_path / "nowhere")
    assert out.returncode == 2 and "nowhere" in out.stderr


def test_empty_frame_with_tokens_is_refused():
    res = calibrate_frames([named(s) for s in CAL_SEEDS], empty=named(2))
    (p,) = _refusal(res, "not_empty")
    assert p.frame == "outcome_2.jpg" and "empty-plate frame" in p.message


def test_refuses_an_over_exposed_studio_naming_the_frame():
    # a stop over-exposed under warm light: the plate at the ceiling in two
    # channels, where the reader abstains on every round
    over = dict(exposure_stops=1.0, kelvin=3200.0, glaze="pale_blue")
    assert "over-exposed" in read_frame(scene(101, **over).image).reason
    res = calibrate_frames([named(100), named(101, **over), named(103)])
    (p,) = _refusal(res, "over_exposed")
    assert p.frame == "outcome_101.jpg" and "lower the exposure" in p.message
    # the same frames at the studio's exposure are not refused for it
    assert not [q for q in calibrate_frames([named(s) for s in CAL_SEEDS]).problems if q.code == "over_exposed"]


def test_warns_when_white_faces_clip_in_red():
    """At the synthesizer's nominal exposure the white faces of this studio
    reach the ceiling in red (251-254): the reader would abstain on every
    round of four whites, so calibration says so (a warning, the profile is
    still made); 0.4 stop darker, they do not, and nothing is said."""
    bright = calibrate_frames([named(s) for s in CAL_SEEDS])
    (warn,) = [p for p in bright.problems if p.code == "whites_clipped"]
    assert not warn.fatal and bright.ready
    assert "lower the exposure" in warn.message and warn.frame in {f"outcome_{s}.jpg" for s in CAL_SEEDS}
    darker = calibrate_frames([named(s, exposure_stops=-0.4) for s in CAL_SEEDS])
    assert darker.ready
    assert not [p for p in darker.problems if p.code == "whites_clipped"]



def test_the_profile_gives_the_studios_light(result):
    """The profile's light: the plate's L* and the red faces' green (their
    mean Lab turned back into the camera's levels).  A frame of four whites
    at the studio's exposure (their red at the ceiling, no red in view)
    abstains without the profile and reads with it."""
    light = result.profile.light_reference()
    assert light is not None
    assert light.plate_l == pytest.approx(result.profile.plate_colour.lab_mean[0])
    assert 20.0 <= light.red_green_level <= 120.0  # a classic red's green, well below a white's
    assert result.profile.reader_settings().light == light
    sc = scene(5)
    assert sc.label["red"] == 0
    plain = read_frame(sc.image)
    assert plain.verdict == "uncertain" and "ceiling in red" in plain.reason
    got = read_frame(sc.image, result.profile)
    assert (got.verdict, got.red) == ("outcome", 0), got.reason
