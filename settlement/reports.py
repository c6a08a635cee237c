"""Read-only reports of the settlement ledger: round summaries, bet history,
balance checks and the audit log.

:class:`LedgerReports` is a mixin of :class:`settlement.ledger.Ledger`; it
reads through the ledger's connection (``self._conn``) with
``self.minor_units`` and never writes.
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Iterator

from .errors import UnknownPlayer, UnknownRound
from .payouts import from_minor, payout_minor

FINISHED = ("settled", "void", "cancelled")


class LedgerReports:
    """Read-only queries shared by :class:`settlement.ledger.Ledger`."""

    _conn: sqlite3.Connection
    minor_units: int

    def _money(self, minor: int | None) -> Decimal | None:
        return None if minor is None else from_minor(minor, self.minor_units)

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN")
        try:
            yield self._conn
        finally:
            self._conn.execute("COMMIT")

    def _round_row(self, c: sqlite3.Connection, round_id: Any) -> sqlite3.Row:
        row = c.execute("SELECT * FROM rounds WHERE round_id = ?", (round_id,)).fetchone() \
            if isinstance(round_id, str) else None
        if row is None:
            raise UnknownRound(f"round {round_id!r} does not exist")
        return row

    def _bets(self, c: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        rows = c.execute(
            "SELECT b.*, r.state AS round_state, r.red AS red, r.reason AS reason FROM bets b "
            f"JOIN rounds r ON r.round_id = b.round_id WHERE {where} ORDER BY b.bet_id", params).fetchall()
        out = []
        for r in rows:
            if r["round_state"] == "settled":
                outcome = f"{r['red']} red {4 - r['red']} white"
            elif r["round_state"] in ("void", "cancelled"):
                outcome = f"{r['round_state']}: {r['reason']}"
            else:
                outcome = None
            out.append({
                "bet_id": r["bet_id"], "round_id": r["round_id"], "player": r["player"], "bet_type": r["bet_type"],
                "stake": self._money(r["stake_minor"]), "ref": r["ref"], "state": r["state"],
                "round_state": r["round_state"], "outcome": outcome, "red": r["red"], "result": r["result"],
                "payout": self._money(r["returned_minor"]), "placed_at": r["placed_at"],
                "settled_at": r["settled_at"],
            })
        return out

    def history(self, player: str) -> list[dict[str, Any]]:
        """Every bet of ``player``, oldest first, settled or not.

        Each bet has ``bet_id, round_id, player, bet_type, stake, ref, state``
        (confirmed | settled | refunded), ``round_state``, ``outcome`` (e.g.
        ``"3 red 1 white"``, ``"void: no_shake"``, None while pending),
        ``red``, ``result`` (win | lose | refund | None), ``payout`` (amount
        returned, stake included; None while pending), ``placed_at`` and
        ``settled_at``.
        """
        with self._read() as c:
            if not isinstance(player, str) or c.execute(
                    "SELECT 1 FROM players WHERE player = ?", (player,)).fetchone() is None:
                raise UnknownPlayer(f"player {player!r} is not registered")
            return self._bets(c, "b.player = ?", (player,))

    def bets(self, round_id: str) -> list[dict[str, Any]]:
        """Every bet of a round, in the order placed."""
        with self._read() as c:
            self._round_row(c, round_id)
            return self._bets(c, "b.round_id = ?", (round_id,))

    def _summary(self, c: sqlite3.Connection, round_id: str) -> dict[str, Any]:
        r = self._round_row(c, round_id)
        n, staked = c.execute("SELECT COUNT(*), COALESCE(SUM(stake_minor), 0) FROM bets WHERE round_id = ?",
                              (round_id,)).fetchone()
        s = c.execute("SELECT record_sha256, seq, source, by FROM settlements WHERE round_id = ?",
                      (round_id,)).fetchone()
        return {
            "round_id": round_id, "state": r["state"], "paused": bool(r["paused"]), "pause_reason": r["pause_reason"],
            "reason": r["reason"], "red": r["red"], "white": None if r["red"] is None else 4 - r["red"],
            "bets": n, "stakes": self._money(staked), "refunds": self._money(r["refunds_minor"]),
            "payouts": self._money(r["payouts_minor"]), "house": self._money(r["house_minor"]),
            "record_sha256": s and s[0], "record_seq": s and s[1], "record_source": s and s[2],
            "record_by": s and s[3], "opened_at": r["opened_at"], "closed_at": r["closed_at"],
            "finished_at": r["finished_at"],
        }

    def round(self, round_id: str) -> dict[str, Any]:
        """Summary of a round: state, outcome, bet count and money totals."""
        with self._read() as c:
            return self._summary(c, round_id)

    def balance_check(self, round_id: str) -> dict[str, Any]:
        """Recompute a round's money from its bets and compare with the stored totals.

        Checks, for a finished round, that no bet is pending, that every bet's
        result and amount returned are what :func:`settlement.payouts.payout_minor`
        gives for the recorded outcome (or a full refund for void/cancelled), that
        the stored totals match the bets, and that ``stakes == refunds + payouts +
        house``.  For an unfinished round, that no bet has been paid.

        Returns
        -------
        dict
            ``round_id, state, bets, stakes, refunds, payouts, house, balanced`` and
            ``problems`` (list of str, empty when balanced).
        """
        with self._read() as c:
            r = self._round_row(c, round_id)
            bets = c.execute("SELECT bet_id, bet_type, stake_minor, state, result, returned_minor FROM bets "
                             "WHERE round_id = ?", (round_id,)).fetchall()
            problems: list[str] = []
            stakes = refunds = payouts = 0
            for bet_id, bt, stake, state, result, returned in bets:
                stakes += stake
                if r["state"] not in FINISHED:
                    if state != "confirmed" or returned is not None:
                        problems.append(f"bet {bet_id} is {state} in an unfinished round")
                    continue
                expected = payout_minor(bt, r["red"], stake) if r["state"] == "settled" else ("refund", stake)
                if state == "confirmed" or (result, returned) != expected:
                    problems.append(f"bet {bet_id}: stored {state}/{result}/{returned}, expected {expected}")
                refunds += returned if result == "refund" and returned else 0
                payouts += returned if result == "win" and returned else 0
            house = None
            if r["state"] in FINISHED:
                house = stakes - refunds - payouts
                stored = (r["stakes_minor"], r["refunds_minor"], r["payouts_minor"], r["house_minor"])
                if stored != (stakes, refunds, payouts, house):
                    problems.append(f"stored totals {stored} differ from the bets {(stakes, refunds, payouts, house)}")
                if r["stakes_minor"] != (r["refunds_minor"] or 0) + (r["payouts_minor"] or 0) + (r["house_minor"] or 0):
                    problems.append("stored stakes != refunds + payouts + house")
            return {"round_id": round_id, "state": r["state"], "bets": len(bets), "stakes": self._money(stakes),
                    "refunds": self._money(refunds), "payouts": self._money(payouts), "house": self._money(house),
                    "balanced": not problems, "problems": problems}

    def audit_log(self, round_id: str | None = None) -> list[dict[str, Any]]:
        """Audit rows (all, or one round's), oldest first."""
        with self._read() as c:
            q = "SELECT * FROM audit" + (" WHERE round_id = ?" if round_id is not None else "") + " ORDER BY audit_id"
            rows = c.execute(q, () if round_id is None else (round_id,)).fetchall()
            return [dict(r, ok=bool(r["ok"])) for r in rows]


__all__ = ["FINISHED", "LedgerReports"]
