"""Gold-table columns the table reader did not read, and the BLINKG tasks they leave unscored.

A gold table whose header misnames a column (``Lang`` for ``Language Tag``) is read without that
column's cells: the task the column feeds has no gold value in any row, so it is "not applicable"
and the mean task F1 is taken over the other tasks, which can raise it (a wrong language tag is no
longer counted). The reader keeps every header it does not know
(:attr:`pipeline.table.model.MappingTable.ignored_headers`); this module turns them into gold findings,
names the column a near miss was probably meant to be, and says which task the score then lacks, so
that a scorer marks its figure as against a partial gold instead of printing a higher one unmarked.

A column the gold table's header does not have at all (a hand-written gold of five columns) is the
same case without a header to blame: no task finds a gold value there, so the task is not
applicable, yet an absent column is no evidence that the cells must be empty. When the scored table
gives that column values, they are judged by nothing: :func:`absent_gold_columns` names such
columns, and the scorer lists their tasks as not scored (a partial gold) instead of leaving the
mean over the other tasks unsaid. Only a Markdown or CSV gold has a header; a JSON gold's rows
name their fields one by one, so no column is absent there.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from pipeline.findings import Finding
from pipeline.table.markdown import HEADER_ALIASES
from pipeline.table.model import COLUMNS, TASK_COLUMNS, MappingTable

__all__ = ["IgnoredColumn", "ignored_gold_columns", "absent_gold_columns", "absent_columns_finding"]

#: Least rapidfuzz ratio (0-100) of a header to a column name for a near miss; the reader itself
#: reads a header at 85 or more as that column, so a near miss lies between.
NEAR_RATIO = 70


@dataclass(frozen=True)
class IgnoredColumn:
    """One header of a gold table the reader ignored.

    Attributes:
        header: the header as written (``Lang``).
        line: the 1-based line of the header.
        probable: the mapping-table column it was probably meant to be (``Language Tag``), ``None``
            when it resembles none (an extra column such as ``Notes``).
        task: the BLINKG task that column feeds (``Language Annotation``), ``None`` when none.
    """

    header: str
    line: int
    probable: str | None
    task: str | None


def _words(text: str) -> list[str]:
    return re.sub(r"[^a-z ]", " ", text.lower()).split()


def _probable_field(header: str) -> str | None:
    """The row field a misnamed header most likely stands for: each of its words is the start of the
    matching word of a column name or alias (``Lang`` -> ``language``, ``Rel Class`` -> ``related class``),
    an abbreviation of at least three letters; else the closest name with a rapidfuzz ratio of at least
    :data:`NEAR_RATIO`; ``None`` when no name is near, or when the abbreviation fits several columns."""
    words = _words(header)
    if not words:
        return None
    names = {**{k: v for k, v in HEADER_ALIASES.items()}, **{v.lower(): k for k, v in COLUMNS.items()}}
    starts = {fld for name, fld in names.items() if len(name.split()) >= len(words)
              and all(len(w) >= 3 and p.startswith(w) for w, p in zip(words, name.split()))}
    if starts:  # an abbreviation of two columns (``Source``: Source File or Source Reference) names neither
        return starts.pop() if len(starts) == 1 else None
    key = " ".join(words)
    best = max(names, key=lambda n: fuzz.ratio(key, n))
    return names[best] if fuzz.ratio(key, best) >= NEAR_RATIO else None


def ignored_gold_columns(gold: MappingTable) -> tuple[list[IgnoredColumn], list[Finding]]:
    """The headers of ``gold`` its reader ignored, and one gold finding per header.

    Args:
        gold: a gold table as read (its ``ignored_headers`` the headers its reader did not read, its
            ``source`` the file).
    Returns:
        ``(columns, findings)``: an :class:`IgnoredColumn` per ignored header, and for each a finding
        of stage ``gold`` naming the file, the line, the header and the column it was probably meant
        to be; a near miss of a task's column is a ``warning`` (that task is not scored against this
        gold), any other header an ``info`` (an extra column, such as notes, that no task reads).
    """
    task_of = {fld: task for task, fld in TASK_COLUMNS.items()}
    columns: list[IgnoredColumn] = []
    findings: list[Finding] = []
    for header, line in gold.ignored_headers:
        fld = _probable_field(header)
        col = IgnoredColumn(header, line, COLUMNS.get(fld) if fld else None, task_of.get(fld) if fld else None)
        columns.append(col)
        if col.task:
            message = (f"gold table: header {header!r} is no mapping-table column: its cells are not read, so the "
                       f"{col.task} task is not scored against this gold and the mean task F1 is over the other tasks")
            findings.append(Finding("gold", gold.source, message, line=line, column="header", value=header,
                                    expected=f"a mapping-table column such as {col.probable!r}", candidate=col.probable,
                                    severity="warning", code="gold-column-ignored"))
        else:
            findings.append(Finding("gold", gold.source, f"gold table: header {header!r} is no mapping-table "
                                    "column; its cells are not read", line=line, column="header", value=header,
                                    expected="the mapping-table columns", severity="info", code="gold-column-ignored"))
    return columns, findings


def absent_gold_columns(gold: MappingTable) -> dict[str, str]:
    """The task columns the header of a Markdown or CSV gold table does not have, and that no header it
    ignored stands for (:func:`ignored_gold_columns` names those).

    Args:
        gold: a gold table as read (``columns``: the fields its header names; empty for JSON).
    Returns:
        task -> column header (``{"Datatype": "Datatype", "Language Annotation": "Language Tag"}``), in
        task order; ``{}`` for a JSON table or one with every task column.
    """
    if not gold.columns:
        return {}
    meant = {_probable_field(h) for h, _ in gold.ignored_headers}
    return {task: COLUMNS[fld] for task, fld in TASK_COLUMNS.items() if fld not in gold.columns and fld not in meant}


def absent_columns_finding(gold: MappingTable, unjudged: dict[str, int]) -> Finding | None:
    """One gold warning naming the absent columns (:func:`absent_gold_columns`) in which the scored table
    has values, and the tasks left unscored.

    Args:
        gold: the gold table. unjudged: task -> number of values the scored table gives it (tasks of
            absent columns only; a task with 0 is left out: nothing is unjudged).
    Returns:
        The finding (stage ``gold``, code ``gold-column-absent``), or ``None`` when no value is unjudged.
    """
    absent = absent_gold_columns(gold)
    tasks = [t for t in absent if unjudged.get(t)]
    if not tasks:
        return None
    names = ", ".join(absent[t] for t in tasks)
    counts = ", ".join(f"{unjudged[t]} {t}" for t in tasks)
    message = (f"gold table: no {names} column{'s' if len(tasks) > 1 else ''}: an absent column is no evidence "
               f"that its cells are empty, so the table's values there ({counts}) are judged by nothing; "
               f"{'that task is' if len(tasks) == 1 else 'those tasks are'} not scored against this gold and the "
               "mean task F1 is over the other tasks")
    return Finding("gold", gold.source, message, column="header", expected=f"a header with the column(s) {names}",
                   severity="warning", code="gold-column-absent")
