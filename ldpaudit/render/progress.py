"""A transient status line on stderr for commands that can run longer than a second.

Shown only when stderr is a terminal and the command is neither ``--quiet`` nor ``--json``,
so pipes, CI logs and machine-readable output never see it. rich is imported only when the
line is actually shown.

    with status("derive", enabled=not args.quiet and not args.json) as update:
        update("krr: marginal")
"""

from __future__ import annotations

import sys
import threading


class status:
    """Context manager yielding ``update(text)``; a no-op callable when disabled."""

    def __init__(self, command: str, *, enabled: bool = True, stream=None, delay: float = 0.0):
        stream = sys.stderr if stream is None else stream
        self.command = command
        self.enabled = bool(enabled) and hasattr(stream, "isatty") and stream.isatty()
        self.delay = delay  # show the line only if the work is still running after this many seconds
        self.text = "starting"
        self._status = None
        self._timer = None
        self._lock = threading.Lock()
        self._done = False

    def __enter__(self):
        if not self.enabled:
            return _silent
        if self.delay > 0:
            self._timer = threading.Timer(self.delay, self._start)
            self._timer.daemon = True
            self._timer.start()
        else:
            self._start()
        return self.update

    def _start(self) -> None:
        from rich.console import Console

        with self._lock:
            if self._done:
                return
            self._status = Console(stderr=True).status(f"ldpaudit {self.command}: {self.text}")
            self._status.start()

    def update(self, text: str) -> None:
        with self._lock:
            self.text = text
            if self._status is not None:
                self._status.update(f"ldpaudit {self.command}: {text}")

    def __exit__(self, *exc):
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._done = True
            if self._status is not None:
                self._status.stop()
        return False


def _silent(text: str) -> None:
    return None


def wanted(args) -> bool:
    """Whether ``args`` allow a status line (no ``--quiet``/``--no-progress``, no ``--json``)."""
    return not (getattr(args, "quiet", False) or getattr(args, "no_progress", False) or getattr(args, "json", False))
