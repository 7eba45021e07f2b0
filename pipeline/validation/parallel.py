"""Checks in forked child processes: :func:`start_child`.

owlrl and SHACL run each in a child process bounded in time (wall clock), beside HermiT's JVM:
a check that does not finish is killed and reported ``timeout``, never a pass and never a hang.
"""
from __future__ import annotations

import multiprocessing as mp
from typing import Any, Callable

__all__ = ["start_child"]


def start_child(target: Callable[..., None], *args: Any) -> Callable[[float | None], tuple[str, Any]]:
    """Fork a child running ``target(*args, conn)``, which sends one answer on ``conn``.

    Call before any thread is started (the child is forked). Returns ``wait(timeout_s)``
    (``None``: no limit), to be called once: ``("ok", answer)``, ``("timeout", None)`` (the child
    is then killed), or ``("failed", reason)`` with ``reason`` ``"ended without an answer"`` or
    ``"died (exit code N)"``.
    """
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, child), daemon=True)
    proc.start()
    child.close()

    def wait(timeout_s: float | None = None) -> tuple[str, Any]:
        try:
            if parent.poll(timeout_s):
                return "ok", parent.recv()
            if not proc.is_alive():
                return "failed", f"died (exit code {proc.exitcode})"
            return "timeout", None
        except EOFError:
            return "failed", "ended without an answer"
        finally:
            if proc.is_alive():
                proc.kill()
            proc.join(5)
            parent.close()

    return wait
