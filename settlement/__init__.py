"""Settlement core: bets, payouts, voids and a ledger that never pays twice.

See ``settlement/README.md`` for the integrator's guide.
"""
from __future__ import annotations

from .errors import (
    BetRejected, InvalidArgument, LedgerConfigError, RecordError, RoundStateError, SettlementError,
    SignatureError, UnknownPlayer, UnknownRound,
)
from .ledger import VOID_REASONS, Ledger
from .payouts import BET_TYPES, BetType, payout, payout_minor
from .records import make_outcome_record, validate_outcome_record
from .signing import canonical_bytes, load_key, sign, verify

__all__ = [
    "BET_TYPES", "VOID_REASONS", "BetRejected", "BetType", "InvalidArgument", "Ledger", "LedgerConfigError",
    "RecordError", "RoundStateError", "SettlementError", "SignatureError", "UnknownPlayer", "UnknownRound",
    "canonical_bytes", "load_key", "make_outcome_record", "payout", "payout_minor", "sign",
    "validate_outcome_record", "verify",
]
