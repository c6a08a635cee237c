"""The profile file: round trip, validation messages, and the reader interface."""
from __future__ import annotations

import json

import pytest

from calibration.profile import (FORMAT, VERSION, ColourModel, FaceModel, PlateTolerance, Profile, load_profile,
                                 profile_from_dict)
from vision.errors import ProfileError
from vision.faces import FaceRule
from vision.reader import ReaderSettings
from vision.tokens import DEFAULT_TOKEN_RADIUS_FRAC
from vision.types import Ellipse

EYE = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def make_profile(source: str = "studio.json", fixed: bool = True, ellipse: Ellipse | None = None) -> Profile:
    return Profile(
        created_at="2024-01-01T00:00:00Z",
        frames=({"path": "a.jpg", "sha256": "0" * 64, "role": "tokens"},),
        plate=ellipse or Ellipse(640.0, 360.0, 200.0, 180.0, 10.0), homography=EYE, fixed_camera=fixed,
        tolerance=PlateTolerance(), plate_colour=ColourModel((90.0, 0.0, 2.0), EYE),
        token_radius_frac=(0.1, 0.14),
        red=FaceModel((50.0, 50.0, 30.0), EYE, (-40.0, 50.0, 28.0), 6),
        white=FaceModel((92.0, 0.0, 3.0), EYE, (1.0, 0.0, 1.0), 6),
        face_rule=FaceRule(20.0, 10.0, 25.0, 15.0, 12.0), margins={"delta_a_gap": 40.0}, source=source)


def write(tmp_path, data, name="p.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def test_round_trip(tmp_path):
    prof = make_profile()
    path = tmp_path / "studio.json"
    prof.save(path)
    back = load_profile(path)
    assert back.source == str(path)
    assert back.to_dict() == prof.to_dict()
    assert back.to_dict()["format"] == FORMAT and back.to_dict()["version"] == VERSION
    s = back.reader_settings()
    assert isinstance(s, ReaderSettings)
    assert s.token_radius_frac == (0.1, max(0.14, DEFAULT_TOKEN_RADIUS_FRAC[1]))  # learnt floor, default ceiling
    assert s.face_rule == FaceRule(20.0, 10.0, 25.0, 15.0, 12.0)


def test_check_plate_names_the_profile():
    prof = make_profile(source="/studios/hanoi.json")
    assert prof.check_plate(Ellipse(641.0, 361.0, 201.0, 179.0, 11.0)) is None
    moved = prof.check_plate(Ellipse(700.0, 360.0, 200.0, 180.0, 10.0))
    assert moved and "/studios/hanoi.json" in moved and "camera moved" in moved
    assert "axis" in prof.check_plate(Ellipse(640.0, 360.0, 230.0, 180.0, 10.0))
    assert "angle" in prof.check_plate(Ellipse(640.0, 360.0, 200.0, 180.0, 40.0))
    # a round plate's angle means nothing
    round_prof = make_profile(ellipse=Ellipse(640.0, 360.0, 200.0, 199.0, 10.0))
    assert round_prof.check_plate(Ellipse(640.0, 360.0, 200.0, 199.5, 100.0)) is None
    # a profile learnt with --any-camera never says the camera moved
    assert make_profile(fixed=False).check_plate(Ellipse(100.0, 100.0, 50.0, 40.0, 0.0)) is None


def test_malformed_json_names_file(tmp_path):
    p = write(tmp_path, "{not json", "broken.json")
    with pytest.raises(ProfileError, match=r"broken\.json: not valid JSON"):
        load_profile(p)


def test_missing_file_names_file(tmp_path):
    with pytest.raises(ProfileError, match=r"nowhere\.json: cannot read profile"):
        load_profile(tmp_path / "nowhere.json")


def test_newer_version_refused(tmp_path):
    d = make_profile().to_dict()
    d["version"] = VERSION + 1
    p = write(tmp_path, d, "future.json")
    with pytest.raises(ProfileError, match=rf"future\.json: version: profile version {VERSION + 1} is newer"):
        load_profile(p)


@pytest.mark.parametrize("path, field", [
    (("plate", "homography"), "plate.homography"),
    (("faces", "white"), "faces.white"),
    (("thresholds", "red_min_chroma"), "thresholds.red_min_chroma"),
    (("token_radius_frac",), "token_radius_frac"),
    (("created_at",), "created_at"),
])
def test_missing_field_named(tmp_path, path, field):
    d = make_profile().to_dict()
    node = d
    for k in path[:-1]:
        node = node[k]
    del node[path[-1]]
    p = write(tmp_path, d, "partial.json")
    with pytest.raises(ProfileError) as exc:
        load_profile(p)
    assert str(exc.value) == f"{p}: {field}: missing field"


@pytest.mark.parametrize("mutate, needle", [
    (lambda d: d["plate"].__setitem__("cx", "left"), "plate.cx: expected a finite number"),
    (lambda d: d["plate"].__setitem__("fixed_camera", "yes"), "plate.fixed_camera: expected true or false"),
    (lambda d: d.__setitem__("token_radius_frac", [0.2, 0.1]), "token_radius_frac: expected 0 < lo < hi"),
    (lambda d: d["faces"]["red"].__setitem__("lab_cov", [[1, 0], [0, 1]]), "faces.red.lab_cov: expected a 3x3"),
    (lambda d: d["thresholds"].__setitem__("white_max_delta_a", 30.0), "thresholds: red_min_delta_a"),
    (lambda d: d["frames"][0].__setitem__("sha256", "xyz"), "frames[0].sha256: expected 64"),
    (lambda d: d.__setitem__("format", "something-else"), "format: expected 'xocdia-profile'"),
])
def test_wrong_types_named(mutate, needle):
    d = make_profile().to_dict()
    mutate(d)
    with pytest.raises(ProfileError) as exc:
        profile_from_dict(d, "bad.json")
    assert str(exc.value).startswith("bad.json: ")
    assert needle in str(exc.value)


def test_top_level_not_object(tmp_path):
    p = write(tmp_path, "[1, 2]", "list.json")
    with pytest.raises(ProfileError, match=r"list\.json: expected a JSON object"):
        load_profile(p)


def test_read_cli_loads_profile(tmp_path):
    from vision.read_cli import load_profile_arg

    path = tmp_path / "studio.json"
    make_profile().save(path)
    assert load_profile_arg(str(path)).reader_settings().token_radius_frac[0] == 0.1
