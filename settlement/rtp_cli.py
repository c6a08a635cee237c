"""``xocdia rtp``: the return to player of every bet type.

Prints, for every bet type, the exact RTP from enumerating the 16 equally
likely ways four tokens can land (as a fraction and a percentage) and, with
``--simulate N``, a seeded Monte Carlo estimate from N simulated rounds as a
cross-check.  ``--json`` prints one JSON object instead of the table.
"""
from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from fractions import Fraction

from .payouts import format_odds
from .rtp import rtp_table, simulated_rtp


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``rtp`` options to ``parser``."""
    parser.add_argument("--simulate", type=int, metavar="N", help="also simulate N rounds (Monte Carlo cross-check)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _pct(x: Fraction, places: int) -> str:
    return f"{(Decimal(x.numerator * 100) / Decimal(x.denominator)):.{places}f}"


def run(args: argparse.Namespace) -> int:
    """Print the RTP table; returns the exit status."""
    if args.simulate is not None and args.simulate <= 0:
        print("xocdia rtp: --simulate N needs N > 0", file=sys.stderr)
        return 2
    rows = rtp_table()
    sim = simulated_rtp(args.simulate, args.seed) if args.simulate else None
    if args.json:
        out = {
            "outcomes": 16,
            "bet_types": [{
                "bet_type": r.bet_type, "odds": format_odds(r.odds), "win_ways": r.win_ways,
                "refund_ways": r.refund_ways, "lose_ways": r.lose_ways, "rtp": str(r.rtp),
                "rtp_percent": _pct(r.rtp, 4), "house_edge_percent": _pct(r.house_edge, 4),
                **({"simulated_percent": _pct(sim[r.bet_type], 4)} if sim else {}),
            } for r in rows],
        }
        if sim:
            out["simulation"] = {"rounds": args.simulate, "seed": args.seed}
        print(json.dumps(out, indent=2))
        return 0
    head = f"{'bet type':<12} {'odds':>7} {'win/16':>6} {'refund/16':>9} {'RTP':>7} {'RTP %':>8} {'edge %':>7}"
    if sim:
        head += f" {'simulated %':>11} {'diff pp':>8}"
    print(head)
    for r in rows:
        line = (f"{r.bet_type:<12} {format_odds(r.odds):>7} {r.win_ways:>6} {r.refund_ways:>9} "
                f"{str(r.rtp):>7} {_pct(r.rtp, 2):>8} {_pct(r.house_edge, 2):>7}")
        if sim:
            line += f" {_pct(sim[r.bet_type], 3):>11} {_pct(sim[r.bet_type] - r.rtp, 3):>8}"
        print(line)
    best = max(rows, key=lambda r: r.rtp)
    print(f"\nexact: 16 equally likely token outcomes (red counts 0-4 weighted 1, 4, 6, 4, 1); "
          f"highest RTP {_pct(best.rtp, 2)} % ({', '.join(r.bet_type for r in rows if r.rtp == best.rtp)})")
    if sim:
        print(f"simulated: {args.simulate} rounds, seed {args.seed}")
    return 0


__all__ = ["add_arguments", "run"]
