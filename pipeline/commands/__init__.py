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

import shutil
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.errors import InputError
from pipeline.findings import Finding
from pipeline.llm import LLMError, LLMSettings
from pipeline.manifest import Case

__all__ = ["output_file", "case_files", "require_llm_settings", "chosen_mapper", "nothing_left_on_bad_input",
           "say_ontology_notes"]


def output_file(path: str, what: str, inputs: Iterable[str | Path | None] = ()) -> Path:
    """``path`` as an output file, checked before any work (else the work is lost at the end).

    Raises:
        InputError: a folder there (``kgc materialize`` would also write its engine copy beside
            it), a file where a folder of the path should be, or one of ``inputs``, the files the command reads: writing it would destroy them.
    """
    if Path(path).is_dir():
        raise InputError(f"{what} is a folder; expected a file name", path=path)
    blocking = next((a for a in Path(path).absolute().parents if a.exists() and not a.is_dir()), None)
    if blocking is not None:  # else the folder's creation fails later with the bare "File exists"
        raise InputError(f"{what}: cannot be created: {blocking} is a file, not a folder", path=path)
    if path != "-":
        target = Path(path).resolve()
        for f in inputs:
            if f is not None and Path(f).resolve() == target:
                raise InputError(f"{what} is {Path(f).name}, a file this command reads; expected a new file name "
                                 "(kgc never writes over its inputs)", path=path)
    return Path(path)


def case_files(case: Case) -> list[Path]:
    """Every file a case reads: its manifest, sources, ontologies, SKOS files, shapes, gold table and
    graph, competency questions."""
    return [p for p in (case.manifest, *(s.path for s in case.sources), *case.ontologies, *case.skos, *case.shapes,
                        case.gold_table, case.gold_graph, *case.competency_questions) if p is not None]


def require_llm_settings(mapper: str) -> None:
    """The LLM mapper's settings read before any case runs: no ``LLM_MODEL`` or a numeric
    ``LLM_*`` variable that does not parse is bad input (exit 2), not a failed case."""
    if mapper != "llm":
        return

    try:
        LLMSettings.from_env()
    except LLMError as exc:
        raise InputError(str(exc)) from exc


def chosen_mapper(mapper: str | None, table: str | None, default: str) -> str:
    """The mapper ``--mapper`` and ``--table`` ask for: ``--table`` names the table the replay mapper
    returns, so it implies ``replay`` when no mapper is named; neither named: ``default`` (the
    registry's default mapper, passed in so that commands without mappers do not import them).

    Raises:
        InputError: ``--table`` with another mapper, which proposes its own table and would leave the
            given one unread (a KG from another table than the user's, exit 0).
    """
    if table is None:
        return mapper or default
    if mapper in (None, "replay"):
        return "replay"
    raise InputError(f"--table {table} is the table the replay mapper returns; --mapper {mapper} proposes its "
                     f"own table and would not read it (expected: --mapper replay, or no --table)")


@contextmanager
def nothing_left_on_bad_input(*paths: str | Path | None) -> Iterator[None]:
    """Bad input writes nothing: when the block raises :class:`InputError` or ``OSError`` (exit 2),
    each of ``paths`` (the files and folders the command may create: its output, the folder of its
    repaired copies ...) that did not exist on entry is removed, and so is each folder above them
    that did not exist on entry and is left empty. What existed on entry is never touched.

    Args:
        paths: files or folders; ``None`` entries are skipped.
    Raises:
        The block's exception, unchanged.
    """
    given = [Path(p).absolute() for p in paths if p is not None and str(p) != "-"]
    new = [p for p in given if not p.exists() and not p.is_symlink()]
    folders = {a for p in given for a in p.parents if not a.exists()}
    try:
        yield
    except (InputError, OSError):
        for p in new:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            elif p.exists() or p.is_symlink():
                p.unlink(missing_ok=True)
        for folder in sorted(folders, key=lambda a: len(a.parts), reverse=True):  # the deepest first
            try:
                folder.rmdir()  # only when empty: another process may have written there meanwhile
            except OSError:
                pass
        raise


def say_ontology_notes(ontology) -> None:
    """What reading the ontology guessed or found (an undeclared well-known prefix, a syntax other than
    the extension's, an import not resolved, datatype ranges with no common value), one warning line
    each on stderr, as `run`'s audit has them."""
    for note in ontology.notes:
        file, _, message = note.partition(": ")
        print(Finding("ontology", file, message or note, severity="warning"), file=sys.stderr)
