"""SV2 in a child process, so that a large KG's sample, owlrl, HermiT and SHACL need not wait for it.

SV2 reads the whole file (about 4-5 s per million triples); the other checks work on a sample
whose construction and reasoning take longer still. Run one after the other they add up; on
two cores SV2 can run beside them. The gate stays the same: when SV2 finds the file does not
parse, whatever the other checks found is discarded and they are reported not run
(:func:`pipeline.evaluate.graph_validation`).
"""
from __future__ import annotations

import multiprocessing as mp
from pathlib import Path
from typing import Any, Callable

from .result import Finding, Result

__all__ = ["start_sv2", "PARALLEL_BYTES"]

#: KG files from this size (bytes; about 20,000 N-Triples lines) get SV2 in a child process.
PARALLEL_BYTES = 2 << 20


def _sv2_child(path: str, conn: Any) -> None:
    from .syntax import check_ntriples

    try:
        conn.send(("ok", check_ntriples(path)))
    except BaseException as exc:  # noqa: BLE001 - reported by the parent as a failed check
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def start_sv2(path: str | Path) -> Callable[[], Result]:
    """Fork a child that runs :func:`pipeline.validation.syntax.check_ntriples` on ``path``.

    Call before any thread is started (the child is forked). Returns a function that waits for
    the child and gives its :class:`Result` (status ``failed`` with the reason when the child
    died or raised), the same value a direct call would give.
    """
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_sv2_child, args=(str(path), child), daemon=True)
    proc.start()
    child.close()

    def finish() -> Result:
        try:
            status, payload = parent.recv()
        except EOFError:
            status, payload = "failed", "the SV2 process ended without an answer"
        proc.join()
        parent.close()
        if status == "ok":
            return payload
        return Result("SV2", None, status="failed", findings=[Finding("error", payload, str(path), code="sv2-failed")])

    return finish
