"""Helpers for the monitor tests: render a small synthesized clip (cached per process) and run it."""
from __future__ import annotations

import functools

from vision.monitor import MonitorConfig, RoundMonitor
from vision.monitor_events import FINAL_EVENTS, feed_clip
from vision.synth_clip import render_clip

#: Small clips keep the suite fast; the reader still reads most reveals at this size.
SIZE = (480, 270)
FPS = 12.5


@functools.lru_cache(maxsize=32)
def clip_frames(seed: int, variant: str, fps: float = FPS, size: tuple = SIZE):
    clip = render_clip(seed, variant, fps=fps, size=size)
    frames = list(clip.frames)
    return clip, frames


def run_clip(seed: int, variant: str, *, fps: float = FPS, size: tuple = SIZE, betting: str = "auto",
             config: MonitorConfig | None = None, monitor: RoundMonitor | None = None):
    """Feed the clip to a monitor; return (clip, events, monitor).  ``betting``: ``auto`` (closed when
    the bowl settles), ``signal`` (betting_closed at each ``settled``), ``never``."""
    clip, frames = clip_frames(seed, variant, fps, size)
    cfg = config or MonitorConfig(require_betting_closed=betting != "auto")
    mon = monitor or RoundMonitor(cfg)
    return clip, feed_clip(mon, frames, clip.frame_labels, betting=betting), mon


def final_events(events):
    return [e for e in events if e["event"] in FINAL_EVENTS]
