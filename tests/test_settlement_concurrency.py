"""Several real processes share one ledger file: no bet is lost, the round settles once."""
from __future__ import annotations

import multiprocessing as mp
import random
import time

from settlement.errors import RoundStateError
from settlement.ledger import Ledger
from settlement.payouts import BET_TYPES, payout_minor
from settlement.records import make_outcome_record

KEY = b"concurrency-key-0123456789"
PLAYERS = [f"p{i}" for i in range(4)]


def _ctx():
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def placer(path, player, n, seed, barrier, out):
    """Place up to ``n`` bets as fast as possible; report what was confirmed and what was refused."""
    rng = random.Random(seed)
    led = Ledger(path, hmac_key=KEY)
    barrier.wait()
    confirmed, refused = [], 0
    for _ in range(n):
        bt = rng.choice(list(BET_TYPES))
        stake = rng.randint(100, 20_000)
        try:
            bet = led.place_bet("R1", player, bt, f"{stake // 100}.{stake % 100:02d}")
            confirmed.append((bet["bet_id"], bt, stake))
        except RoundStateError:
            refused += 1
    led.close()
    out.put(("placer", player, confirmed, refused))


def settler(path, name, min_bets, barrier, out):
    """Wait until some bets are in, then close betting and settle (every settler tries)."""
    led = Ledger(path, hmac_key=KEY)
    barrier.wait()
    while led.round("R1")["bets"] < min_bets:
        time.sleep(0.002)
    try:
        led.close_betting("R1")
        closed = True
    except RoundStateError:
        closed = False
    result = led.settle("R1", make_outcome_record("R1", 3, seq=1, key=KEY, created_at="2025-01-01T00:00:00Z"))
    led.close()
    out.put(("settler", name, closed, result))


def test_processes_betting_and_settling_at_once_lose_nothing_and_settle_once(tmp_path):
    path = str(tmp_path / "shared.db")
    with Ledger(path, table_min="1", table_max="200", hmac_key=KEY) as led:
        for p in PLAYERS:
            led.add_player(p)
        led.open_round("R1")
    ctx = _ctx()
    n_settlers = 3
    barrier = ctx.Barrier(len(PLAYERS) + n_settlers)
    out = ctx.Queue()
    procs = [ctx.Process(target=placer, args=(path, p, 60, i, barrier, out)) for i, p in enumerate(PLAYERS)]
    procs += [ctx.Process(target=settler, args=(path, f"s{i}", 40, barrier, out)) for i in range(n_settlers)]
    for p in procs:
        p.start()
    reports = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0

    confirmed = [c for r in reports if r[0] == "placer" for c in r[2]]
    settlers = [r for r in reports if r[0] == "settler"]
    assert confirmed, "no bet got in before betting closed"
    with Ledger(path, hmac_key=KEY) as led:
        bets = led.bets("R1")
        # No confirmed bet lost, none invented, every one settled.
        assert sorted(b["bet_id"] for b in bets) == sorted(c[0] for c in confirmed)
        assert {b["state"] for b in bets} == {"settled"}
        # Closed once, settled once; the other settlers got the same answer as replays.
        assert sum(1 for s in settlers if s[2]) == 1
        assert sorted(s[3]["replay"] for s in settlers) == [False] + [True] * (n_settlers - 1)
        answers = [{k: v for k, v in s[3].items() if k != "replay"} for s in settlers]
        assert all(a == answers[0] for a in answers)
        audit = led.audit_log("R1")
        assert sum(1 for a in audit if a["action"] == "settle" and a["ok"]) == 1
        # Money: what the ledger paid is exactly what the confirmed bets earn on 3 red.
        expected = sum(payout_minor(bt, 3, stake)[1] for _, bt, stake in confirmed)
        summary = led.round("R1")
        assert int((summary["refunds"] + summary["payouts"]) * 100) == expected
        assert int(summary["stakes"] * 100) == sum(c[2] for c in confirmed)
        assert led.balance_check("R1")["balanced"]
        # Refused bets were refused for a closed round only, and each was audited.
        refused = sum(r[3] for r in reports if r[0] == "placer")
        assert sum(1 for a in audit if a["action"] == "place_bet" and not a["ok"]) == refused
        assert len(confirmed) + refused == 60 * len(PLAYERS)
