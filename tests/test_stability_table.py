"""``scripts/stability_table.py``: the perturbations are what they say, and the table runs.

Checklist: known values of each perturbation on a constructed frame, a bad
perturbation name, seeded noise reproducible, and a smoke run on the bundled
studio samples (no wrong outcome under any perturbation).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import stability_table  # noqa: E402
from stability_table import PERTURBATIONS, perturb  # noqa: E402


def ramp() -> np.ndarray:
    """A (40, 60, 3) BGR uint8 frame rising by 4 levels per column, 10..246."""
    cols = (10 + 4 * np.arange(60)).astype(np.uint8)
    return np.repeat(np.repeat(cols[None, :, None], 40, axis=0), 3, axis=2)


def test_every_perturbation_keeps_shape_and_dtype_and_leaves_the_input_alone():
    frame = ramp()
    copy = frame.copy()
    for name in PERTURBATIONS:
        out = perturb(frame, name, seed=1)
        assert out.shape == frame.shape and out.dtype == np.uint8, name
    assert np.array_equal(frame, copy)


def test_half_pixel_shift_is_half_a_column_step():
    out = perturb(ramp(), "shift_half_px", seed=0).astype(int)
    # away from the border, each pixel now sits between two columns 4 levels apart
    assert np.all(ramp()[5:-5, 5:-5].astype(int) - out[5:-5, 5:-5] == 2)


def test_brighter_and_darker_move_two_levels_and_saturate():
    frame = ramp()
    frame[0, 0] = 255
    frame[0, 1] = 0
    up, down = perturb(frame, "brighter_2", 0).astype(int), perturb(frame, "darker_2", 0).astype(int)
    assert up[0, 0, 0] == 255 and down[0, 1, 0] == 0
    assert np.all(up[1:] - frame[1:] == 2) and np.all(frame[1:] - down[1:] == 2)


def test_jpeg_reencode_is_close():
    out = perturb(ramp(), "jpeg_q95", 0).astype(int)
    assert np.abs(out - ramp()).mean() < 2.0


def test_noise_is_seeded_and_small():
    a, b, c = (perturb(ramp(), "noise_1", s) for s in (7, 7, 8))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert 0.5 < np.abs(a.astype(int) - ramp()).mean() < 1.5


def test_unknown_perturbation_is_refused():
    with pytest.raises(ValueError, match="name"):
        perturb(ramp(), "rotate", 0)


def test_table_on_the_bundled_samples(capsys):
    assert stability_table.main([str(ROOT / "samples" / "studio"), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "unperturbed:" in out and re.search(r"right, 0 wrong outcomes", out)
    for name in PERTURBATIONS:
        assert name in out


def test_worker_processes_give_the_same_table(capsys):
    # two spawned workers (a forked child can deadlock in OpenCV) against this process alone
    folder = str(ROOT / "samples" / "studio")
    assert stability_table.main([folder, "--workers", "1"]) == 0
    alone = capsys.readouterr().out
    assert stability_table.main([folder, "--workers", "2"]) == 0
    assert capsys.readouterr().out == alone


def test_a_folder_without_labelled_frames_is_a_usage_error(tmp_path, capsys):
    assert stability_table.main([str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err
