"""Whether a TriplesMap's subject identifies the records it reads.

R2RML (section 7) makes one subject per distinct value of the subject map: records whose subject
references hold the same values become one subject, which gets the values of all of them. That is
what a file repeating an entity's key on purpose asks for (a customer on each of its orders, with
the same name each time), and harmless when the records repeat the same values, or when their values
form every combination of each other (a book's row per author: the book gets each author, and the
records are the cross product of its title and its authors: a lossless decomposition, the multivalued
dependency of relational theory). It loses data when two records of one subject differ in two or more
values the TriplesMap writes and are no such cross product (`E3` on two lines with another name and
another date): the KG says the subject has two names and two dates, and which date goes with which
name is gone. A record whose subject references have no value gets no subject at all, and the values
the table reads from it are not in the KG.

:func:`subject_key_findings` reports both per TriplesMap, naming the data file, the template, the
table row and an example (CSV: the lines of the records); the verdict of a run counts the merged
records as data lost (:data:`pipeline.validation.loss.MERGED_CODE`).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from math import prod

from pipeline.compile.model import Plan, TriplesMapPlan, term_references
from pipeline.compile.parts import is_position
from pipeline.findings import Finding
from pipeline.sources.columns import ColumnRecords
from pipeline.sources.load import SourceData
from pipeline.validation.loss import MERGED_CODE

__all__ = ["subject_key_findings"]

#: Records named in a message (the lines of a CSV file), at most.
SHOWN = 5


def subject_key_findings(plan: Plan, table_file: str) -> list[Finding]:
    """Warnings on the TriplesMaps of ``plan`` whose subject merges records that differ, or leaves
    records holding mapped values without a subject (module docstring).

    Only TriplesMaps iterating their source's records are judged (not those over logical views or
    inside another TriplesMap's records), on subject references the loaded records hold (an absolute
    XPath or a function of several values is left alone); a subject without references (a constant)
    is one subject by design.

    Args:
        plan: the compiled plan.
        table_file: the table's path, for the row a TriplesMap comes from.
    Returns:
        Findings of stage ``compile`` on the data file: a ``warning`` with code
        :data:`~pipeline.validation.loss.MERGED_CODE` whose message says ``N record(s) become M
        subject(s)``, and a ``warning`` for records without a subject; ``[]`` when neither occurs.
    """
    by_id = {tm.id: tm for tm in plan.triples_maps}
    out: list[Finding] = []
    for tm in plan.triples_maps:
        src = tm.source
        if tm.owner or tm.view is not None or tm.iterator != src.iterator or not tm.poms:
            continue
        keys = list(dict.fromkeys(term_references(tm.subject)))
        if not keys or any(is_position(src, k, tm.iterator) or k not in src.references for k in keys):
            continue
        values = [r for r in dict.fromkeys(_written(tm, by_id)) if r in src.references and r not in keys]
        out += _judge(tm, src, keys, values, table_file)
    return out


def _written(tm: TriplesMapPlan, by_id: dict[str, TriplesMapPlan]) -> list[str]:
    """The references the predicate-object maps of ``tm`` read: object terms, language maps, a join's
    child side, and, for a parent on the same record (no join), the parent's subject references."""
    refs: list[str] = []
    for pom in tm.poms:
        for obj in pom.objects:
            if obj.term is not None:
                refs += term_references(obj.term) + ([obj.term.language_ref] if obj.term.language_ref else [])
            elif obj.joins:
                refs += [child for child, _ in obj.joins]
            elif obj.parent in by_id and by_id[obj.parent].source is tm.source:
                refs += term_references(by_id[obj.parent].subject)
    return refs


def _keys(src: SourceData, refs: list[str]) -> list:
    """Per record, its subject references' values: the cell of a CSV column (a tuple of cells for several
    columns), else the tuple of each reference's values."""
    if isinstance(src.records, ColumnRecords):
        cols = [src.records.column(r) for r in refs]
        return cols[0] if len(cols) == 1 else list(zip(*cols))
    return [tuple(tuple(rec.get(r, ())) for r in refs) for rec in src.records]


def _values(src: SourceData, refs: list[str], idx: list[int]) -> dict[int, tuple]:
    """The values of ``refs`` in the records ``idx`` (CSV: the cells; else the tuples of values)."""
    if isinstance(src.records, ColumnRecords):
        cols = [src.records.column(r) for r in refs]
        return {i: tuple(c[i] for c in cols) for i in idx}
    return {i: tuple(tuple(src.records[i].get(r, ())) for r in refs) for i in idx}


def _blank(value) -> bool:
    """No value: an empty or white-space cell, or, for a tuple (several references, or a reference's values),
    any part without one (the subject needs every reference)."""
    if isinstance(value, str):
        return not value.strip()
    return not value or any(_blank(v) for v in value)


def _judge(tm: TriplesMapPlan, src: SourceData, keys: list[str], written: list[str], table_file: str) -> list[Finding]:
    key_rows = _keys(src, keys)
    distinct = set(key_rows)
    blanks = {k for k in distinct if _blank(k)}
    if len(distinct) == len(key_rows) and not blanks:  # every record its own subject: the usual case, read fast
        return []
    counts = Counter(key_rows) if len(distinct) < len(key_rows) else Counter()
    repeated = {k for k, n in counts.items() if n > 1 and k not in blanks}
    groups: dict = defaultdict(list)
    unkeyed_all: list[int] = []
    for i, key in enumerate(key_rows):
        if key in repeated:
            groups[key].append(i)
        elif key in blanks:
            unkeyed_all.append(i)
    values = _values(src, written, [i for idx in groups.values() for i in idx] + unkeyed_all)
    unkeyed = [i for i in unkeyed_all if any(not _blank(v) for v in values[i])]  # records holding something mapped
    merged = [(key, idx) for key, idx in groups.items() if _loses_pairing([values[i] for i in idx])]
    name = src.source.path.name
    where = f"subject template {tm.template} ({table_file} line {min(tm.lines)})" if tm.lines else \
        f"subject template {tm.template}"
    out = []
    if merged:
        key, idx = merged[0]
        first = [values[i] for i in idx]
        differ = [written[j] for j in range(len(written)) if len({row[j] for row in first}) > 1]
        places = src.record_places(idx[:SHOWN])
        shown = _places(places, idx)
        records = sum(len(i) for _, i in merged)
        key = (key,) if isinstance(key, str) else key  # one CSV column: its cell
        out.append(Finding(
            "compile", str(src.source.path),
            f"{where} does not identify the records of {name}: {_shown_key(keys, key)} on {shown}, which differ in "
            f"{', '.join(differ)}; such records become one subject with the values of all of them, and which of its "
            f"values came together is lost ({records} record(s) become {len(merged)} subject(s))",
            _line(places, idx[1]), ", ".join(keys), _value(key),
            "a subject template whose references differ from record to record (add the column that tells the "
            "records apart)", severity="warning", code=MERGED_CODE))
    if unkeyed:
        places = src.record_places(unkeyed[:SHOWN])
        shown = _places(places, unkeyed)
        empty = [k for j, k in enumerate(keys)
                 if any(_blank(_part(key_rows[i], j, len(keys))) for i in unkeyed)]
        out.append(Finding(
            "compile", str(src.source.path),
            f"{len(unkeyed)} record(s) of {name} have no value for {' or '.join(map(repr, empty))}, which the {where} "
            f"needs ({shown}): they get no subject, and the values the table reads from them are not in the KG",
            _line(places, unkeyed[0]), ", ".join(keys), None, "a value for each reference of the subject template",
            severity="warning"))
    return out


def _part(key, j: int, n: int):
    """The ``j``-th reference's value in a record's key (a CSV cell is the whole key of one column)."""
    return key if n == 1 and isinstance(key, str) else key[j]


def _places(places: dict[int, str], idx: list[int]) -> str:
    """``lines 3 and 4`` (``records 3 and 4``; ``lines 3, 4, 5, 6, 7 and 12 more``) for the records ``idx``."""
    words = [places[i].split(" ", 1) for i in idx[:SHOWN]]
    kind = words[0][0] + ("s" if len(idx) > 1 else "")
    numbers = [n for _, n in words]
    if len(idx) > SHOWN:
        return f"{kind} {', '.join(numbers)} and {len(idx) - SHOWN} more"
    return f"{kind} {' and '.join(numbers)}" if len(numbers) < 3 else f"{kind} {', '.join(numbers[:-1])} and {numbers[-1]}"


def _loses_pairing(rows: list[tuple]) -> bool:
    """Whether records sharing a subject hold values the subject cannot give back: their distinct value
    tuples are fewer than every combination of each reference's distinct values (module docstring)."""
    distinct = set(rows)
    if len(distinct) < 2:
        return False
    return prod(len({row[j] for row in distinct}) for j in range(len(rows[0]))) > len(distinct)


def _shown_key(keys: list[str], key: tuple) -> str:
    return ", ".join(f"{{{k}}} = {_value(v)!r}" for k, v in zip(keys, key))


def _value(value) -> str:
    if isinstance(value, tuple) and all(isinstance(v, tuple) for v in value):
        return ", ".join(_value(v) for v in value)
    return " | ".join(value) if isinstance(value, tuple) else value


def _line(places: dict[int, str], i: int) -> int | None:
    """The line of record ``i`` in the source file the finding names; ``None`` for a record named by
    number, or by a line of one of the files of a folder source (``line 3 of b.csv``)."""
    where = places.get(i, "")
    return int(where.split()[1]) if where.startswith("line ") and " of " not in where else None
