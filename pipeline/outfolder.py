"""A case's output folder across runs: the earlier run is kept aside until this one ends.

Shared by ``kgc run`` (:mod:`pipeline.run.runner`) and ``kgc text``
(:mod:`pipeline.text.run_folder`). A run writes a fresh ``<case>/`` while the earlier run's folder
waits as ``<case>.previous/``; a run that ends removes it, a run interrupted or failed (bad input, a stage
that could not go on) moves its own folder aside (``<case>.interrupted/``, ``<case>.failed/``) and puts the earlier run
back. A run killed outright leaves ``<case>.previous/``: the next run keeps the killed run's folder
as ``<case>.interrupted/`` and treats ``<case>.previous/`` as the earlier run.
"""
from __future__ import annotations

import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["aside", "replace", "begin", "end", "restore", "carry", "signals_held"]


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT (Ctrl-C) and SIGTERM back while the block runs, then let the first that came act as
    it would have (its handler runs, e.g. ``KeyboardInterrupt``): files or folders that belong together
    (a report's three files, a run's folder swap) are never left half replaced by an interruption. Keep
    the block short (renames). Python runs signal handlers in the main thread, so the handlers are
    swapped there for recording ones (blocking the signal with ``pthread_sigmask`` would not do: the
    kernel hands a process's signal to any thread not blocking it, e.g. a library's). Outside the main
    thread the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)  # None: set outside Python
        if came:
            signal.raise_signal(came[0])  # handled now, by the handler that was in place before the block


def aside(folder: Path, suffix: str) -> Path:
    """``<case><suffix>/`` beside ``folder`` (``.previous``, ``.interrupted``, ``.failed``)."""
    return folder.with_name(folder.name + suffix)


def replace(src: Path, dst: Path) -> None:
    """Move folder ``src`` to ``dst``, replacing whatever ``dst`` held."""
    if dst.exists():
        shutil.rmtree(dst)
    src.rename(dst)


def begin(folder: Path) -> Path | None:
    """Make ``folder`` fresh for a new run.

    Returns:
        Where the earlier run waits (``<case>.previous/``), ``None`` when there is none (no folder,
        or an empty one, which is reused).
    """
    previous = aside(folder, ".previous")
    if previous.is_dir():  # the last run never ended (killed): its folder is kept, the one before it waits
        if folder.is_dir():
            replace(folder, aside(folder, ".interrupted"))
    elif folder.is_dir() and any(folder.iterdir()):
        folder.rename(previous)
    folder.mkdir(parents=True, exist_ok=True)
    return previous if previous.is_dir() else None


def carry(path: Path, folder: Path, previous: Path | None) -> Path:
    """An input of this run that lay inside the case folder :func:`begin` set aside, copied back.

    A run's own files are inputs too (``kgc run --table out/<scenario>/<case>/table.md``, the
    table edited in place): when ``path`` was inside ``folder`` it now lies under ``previous``.
    It is copied (not moved) to its old place in the fresh folder, so the run reads it and cites
    it where the user edited it, and the earlier run stays whole if this one fails or is stopped.

    Args:
        path: the input file as the user named it.
        folder: the case folder of this run.
        previous: what :func:`begin` returned for it.
    Returns:
        ``path`` itself (it is back in place, or was never inside ``folder``).
    """
    try:
        inner = path.resolve().relative_to(folder.resolve())
    except ValueError:
        return path
    if previous is not None and (previous / inner).is_file() and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(previous / inner, path)
    return path


def end(previous: Path | None) -> None:
    """The run ended and its folder holds its record: the earlier run goes."""
    if previous is not None and previous.is_dir():
        shutil.rmtree(previous)


def restore(folder: Path, previous: Path | None, suffix: str) -> Path | None:
    """Move this run's folder aside as ``<case><suffix>/`` (an empty one is removed) and the earlier
    run back to ``folder``.

    Returns:
        Where this run's files are now, ``None`` when it had written none.
    """
    kept = None
    if folder.is_dir() and any(folder.iterdir()):
        kept = aside(folder, suffix)
        replace(folder, kept)
    elif folder.is_dir():
        folder.rmdir()
    if previous is not None and previous.is_dir():
        previous.rename(folder)
    return kept
