"""Bet types and payouts of Xoc Dia (pure functions, no I/O).

Four red/white tokens are shaken under a bowl; the number of red faces up
after the bowl is lifted (0-4) decides every bet.

=============  ==========================  =======  ===============
bet type       wins on red count           odds     refunded on
=============  ==========================  =======  ===============
four_red       4                           14:1
three_red      3 (3 red 1 white)           2.8:1
two_two        2                           1.5:1
three_white    1 (1 red 3 white)           2.8:1
four_white     0                           14:1
four_same      0 or 4                      6.5:1
odd            1 or 3                      0.96:1
even           0, 2 or 4                   0.96:1
big            3 or 4                      0.96:1   2 (two-two)
small          0 or 1 (3 or 4 white)       0.96:1   2 (two-two)
=============  ==========================  =======  ===============

A win returns the stake plus ``stake x odds``; a loss returns nothing; a
refund returns the stake.

Money and rounding
------------------
Money is never a float.  Amounts are :class:`decimal.Decimal` in currency
units (an ``int`` means whole units) or ``int`` *minor units* (cents for a
currency with 2 minor digits).  A stake must be an exact number of minor
units.  The winnings ``stake x odds`` are computed exactly (odds are
:class:`fractions.Fraction`) and then rounded **half-even** (banker's
rounding) to the currency's minor unit; the stake is added back unrounded.
For example, with 2 minor digits a 0.15 stake on ``two_two`` wins
0.15 x 1.5 = 0.225 -> 0.22 and returns 0.37, while a 0.25 stake wins 0.375
-> 0.38 and returns 0.63.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping

RESULTS = ("win", "lose", "refund")
RED_COUNTS = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class BetType:
    """One kind of bet.

    Attributes
    ----------
    name : str
        The identifier used everywhere (ledger, CLI, JSON).
    odds : Fraction
        Winnings per unit staked, e.g. ``Fraction(24, 25)`` for 0.96:1.
    wins : frozenset of int
        Red counts on which the bet wins.
    refunds : frozenset of int
        Red counts on which the stake is returned.
    description : str
        Human-readable description.
    """

    name: str
    odds: Fraction
    wins: frozenset[int]
    refunds: frozenset[int]
    description: str

    def result(self, red_count: int) -> str:
        """``"win"``, ``"lose"`` or ``"refund"`` for a red count 0-4."""
        _check_red(red_count)
        if red_count in self.wins:
            return "win"
        if red_count in self.refunds:
            return "refund"
        return "lose"


def _bt(name: str, odds: str, wins: tuple[int, ...], refunds: tuple[int, ...], description: str) -> BetType:
    return BetType(name, Fraction(Decimal(odds)), frozenset(wins), frozenset(refunds), description)


#: Every bet type by identifier, in display order.
BET_TYPES: Mapping[str, BetType] = MappingProxyType({
    b.name: b
    for b in (
        _bt("four_red", "14", (4,), (), "4 red"),
        _bt("three_red", "2.8", (3,), (), "3 red 1 white"),
        _bt("two_two", "1.5", (2,), (), "2 red 2 white"),
        _bt("three_white", "2.8", (1,), (), "1 red 3 white"),
        _bt("four_white", "14", (0,), (), "4 white"),
        _bt("four_same", "6.5", (0, 4), (), "4 red or 4 white"),
        _bt("odd", "0.96", (1, 3), (), "1 or 3 red"),
        _bt("even", "0.96", (0, 2, 4), (), "0, 2 or 4 red"),
        _bt("big", "0.96", (3, 4), (2,), "3 or 4 red; refunded on 2-2"),
        _bt("small", "0.96", (0, 1), (2,), "3 or 4 white; refunded on 2-2"),
    )
})


def _check_red(red_count: object) -> None:
    if not isinstance(red_count, int) or isinstance(red_count, bool) or not 0 <= red_count <= 4:
        raise ValueError(f"red_count: expected an integer 0-4, got {red_count!r}")


def bet_type(name: object) -> BetType:
    """The :class:`BetType` called ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not a known bet type; the message lists the known ones.
    """
    if not isinstance(name, str) or name not in BET_TYPES:
        raise ValueError(f"bet_type: unknown bet type {name!r}; expected one of {', '.join(BET_TYPES)}")
    return BET_TYPES[name]


def format_odds(odds: Fraction) -> str:
    """Odds as ``"2.8:1"``."""
    return f"{Decimal(odds.numerator) / Decimal(odds.denominator):f}".rstrip("0").rstrip(".") + ":1"


def to_minor(amount: object, minor_units: int = 2, *, name: str = "amount") -> int:
    """Convert a money amount in currency units to integer minor units, exactly.

    Parameters
    ----------
    amount : Decimal, int or str
        ``Decimal("10.50")``, ``10`` (whole units) or ``"10.50"``.  Floats are refused.
    minor_units : int
        Digits after the decimal point of the currency (2 for cents).
    name : str
        Parameter name used in error messages.

    Raises
    ------
    TypeError
        If ``amount`` is a float, bool or another type.
    ValueError
        If ``amount`` is not finite or not a whole number of minor units.
    """
    _check_minor_units(minor_units)
    if isinstance(amount, bool) or isinstance(amount, float):
        raise TypeError(f"{name}: money must be Decimal, int or a decimal string, never {type(amount).__name__} ({amount!r})")
    if isinstance(amount, int):
        return amount * 10**minor_units
    if isinstance(amount, str):
        try:
            amount = Decimal(amount.strip())
        except InvalidOperation:
            raise ValueError(f"{name}: not a decimal number: {amount!r}") from None
    if not isinstance(amount, Decimal):
        raise TypeError(f"{name}: money must be Decimal, int or a decimal string, got {type(amount).__name__}")
    if not amount.is_finite():
        raise ValueError(f"{name}: expected a finite amount, got {amount}")
    scaled = Fraction(amount) * 10**minor_units
    if scaled.denominator != 1:
        raise ValueError(f"{name}: {amount} is not a whole number of minor units ({minor_units} decimal places)")
    return int(scaled)


def from_minor(minor: int, minor_units: int = 2) -> Decimal:
    """Integer minor units to a :class:`Decimal` with ``minor_units`` decimal places."""
    _check_minor_units(minor_units)
    if not isinstance(minor, int) or isinstance(minor, bool):
        raise TypeError(f"minor: expected int, got {type(minor).__name__}")
    return Decimal(minor).scaleb(-minor_units) if minor_units else Decimal(minor)


def _check_minor_units(minor_units: object) -> None:
    if not isinstance(minor_units, int) or isinstance(minor_units, bool) or not 0 <= minor_units <= 6:
        raise ValueError(f"minor_units: expected an integer 0-6, got {minor_units!r}")


def payout_minor(bet_type_name: str, red_count: int, stake_minor: int) -> tuple[str, int]:
    """Result and amount returned for a stake in integer minor units.

    Parameters
    ----------
    bet_type_name : str
        One of :data:`BET_TYPES`.
    red_count : int
        Red faces up, 0-4.
    stake_minor : int
        Stake in minor units, > 0.

    Returns
    -------
    (str, int)
        ``("win", stake + round_half_even(stake * odds))``, ``("lose", 0)`` or
        ``("refund", stake)``.
    """
    bt = bet_type(bet_type_name)
    if not isinstance(stake_minor, int) or isinstance(stake_minor, bool) or stake_minor <= 0:
        raise ValueError(f"stake_minor: expected a positive integer, got {stake_minor!r}")
    result = bt.result(red_count)
    if result == "win":
        # round() of a Fraction rounds half to even.
        return result, stake_minor + round(stake_minor * bt.odds)
    if result == "refund":
        return result, stake_minor
    return result, 0


def payout(bet_type: str, red_count: int, stake: Decimal | int | str, *, minor_units: int = 2) -> tuple[str, Decimal]:
    """Result and amount returned for a stake in currency units.

    Parameters
    ----------
    bet_type : str
        One of :data:`BET_TYPES`.
    red_count : int
        Red faces up, 0-4.
    stake : Decimal, int or str
        Stake in currency units (an int is whole units), a whole number of
        minor units, > 0.
    minor_units : int
        Decimal places of the currency.

    Returns
    -------
    (str, Decimal)
        ``result`` in ``{"win", "lose", "refund"}`` and the amount returned to
        the player (stake included), rounded half-even to the minor unit.

    Examples
    --------
    >>> payout("big", 4, Decimal("10"))
    ('win', Decimal('19.60'))
    >>> payout("big", 2, Decimal("10"))
    ('refund', Decimal('10.00'))
    """
    stake_minor = to_minor(stake, minor_units, name="stake")
    if stake_minor <= 0:
        raise ValueError(f"stake: expected a positive amount, got {stake}")
    result, returned = payout_minor(bet_type, red_count, stake_minor)
    return result, from_minor(returned, minor_units)


__all__ = [
    "BET_TYPES",
    "RED_COUNTS",
    "RESULTS",
    "BetType",
    "bet_type",
    "format_odds",
    "from_minor",
    "payout",
    "payout_minor",
    "to_minor",
]
