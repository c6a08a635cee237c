"""vision.count_check: a face whose region of its colour holds two tokens (drawn arrays and synthesized scenes)."""
import math

import numpy as np
import pytest

import vision.count_check as cc
from vision.reader import read_frame
from vision.synth import render_scene

R = 16.0  # token radius, canonical pixels


def _residual(centres, level=(8.0, 1.0, 2.0), noise=1.0, seed=0):
    """A 256x256 residual: discs of radius R at ``centres`` of one colour difference, plus seeded noise."""
    rng = np.random.default_rng(seed)
    res = rng.normal(0.0, noise, (256, 256, 3)).astype(np.float32)
    yy, xx = np.mgrid[0:256, 0:256]
    inside = np.zeros((256, 256), bool)
    for x, y in centres:
        inside |= (xx - x) ** 2 + (yy - y) ** 2 <= R ** 2
    res[inside] += np.asarray(level, np.float32)
    return res


def test_one_face_is_one_face():
    reg = cc.face_region(_residual([(128, 128)]), 128, 128, R)
    assert reg is not None
    assert 0.85 <= reg.area_faces <= 1.15
    assert 1.8 <= reg.length_radii <= 2.2
    assert reg.offset_radii < 0.1
    assert not cc.holds_two(reg)


@pytest.mark.parametrize("d_radii", [0.8, 1.0, 1.4])
def test_two_overlapping_faces_found_as_one_hold_two(d_radii):
    # the upper face found at (128, 128), the lower one d radii to its right: no other token counted there
    res = _residual([(128, 128), (128 + d_radii * R, 128)], seed=1)
    reg = cc.face_region(res, 128, 128, R)
    assert cc.holds_two(reg), reg
    assert reg.offset_radii == pytest.approx(d_radii / 2, abs=0.1)


def test_two_faces_both_counted_do_not_hold_two():
    res = _residual([(128, 128), (128 + R, 128)], seed=2)
    reg = cc.face_region(res, 128, 128, R, others=[(128 + R, 128)])
    assert reg.shared and not cc.holds_two(reg)
    assert cc.two_token_faces(res, [(128, 128), (128 + R, 128)], [(128, 128), (128 + R, 128)], R) == []


def test_a_face_beside_another_colour_is_one_face():
    # a red-ish face touching a white-ish one: the region follows the face's own colour
    res = _residual([(128, 128)], level=(2.0, 30.0, 10.0), seed=3)
    res += _residual([(128 + 1.2 * R, 128)], level=(8.0, 0.0, 1.0), noise=0.0)
    assert not cc.holds_two(cc.face_region(res, 128, 128, R))


def test_too_faint_a_face_is_not_measured():
    assert cc.face_region(_residual([(128, 128)], level=(1.5, 0.0, 0.0), noise=0.3), 128, 128, R) is None


def test_switch_off_finds_none(monkeypatch):
    res = _residual([(128, 128), (128 + R, 128)], seed=4)
    assert len(cc.two_token_faces(res, [(128, 128)], [(128, 128)], R)) == 1
    monkeypatch.setattr(cc, "TWO_TOKEN_FACE_REARRANGE", False)
    assert cc.two_token_faces(res, [(128, 128)], [(128, 128)], R) == []


@pytest.mark.parametrize("bad", [dict(residual=np.zeros((8, 8))), dict(token_r=0.0), dict(token_r=math.nan)])
def test_bad_arguments_raise(bad):
    args = dict(residual=np.zeros((64, 64, 3), np.float32), x=32.0, y=32.0, token_r=8.0)
    args.update(bad)
    with pytest.raises(ValueError, match=next(iter(bad))):
        cc.face_region(**args)


def _read(seed, kind, monkeypatch, on):
    monkeypatch.setattr(cc, "TWO_TOKEN_FACE_REARRANGE", on)
    return read_frame(render_scene(seed, kind, size=(800, 600)).image)


def test_white_pair_on_cream_found_as_one_face_is_rearranged(monkeypatch):
    # fresh overlap 2020007 (cream plate, raised): a white on a white found as one outline face, 3 counted;
    # its region measured 1.87 faces, 3.4 radii long, axis 0.66, centroid 0.51 radii off
    off = _read(2020007, "overlap", monkeypatch, False)
    assert (off.verdict, off.reason) == ("reshake", "3 tokens on the plate, not 4")
    on = _read(2020007, "overlap", monkeypatch, True)
    assert on.verdict == "rearrange" and "3 tokens counted" in on.reason


def test_three_tokens_keep_their_reshake(monkeypatch):
    # fresh three_tokens 2024034: the largest region of 147 three-token faces measured (1.31 faces, 2.36 radii long,
    # axis 0.94) is one face, not two
    on = _read(2024034, "three_tokens", monkeypatch, True)
    assert (on.verdict, on.reason) == ("reshake", "3 tokens on the plate, not 4")
