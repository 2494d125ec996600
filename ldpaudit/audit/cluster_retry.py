"""A chunk whose sandbox supervisor is lost on a Dask worker is run once more (issue 35.4).

A Dask worker that dies is Dask's to retry; a sandbox supervisor that dies under a live worker
(killed from outside, as ``kill -9`` of one sandbox process) ends its chunk's task with the
program's stdout closed and no word on how the randomizer ended. That is not evidence against
the randomizer, which under seccomp cannot signal its supervisor. So the worker drops its
sampler and raises :class:`SupervisorLost` (cluster._draw); the client submits the chunk once
more, to another worker where there is one (the same function and seeds: the same counts as the
first attempt would have given), and only a second loss on the same chunk blames the randomizer.

Imported by cluster.py on the client and on the workers (the exception travels between them).
"""
from __future__ import annotations

from ldpaudit.errors import RandomizerError


class SupervisorLost(RandomizerError):
    """A chunk's sandbox supervisor ended without reporting how the randomizer ended;
    ``worker``: the address of the worker it happened on."""

    def __init__(self, message: str, worker: str = ""):
        super().__init__(message, worker)
        self.worker = worker

    def __str__(self) -> str:
        return str(self.args[0])


def supervisor_lost(randomizer) -> bool:
    """Whether an isolated randomizer's program ended with no word from its supervisor (process.py:
    the status names an exit, a signal or an error whenever the supervisor saw the end)."""
    status = getattr(randomizer, "status", None)
    return bool(getattr(randomizer, "sandbox", False) and isinstance(status, dict)
                and not any(k in status for k in ("exit", "signal", "error")))


def retry_lost(client, future, group: list, call: tuple, stats: dict, workers):
    """``future``'s value; after a :class:`SupervisorLost`, the value of ``call`` (function,
    arguments) submitted once more to a worker other than the one that lost it (``workers()``:
    the cluster's worker addresses), counted in ``stats``; a second loss is the randomizer's
    failure, in one line."""
    try:
        return future.result()
    except SupervisorLost as exc:
        (_, task, _), *_ = group
        others = [w for w in workers() if w != exc.worker]
        stats["supervisors_lost"] = stats.get("supervisors_lost", 0) + 1
        function, args = call
        retry = client.submit(function, *args, pure=False, key=f"{future.key}-retry", workers=others or None,
                              allow_other_workers=True)
        try:
            value = retry.result()
        except SupervisorLost as again:
            stats["supervisors_lost"] += 1
            text = (f"the randomizer's sandbox supervisor was lost twice on chunk {task[3]} of input {task[0]!r} "
                    f"(on {exc.worker}, then on {again.worker}): did the randomizer kill its parent? {again}")
            raise RandomizerError(" ".join(text.split())) from None
        finally:
            retry.release()
        stats["chunks_retried"] = stats.get("chunks_retried", 0) + len(group)
        return value
