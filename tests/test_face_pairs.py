"""vision.reader._face_pairs: every two flat faces once, with the distances decide's rules read.

``decide`` walks the pairs of flat faces in several rules (overlap, the
unmeasured size, the faint-pair distance and edge bounds, faint pairs joined,
split halves, shortened pairs, a face shortened beside a faint one); each
reads one :class:`vision.reader._FacePair` built once.  The numbers must be
the ones each rule computed for itself before: the centre distance by
``math.hypot(a.x - b.x, a.y - b.y)`` in pixels and over the token radius,
the edge distance likewise, in the order ``for i, a in enumerate(flat) for b
in flat[i + 1:]``.

Checklist: order and values bit for bit against the expressions the rules
used, the faint properties, the distance the same either way round (the
rule of a face shortened beside a faint one walks ordered pairs), frozen.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import random

import pytest

from vision.reader import _face_pairs
from vision.tokens import Candidate


def face(x: float, y: float, found_by: str = "blob") -> Candidate:
    """A flat face of radius 10 canonical pixels."""
    return Candidate(x, y, 10.0, "disc", math.pi * 100.0, 0.95, 0.97, 40.0, found_by=found_by)


def random_faces(rng: random.Random, n: int) -> list[Candidate]:
    return [face(rng.uniform(0.0, 500.0), rng.uniform(0.0, 500.0), rng.choice(Candidate.DETECTORS))
            for _ in range(n)]


@pytest.mark.parametrize("n", [0, 1, 2, 4, 6])
def test_pairs_in_order_with_the_rules_own_numbers(n):
    rng = random.Random(20270 + n)
    for _ in range(50):
        flat = random_faces(rng, n)
        edged = [(c.x + rng.uniform(-3.0, 3.0), c.y + rng.uniform(-3.0, 3.0)) for c in flat]
        r = rng.uniform(5.0, 40.0)
        pairs = _face_pairs(flat, edged, r)
        want = [(a, b) for i, a in enumerate(flat) for b in flat[i + 1:]]
        assert [(p.a, p.b) for p in pairs] == want
        by_edges = [math.hypot(ea[0] - eb[0], ea[1] - eb[1]) / r for i, ea in enumerate(edged) for eb in edged[i + 1:]]
        for p, e in zip(pairs, by_edges, strict=True):
            a, b = p.a, p.b
            assert p.dist_px == math.hypot(a.x - b.x, a.y - b.y)
            assert p.dist_radii == math.hypot(a.x - b.x, a.y - b.y) / r
            assert p.edge_dist_radii == e
            assert p.faint is (a.found_by != "blob" or b.found_by != "blob")
            assert p.both_faint is (a.found_by != "blob" and b.found_by != "blob")


def test_distance_the_same_either_way_round():
    rng = random.Random(926691)
    for _ in range(2000):
        a, b = random_faces(rng, 2)
        r = rng.uniform(5.0, 40.0)
        (p,) = _face_pairs([a, b], [(a.x, a.y), (b.x, b.y)], r)
        assert p.dist_radii == math.hypot(b.x - a.x, b.y - a.y) / r


def test_pairs_by_index_either_way_round():
    flat = [face(100.0 * k, 0.0) for k in range(4)]
    pairs = _face_pairs(flat, [(c.x, c.y) for c in flat], 10.0)
    for (i, j), p in zip(itertools.combinations(range(len(flat)), 2), pairs, strict=True):
        assert (p.a, p.b) == (flat[i], flat[j])
        assert p.dist_radii == 10.0 * (j - i)


def test_faint_either_or_both():
    blob, faint, outline = face(0.0, 0.0), face(20.0, 0.0, "disc_filter"), face(40.0, 0.0, "outline")
    (p,) = _face_pairs([blob, blob], [(0.0, 0.0)] * 2, 10.0)
    assert not p.faint and not p.both_faint
    (p,) = _face_pairs([blob, faint], [(0.0, 0.0), (20.0, 0.0)], 10.0)
    assert p.faint and not p.both_faint
    (p,) = _face_pairs([outline, faint], [(40.0, 0.0), (20.0, 0.0)], 10.0)
    assert p.faint and p.both_faint


def test_frozen():
    (p,) = _face_pairs([face(0.0, 0.0), face(20.0, 0.0)], [(0.0, 0.0), (20.0, 0.0)], 10.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.dist_radii = 0.0
