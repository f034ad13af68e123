"""A tiny progress bar for the command line (no tqdm dependency).

It draws on a terminal only: when the stream is not a TTY (a pipe, a file, a CI log) it writes
nothing at all, so captured output stays clean. On a terminal the bar is redrawn in place with
``\\r`` at most every ``min_interval`` seconds and erased when it closes, so the lines printed
around it are never interleaved with bar fragments.

>>> import io
>>> stream = io.StringIO()  # not a TTY: nothing is written
>>> with ProgressBar(total=10, label="demo", stream=stream) as bar:
...     bar.update(10)
>>> stream.getvalue()
''
"""

from __future__ import annotations

import sys
import time

_WIDTH = 30


class ProgressBar:
    """``label [#########.........]  30% 300/1000`` on ``stream`` (default: ``sys.stderr``).

    Use as a context manager and call :meth:`update` with the number of steps done so far.
    ``active`` tells whether anything is drawn (the stream is a TTY).
    """

    def __init__(self, total: int, label: str, stream=None, min_interval: float = 0.1):
        self.total = max(int(total), 1)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.min_interval = min_interval
        isatty = getattr(self.stream, "isatty", None)
        self.active = bool(isatty and isatty())
        self._last_draw = -float("inf")
        self._drawn_width = 0

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def update(self, done: int) -> None:
        """Record ``done`` steps; redraw if the last drawing is older than ``min_interval``."""
        if not self.active:
            return
        now = time.monotonic()
        if now - self._last_draw < self.min_interval and done < self.total:
            return
        self._last_draw = now
        fraction = min(max(done / self.total, 0.0), 1.0)
        filled = int(round(fraction * _WIDTH))
        text = f"{self.label} [{'#' * filled}{'.' * (_WIDTH - filled)}] {100 * fraction:3.0f}% {done}/{self.total}"
        self.stream.write("\r" + text.ljust(self._drawn_width))
        self.stream.flush()
        self._drawn_width = len(text)

    def clear(self) -> None:
        """Erase the bar (before printing a line on the same terminal); the next update redraws it."""
        if self.active and self._drawn_width:
            self.stream.write("\r" + " " * self._drawn_width + "\r")
            self.stream.flush()
            self._drawn_width = 0
            self._last_draw = -float("inf")

    def close(self) -> None:
        """Erase the bar so that the next line starts on a clean row."""
        self.clear()
