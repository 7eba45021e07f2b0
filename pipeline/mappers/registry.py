"""The mappers by name: ``offline`` (default), ``llm``, ``replay``.

Implementations register themselves with :func:`register` when their module is imported; the
registry imports a module only when its mapper is asked for, so that optional SDKs (litellm,
torch) load only when their mapper is used.
"""
from __future__ import annotations

import difflib
import importlib
from typing import Callable

from pipeline.errors import InputError
from pipeline.mappers.contract import Mapper

__all__ = ["DEFAULT_MAPPER", "register", "get_mapper", "known_mappers"]

DEFAULT_MAPPER = "offline"

_REGISTRY: dict[str, Callable[[], Mapper]] = {}
#: name -> module that registers it on import
_LAZY: dict[str, str] = {
    "replay": "pipeline.mappers.replay",
    "offline": "pipeline.mappers.offline",
    "llm": "pipeline.mappers.llm.mapper",
}


def register(name: str) -> Callable[[Callable[[], Mapper]], Callable[[], Mapper]]:
    """Class/factory decorator: make a mapper available under ``name``."""
    def deco(factory: Callable[[], Mapper]) -> Callable[[], Mapper]:
        _REGISTRY[name] = factory
        return factory
    return deco


def known_mappers() -> list[str]:
    """Names a user may pass to :func:`get_mapper`."""
    return sorted(set(_REGISTRY) | set(_LAZY))


def get_mapper(name: str) -> Mapper:
    """Instantiate the mapper registered under ``name``.

    Raises:
        InputError: unknown name (the message lists the known ones and the closest),
            or a mapper whose module is not installed.
    """
    if name not in _REGISTRY and name in _LAZY:
        try:
            importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as exc:
            raise InputError(f"mapper {name!r} is not available in this installation: {exc}", key=name) from exc
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, known_mappers(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown mapper {name!r}; known mappers: {', '.join(known_mappers())}{hint}", key=name)
    return _REGISTRY[name]()
