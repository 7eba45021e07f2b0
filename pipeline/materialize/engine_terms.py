"""Whole-column forms of two engine corrections of :mod:`pipeline.materialize.engine` (IRI-safe template
values, N-Triples escaping of function outputs).

Morph-KGC applies its value encoding with ``Series.apply`` and a Python call per row; with the
IRI-safe correction (:func:`pipeline.materialize.engine.iri_safe`, a Python function where Morph-KGC's own
``falcon.uri.encode_value`` is compiled) that cost about 0.19 s of CPU per million values, 2.7x
the engine's own. Most columns need no change at all (identifiers, codes, numbers): one
regular-expression match over the column's values joined by line breaks, in C, says so, and only
other columns are encoded value by value. The result is the same text per row as the per-value
functions (``tests/test_engine_terms.py``).
"""
from __future__ import annotations

import re
from typing import Any

__all__ = ["all_text", "iri_safe_values", "iri_template", "literal_template", "nt_escape_values"]

# values made only of ASCII iunreserved characters, one per line: nothing to encode
_IUNRESERVED_LINES = re.compile(r"[A-Za-z0-9\-._~\n]*")
# values without a character N-Triples escapes in a STRING_LITERAL_QUOTE besides the line feed,
# which separates them (a value holding one is found by counting the separators)
_NO_ESCAPE_LINES = re.compile(r'[^\\"\r]*')


def _joined(values: Any) -> tuple[list, str | None]:
    """The values as a list and joined by line breaks (``None`` when one is no ``str`` or holds a
    line break itself)."""
    items = values.tolist()
    try:
        text = "\n".join(items)
    except TypeError:
        return items, None
    if text.count("\n") != len(items) - 1:
        return items, None
    return items, text


def iri_safe_values(values: Any) -> Any:
    """:func:`pipeline.materialize.engine.iri_safe` of every value of a column.

    Args:
        values: a numpy array of objects or a pandas Series (template values, normally ``str``).
    Returns:
        ``values`` itself when every value is ASCII ``iunreserved`` text (nothing to encode),
        else a numpy object array of the encoded values, row for row.
    """
    import numpy as np

    from pipeline.materialize.engine import iri_safe

    items, text = _joined(values)
    if text is not None and _IUNRESERVED_LINES.fullmatch(text):
        return values
    return np.array([iri_safe(v) for v in items], dtype=object)


def nt_escape_values(values: Any) -> Any:
    """:func:`pipeline.materialize.engine.nt_escape` of every value of a column of ``str``.

    Returns:
        ``values`` itself when no value holds ``\\``, ``"``, LF or CR, else a numpy object array
        of the escaped values.
    """
    return _escaped(values, *_joined(values))


def _escaped(values: Any, items: list, text: str | None) -> Any:
    """:func:`nt_escape_values` of a column already joined by :func:`_joined`."""
    import numpy as np

    from pipeline.materialize.engine import nt_escape

    if text is not None and _NO_ESCAPE_LINES.fullmatch(text):
        return values
    return np.array([nt_escape(v) for v in items], dtype=object)


def iri_template(results_df: Any, template: str, position: str, columns_alias: str = "") -> Any:
    """Build an IRI column from an IRI template as Morph-KGC 2.10's ``_materialize_template``
    does for an IRI-typed template (without ``safe_percent_encoding`` and
    ``only_printable_characters``), with the values encoded by :func:`iri_safe_values`.

    Same result as the engine's step with ``encode_value`` replaced by
    :func:`pipeline.materialize.engine.iri_safe`: ``<`` + the template with each ``{reference}`` replaced by
    the encoded value + ``>`` in ``results_df[position]``, and the last reference's encoded values
    left in ``results_df["reference_results"]`` (a later engine step reads that column).

    Args:
        results_df: the rule's data (a DataFrame, one row per record; changed in place).
        template: the template as the engine holds it (``\\{`` escapes).
        position: the column to write (``subject``, ``object``, ``graph`` ...).
        columns_alias: prefix of the referenced columns (``parent_`` for a join's parent side).
    Returns:
        ``results_df``.
    """
    from morph_kgc.utils import get_references_in_template

    columns = [(r, iri_safe_values(results_df[columns_alias + r].to_numpy(dtype=object)))
               for r in get_references_in_template(template)]
    return _fill(results_df, template, columns, position, "<", ">")


def literal_template(results_df: Any, template: str, position: str, columns_alias: str = "") -> Any | None:
    """Build a literal column as Morph-KGC 2.10's ``_materialize_template`` does for a literal
    without a boolean, dateTime or integer datatype (and with its default escaping: ``\\``, LF,
    CR, ``"``), escaping each column at once (:func:`nt_escape_values`): ``"`` + the template with
    each ``{reference}`` replaced by the escaped value + ``"`` in ``results_df[position]``.

    The engine escapes with four ``str.replace`` passes of a Python call per value (about 0.3 s of
    CPU per million values); most columns hold nothing to escape, which one match finds.

    Args:
        results_df, template, position, columns_alias: as for :func:`iri_template` (``template``:
            ``{reference}`` for a reference-valued term map).
    Returns:
        ``results_df``, or ``None`` (nothing changed) when a referenced column holds a value that
        is no ``str``: the engine's own step decides then.
    """
    from morph_kgc.utils import get_references_in_template

    columns = []
    for reference in get_references_in_template(template):
        values = results_df[columns_alias + reference].to_numpy(dtype=object)
        items, text = _joined(values)
        if text is None and not all(isinstance(v, str) for v in items):
            return None
        columns.append((reference, _escaped(values, items, text)))
    return _fill(results_df, template, columns, position, '"', '"')


def _fill(results_df: Any, template: str, columns: list, position: str, left: str, right: str) -> Any:
    """``left`` + the template with each ``{reference}`` replaced by its column's values + ``right``
    in ``results_df[position]``; the last column stays in ``results_df["reference_results"]`` (a
    later engine step reads it), as Morph-KGC 2.10's ``_materialize_template`` leaves it."""
    rest = template.replace("\\{", "{").replace("\\}", "}")
    built: Any = ""
    for reference, values in columns:
        results_df["reference_results"] = values
        head, _, rest = rest.partition("{" + reference + "}")
        built = built + head + results_df["reference_results"]
    results_df[position] = left + built + rest + right
    return results_df


def all_text(data: Any) -> bool:
    """Whether every cell of a DataFrame is a ``str`` (then Morph-KGC's ``data.map(str)`` changes
    nothing): one join per column, in C, instead of a Python call per cell."""
    for name in data.columns:
        values = data[name].to_numpy(dtype=object)
        try:
            "".join(values.tolist())
        except TypeError:
            return False
    return True
