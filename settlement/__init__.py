"""Settlement core: bets, payouts, voids and a ledger that never pays twice."""
