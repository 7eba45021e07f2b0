"""The subcommands of ``kgc``, one module per group, and the argument checks they share.

* :mod:`.run` - ``kgc run`` (every stage, reports);
* :mod:`.build` - ``kgc map``, ``compile``; :mod:`.materialize` - ``kgc materialize`` (one stage each);
* :mod:`.check` - ``kgc validate``, ``score``;
* :mod:`.data` - ``kgc data``, ``synth`` (``kgc text`` is in :mod:`pipeline.text.cli`).

Each module has ``PARSERS: {name: add_parser(sub, common)}`` registering its subcommands on the
CLI's subparsers; :data:`pipeline.cli.COMMANDS` names the module of each subcommand, which is
imported only when that subcommand runs.
"""
from __future__ import annotations

from pathlib import Path

from pipeline.errors import InputError
from pipeline.llm import LLMError, LLMSettings

__all__ = ["output_file", "require_llm_settings"]


def output_file(path: str, what: str) -> Path:
    """``path`` as an output file; a folder there is bad input, found before any work (else the
    work is lost at the end, and ``kgc materialize`` wrote its engine copy beside the folder)."""
    if Path(path).is_dir():
        raise InputError(f"{what} is a folder; expected a file name", path=path)
    return Path(path)


def require_llm_settings(mapper: str) -> None:
    """The LLM mapper's settings read before any case runs: no ``LLM_MODEL`` or a numeric
    ``LLM_*`` variable that does not parse is bad input (exit 2), not a failed case."""
    if mapper != "llm":
        return

    try:
        LLMSettings.from_env()
    except LLMError as exc:
        raise InputError(str(exc)) from exc
