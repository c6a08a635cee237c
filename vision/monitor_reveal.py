"""The reveal half of the round monitor: the bowl has cleared, read until the reading is stable.

Mixed into :class:`vision.monitor.RoundMonitor`; see there for the states.
Void rules decided here: no shake, early lift and a reveal not seen (at the
clear), a touched token and "layout unchanged since last round" (on the
stable reading); after a ``rearrange``, the faces must be the same.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .monitor_events import VOID_CODES
from .monitor_features import Small
from .monitor_layout import agrees, faces_kept, layout_of, same_layout, same_plate, touch_evidence
from .types import Reading

#: At most this many layouts are remembered for "layout unchanged since last round" (count): the
#: layouts of the last round read at rest, then those of the rounds that abstained at the clear after
#: it (see ``RevealMixin._note_layouts``); past it the oldest abstained ones are dropped, never the first.
LAST_LAYOUTS_MAX = 8


@dataclass
class _Read:
    index: int
    t: float
    reading: Reading
    frame: np.ndarray = field(repr=False)



class RevealMixin:
    """Reveal-side methods of RoundMonitor (uses its state, config and helpers)."""

    def _clear(self, frame, small, t: float, idx: int, m: float, o: float) -> list[dict]:
        cfg, rnd = self.cfg, self._rnd
        rnd.t_clear, rnd.clear_index, rnd.t_wait = t, idx, t
        self.state = "revealed"
        self._run = []
        out = [self._ev("revealed", t, "bowl clear of the plate", t_lift=rnd.t_lift, shaken=rnd.shaken)]
        code = None
        if rnd.reveal_unseen:
            code = "reveal_not_seen"
        elif not rnd.shaken and rnd.t_settled is None:
            # "no shake" is a claim about the covered plate: the monitor must have seen the bowl on it
            # and at rest.  A round that never settled was not watched covered (a faint bowl the
            # occlusion lost, or a round started by the lift itself): abstain instead of refunding
            # every bet (clip 1300024 normal, 480x270 at 12.5 fps: two such rounds, both voided before)
            # The round is not ended here: the plate is read on, as after a void, only to note its layout
            # for the next round's "layout unchanged" check (clip 1300225 same_layout, 640x360 at 25 fps:
            # round 0 abstained at the clear and was never read, and round 1, showing its layout again
            # since the dealer did not shake, was settled as an outcome: a missed void).
            out.append(self._ev("uncertain", t, "the bowl was never seen at rest on the plate, so whether it "
                                "was shaken is unknown: manual confirmation needed", kind="never_settled"))
            rnd.abstained = True
            return out + self._reading(frame, small, t, idx, m, o)
        elif not rnd.shaken:
            code = "no_shake"
        elif cfg.require_betting_closed and (rnd.closed_t is None or rnd.closed_t > rnd.t_lift):
            code = "early_lift"
        if code is not None:
            out += self._void(t, code)
        return out + self._reading(frame, small, t, idx, m, o)

    def _void(self, t: float, code: str, detail: str | None = None, **extra) -> list[dict]:
        rnd = self._rnd
        rnd.void = code
        reason = VOID_CODES[code] + (f": {detail}" if detail else "")
        ev = self._ev("void", t, reason, code=code, **extra)
        if code == "early_lift":
            ev["betting_closed_t"] = None if rnd.closed_t is None else round(rnd.closed_t, 4)
            ev["t_lift"] = round(rnd.t_lift, 4)
        return [ev]

    def _reading(self, frame, small, t: float, idx: int, m: float, o: float) -> list[dict]:
        cfg, rnd = self.cfg, self._rnd
        if rnd.t_wait is None:
            rnd.t_wait = t
        timeout = cfg.rearrange_timeout_s if self.state == "rearranging" else cfg.reveal_timeout_s
        k = idx - (rnd.clear_index or 0)
        r = None
        if m > 2 * self._threshold():
            self._run = []                         # something is still moving over the plate (bowl, stick, hand)
        elif k % cfg.read_every == 0 and not (self.state == "rearranging" and m > self._threshold()):
            r = self._read(frame, t, idx)
        if r is not None:
            if r.verdict in ("outcome", "rearrange", "reshake"):
                if self._run and agrees(self._run[-1].reading, r, cfg.stable_tol_r):
                    self._run.append(_Read(idx, t, r, frame))
                else:
                    self._run = [_Read(idx, t, r, frame)]
            else:
                self._run = []
            if r.verdict == "outcome":
                _remember(rnd.outcome_layouts, layout_of(r), cfg.same_layout_tol_r)
            if self.state == "revealed" and r.plate is not None:
                rnd.sightings.append((idx, r, True))
            need = cfg.stable_frames if r.verdict == "outcome" else 2 * cfg.stable_frames
            if len(self._run) >= need and self._run[-1].t - self._run[0].t >= cfg.stable_min_s:
                return self._stable(small, t, idx)
        if t - rnd.t_wait > timeout:
            return self._give_up(small, t, r)
        return []

    def _stable(self, small: Small, t: float, idx: int) -> list[dict]:
        cfg, rnd = self.cfg, self._rnd
        run, self._run = self._run, []
        r = run[-1].reading
        lay = layout_of(r)
        if rnd.result_given:                     # already void or uncertain: just note the layout for the next round
            if r.verdict == "outcome":
                self._note_layouts([lay])
            return self._end_round(small, t)
        verdict_fields = {"verdict": r.verdict, "red": r.red, "white": r.white,
                          "confidence": min(x.reading.confidence for x in run),
                          "tokens": [tk.to_dict() for tk in r.tokens],
                          "plate": None if r.plate is None else r.plate.to_dict(),
                          "reveal_frames": [x.index for x in run]}
        if r.verdict == "rearrange":
            if self.state == "rearranging":       # still overlapping: keep waiting
                return []
            rnd.before = lay
            self.state = "rearranging"
            rnd.t_wait = t
            return [self._ev("rearrange", t, r.reason, **verdict_fields)]
        if r.verdict == "reshake":
            self._reshake = (rnd.round_id, rnd.attempt)
            ev = self._ev("reshake", t, r.reason, **verdict_fields)
            return [ev] + self._end_round(small, t)
        # an outcome
        if self.state == "rearranging":
            changed = faces_kept(rnd.before, lay, cfg.stable_tol_r)
            if changed:
                ev = self._ev("uncertain", t, f"a face changed during the rearrange: {changed}; confirm by hand",
                              **verdict_fields)
                # the plate shows this layout now, read stable: the next round must not show it again
                # unvoided (before, this path left the round before's layout, so a same-layout next
                # round was compared with the wrong one)
                self._last_layouts = (lay,)
                return [ev] + self._end_round(small, t)
        in_run = {x.index for x in run}
        # after a rearrange the pushed token has moved on purpose: the faces check above replaces this one
        sightings = [] if self.state == "rearranging" else rnd.sightings
        found = [(clear, touch_evidence(layout_of(s, r.plate), lay, move_min_r=cfg.touch_move_min_r,
                                        match_max_r=cfg.touch_match_max_r, p_min=cfg.touch_p_min))
                 for i, s, clear in sightings if i not in in_run and same_plate(s.plate, r.plate)]
        # a flip seen once the bowl has cleared is enough; during the lift (the bowl's shadow and
        # reflections on the faces) it must be seen twice, like a move
        flips = [d for clear, f in found for k, d in f if k == "flip"]
        moves = [d for _, f in found for k, d in f if k == "move"]
        n_flip_clear = sum(1 for clear, f in found if clear and any(k == "flip" for k, _ in f))
        n_flip = sum(1 for _, f in found if any(k == "flip" for k, _ in f))
        n_moved = sum(1 for _, f in found if any(k == "move" for k, _ in f))
        if n_flip_clear or n_flip >= cfg.touch_min_sightings or n_moved >= cfg.touch_min_sightings:
            out = self._void(t, "bowl_touched_token", (flips or moves)[0], **verdict_fields)
        elif any(same_layout(last, lay, cfg.same_layout_tol_r) for last in self._last_layouts):
            out = self._void(t, "layout_unchanged", None, **verdict_fields)
        else:
            shas = [hashlib.sha256(np.ascontiguousarray(x.frame).data).hexdigest() for x in run]
            self._evidence[rnd.round_id] = (run[-1].frame, shas)
            lat_frames = idx - (rnd.clear_index or idx)
            out = [self._ev("outcome", t, r.reason, reveal_sha256=shas, latency_frames=lat_frames,
                            latency_s=t - (rnd.t_clear or t), t_clear=rnd.t_clear, **verdict_fields)]
        self._last_layouts = (lay,)
        return out + self._end_round(small, t)

    def _give_up(self, small: Small, t: float, r: Reading | None) -> list[dict]:
        """No stable reading in time: ``uncertain`` (unless already void), and end the round.

        The layouts its outcome readings showed become the last round's layouts,
        so that the next round is void (``layout_unchanged``) if it shows any of
        them: a round that gives up must not let the next one skip the check
        (clip 1300010 same_layout, 640x360 at 25 fps: round 0 gave up after seven
        outcome readings of one layout, round 1 showed it again and was settled).
        """
        rnd = self._rnd
        if rnd.outcome_layouts:
            self._note_layouts(rnd.outcome_layouts)
        # else: no outcome reading, nothing to remember: the last layout(s) stay those of the round before
        # (as before this rule), so the next round is still compared with that one
        if rnd.result_given:
            return self._end_round(small, t)
        last = "no reading" if r is None else f"{r.verdict}: {r.reason}"
        what = "after the rearrange" if self.state == "rearranging" else "after the reveal"
        secs = self.cfg.rearrange_timeout_s if self.state == "rearranging" else self.cfg.reveal_timeout_s
        ev = self._ev("uncertain", t, f"no stable reading within {secs:g}s {what} (last: {last}): "
                      "manual confirmation needed", last_verdict=None if r is None else r.verdict)
        return [ev] + self._end_round(small, t)

    def _note_layouts(self, layouts: list) -> None:
        """Note the layout(s) a round ended with, for the next round's "layout unchanged" check.

        A round watched from bowl-on to rest replaces the last layouts with its own.  A round that
        abstained at the clear (``uncertain``, never seen at rest under the bowl) may not have been
        a round at all, so the monitor cannot tell whether the round before is still the last one:
        its layouts are added to the last ones, the round before's kept first (at most
        :data:`LAST_LAYOUTS_MAX` in all).  Before, they replaced them: in clip 1300651 same_layout
        (640x360 at 25 fps) the tokens changing on the bare plate as the bowl came (frame 148) started
        a round that "cleared" two frames later with no bowl over the plate; it abstained, read the
        plate's pre-round layout stable (red 2) and made it the last layout, so the real round that
        followed, revealing round 0's layout again (red 4, not shaken: void), was paid as an outcome.

        Parameters
        ----------
        layouts : list of tuple of LayoutToken
            The round's distinct outcome layouts (empty ones are skipped).
        """
        tol = self.cfg.same_layout_tol_r
        if not self._rnd.abstained:
            self._last_layouts = tuple(lay for lay in layouts if lay)
            return
        keep = list(self._last_layouts)
        for lay in layouts:
            _remember(keep, lay, tol)
        if len(keep) > LAST_LAYOUTS_MAX:
            keep = keep[:1] + keep[1 - LAST_LAYOUTS_MAX:]
        self._last_layouts = tuple(keep)


def _remember(layouts: list, lay: tuple, tol_r: float) -> None:
    """Add ``lay`` to ``layouts`` unless empty or the same layout (``same_layout`` within ``tol_r``) as one there."""
    if lay and not any(same_layout(x, lay, tol_r) for x in layouts):
        layouts.append(lay)


__all__ = ["RevealMixin"]
