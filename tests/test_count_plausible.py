"""The count-based reshake only for one token missing or extra (vision.count_check).

A count of one or two tokens, or of six or more, with four tokens in play is
far likelier a bowl, a hand or a misread than tokens vanished or appeared at
once: the reader asks for a check by hand (``uncertain``) there.
"""
import numpy as np
import pytest

import vision.count_check as cc
from vision.reader import read_frame
from vision.synth import render_scene


@pytest.mark.parametrize("n, want", [(0, False), (1, False), (2, False), (3, True), (4, True), (5, True),
                                     (6, False), (7, False), (np.int64(3), True)])
def test_known_counts(n, want):
    assert cc.reshake_count_plausible(n) is want


def test_switch_off_allows_every_count(monkeypatch):
    monkeypatch.setattr(cc, "IMPLAUSIBLE_COUNT_UNCERTAIN", False)
    assert all(cc.reshake_count_plausible(n) for n in range(9))


@pytest.mark.parametrize("bad, err", [(3.0, TypeError), ("3", TypeError), (True, TypeError), (None, TypeError),
                                      (-1, ValueError)])
def test_bad_counts_raise_naming_the_parameter(bad, err):
    with pytest.raises(err, match="n_tokens"):
        cc.reshake_count_plausible(bad)


def _read(seed, kind, size, monkeypatch, on):
    monkeypatch.setattr(cc, "IMPLAUSIBLE_COUNT_UNCERTAIN", on)
    return read_frame(render_scene(seed, kind, size=size).image)


def test_bowl_over_the_plate_found_as_one_token_is_not_reshaken(monkeypatch):
    # fresh covered scene (thirtieth round's opening sweep, 1280x720): a metallic bowl over
    # the plate whose cues were not seen, one highlight found as a token
    off = _read(2014037, "covered", (1280, 720), monkeypatch, False)
    assert (off.verdict, off.reason) == ("reshake", "1 tokens on the plate, not 4")
    on = _read(2014037, "covered", (1280, 720), monkeypatch, True)
    assert on.verdict == "uncertain" and on.reason.startswith("1 token(s) found, not 4")


def test_one_token_missing_keeps_its_reshake(monkeypatch):
    reading = _read(2024034, "three_tokens", (800, 600), monkeypatch, True)
    assert (reading.verdict, reading.reason) == ("reshake", "3 tokens on the plate, not 4")
