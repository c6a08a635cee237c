"""Applying what the reader side delivers: outcome records and manual void messages.

The round monitor delivers signed **outcome records** (:mod:`settlement.records`).
The supervisor console also delivers signed **void messages** when a person voids
a round the reader could not settle::

    {"type": "void", "round_id", "reason", "ledger_op": "void" | "cancel",
     "ledger_reason", "note", "by", "source": "manual", "evidence", "seq",
     "created_at", "signature"}

A reason that starts with a rule-sheet code (``no_shake``, ``early_lift``,
``bowl_touched_token``, ``layout_unchanged``, optionally ``: note``) is a
rule-sheet void; any other reason cancels the round (a fault). Either way every
bet is refunded. :func:`apply_message` verifies the signature with the
ledger's key, checks that the message's ledger call is the one its reason maps
to, and writes every refusal to the ledger's audit table.
"""
from __future__ import annotations

from typing import Any

from .errors import RecordError, SettlementError, SignatureError
from .ledger import VOID_REASONS, Ledger
from .signing import verify

#: Longest text kept in a void's reason or note.
MAX_TEXT = 500


#: Who decided a void: a person at the console, or the reader's round monitor.
VOID_SOURCES = {"manual": "manual void by", "reader": "void by the reader"}


def void_call(reason: str, by: str, source: str = "manual") -> tuple[str, str, str | None]:
    """Map a void reason to the ledger call ``(op, ledger_reason, note)``.

    ``"no_shake"`` or ``"no_shake: text"`` -> ``("void", "no_shake", "manual void by BY[: text]")``;
    anything else -> ``("cancel", "manual void by BY: REASON", None)``.  With
    ``source="reader"`` the words are "void by the reader" (the round
    monitor's own decision) and ``by`` is not repeated.
    """
    if not isinstance(reason, str) or not isinstance(by, str):
        raise TypeError(f"reason, by: expected str, got {type(reason).__name__}, {type(by).__name__}")
    if source not in VOID_SOURCES:
        raise ValueError(f"source: expected one of {tuple(VOID_SOURCES)}, got {source!r}")
    who = f"{VOID_SOURCES[source]} {by}" if source == "manual" else VOID_SOURCES[source]
    head, _, rest = reason.partition(":")
    code = head.strip()
    if code in VOID_REASONS:
        note = who + (f": {rest.strip()}" if rest.strip() else "")
        return "void", code, note[:MAX_TEXT]
    return "cancel", f"{who}: {reason}"[:MAX_TEXT], None


def apply_message(ledger: Ledger, message: Any) -> dict[str, Any]:
    """Apply one delivered outcome record or void message to ``ledger``.

    Returns
    -------
    dict
        The round summary after ``settle``, ``void`` or ``cancel``.

    Raises
    ------
    SignatureError
        A void message whose signature does not verify with the ledger's key
        (outcome records are checked by :meth:`Ledger.settle`).
    RecordError
        Not an outcome record or a void message, or a void message whose
        ledger call does not match its reason.
    """
    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "outcome":
        return ledger.settle(message.get("round_id"), message)
    rid = message.get("round_id") if isinstance(message, dict) else None
    try:
        if kind != "void":
            raise RecordError(f"expected an outcome record or a void message, got type {kind!r}")
        if not isinstance(rid, str) or not rid:
            raise RecordError(f"void message: round_id: expected a non-empty string, got {rid!r}")
        if ledger.hmac_key is None:
            raise SettlementError(f"round {rid!r}: the ledger has no HMAC key; cannot verify the void message")
        if not verify(message, ledger.hmac_key):
            raise SignatureError(f"round {rid!r}: the void message's signature does not verify; nothing refunded")
        reason, by = message.get("reason"), message.get("by")
        if not isinstance(reason, str) or not isinstance(by, str) or not by:
            raise RecordError(f"round {rid!r}: void message: reason and by must be non-empty strings")
        source = message.get("source", "manual")
        if source not in VOID_SOURCES:
            raise RecordError(f"round {rid!r}: void message: source: expected one of {tuple(VOID_SOURCES)}, "
                              f"got {source!r}")
        expected = void_call(reason, by, source)
        if expected != (message.get("ledger_op"), message.get("ledger_reason"), message.get("note")):
            raise RecordError(f"round {rid!r}: the void message's ledger call does not match its reason")
    except SettlementError as exc:
        ledger.refuse("apply_message", rid, exc)
        raise
    op, ledger_reason, note = expected
    if op == "void":
        return ledger.void(rid, ledger_reason, note=note)
    return ledger.cancel(rid, ledger_reason)


__all__ = ["MAX_TEXT", "VOID_SOURCES", "apply_message", "void_call"]
