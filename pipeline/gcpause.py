"""CPython's cyclic garbage collector paused around work that allocates millions of long-lived objects.

Every few hundred thousand allocations the collector walks the heap for reference cycles. Work that
builds millions of small objects which live on and form no cycles (a CSV file's columns, a text
extractor's mentions, feature dicts and scored pairs) makes it walk the whole heap again and again
for nothing. Reference counting still frees them; a cycle made meanwhile is collected once the
collector runs again, so nothing computed depends on the pause.
"""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["cycles_uncollected"]


@contextlib.contextmanager
def cycles_uncollected() -> Iterator[None]:
    """The collector paused for the block (or the decorated function), re-enabled after it, also
    when the block raises, if it was on when the block began."""
    collect = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.enable()
