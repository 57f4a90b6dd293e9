"""Progress of long commands on standard error, also when it is not a terminal.

On a terminal a tqdm bar is redrawn in place.  Written to a pipe or a log file, a bar would be one
ever-growing line of carriage returns, so :class:`Progress` prints plain lines instead: one when
the work starts (with its size) and then one at most every :data:`LINE_INTERVAL` seconds, each with
the work done, the time spent and an estimate of the time left.  Work that is often quick can
start reporting after a ``delay``: then nothing is shown before it, and quick work shows nothing.
"""

from __future__ import annotations

import sys
import time

from tqdm import tqdm

#: Seconds between two progress lines when standard error is not a terminal.
LINE_INTERVAL = 5.0
#: Seconds of work before a command whose work is often quick starts reporting (its ``delay``):
#: work that takes longer shows progress, quicker work prints nothing.
START_DELAY = 1.0


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class Progress:
    """``total`` steps of work called ``description``, counted in ``unit``.

    Parameters
    ----------
    total : int
        ``0`` when the number of steps is not known in advance.
    description, unit : str
    enabled : bool or None
        ``True``: always report; ``None``: only on a terminal; ``False``: never.
    stream : file, optional
        Where to write (default: standard error).
    work : float, optional
        The expected cost of all the steps, when they differ (each :meth:`update` then says
        what its steps cost): the time left is estimated from the cost done, not the steps.
    delay : float, optional
        Seconds before anything is shown (the bar appears, or the first line is printed at the
        first :meth:`update` after them); default 0: a line at once.
    """

    def __init__(self, total: int, description: str, unit: str, enabled: bool | None = True,
                 stream=None, work: float | None = None, delay: float = 0.0):
        self.stream = sys.stderr if stream is None else stream
        terminal = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = terminal if enabled is None else enabled
        self.total, self.description, self.unit, self.done = total, description, unit, 0
        self.work, self.worked = work, 0.0
        # no tqdm monitor thread: a process with one thread can fork its workers (workers.py)
        tqdm.monitor_interval = 0
        # with costs, tqdm's estimate (from the steps) is replaced by this one, in the postfix
        form = {} if work is None else {
            "bar_format": "{desc}: {n_fmt}/{total_fmt} {unit}s [{elapsed}{postfix}]"}
        self.bar = tqdm(total=total, desc=description, unit=unit, file=self.stream,
                        leave=False, delay=delay, **form) if self.enabled and terminal else None
        self.start = time.monotonic()
        self.next_line = self.start + delay  # when a line may be printed next
        if self.enabled and self.bar is None and not delay:
            self._line("")

    def update(self, steps: int = 1, note: str = "", work: float | None = None) -> None:
        """``steps`` more steps done, costing ``work`` (with costs given at the start);
        ``note`` (e.g. the best value so far) is shown with them (with no step, the note alone:
        work that precedes the counted steps)."""
        self.done += steps
        self.worked += steps if work is None else work
        if self.bar is not None:
            left = self._left()
            self.bar.set_postfix_str(note + (left and f"{', ' if note else ''}about {left} left")
                                     if self.work is not None else note, refresh=not steps)
            self.bar.update(steps)
        elif self.enabled and time.monotonic() >= self.next_line:
            self._line(note)

    def _left(self) -> str:
        """The time left, extrapolated from the share of the work done ("" before any)."""
        total = self.total if self.work is None else self.work
        if not (self.worked and total):
            return ""
        elapsed = time.monotonic() - self.start
        return _duration(elapsed / self.worked * max(0.0, total - self.worked))

    def _line(self, note: str) -> None:
        now = time.monotonic()
        elapsed, self.next_line = now - self.start, now + LINE_INTERVAL
        left = self._left()
        left = f", about {left} left" if left else ""
        note = f"; {note}" if note else ""
        count = f"{self.done}/{self.total}" if self.total else f"{self.done}"
        print(f"{self.description}: {count} {self.unit}s, "
              f"{_duration(elapsed)} elapsed{left}{note}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
