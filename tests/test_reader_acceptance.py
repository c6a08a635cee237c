"""Acceptance of the whole reader on recorded frames, tolerance-based.

The line never crossed: no wrong outcome (an outcome whose red count differs
from the label, or an outcome on a scene whose label is not an outcome).
Accuracy floors below are the measured levels at the time of writing, kept as
regression guards; the targets of issue 3 are higher (see README).
"""
from __future__ import annotations

import collections
import json

import pytest

from vision.io import load_image
from vision.reader import read_frame
from vision.synth import KINDS, render_scene


def _score(label: dict, reading) -> tuple[bool, bool]:
    want = label["verdict"]
    right = reading.verdict == want and (want != "outcome" or reading.red == label["red"])
    wrong = reading.verdict == "outcome" and (want != "outcome" or reading.red != label["red"])
    return right, wrong


def test_studio_renders_never_a_wrong_outcome(studio_dir):
    stats = collections.defaultdict(collections.Counter)
    wrong = []
    for label_path in sorted(studio_dir.glob("*.json")):
        label = json.loads(label_path.read_text())
        reading = read_frame(load_image(label_path.with_suffix(".jpg")))
        right, bad = _score(label, reading)
        stats[label["kind"]]["n"] += 1
        stats[label["kind"]]["right"] += right
        if bad:
            wrong.append((label_path.name, label["red"], reading.red, reading.reason))
    assert wrong == []
    outcome_kinds = sum(stats[k]["right"] for k in ("outcome", "touching", "tilted"))
    other_kinds = sum(stats[k]["right"] for k in ("overlap", "upright", "offplate", "covered"))
    assert sum(stats[k]["n"] for k in stats) == 85
    # measured 48/53 and 29/32 at the last change (deterministic): regression floors.
    # (50 before the faint-pair bound, reader.FAINT_PAIR_MIN_CENTRE_DIST_RADII,
    # which closes a wrong-outcome class and stops s1_024, a faint face 1.95
    # radii from the one it touches; 49 before the same bound by edges,
    # reader.FAINT_PAIR_MIN_EDGE_DIST_RADII, which closes another and stops
    # s1_004, a faint face 1.98 radii from the one it touches by their edges)
    assert outcome_kinds >= 48, dict(stats)
    assert other_kinds >= 29, dict(stats)


def test_bundled_studio_samples_never_a_wrong_outcome(samples_studio_dir):
    labels = sorted(samples_studio_dir.glob("*.json"))
    assert len(labels) >= 8
    for label_path in labels:
        label = json.loads(label_path.read_text())
        reading = read_frame(load_image(label_path.with_suffix(".jpg")))
        assert not _score(label, reading)[1], (label_path.name, reading.reason)


SYNTH_SEEDS = range(7000, 7000 + 12 * len(KINDS))


def test_synthesized_scenes_never_a_wrong_outcome():
    """Every kind and condition of the synthesizer, seeded: no wrong outcome."""
    wrong = []
    stats = collections.Counter()
    for i, seed in enumerate(SYNTH_SEEDS):
        kind = KINDS[i % len(KINDS)]
        scene = render_scene(seed, kind, size=(960, 540))
        reading = read_frame(scene.image)
        right, bad = _score(scene.label, reading)
        stats["n"] += 1
        stats["right"] += right
        stats["outcome_read"] += reading.verdict == "outcome"
        if bad:
            wrong.append((seed, kind, scene.label["red"], reading.red, reading.reason))
    assert wrong == []
    # the reader must still read: it may not pass by abstaining on everything
    assert stats["outcome_read"] >= 10, stats
