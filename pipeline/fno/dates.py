"""Date order of a column, decided at compile time for the FnO functions ``normalizeDate`` and
``normalizeDateTime`` (whose date part ``normalizeDate`` reads: one reader, one rule).

``03/04/2024`` is the 3rd of April day-first and the 4th of March month-first; one value does
not say which. The column does: a value whose first number exceeds 12 (``13/01/2024``) makes
the column day-first, one whose second number does (``01/13/2024``) month-first. The compiler
passes the decided order to the function as a parameter, so the engine run converts every value
the same way; a column that no value decides is ambiguous and nothing is guessed (its
day/month values convert to nothing, and the compiler reports it). Year-first forms (ISO
``2024-03-04``, with or without a time; compact ``20240304``) need no decision. A day/month
date followed by a time (``31/12/2024 14:05``) counts by its date.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

__all__ = ["DateOrder", "decide_date_order", "stated_date_order", "DMY", "MDY", "YEAR_FIRST"]

#: Orders passed to ``normalizeDate`` and ``normalizeDateTime`` (their ``order`` parameter).
DMY, MDY, YEAR_FIRST = "DMY", "MDY", "YMD"

#: a day/month date, alone or before a time (``T`` or white space)
_DAY_MONTH = re.compile(r"(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})(?=$|[T\s])")


@dataclass
class DateOrder:
    """The order decided for a column.

    Attributes:
        order: :data:`DMY`, :data:`MDY` or :data:`YEAR_FIRST` (day/month values then convert to nothing).
        status: ``decided`` (a value shows it), ``stated`` (the table says it), ``year-first``
            (no day/month value), ``ambiguous`` (none decides) or ``conflict`` (values point both ways).
        evidence: values that decided it, or examples of the ambiguous/conflicting ones.
        invalid: values that are a date in no order (13/13/2024, 31/02/2024), or none in the stated one.
    """

    order: str
    status: str
    evidence: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)


def stated_date_order(*cells: str | None) -> str | None:
    """The order a table cell states (``toDate(MM/DD/YYYY)``, ``dd-mm-yyyy``), else ``None``."""
    for cell in cells:
        m = re.search(r"\b(d{1,2}|m{1,2})[/.\-](d{1,2}|m{1,2})[/.\-]y{2,4}\b", cell or "", re.I)
        if m and m.group(1)[0].lower() != m.group(2)[0].lower():
            return DMY if m.group(1)[0].lower() == "d" else MDY
    return None


def _valid(day: int, month: int, year: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def decide_date_order(values: list[str], stated: str | None = None) -> DateOrder:
    """Decide the day/month order of a column from its values.

    Args:
        values: the column's values (empty ones ignored).
        stated: an order the table states (:func:`stated_date_order`); it wins, and values that
            contradict it are listed as ``invalid``.
    Returns:
        A :class:`DateOrder`.
    """
    pairs = []
    for v in {v.strip() for v in values if v and v.strip()}:
        m = _DAY_MONTH.match(v)
        if m:
            pairs.append((v, int(m.group(1)), int(m.group(2)), int(m.group(3))))
    pairs.sort()
    if not pairs:
        return DateOrder(stated or YEAR_FIRST, "stated" if stated else "year-first")
    day_first = [v for v, a, b, y in pairs if _valid(a, b, y) and not _valid(b, a, y)]
    month_first = [v for v, a, b, y in pairs if _valid(b, a, y) and not _valid(a, b, y)]
    invalid = [v for v, a, b, y in pairs if not _valid(a, b, y) and not _valid(b, a, y)]
    if stated:
        # a stated order wins; values that are no date in it are listed (as are impossible dates)
        wrong = [v for v, a, b, y in pairs if not (_valid(a, b, y) if stated == DMY else _valid(b, a, y))]
        return DateOrder(stated, "stated", [], sorted(wrong))
    if day_first and month_first:
        return DateOrder(YEAR_FIRST, "conflict", day_first[:2] + month_first[:2], invalid)
    if day_first or month_first:
        return DateOrder(DMY if day_first else MDY, "decided", (day_first or month_first)[:3], invalid)
    return DateOrder(YEAR_FIRST, "ambiguous", [p[0] for p in pairs if p[0] not in invalid][:3], invalid)
