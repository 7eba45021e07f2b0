"""Checks in forked child processes: :func:`start_child`, and SV2 beside the other checks.

SV2 in a child process, so that a large KG's sample, owlrl, HermiT and SHACL need not wait for it.

SV2 reads the whole file (about 4-5 s per million triples); the other checks work on a sample
whose construction and reasoning take longer still. Run one after the other they add up; on
two cores SV2 can run beside them. The gate stays the same: when SV2 finds the file does not
parse, whatever the other checks found is discarded and they are reported not run
(:func:`pipeline.run.evaluate.graph_validation`).
"""
from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path
from typing import Any, Callable

from pipeline.findings import Finding
from pipeline.validation.result import Result
from pipeline.validation.syntax import check_ntriples

__all__ = ["start_child", "start_sv2", "PARALLEL_BYTES"]

#: KG files from this size (bytes; about 20,000 N-Triples lines) get SV2 in a child process.
PARALLEL_BYTES = 2 << 20
#: Niceness added to the SV2 child (Linux CFS: weight about a third of a nice-0 process).
SV2_NICE = 5


def _sv2_child(path: str, conn: Any) -> None:
    try:
        # off the critical path (owlrl on the sample is longer): lower priority so the reasoner
        # keeps a core of a 2-core machine to itself; SV2 takes the cycles the others leave
        os.nice(SV2_NICE)
        conn.send(("ok", check_ntriples(path)))
    except BaseException as exc:  # noqa: BLE001 - reported by the parent as a failed check
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


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


def start_sv2(path: str | Path) -> Callable[[], Result]:
    """Fork a child that runs :func:`pipeline.validation.syntax.check_ntriples` on ``path``.

    Call before any thread is started (the child is forked). Returns a function that waits for
    the child and gives its :class:`Result` (status ``failed`` with the reason when the child
    died or raised), the same value a direct call would give.
    """
    wait = start_child(_sv2_child, str(path))

    def finish() -> Result:
        got, answer = wait(None)
        if got == "ok" and answer[0] == "ok":
            return answer[1]
        reason = answer[1] if got == "ok" else f"the SV2 process {answer}"
        return Result("SV2", None, status="failed",
                      findings=[Finding(severity="error", message=reason, location=str(path), code="sv2-failed")])

    return finish
