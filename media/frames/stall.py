"""How long a render may go without finishing a frame: its one wall-clock limit.

A busy host is slow, not broken: a render on a machine oversubscribed many times over takes
many times the film's length, and a limit that is a multiple of the film's length fails it
(issue 44: 10x the film plus a minute failed a render twice at a load average of 35-41). What
shows a render is broken is that it stops: no frame finished for :data:`STALL_S` seconds (a
hung encoder or decoder, a source that never comes). :class:`StallWatch` is that limit; every
wait of the render (a shot's sources, a clip's next frame, an encoder taking a frame or closing
its film) is bounded by it. Each tool keeps its own limits besides (:mod:`media.base.runner`).
"""

from __future__ import annotations

import time

from media.base.runner import ToolTimeoutError

STALL_S = 300.0
"""Seconds a render may go without finishing a frame. Shots are prepared ahead of the frame
that needs them, so the gaps between frames are short even on a busy host: the pet tribute's
signature sample on two cores at a load average of 22 (about 11 processes per core) finished its
first frame 3.9 s after the render started and never went more than 0.85 s between two frames.
The longest honest gap is one shot whose preparation the look-ahead did not hide (a parallax
photo's cut may spend 1.5 CPU seconds in GrabCut alone, its layers more: at twenty processes per
core, a minute or two); five minutes leaves room for that and still ends a hung render within
minutes, whatever the film's length."""


class StallWatch:
    """The render's progress: :meth:`beat` when a frame is finished, :meth:`check` (or
    :attr:`deadline`) while waiting for one. Raises :class:`media.base.runner.ToolTimeoutError`
    once ``stall_s`` seconds pass without a frame (counted from the watch's start for the
    first)."""

    def __init__(self, stall_s: float = STALL_S) -> None:
        self.stall_s = stall_s
        self._last = time.monotonic()

    @property
    def deadline(self) -> float:
        """The monotonic time (seconds) by which the next frame must be finished."""
        return self._last + self.stall_s

    def check(self, waiting_for: str = "a frame") -> None:
        """Raise :class:`ToolTimeoutError` if no frame was finished for ``stall_s`` seconds;
        ``waiting_for`` says what the render was waiting for."""
        if time.monotonic() > self.deadline:
            raise ToolTimeoutError(f"render stalled: no frame finished in {self.stall_s:.0f} s "
                                   f"(waiting for {waiting_for})", None, "")

    def beat(self) -> None:
        """A frame was finished: the next one has ``stall_s`` seconds again (raises if this
        one came too late)."""
        self.check("a frame to be composed")
        self._last = time.monotonic()
