"""Return to player (RTP) of every bet type, exactly and by simulation.

The exact RTP enumerates the 2**4 = 16 equally likely ways four fair
red/white tokens can land (weights 1, 4, 6, 4, 1 for 0-4 red) and averages
the amount returned per unit staked, stake included, as a
:class:`fractions.Fraction`.  E.g. ``big``: win 1.96 on 5/16, refund 1 on
6/16, lose on 5/16, so RTP = (5 x 1.96 + 6) / 16 = 79/80 = 98.75 %.

Rounding to a currency's minor unit is ignored here (the RTP is per unit
staked, exactly).
"""
from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .payouts import BET_TYPES, RED_COUNTS, bet_type


def outcome_weights() -> dict[int, int]:
    """Number of the 16 token outcomes giving each red count, by enumeration."""
    counts = Counter(sum(1 for face in faces if face == "red") for faces in itertools.product(("red", "white"), repeat=4))
    return {r: counts[r] for r in RED_COUNTS}


def unit_return(bet_type_name: str, red_count: int) -> Fraction:
    """Amount returned per unit staked (stake included), exactly, unrounded."""
    bt = bet_type(bet_type_name)
    result = bt.result(red_count)
    if result == "win":
        return 1 + bt.odds
    return Fraction(1) if result == "refund" else Fraction(0)


@dataclass(frozen=True)
class RtpRow:
    """The exact RTP of one bet type.

    Attributes
    ----------
    bet_type : str
    odds : Fraction
    win_ways, refund_ways, lose_ways : int
        Of the 16 token outcomes, how many win, refund, lose.
    rtp : Fraction
        Expected amount returned per unit staked.
    """

    bet_type: str
    odds: Fraction
    win_ways: int
    refund_ways: int
    lose_ways: int
    rtp: Fraction

    @property
    def percent(self) -> Decimal:
        """RTP as a percentage (exact when the fraction terminates, else 28 digits)."""
        return Decimal(self.rtp.numerator * 100) / Decimal(self.rtp.denominator)

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.rtp


def exact_rtp(bet_type_name: str) -> Fraction:
    """Exact RTP of one bet type over the 16 equally likely outcomes."""
    weights = outcome_weights()
    total = sum(weights.values())
    return sum((Fraction(w) * unit_return(bet_type_name, r) for r, w in weights.items()), Fraction(0)) / total


def rtp_table() -> list[RtpRow]:
    """One :class:`RtpRow` per bet type, in :data:`settlement.payouts.BET_TYPES` order."""
    weights = outcome_weights()
    rows = []
    for name, bt in BET_TYPES.items():
        results = {r: bt.result(r) for r in RED_COUNTS}
        ways = {k: sum(weights[r] for r in RED_COUNTS if results[r] == k) for k in ("win", "refund", "lose")}
        rows.append(RtpRow(name, bt.odds, ways["win"], ways["refund"], ways["lose"], exact_rtp(name)))
    return rows


def simulate_red_counts(n: int, seed: int) -> dict[int, int]:
    """Throw four fair tokens ``n`` times with a seeded PRNG; histogram of red counts."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"n: expected a positive integer, got {n!r}")
    rng = random.Random(seed)
    hist = Counter(rng.getrandbits(4).bit_count() for _ in range(n))
    return {r: hist[r] for r in RED_COUNTS}


def simulated_rtp(n: int, seed: int = 0) -> dict[str, Fraction]:
    """Monte Carlo RTP of every bet type from ``n`` seeded rounds (the same rounds for all)."""
    hist = simulate_red_counts(n, seed)
    return {
        name: sum((hist[r] * unit_return(name, r) for r in RED_COUNTS), Fraction(0)) / n for name in BET_TYPES
    }


__all__ = ["RtpRow", "exact_rtp", "outcome_weights", "rtp_table", "simulate_red_counts", "simulated_rtp", "unit_return"]
