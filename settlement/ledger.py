"""The settlement ledger: rounds, bets and payouts in one SQLite file.

Life of a round::

    open --close_betting--> closed --settle(record)--> settled
      |                       |
      +--void/cancel----------+-------------------->  void | cancelled

* ``place_bet`` is accepted only while the round is open and not paused.
* ``settle`` needs a closed round and an outcome record whose HMAC verifies
  (:mod:`settlement.signing`) and whose fields validate
  (:mod:`settlement.records`).  Every bet is settled (win, lose, refund) in one
  transaction.  The record's round id is the idempotency key: replaying the
  same signed record returns the same result and pays nothing more; a
  different record for a settled round is refused.
* ``void`` (rule-sheet voids: no shake, early lift, bowl touched a token) and
  ``cancel`` (a fault that could not be fixed quickly) refund every bet.
  ``pause``/``resume`` hold a round while a fault is looked at.
* A player's confirmed bets stand whether or not the player is still
  connected; nothing in settlement depends on the player.

Money is stored as integer minor units; the Python API takes and returns
:class:`decimal.Decimal` currency units (see :mod:`settlement.payouts` for the
half-even rounding).  For every finished round, ``stakes = refunds + payouts +
house`` where ``payouts`` is what winning bets returned (stake included) and
``house`` is the house result (negative when the house lost).

Concurrency: the file is in WAL mode; every write is a ``BEGIN IMMEDIATE``
transaction (writers queue on the busy timeout), so any number of processes
may share one ledger file.  Every state change and every refusal is written to
the ``audit`` table.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Callable, Iterator

from .errors import (
    BetRejected, InvalidArgument, LedgerConfigError, RecordError, RoundStateError, SettlementError,
    SignatureError, UnknownPlayer,
)
from .payouts import BET_TYPES, from_minor, payout_minor, to_minor
from .reports import FINISHED, LedgerReports
from .records import record_sha256, utc_now_iso, valid_round_id, validate_outcome_record
from .signing import verify

#: Reasons accepted by :meth:`Ledger.void`, from the studio's rule sheet.
VOID_REASONS = {
    "no_shake": "the dealer forgot to shake",
    "early_lift": "the bowl was lifted before betting closed",
    "bowl_touched_token": "the bowl touched a token while being lifted",
    # What the camera sees of a forgotten shake: the same layout as last round.
    "layout_unchanged": "the layout did not change since the last round (the dealer forgot to shake)",
}
#: The round monitor's void codes that are faults, not rule-sheet voids: the
#: integrator cancels the round (every bet refunded) instead of voiding it.
CANCEL_CODES = {
    "reveal_not_seen": "a camera gap hid the reveal",
}
ROUND_STATES = ("open", "closed", "settled", "void", "cancelled")
SCHEMA_VERSION = "1"

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS players (player TEXT PRIMARY KEY, created_at TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS rounds (
        round_id TEXT PRIMARY KEY,
        state TEXT NOT NULL CHECK (state IN ('open','closed','settled','void','cancelled')),
        paused INTEGER NOT NULL DEFAULT 0, pause_reason TEXT,
        opened_at TEXT NOT NULL, closed_at TEXT, finished_at TEXT, reason TEXT,
        red INTEGER CHECK (red BETWEEN 0 AND 4),
        stakes_minor INTEGER, refunds_minor INTEGER, payouts_minor INTEGER, house_minor INTEGER)""",
    """CREATE TABLE IF NOT EXISTS settlements (
        round_id TEXT PRIMARY KEY REFERENCES rounds(round_id),
        record_sha256 TEXT NOT NULL UNIQUE, seq INTEGER NOT NULL, source TEXT NOT NULL, by TEXT,
        red INTEGER NOT NULL, record_json TEXT NOT NULL, settled_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS bets (
        bet_id INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id TEXT NOT NULL REFERENCES rounds(round_id),
        player TEXT NOT NULL REFERENCES players(player),
        bet_type TEXT NOT NULL, stake_minor INTEGER NOT NULL CHECK (stake_minor > 0), ref TEXT,
        state TEXT NOT NULL CHECK (state IN ('confirmed','settled','refunded')),
        result TEXT CHECK (result IN ('win','lose','refund')),
        returned_minor INTEGER CHECK (returned_minor >= 0),
        placed_at TEXT NOT NULL, settled_at TEXT,
        UNIQUE (round_id, player, ref))""",
    "CREATE INDEX IF NOT EXISTS bets_by_player ON bets(player, bet_id)",
    "CREATE INDEX IF NOT EXISTS bets_by_round ON bets(round_id, bet_id)",
    """CREATE TABLE IF NOT EXISTS audit (
        audit_id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, action TEXT NOT NULL,
        ok INTEGER NOT NULL, round_id TEXT, player TEXT, code TEXT, detail TEXT)""",
]


def _check_text(name: str, value: Any, max_len: int) -> str:
    if not isinstance(value, str) or not value or len(value) > max_len or value != value.strip() \
            or not value.isprintable():
        raise InvalidArgument(f"{name}: expected 1-{max_len} printable characters without surrounding "
                              f"spaces, got {value!r}")
    return value


class Ledger(LedgerReports):
    """A settlement ledger stored in one SQLite file (created on first use).

    Parameters
    ----------
    path : str or path-like
        The SQLite file.
    currency_minor_units : int, optional
        Decimal places of the currency (2 for cents).  Default: the stored
        value, or 2 for a new ledger.
    table_min, table_max : Decimal, int or str, optional
        Smallest and largest stake of one bet, in currency units.  Required
        for a new ledger; default: the stored values.
    hmac_key : bytes, optional
        Key of the outcome records; needed by :meth:`settle` only.
    timeout : float
        Seconds a write waits for another process's transaction.

    Raises
    ------
    LedgerConfigError
        If an explicit setting differs from the one the file was created with,
        or a new ledger lacks its table limits.
    """

    def __init__(self, path: str | os.PathLike[str], *, currency_minor_units: int | None = None,
                 table_min: Decimal | int | str | None = None, table_max: Decimal | int | str | None = None,
                 hmac_key: bytes | None = None, timeout: float = 30.0) -> None:
        if hmac_key is not None and not isinstance(hmac_key, (bytes, bytearray)):
            raise TypeError(f"hmac_key: expected bytes, got {type(hmac_key).__name__}")
        self.path = os.fspath(path)
        self._key = bytes(hmac_key) if hmac_key is not None else None
        self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        try:
            self._setup(timeout, currency_minor_units, table_min, table_max)
        except BaseException:
            self._conn.close()
            raise

    # ------------------------------------------------------------ plumbing
    def _setup(self, timeout: float, minor: int | None, tmin: Any, tmax: Any) -> None:
        c = self._conn
        c.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        for attempt in range(50):
            try:
                mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError:
                if attempt == 49:
                    raise
                time.sleep(0.05)
        if self.path != ":memory:" and mode.lower() != "wal":
            raise LedgerConfigError(f"ledger {self.path!r}: could not switch to WAL mode (got {mode})")
        c.execute("PRAGMA synchronous = FULL")
        c.execute("PRAGMA foreign_keys = ON")
        c.row_factory = sqlite3.Row
        with self._write():
            for stmt in _SCHEMA:
                c.execute(stmt)
            meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
            if not meta:
                minor = 2 if minor is None else minor
                if tmin is None or tmax is None:
                    raise LedgerConfigError(f"ledger {self.path!r} is new: give table_min and table_max")
                lo, hi = self._limits(minor, tmin, tmax)
                c.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("schema_version", SCHEMA_VERSION), ("minor_units", str(minor)),
                    ("table_min_minor", str(lo)), ("table_max_minor", str(hi))])
                self._audit(c, "create_ledger", detail={"minor_units": minor, "table_min": lo, "table_max": hi})
                meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
        self.minor_units = int(meta["minor_units"])
        if minor is not None and minor != self.minor_units:
            raise LedgerConfigError(f"ledger {self.path!r} uses {self.minor_units} minor units, not {minor}")
        self._min, self._max = int(meta["table_min_minor"]), int(meta["table_max_minor"])
        for name, given, stored in (("table_min", tmin, self._min), ("table_max", tmax, self._max)):
            if given is not None and self._to_minor(given, name, InvalidArgument) != stored:
                raise LedgerConfigError(f"ledger {self.path!r} has {name}={self._money(stored)}, not {given}")

    def _limits(self, minor: int, tmin: Any, tmax: Any) -> tuple[int, int]:
        self.minor_units = minor
        lo = self._to_minor(tmin, "table_min", InvalidArgument)
        hi = self._to_minor(tmax, "table_max", InvalidArgument)
        if not 0 < lo <= hi:
            raise InvalidArgument(f"table_min, table_max: expected 0 < table_min <= table_max, got {tmin}, {tmax}")
        return lo, hi

    def _to_minor(self, amount: Any, name: str, exc: type[SettlementError]) -> int:
        try:
            return to_minor(amount, self.minor_units, name=name)
        except (TypeError, ValueError) as e:
            raise exc(str(e)) from None

    @property
    def table_min(self) -> Decimal:
        """Smallest stake of one bet, currency units."""
        return from_minor(self._min, self.minor_units)

    @property
    def table_max(self) -> Decimal:
        """Largest stake of one bet, currency units."""
        return from_minor(self._max, self.minor_units)

    def close(self) -> None:
        """Close the database connection."""
        self._conn.close()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    @staticmethod
    def _audit(c: sqlite3.Connection, action: str, *, ok: bool = True, round_id: Any = None, player: Any = None,
               code: str | None = None, detail: Any = None) -> None:
        text = detail if isinstance(detail, str) or detail is None else json.dumps(detail, sort_keys=True, default=str)
        c.execute("INSERT INTO audit (at, action, ok, round_id, player, code, detail) VALUES (?,?,?,?,?,?,?)",
                  (utc_now_iso(), action, int(ok), None if round_id is None else str(round_id),
                   None if player is None else str(player), code, text))

    def _run(self, action: str, round_id: Any, player: Any, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``fn`` in one write transaction; log a refusal in its own transaction."""
        try:
            with self._write() as c:
                return fn(c)
        except SettlementError as exc:
            try:
                with self._write() as c:
                    self._audit(c, action, ok=False, round_id=round_id, player=player, code=exc.code, detail=str(exc))
            except sqlite3.Error as log_exc:  # pragma: no cover - the refusal still stands
                if hasattr(exc, "add_note"):
                    exc.add_note(f"(the refusal could not be written to the audit table: {log_exc})")
            raise

    @property
    def hmac_key(self) -> bytes | None:
        """The key outcome records and void messages are verified with."""
        return self._key

    def refuse(self, action: str, round_id: Any, exc: SettlementError) -> None:
        """Write a refusal decided outside the ledger (e.g. a forged void message) to the audit table."""
        try:
            with self._write() as c:
                self._audit(c, action, ok=False, round_id=round_id, code=exc.code, detail=str(exc))
        except sqlite3.Error as log_exc:  # pragma: no cover - the refusal still stands
            if hasattr(exc, "add_note"):
                exc.add_note(f"(the refusal could not be written to the audit table: {log_exc})")

    # ------------------------------------------------------------ players and rounds
    def add_player(self, player: str) -> dict[str, Any]:
        """Register a player (idempotent); returns ``{"player", "created"}``."""
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            _check_text("player", player, 128)
            created = c.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (player, utc_now_iso())).rowcount == 1
            if created:
                self._audit(c, "add_player", player=player)
            return {"player": player, "created": created}
        return self._run("add_player", None, player, work)

    def open_round(self, round_id: str) -> dict[str, Any]:
        """Open a new round for betting; an id can be used once."""
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            if not valid_round_id(round_id):
                raise InvalidArgument(f"round_id: expected 1-64 characters of [A-Za-z0-9._:-], got {round_id!r}")
            old = c.execute("SELECT state FROM rounds WHERE round_id = ?", (round_id,)).fetchone()
            if old is not None:
                raise RoundStateError(f"round {round_id!r} already exists (state {old[0]})")
            c.execute("INSERT INTO rounds (round_id, state, opened_at) VALUES (?, 'open', ?)", (round_id, utc_now_iso()))
            self._audit(c, "open_round", round_id=round_id)
            return self._summary(c, round_id)
        return self._run("open_round", round_id, None, work)

    def close_betting(self, round_id: str) -> dict[str, Any]:
        """Close betting (open -> closed)."""
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            row = self._round_row(c, round_id)
            if row["state"] != "open":
                raise RoundStateError(f"round {round_id!r} is {row['state']}; only an open round can close betting")
            if row["paused"]:
                raise RoundStateError(f"round {round_id!r} is paused ({row['pause_reason']}); resume it first")
            c.execute("UPDATE rounds SET state = 'closed', closed_at = ? WHERE round_id = ?", (utc_now_iso(), round_id))
            self._audit(c, "close_betting", round_id=round_id)
            return self._summary(c, round_id)
        return self._run("close_betting", round_id, None, work)

    def pause(self, round_id: str, reason: str) -> dict[str, Any]:
        """Pause an open or closed round after an unexpected fault."""
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            _check_text("reason", reason, 500)
            row = self._round_row(c, round_id)
            if row["state"] in FINISHED:
                raise RoundStateError(f"round {round_id!r} is already {row['state']}; it cannot be paused")
            c.execute("UPDATE rounds SET paused = 1, pause_reason = ? WHERE round_id = ?", (reason, round_id))
            self._audit(c, "pause", round_id=round_id, detail=reason)
            return self._summary(c, round_id)
        return self._run("pause", round_id, None, work)

    def resume(self, round_id: str) -> dict[str, Any]:
        """Resume a paused round (the fault was fixed quickly)."""
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            row = self._round_row(c, round_id)
            if not row["paused"] or row["state"] in FINISHED:
                raise RoundStateError(f"round {round_id!r} is {row['state']} and not paused")
            c.execute("UPDATE rounds SET paused = 0, pause_reason = NULL WHERE round_id = ?", (round_id,))
            self._audit(c, "resume", round_id=round_id)
            return self._summary(c, round_id)
        return self._run("resume", round_id, None, work)

    # ------------------------------------------------------------ bets
    def place_bet(self, round_id: str, player: str, bet_type: str, stake: Decimal | int | str, *,
                  ref: str | None = None) -> dict[str, Any]:
        """Place a confirmed bet on an open round.

        Parameters
        ----------
        round_id, player : str
        bet_type : str
            One of :data:`settlement.payouts.BET_TYPES`.
        stake : Decimal, int or str
            Currency units, a whole number of minor units, within the table limits.
        ref : str, optional
            Client reference: placing again with the same (round, player, ref)
            returns the first bet instead of a second one (safe retries).

        Returns
        -------
        dict
            The bet (see :meth:`history` for the keys), with ``"replay"``.

        Raises
        ------
        BetRejected, UnknownPlayer, UnknownRound, RoundStateError
        """
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            if not isinstance(bet_type, str) or bet_type not in BET_TYPES:
                raise BetRejected(f"round {round_id!r}, player {player!r}: unknown bet type {bet_type!r}; "
                                  f"expected one of {', '.join(BET_TYPES)}")
            stake_minor = self._to_minor(stake, "stake", BetRejected)
            if not self._min <= stake_minor <= self._max:
                raise BetRejected(f"round {round_id!r}, player {player!r}: stake {stake} is outside the table "
                                  f"limits {self.table_min}-{self.table_max}")
            if ref is not None:
                _check_text("ref", ref, 128)
            if not isinstance(player, str) or c.execute(
                    "SELECT 1 FROM players WHERE player = ?", (player,)).fetchone() is None:
                raise UnknownPlayer(f"player {player!r} is not registered (add_player first)")
            row = self._round_row(c, round_id)
            if ref is not None:
                old = c.execute("SELECT bet_id, bet_type, stake_minor FROM bets WHERE round_id = ? AND player = ? "
                                "AND ref = ?", (round_id, player, ref)).fetchone()
                if old is not None:
                    if (old[1], old[2]) != (bet_type, stake_minor):
                        raise BetRejected(f"round {round_id!r}, player {player!r}: ref {ref!r} was already used "
                                          f"for bet {old[0]} ({old[1]} {self._money(old[2])})")
                    return dict(self._bets(c, "b.bet_id = ?", (old[0],))[0], replay=True)
            if row["state"] != "open":
                raise RoundStateError(f"round {round_id!r} is {row['state']}: betting is closed, bet refused")
            if row["paused"]:
                raise RoundStateError(f"round {round_id!r} is paused ({row['pause_reason']}): bet refused")
            cur = c.execute("INSERT INTO bets (round_id, player, bet_type, stake_minor, ref, state, placed_at) "
                            "VALUES (?, ?, ?, ?, ?, 'confirmed', ?)",
                            (round_id, player, bet_type, stake_minor, ref, utc_now_iso()))
            self._audit(c, "place_bet", round_id=round_id, player=player,
                        detail={"bet_id": cur.lastrowid, "bet_type": bet_type, "stake_minor": stake_minor})
            return dict(self._bets(c, "b.bet_id = ?", (cur.lastrowid,))[0], replay=False)
        return self._run("place_bet", round_id, player, work)

    # ------------------------------------------------------------ settlement
    def settle(self, round_id: str, outcome_record: dict[str, Any]) -> dict[str, Any]:
        """Settle every bet of a closed round from a signed outcome record.

        Returns
        -------
        dict
            The round summary (see :meth:`round`) with ``"replay"``: True when
            this exact record had already settled the round (nothing more paid).

        Raises
        ------
        SignatureError
            The record's HMAC does not verify (forged or altered record).
        RecordError
            A field is malformed, or the record is for another round.
        RoundStateError
            The round is open, paused, void, cancelled, or already settled by
            a different record.
        UnknownRound
        """
        rec = outcome_record

        def work(c: sqlite3.Connection) -> dict[str, Any]:
            if self._key is None:
                raise SettlementError(f"round {round_id!r}: the ledger has no HMAC key; cannot verify the record")
            if not isinstance(rec, dict):
                raise RecordError(f"round {round_id!r}: outcome record must be a JSON object, "
                                  f"got {type(rec).__name__}")
            if not verify(rec, self._key):
                raise SignatureError(f"round {round_id!r}: the outcome record's signature does not verify "
                                     f"(forged or altered record, or wrong key); nothing paid")
            validate_outcome_record(rec, round_id=round_id)
            row = self._round_row(c, round_id)
            sha = record_sha256(rec)
            if row["state"] == "settled":
                old = c.execute("SELECT record_sha256, seq, red FROM settlements WHERE round_id = ?",
                                (round_id,)).fetchone()
                if old[0] == sha:
                    self._audit(c, "settle_replay", round_id=round_id, detail={"record_sha256": sha})
                    return dict(self._summary(c, round_id), replay=True)
                raise RoundStateError(f"round {round_id!r} was already settled by record seq {old[1]} "
                                      f"(red={old[2]}); refusing a different record (seq {rec['seq']}, "
                                      f"red={rec['red']})")
            if row["state"] != "closed":
                why = "betting is still open; close betting first" if row["state"] == "open" else \
                    f"it is {row['state']} ({row['reason']}) and cannot be settled"
                raise RoundStateError(f"round {round_id!r}: {why}")
            if row["paused"]:
                raise RoundStateError(f"round {round_id!r} is paused ({row['pause_reason']}); resume or cancel it")
            red, now = rec["red"], utc_now_iso()
            updates, stakes, refunds, payouts = [], 0, 0, 0
            for bet_id, bt, stake in c.execute("SELECT bet_id, bet_type, stake_minor FROM bets "
                                               "WHERE round_id = ? AND state = 'confirmed'", (round_id,)).fetchall():
                result, returned = payout_minor(bt, red, stake)
                updates.append((result, returned, now, bet_id))
                stakes += stake
                refunds += returned if result == "refund" else 0
                payouts += returned if result == "win" else 0
            c.executemany("UPDATE bets SET state = 'settled', result = ?, returned_minor = ?, settled_at = ? "
                          "WHERE bet_id = ? AND state = 'confirmed'", updates)
            c.execute("INSERT INTO settlements VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      (round_id, sha, rec["seq"], rec["source"], rec["by"], red,
                       json.dumps(rec, sort_keys=True, ensure_ascii=False), now))
            self._finish(c, round_id, "settled", now, None, red, stakes, refunds, payouts)
            self._audit(c, "settle", round_id=round_id, detail={
                "record_sha256": sha, "seq": rec["seq"], "red": red, "bets": len(updates), "stakes_minor": stakes,
                "refunds_minor": refunds, "payouts_minor": payouts})
            return dict(self._summary(c, round_id), replay=False)
        return self._run("settle", round_id, None, work)

    def _finish(self, c: sqlite3.Connection, round_id: str, state: str, now: str, reason: str | None,
                red: int | None, stakes: int, refunds: int, payouts: int) -> None:
        c.execute("UPDATE rounds SET state = ?, finished_at = ?, reason = ?, red = ?, paused = 0, stakes_minor = ?, "
                  "refunds_minor = ?, payouts_minor = ?, house_minor = ? WHERE round_id = ?",
                  (state, now, reason, red, stakes, refunds, payouts, stakes - refunds - payouts, round_id))

    def _refund_all(self, action: str, state: str, round_id: str, check: Callable[[], str]) -> dict[str, Any]:
        def work(c: sqlite3.Connection) -> dict[str, Any]:
            reason = check()
            row = self._round_row(c, round_id)
            if row["state"] == state and row["reason"] == reason:
                # The same void or cancel delivered again (at-least-once
                # delivery): the same result, nothing refunded twice.
                self._audit(c, f"{action}_replay", round_id=round_id, detail={"reason": reason})
                return dict(self._summary(c, round_id), replay=True)
            if row["state"] in FINISHED:
                extra = f" (red={row['red']})" if row["state"] == "settled" else f" ({row['reason']})"
                raise RoundStateError(f"round {round_id!r} is already {row['state']}{extra}; it cannot be "
                                      f"{'voided' if state == 'void' else 'cancelled'}")
            now = utc_now_iso()
            stakes, n = c.execute("SELECT COALESCE(SUM(stake_minor), 0), COUNT(*) FROM bets WHERE round_id = ? "
                                  "AND state = 'confirmed'", (round_id,)).fetchone()
            c.execute("UPDATE bets SET state = 'refunded', result = 'refund', returned_minor = stake_minor, "
                      "settled_at = ? WHERE round_id = ? AND state = 'confirmed'", (now, round_id))
            self._finish(c, round_id, state, now, reason, None, stakes, stakes, 0)
            self._audit(c, action, round_id=round_id, detail={"reason": reason, "bets": n, "refunds_minor": stakes})
            return dict(self._summary(c, round_id), replay=False)
        return self._run(action, round_id, None, work)

    def void(self, round_id: str, reason: str, *, note: str | None = None) -> dict[str, Any]:
        """Void a round and refund every bet (rule sheet).

        Parameters
        ----------
        reason : str
            One of :data:`VOID_REASONS`: ``no_shake``, ``early_lift``, ``bowl_touched_token``,
            ``layout_unchanged``.
        note : str, optional
            Free text kept with the reason.

        Voiding again with the same reason and note returns the same summary
        with ``"replay": True`` and refunds nothing more (a redelivered
        message); any other change to a finished round is refused.
        """
        def check() -> str:
            if reason not in VOID_REASONS:
                raise InvalidArgument(f"round {round_id!r}: void reason {reason!r} is not on the rule sheet; "
                                      f"expected one of {', '.join(VOID_REASONS)} (use cancel for a fault)")
            return reason if note is None else f"{reason}: {_check_text('note', note, 500)}"
        return self._refund_all("void", "void", round_id, check)

    def cancel(self, round_id: str, reason: str) -> dict[str, Any]:
        """Cancel a round after a fault that could not be fixed quickly; refund every bet.

        Cancelling again with the same reason is a replay (``"replay": True``, nothing more refunded).
        """
        return self._refund_all("cancel", "cancelled", round_id, lambda: _check_text("reason", reason, 500))


__all__ = ["FINISHED", "ROUND_STATES", "VOID_REASONS", "Ledger"]
