"""Token layouts for the round monitor: stable readings, same layout, touched tokens, faces kept.

A *layout* is the tokens of one reading in plate-normalised coordinates: the
plate ellipse mapped to the unit circle (so a small camera or plate movement
between rounds does not matter), with each token's face and radius in the same
units.  Pure functions only.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from .types import Ellipse, Reading, TokenReading


@dataclass(frozen=True)
class LayoutToken:
    """One token in plate units: ``u``, ``v`` (plate radii), ``r`` (plate radii), ``face``, ``p_red``."""

    u: float
    v: float
    r: float
    face: str
    p_red: float | None


def to_plate(plate: Ellipse, x: float, y: float) -> tuple[float, float]:
    """Source pixel -> plate-normalised (u, v): the ellipse becomes the unit circle.

    The map is the ellipse's symmetric stretch (into its axes, scaled by 1/a and
    1/b, and back), which depends only on the ellipse, not on how a fit names
    its axes: an angle is defined modulo 180 degrees, and a near-circular
    plate's angle is arbitrary (seen: 177.2 then 6.6 degrees for the same plate
    in two rounds, which turned one layout by 170 degrees against the other).
    """
    th = math.radians(plate.angle_deg)
    c, s = math.cos(th), math.sin(th)
    dx, dy = x - plate.cx, y - plate.cy
    along = (dx * c + dy * s) / plate.a
    across = (-dx * s + dy * c) / plate.b
    return along * c - across * s, along * s + across * c


def layout_of(reading: Reading, plate: Ellipse | None = None) -> tuple[LayoutToken, ...]:
    """The reading's tokens in plate units (of ``plate``, default the reading's own; empty without one)."""
    plate = plate or reading.plate
    if plate is None:
        return ()
    return tuple(_token(plate, t) for t in reading.tokens)


def same_plate(a: Ellipse | None, b: Ellipse | None, tol: float = 0.06) -> bool:
    """Two plate fits agree: centres within ``tol`` of the semi-major axis, axes within ``tol`` relative."""
    if a is None or b is None:
        return False
    return (math.hypot(a.cx - b.cx, a.cy - b.cy) <= tol * b.a and abs(a.a - b.a) <= tol * b.a
            and abs(a.b - b.b) <= tol * b.b)


def _token(plate: Ellipse, t: TokenReading) -> LayoutToken:
    u, v = to_plate(plate, t.x, t.y)
    return LayoutToken(u, v, t.radius / plate.a, t.face, t.p_red)


def _mean_r(*layouts: tuple[LayoutToken, ...]) -> float:
    rs = [t.r for lay in layouts for t in lay]
    return sum(rs) / len(rs) if rs else 0.1


def match(a: tuple[LayoutToken, ...], b: tuple[LayoutToken, ...], max_dist: float
          ) -> list[tuple[LayoutToken, LayoutToken, float]]:
    """Greedy nearest pairs (closest first) between two layouts, each within ``max_dist`` plate radii."""
    pairs = sorted(((math.hypot(x.u - y.u, x.v - y.v), i, j) for i, x in enumerate(a) for j, y in enumerate(b)))
    used_a: set[int] = set()
    used_b: set[int] = set()
    out = []
    for d, i, j in pairs:
        if d > max_dist or i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        out.append((a[i], b[j], d))
    return out


def same_layout(a: tuple[LayoutToken, ...], b: tuple[LayoutToken, ...], tol_r: float) -> bool:
    """True when the two layouts have the same tokens: every one matched within ``tol_r``
    token radii, with the same face."""
    if not a or len(a) != len(b):
        return False
    r = _mean_r(a, b)
    pairs = match(a, b, tol_r * r)
    return len(pairs) == len(a) and all(x.face == y.face for x, y, _ in pairs)


def agrees(prev: Reading, cur: Reading, tol_r: float) -> bool:
    """True when two readings say the same thing: same verdict and counts and, for an
    outcome, the same tokens (positions within ``tol_r`` token radii, same faces)."""
    if prev.verdict != cur.verdict or prev.red != cur.red:
        return False
    if cur.verdict != "outcome":
        return True
    return same_layout(layout_of(prev), layout_of(cur), tol_r)


def decisive(t: LayoutToken, p_min: float = 0.8) -> bool:
    """A flat token whose face is clearly red or white."""
    return t.face in ("red", "white") and t.p_red is not None and max(t.p_red, 1 - t.p_red) >= p_min


def touch_evidence(seen: tuple[LayoutToken, ...], final: tuple[LayoutToken, ...], *, move_min_r: float,
                   match_max_r: float, p_min: float = 0.8) -> list[tuple[str, str]]:
    """What a sighting during the lift says against the final layout.

    Each decisive token seen while the bowl was lifting is paired with the
    nearest final token (within ``match_max_r`` token radii).  A pair whose
    faces differ is a flip; a pair farther apart than ``move_min_r`` token
    radii is a move.

    Returns
    -------
    list of (kind, description)
        ``kind`` is ``flip`` or ``move``; one per suspicious token (empty: nothing seen).
    """
    if not final:
        return []
    r = _mean_r(final)
    out = []
    for s, f, d in match(tuple(t for t in seen if decisive(t, p_min)), final, match_max_r * r):
        if decisive(f, p_min) and s.face != f.face:
            out.append(("flip", f"token at ({f.u:+.2f}, {f.v:+.2f}) R turned {s.face} -> {f.face} during the reveal"))
        elif d > move_min_r * r:
            out.append(("move", f"token at ({f.u:+.2f}, {f.v:+.2f}) R moved {d / r:.2f} token radii during the reveal"))
    return out


def faces_kept(before: tuple[LayoutToken, ...], after: tuple[LayoutToken, ...], tol_r: float,
               p_min: float = 0.8) -> str | None:
    """Check a rearrange: every face that was decisive before is still there.

    A token found at the same place (within ``tol_r`` token radii) must show
    the same face; and the faces seen before, counted, must all be among the
    faces after (the pushed token moved, so it is checked by count).

    Returns
    -------
    str or None
        A reason when a face changed, None when none did.
    """
    r = _mean_r(after)
    seen = tuple(t for t in before if decisive(t, p_min))
    for s, a, _ in match(seen, after, tol_r * r):
        if a.face != s.face:
            return f"token at ({a.u:+.2f}, {a.v:+.2f}) R was {s.face} before the rearrange, {a.face} after"
    need = Counter(t.face for t in seen)
    have = Counter(t.face for t in after)
    for face, n in need.items():
        if have[face] < n:
            return f"{n} {face} face(s) before the rearrange, {have[face]} after"
    return None


__all__ = ["LayoutToken", "agrees", "decisive", "faces_kept", "layout_of", "match", "same_layout", "same_plate", "to_plate",
           "touch_evidence"]
