"""The prover's CPU budget inside a claim: a sympy call (a limit, a simplification) that outlives
it is interrupted by a profiling timer (CPU seconds, never wall seconds).
"""

from __future__ import annotations

import time

IMPLIED_SECONDS = 5.0


class _OutOfTime(Exception):
    pass


class _cpu_limit:
    """Interrupt a sympy call (limit, simplify) that outlives the claim's CPU budget: a
    profiling timer (SIGPROF) in the main thread; elsewhere no limit is set."""

    def __init__(self, seconds: float):
        self.seconds = max(seconds, 0.01)

    def __enter__(self):
        import signal
        import threading

        self.active = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        if self.active:
            def fire(signum, frame):
                raise _OutOfTime()

            # nested in another limit: never outlive it, and hand back what is left of it on exit
            self.outer = signal.getitimer(signal.ITIMER_PROF)[0]
            self.start = time.process_time()
            self.old = signal.signal(signal.SIGPROF, fire)
            signal.setitimer(signal.ITIMER_PROF, min(self.seconds, self.outer) if self.outer > 0 else self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            import signal

            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, self.old)
            if self.outer > 0:
                signal.setitimer(signal.ITIMER_PROF, max(self.outer - (time.process_time() - self.start), 0.001))
        return exc[0] is _OutOfTime
