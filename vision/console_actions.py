"""Supervisor actions on a round: a manual result (``confirm``) or a manual ``void``.

Shared by the web console (:mod:`vision.console`) and the command line
(``xocdia confirm`` / ``xocdia void``).  Both talk to the same SQLite file as
the outbox, so they work while a console (or ``xocdia watch``) runs or alone.

Exactly one action per round
    :class:`ActionStore` keeps a ``manual_actions`` table in the outbox file
    whose primary key is the round id: the first action claims the round in a
    ``BEGIN IMMEDIATE`` transaction, every later one (another tab, the CLI,
    a double click) hits the constraint and is refused.  A round that
    already has a record in the outbox (the reader's automatic outcome, or
    the monitor's own void message) is refused as well.

Only on a round the monitor ended for a person to decide
    The watcher records how the monitor ended every round in the outbox's
    ``round_endings`` table (round ids are predictable, so an id alone proves
    nothing).  A confirm needs a round ended ``uncertain`` or ``unfinished``; a
    void needs ``uncertain``, ``unfinished``, ``void`` or ``cancelled``.  An
    unknown round, one still in progress or one the reader settled is refused.

Same path as an automatic outcome
    A confirm is an outcome record built by
    :func:`settlement.records.make_outcome_record` with ``source="manual"``,
    ``by=<supervisor>`` and ``evidence=<the round's evidence frame>``, signed
    with the console's key and committed to the outbox; the deliverer sends it
    to the sink like any other record.

    A void is a signed message ``{"type": "void", "round_id", "reason",
    "ledger_op", "ledger_reason", "note", "by", "source": "manual",
    "evidence", "seq", "created_at", "signature"}``.  The ledger knows two
    refund-everything calls: ``Ledger.void(round_id, reason, note=...)`` for
    the rule sheet's reasons (``no_shake``, ``early_lift``,
    ``bowl_touched_token``) and ``Ledger.cancel(round_id, reason)`` for a
    fault.  A supervisor reason that starts with a rule-sheet code (``no_shake``
    or ``no_shake: dealer forgot``) maps to ``void`` with the rest as the note;
    any other reason (tokens cannot be read, camera fault...) maps to
    ``cancel``.  :func:`apply_to_ledger` does that on the settlement side.

Crash safety: the claim row stores everything needed to build the record
(red / reason, supervisor, evidence path, creation time).  The claim commits
first, then the record goes to the outbox, then the claim is marked
``recorded``.  A claim left ``claimed`` by a crash is finished by
:meth:`ActionStore.finish_claimed` (the console and the CLI call it on
start); :meth:`vision.outbox.Outbox.add` is idempotent by round id, so this
never makes two records.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from settlement.messages import apply_message, void_call
from settlement.records import make_outcome_record, utc_now_iso, valid_round_id
from settlement.ledger import VOID_REASONS
from settlement.signing import sign

from .outbox import CONFIRMABLE, VOIDABLE, Outbox, OutboxError, transaction
from .outbox import SCHEMA as OUTBOX_SCHEMA

#: The ledger's rule-sheet void reasons (settlement.ledger.VOID_REASONS); imported lazily to stay light.
RULE_SHEET_VOIDS = tuple(VOID_REASONS)
MAX_TEXT = 500

SCHEMA = """
CREATE TABLE IF NOT EXISTS manual_actions (
    round_id TEXT PRIMARY KEY,
    action TEXT NOT NULL CHECK (action IN ('confirm', 'void')),
    red INTEGER CHECK (red BETWEEN 0 AND 4),
    reason TEXT,
    by TEXT NOT NULL,
    evidence TEXT,
    created_at TEXT NOT NULL,
    origin TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'claimed' CHECK (state IN ('claimed', 'recorded', 'superseded')),
    seq INTEGER
);
CREATE TABLE IF NOT EXISTS console_audit (
    audit_id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    action TEXT NOT NULL,
    ok INTEGER NOT NULL,
    round_id TEXT,
    by TEXT,
    origin TEXT,
    detail TEXT
);
"""


class ActionRefused(Exception):
    """The action was not taken.  ``status`` is the HTTP status the console answers with."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


class StoreError(ActionRefused):
    """The outbox file cannot be read or written now (locked, disk full, I/O error): nothing was done."""

    def __init__(self, message: str):
        super().__init__(message, 503)


def check_text(name: str, value: Any, *, max_len: int = MAX_TEXT) -> str:
    """A printable, non-empty, trimmed string (the ledger's own rule for names and reasons)."""
    if not isinstance(value, str) or not value.strip():
        raise ActionRefused(f"{name}: required (a non-empty text)", 400)
    value = value.strip()
    if len(value) > max_len or not value.isprintable():
        raise ActionRefused(f"{name}: at most {max_len} printable characters", 400)
    return value


def ledger_void_call(reason: str, by: str) -> tuple[str, str, str | None]:
    """Map a supervisor's void reason to the ledger call: see :func:`settlement.messages.void_call`."""
    return void_call(reason, by)


def make_void_message(round_id: str, reason: str, *, by: str, seq: int, key: bytes | None,
                      evidence: str | None = None, created_at: str | None = None,
                      source: str = "manual") -> dict[str, Any]:
    """The (signed, given ``key``) void message for the outbox: a supervisor's (``source="manual"``) or
    the round monitor's own void or cancel decision (``source="reader"``, ``by="reader"``)."""
    op, ledger_reason, note = void_call(reason, by, source)
    msg = {"type": "void", "round_id": round_id, "reason": reason, "ledger_op": op, "ledger_reason": ledger_reason,
           "note": note, "by": by, "source": source, "evidence": evidence, "seq": seq,
           "created_at": created_at or utc_now_iso()}
    return sign(msg, key) if key is not None else msg


def apply_to_ledger(ledger, message: dict[str, Any], key: bytes) -> dict[str, Any]:
    """Settlement side: apply one delivered record or void message to a :class:`settlement.Ledger`
    (see :func:`settlement.messages.apply_message`; ``key`` must be the ledger's own key)."""
    if key != ledger.hmac_key:
        raise ValueError("key: expected the ledger's own HMAC key")
    return apply_message(ledger, message)


class ActionStore:
    """The ``manual_actions`` and ``console_audit`` tables, in the outbox's SQLite file."""

    def __init__(self, path, *, timeout: float = 10.0):
        self.path = str(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(OUTBOX_SCHEMA + SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _tx(self, fn):
        return transaction(self._lock, self._db, fn, StoreError, f"outbox {self.path}")

    # -- audit ---------------------------------------------------------------
    def audit(self, action: str, ok: bool, *, round_id=None, by=None, origin=None, detail=None) -> None:
        """One audit line (every action, every refusal); never raises."""
        text = detail if detail is None or isinstance(detail, str) else json.dumps(detail, sort_keys=True)
        try:
            self._tx(lambda c: c.execute(
                "INSERT INTO console_audit (at, action, ok, round_id, by, origin, detail) VALUES (?,?,?,?,?,?,?)",
                (utc_now_iso(), action, int(ok), round_id, by, origin, text)))
        except (StoreError, sqlite3.Error):
            pass

    def audit_log(self, limit: int = 200) -> list[dict]:
        with self._lock:
            rows = self._db.execute("SELECT audit_id, at, action, ok, round_id, by, origin, detail FROM console_audit "
                                    "ORDER BY audit_id DESC LIMIT ?", (limit,)).fetchall()
        keys = ("audit_id", "at", "action", "ok", "round_id", "by", "origin", "detail")
        return [dict(zip(keys, r), ok=bool(r[3])) for r in rows]

    # -- actions -------------------------------------------------------------
    def action(self, round_id: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT round_id, action, red, reason, by, evidence, created_at, origin, state, seq "
                                   "FROM manual_actions WHERE round_id = ?", (round_id,)).fetchone()
        if row is None:
            return None
        return dict(zip(("round_id", "action", "red", "reason", "by", "evidence", "created_at", "origin", "state",
                         "seq"), row))

    def actions(self) -> dict[str, dict]:
        with self._lock:
            ids = [r[0] for r in self._db.execute("SELECT round_id FROM manual_actions").fetchall()]
        return {rid: self.action(rid) for rid in ids}

    def _claim(self, round_id: str, action: str, red, reason, by: str, evidence, origin: str) -> dict:
        def work(c):
            old = c.execute("SELECT action, by, created_at FROM manual_actions WHERE round_id = ?",
                            (round_id,)).fetchone()
            if old is not None:
                raise ActionRefused(f"round {round_id}: already acted on ({old[0]} by {old[1]} at {old[2]}); "
                                    "one action per round")
            if c.execute("SELECT 1 FROM outbox WHERE round_id = ?", (round_id,)).fetchone():
                raise ActionRefused(f"round {round_id}: already has a record in the outbox (the reader's outcome "
                                    "or an earlier action); nothing done")
            ended = c.execute("SELECT verdict FROM round_endings WHERE round_id = ?", (round_id,)).fetchone()
            allowed = CONFIRMABLE if action == "confirm" else VOIDABLE
            if ended is None:
                raise ActionRefused(f"round {round_id}: the monitor has not ended this round (unknown round id, or "
                                    f"still in progress); a {action} needs a round it ended "
                                    f"{' or '.join(allowed)}; nothing done")
            if ended[0] not in allowed:
                raise ActionRefused(f"round {round_id}: the monitor ended it as {ended[0]}; a {action} needs a round "
                                    f"it ended {' or '.join(allowed)}; nothing done")
            try:
                c.execute("INSERT INTO manual_actions (round_id, action, red, reason, by, evidence, created_at, origin) "
                          "VALUES (?,?,?,?,?,?,?,?)", (round_id, action, red, reason, by, evidence, utc_now_iso(),
                                                      origin))
            except sqlite3.IntegrityError:
                old = c.execute("SELECT action, by, created_at FROM manual_actions WHERE round_id = ?",
                                (round_id,)).fetchone()
                raise ActionRefused(f"round {round_id}: already acted on ({old[0]} by {old[1]} at {old[2]}); "
                                    "one action per round") from None
        self._tx(work)
        return self.action(round_id)

    def _record(self, claim: dict, outbox: Outbox, key: bytes) -> dict:
        rid = claim["round_id"]
        if claim["action"] == "confirm":
            def build(seq):
                return make_outcome_record(rid, int(claim["red"]), seq=seq, key=key, tokens=[], confidence=1.0,
                                           evidence=claim["evidence"], created_at=claim["created_at"],
                                           source="manual", by=claim["by"])
        else:
            def build(seq):
                return make_void_message(rid, claim["reason"], by=claim["by"], seq=seq, key=key,
                                         evidence=claim["evidence"], created_at=claim["created_at"])
        rec = outbox.add(rid, build)
        mine = rec.get("source") == "manual" and rec.get("by") == claim["by"] \
            and rec.get("created_at") == claim["created_at"]
        state = "recorded" if mine else "superseded"
        self._tx(lambda c: c.execute("UPDATE manual_actions SET state = ?, seq = ? WHERE round_id = ?",
                                     (state, rec.get("seq"), rid)))
        if not mine:
            raise ActionRefused(f"round {rid}: the outbox already had another record (seq {rec.get('seq')}); "
                                "the manual action was not recorded")
        return rec

    def act(self, outbox: Outbox, key: bytes, round_id: Any, action: str, *, red: Any = None, reason: Any = None,
            by: Any, evidence: str | None = None, origin: str = "cli") -> dict:
        """Take one action (``confirm`` with ``red``, ``void`` with ``reason``); return the stored record.

        Raises :class:`ActionRefused` (with an HTTP status) when nothing was done;
        every attempt, taken or refused, is written to ``console_audit``.
        """
        who = by if isinstance(by, str) else None
        rid = round_id if isinstance(round_id, str) else None
        try:
            if not valid_round_id(round_id):
                raise ActionRefused(f"round id {round_id!r}: expected 1-64 characters of [A-Za-z0-9._:-]", 400)
            by = check_text("by", by, max_len=128)
            if action == "confirm":
                if isinstance(red, bool) or not isinstance(red, int) or not 0 <= red <= 4:
                    raise ActionRefused(f"red: expected an integer 0-4, got {red!r}", 400)
                reason = None
            elif action == "void":
                reason = check_text("reason", reason)
                red = None
            else:
                raise ActionRefused(f"unknown action {action!r}", 400)
            claim = self._claim(round_id, action, red, reason, by, evidence, origin)
            try:
                rec = self._record(claim, outbox, key)
            except OutboxError as exc:
                # the claim stays: finish_claimed() stores the record once the outbox is writable
                raise ActionRefused(f"round {round_id}: claimed, but the outbox cannot store the record now ({exc}); "
                                    "it is stored on the next start", 503) from exc
        except ActionRefused as exc:
            self.audit(action, False, round_id=rid, by=who, origin=origin, detail=str(exc))
            raise
        self.audit(action, True, round_id=round_id, by=by, origin=origin,
                   detail={"red": red, "reason": reason, "seq": rec.get("seq"), "evidence": evidence})
        return rec

    def finish_claimed(self, outbox: Outbox, key: bytes) -> list[str]:
        """Store the records of claims a crash left unrecorded; return their round ids."""
        with self._lock:
            ids = [r[0] for r in self._db.execute(
                "SELECT round_id FROM manual_actions WHERE state = 'claimed' ORDER BY created_at").fetchall()]
        done = []
        for rid in ids:
            try:
                self._record(self.action(rid), outbox, key)
                done.append(rid)
            except (ActionRefused, OutboxError):
                continue
        return done


def evidence_for(evidence_dir, round_id: str) -> str | None:
    """The round's evidence frame ``<dir>/<round_id>.jpg`` as an absolute path, if it exists."""
    if not evidence_dir or not valid_round_id(round_id):
        return None
    p = Path(evidence_dir) / f"{round_id}.jpg"
    return str(p.resolve()) if p.is_file() else None


__all__ = ["ActionRefused", "ActionStore", "RULE_SHEET_VOIDS", "StoreError", "apply_to_ledger", "check_text", "evidence_for",
           "ledger_void_call", "make_void_message"]
