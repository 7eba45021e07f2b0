"""Decimal mark of a column, decided at compile time for the FnO function ``normalizeDecimalComma``
(``toDecimal()``; :func:`pipeline.fno.udfs.normalize_decimal`).

``15,000`` is fifteen thousand where the comma groups thousands (English) and fifteen where it is
the decimal mark (German, French); one value does not say which. The column does: a value that
is a number under one mark only decides it, as ``1,234.50`` (both separators: the last one is the
decimal mark), ``1,234,567`` (a grouping character repeats), ``12.99`` or ``8,99`` (a mark not
followed by three digits cannot group thousands) do. The compiler passes the decided mark to the
function as a parameter, so the engine run reads every value the same way. A column whose values
point both ways, or that no value decides, gets no mark: each value is then read only when its own
form decides it, and the ones whose magnitude depends on the mark give no value and are reported,
never a guessed magnitude. A mark the table states (a number format code ``#,##0.00`` / ``#.##0,00``
in Function Name or Function Output) wins.

A unit written on the values (a currency sign or code, ``€1,250.00``, ``12 EUR``; a percent sign,
``12.5%``) is no part of an xsd:decimal (XSD 1.1 Part 2, 3.3.3). When every value carries the same
one (:func:`decide_unit`), the compiler passes it as the function's ``unit`` parameter and the
number is read without it; a column with two currencies holds amounts that are not one quantity,
and a lone ``€ 5,50`` among plain numbers is a faulty cell, so then no unit is passed and the
values with one give no value, reported.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from pipeline.fno import udfs

__all__ = ["DecimalMark", "ColumnUnit", "decide_decimal_mark", "decide_unit", "stated_decimal_mark", "column_reader",
           "COMMA", "POINT", "UNDECIDED", "INTEGER_DATATYPES"]

#: Marks passed to ``normalizeDecimalComma`` (its ``mark`` parameter).
COMMA, POINT, UNDECIDED = ",", ".", udfs.UNDECIDED_MARK

#: xsd:integer and the datatypes derived from it (XSD 1.1 Part 2, 3.4.13-3.4.25): values without a fraction
INTEGER_DATATYPES = frozenset("http://www.w3.org/2001/XMLSchema#" + t for t in (
    "integer", "nonNegativeInteger", "nonPositiveInteger", "positiveInteger", "negativeInteger", "long", "int",
    "short", "byte", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte"))

#: xsd:integer's lexical form (XSD 1.1 Part 2, 3.4.13.1): digits, an optional sign, no point
_INTEGER = re.compile(r"[+-]?\d+")

#: a number format code as spreadsheets write one (``#,##0.00``, ``# ##0,00``, ``0.00``)
_FORMAT = re.compile(r"(?<![\w.,])[#0]+(?:[,.' \u00a0][#0]+)+(?![\w.,])")


@dataclass
class DecimalMark:
    """The decimal mark decided for a column.

    Attributes:
        mark: :data:`COMMA`, :data:`POINT` or :data:`UNDECIDED` (each value read by its own form).
        status: ``decided`` (a value shows it), ``stated`` (the table says it), ``plain`` (no value
            depends on the mark), ``ambiguous`` (some values do, none decides) or ``conflict``
            (values point both ways).
        evidence: values that decided it, or examples of the conflicting ones.
        ambiguous: values read differently under the two marks (``15,000``): read with the decided
            mark, or left out when there is none.
        invalid: values with a digit that are no number under the mark (under either when undecided).
    """

    mark: str
    status: str
    evidence: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)


@dataclass
class ColumnUnit:
    """The unit written on a column's numbers.

    Attributes:
        unit: the one currency sign, ISO 4217 code or ``%`` the values carry (:func:`udfs.value_unit`),
            else ``None``.
        status: ``none`` (no value carries a unit), ``shared`` (every value with a digit carries
            ``unit``), ``partial`` (one unit, but some values carry none: those with it are read as
            faulty cells, ``€ 5,50`` among ``12,00``) or ``mixed`` (two or more units); no unit is
            decided unless ``shared``.
        evidence: up to three values per unit seen, for messages.
    """

    unit: str | None
    status: str
    evidence: list[str] = field(default_factory=list)


def decide_unit(values: list[str]) -> ColumnUnit:
    """The unit of a column's numbers from its values (empty ones and those without a digit ignored)."""
    seen: dict[str, list[str]] = {}
    plain = []
    for v in sorted({v.strip() for v in values if v and any(c.isdigit() for c in v)}):
        # `12 €` and `EUR 5`: one currency; `($ 12.00)`, an accounting negative, carries its unit inside
        unit = udfs.same_unit(udfs.value_unit(udfs.accounting_negative(v) or v)[0])
        if unit is not None:
            seen.setdefault(unit, []).append(v)
        else:
            plain.append(v)
    if not seen:
        return ColumnUnit(None, "none")
    if len(seen) == 1:
        unit, shown = next(iter(seen.items()))
        return ColumnUnit(unit, "shared", shown[:3]) if not plain else ColumnUnit(None, "partial", shown[:3])
    return ColumnUnit(None, "mixed", [v for shown in seen.values() for v in shown[:2]])


def _readings(value: str, unit: str | None = None) -> dict[str, str]:
    """Mark -> the value's xsd:decimal form under that mark, for the marks it is a number under."""
    out = {}
    for mark in (COMMA, POINT):
        reading = udfs.normalize_decimal(value, mark, unit)
        if reading is not None:
            out[mark] = reading
    return out


def _integral(reading: str) -> bool:
    """Whether an xsd:decimal form has no fractional part (``523026``, ``12.00``)."""
    try:
        number = Decimal(reading)
    except InvalidOperation:
        return False
    return number == number.to_integral_value()


def stated_decimal_mark(*cells: str | None) -> str | None:
    """The decimal mark a table cell states, else ``None``: a number format whose form decides it
    code (``#,##0.00`` and ``0.00`` say :data:`POINT`, ``#.##0,00`` and ``# ##0,00`` :data:`COMMA`;
    ``#,##0`` decides nothing). Only format codes state it: the offline mapper's note
    ``decimal comma read as a point (8,99 -> 8.99)`` describes the values it saw, not a rule."""
    for cell in cells:
        for m in _FORMAT.finditer(cell or ""):
            readings = _readings(m.group(0).replace("#", "1"))
            if len(readings) == 1:
                return next(iter(readings))
    return None


def decide_decimal_mark(values: list[str], stated: str | None = None, unit: str | None = None,
                        integer: bool = False) -> DecimalMark:
    """Decide the decimal mark of a column from its values.

    Args:
        values: the column's values (empty ones and those without a digit ignored).
        stated: a mark the table states (:func:`stated_decimal_mark`); it wins, and values that are
            no number under it are listed as ``invalid``.
        unit: the column's unit (:func:`decide_unit`), left out of each value that carries it.
        integer: the values become literals of an integer datatype (``xsd:integer`` and the types
            derived from it, whose values have no fractional part: XSD 1.1 Part 2, 3.4.13), so a
            reading with a fraction is no reading of a value: ``523.026`` of a population is 523026,
            and decides that ``.`` groups thousands. A value with a fraction under every mark is
            left to the datatype's check (the guard reports it), not called undecided.
    Returns:
        A :class:`DecimalMark`.
    """
    distinct = sorted({v.strip() for v in values if v and any(c.isdigit() for c in v)})
    read = {v: _readings(v, unit) for v in distinct}
    if integer:
        whole = {v: {m: r for m, r in read[v].items() if _integral(r)} for v in distinct}
        read = {v: whole[v] or read[v] for v in distinct}  # a fraction under every mark: as read
    ambiguous = [v for v in distinct if len(set(read[v].values())) == 2]
    if stated:
        return DecimalMark(stated, "stated", [], ambiguous, [v for v in distinct if stated not in read[v]])
    comma = [v for v in distinct if list(read[v]) == [COMMA]]
    point = [v for v in distinct if list(read[v]) == [POINT]]
    invalid = [v for v in distinct if not read[v]]
    if comma and point:
        return DecimalMark(UNDECIDED, "conflict", comma[:2] + point[:2], ambiguous, invalid)
    if comma or point:
        mark = COMMA if comma else POINT
        return DecimalMark(mark, "decided", (comma or point)[:3], ambiguous, invalid)
    return DecimalMark(UNDECIDED, "ambiguous" if ambiguous else "plain", ambiguous[:3], ambiguous, invalid)


def column_reader(values: list[str], integer: bool = False):
    """What ``toDecimal()`` makes of each value of this column, as the compiler decides it
    (``pipeline/compile/objects.py``): the column's unit when every value with a digit carries the same one
    (:func:`decide_unit`), its decimal mark (:func:`decide_decimal_mark`), each value read with both
    (:func:`pipeline.fno.udfs.normalize_decimal`). With ``integer`` (the literals are of an integer
    datatype, :data:`INTEGER_DATATYPES`) a reading with a point (``12.50``, also ``12.00``) is no value:
    it is outside xsd:integer's lexical space and the guard would drop it. So the offline mapper judges a
    column by what the KG gets.

    Returns:
        ``value -> xsd:decimal (integer) lexical form or None``.
    """
    unit = decide_unit(values)
    shared = unit.unit if unit.status == "shared" else None
    mark = decide_decimal_mark(values, unit=shared, integer=integer).mark

    def read(value: str) -> str | None:
        out = udfs.normalize_decimal(value, mark, shared)
        return None if out is None or integer and not _INTEGER.fullmatch(out) else out
    return read
