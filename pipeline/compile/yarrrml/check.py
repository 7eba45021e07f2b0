"""A YARRRML mapping checked before it is written as RML, its faults named where the user wrote them.

The RML a YARRRML document becomes is checked as ``kgc materialize`` checks RML (functions the
engine has, with their parameters; CSV columns the files have), but each fault is named by the
YARRRML file, line and place (``mapping 'person', predicateobjects[2], object 1``) through
:attr:`~pipeline.compile.yarrrml.read.YarrrmlMapping.origins`, never by a generated TriplesMap IRI,
and all of them at once: fixing one and rerunning to meet the next is what this saves.
"""
from __future__ import annotations

import difflib
from pathlib import Path

from pipeline.compile.yarrrml.read import YarrrmlMapping
from pipeline.errors import InputError
from pipeline.materialize.rml.check import function_problems
from pipeline.materialize.rml.columns import absent_columns

__all__ = ["check_yarrrml"]


def check_yarrrml(doc: YarrrmlMapping, path: str | Path) -> None:
    """Refuse ``doc`` (read from ``path``) when its functions or CSV columns cannot run.

    Raises:
        InputError: at the line of the first fault; the message lists every fault, each with its
            line and place: an unknown function (and the closest known name), a parameter the
            function does not take, a column the CSV file lacks (its columns, the closest one).
    """
    path = Path(path)
    faults: list[tuple[int | None, str]] = []
    for node, problem in function_problems(doc.graph):
        place, line = doc.origins.get(node, ("a function", None))
        faults.append((line, f"{place}: {problem}"))
    folder = path.resolve().parent
    for absent in absent_columns(doc.graph, folder):
        place, line = doc.origins.get(absent.node, (f"mapping of {absent.file}", None))
        close = difflib.get_close_matches(absent.name, absent.header, n=1)
        faults.append((line, f"{place}: {absent.name!r} is not a column of {_shown(absent.file, folder)} (its columns: "
                             f"{', '.join(absent.header) or 'none'}{f'; closest: {close[0]!r}' if close else ''})"))
    if not faults:
        return
    faults.sort(key=lambda f: (f[0] is None, f[0] or 0))
    first_line, first = faults[0]
    rest = "".join(f"; line {line}: {text}" if line else f"; {text}" for line, text in faults[1:])
    raise InputError(first + rest, path=path, line=first_line)


def _shown(file: str, folder: Path) -> str:
    """``file`` as the user wrote it: relative to the YARRRML file's folder when it is inside it."""
    try:
        return str(Path(file).relative_to(folder))
    except ValueError:
        return file
