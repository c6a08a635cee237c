"""Exceptions of the settlement core.

Every exception raised on purpose by :mod:`settlement` derives from
:class:`SettlementError` and carries a short machine-readable ``code`` (used
by the JSON-lines service and the CLI) and a message that names the round,
player or field concerned.

==================  ================  ==========================================
class               code              raised when
==================  ================  ==========================================
SettlementError     settlement_error  base class
InvalidArgument     invalid_argument  a malformed id, reason or setting
BetRejected         bet_rejected      a bet fails validation (type, stake, limits)
UnknownPlayer       unknown_player    the player was never added to the ledger
UnknownRound        unknown_round     the round was never opened
RoundStateError     round_state       the round's state forbids the operation
SignatureError      signature         an outcome record's HMAC does not verify
RecordError         record            an outcome record's fields are malformed
LedgerConfigError   ledger_config     the ledger file's settings do not match
==================  ================  ==========================================

The ``InvalidArgument``, ``BetRejected``, ``RecordError`` and ``LedgerConfigError`` classes are
also :class:`ValueError`, so callers that treat bad input generically keep
working.
"""
from __future__ import annotations


class SettlementError(Exception):
    """Base class of every exception the settlement core raises on purpose."""

    code = "settlement_error"


class InvalidArgument(SettlementError, ValueError):
    """A malformed argument (round id, player name, reason); the message names it."""

    code = "invalid_argument"


class BetRejected(SettlementError, ValueError):
    """A bet that cannot be accepted: unknown bet type, bad or out-of-limit stake."""

    code = "bet_rejected"


class UnknownPlayer(SettlementError, LookupError):
    """The player is not registered in the ledger."""

    code = "unknown_player"


class UnknownRound(SettlementError, LookupError):
    """The round does not exist in the ledger."""

    code = "unknown_round"


class RoundStateError(SettlementError):
    """The round's state forbids the operation (e.g. settling a void round)."""

    code = "round_state"


class SignatureError(SettlementError):
    """An outcome record whose HMAC signature is missing, malformed or wrong."""

    code = "signature"


class RecordError(SettlementError, ValueError):
    """An outcome record with a missing, extra or malformed field."""

    code = "record"


class LedgerConfigError(SettlementError, ValueError):
    """The ledger file was created with different settings (minor units, limits)."""

    code = "ledger_config"


__all__ = [
    "BetRejected",
    "InvalidArgument",
    "LedgerConfigError",
    "RecordError",
    "RoundStateError",
    "SettlementError",
    "SignatureError",
    "UnknownPlayer",
    "UnknownRound",
]
