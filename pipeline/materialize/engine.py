"""Morph-KGC 2.10 as the engine: how it is configured and the places it is corrected.

Morph-KGC builds every RDF term as text. Five of its behaviours would put wrong or
unparsable terms into a KG or lose records silently (a sixth stops the run), and none can be
undone from its output text afterwards, so they are corrected where they happen, for the duration of one engine run
(:func:`engine_run`), by replacing one module attribute each (the engine is pinned to
2.10.0 in ``pyproject.toml``; :data:`ENGINE_VERSION` is checked):

* **Function outputs are not escaped** (morph-kgc#182): ``_materialize_fnml_execution``
  escapes the wrong column, so a GREL/UDF literal holding ``\\``, ``"`` or a newline is
  written raw and cannot be parsed back to its value. The literal term is rebuilt from the
  function's raw output with N-Triples escaping (:func:`nt_escape`).
* **Empty and missing values become data** (morph-kgc#297): an empty XML element yields
  ``None`` and a missing one ``NaN``, which the engine turns into the strings ``"None"`` and
  ``"nan"`` (and into IRIs such as ``.../None``). Records whose referenced values are null
  in the source are left out before that conversion, decided per value; a real text
  ``"None"`` in the data is kept.
* **IRI templates are URI-safe, not IRI-safe**: see :func:`iri_safe`.
* **xsd:integer values go through float** (``3.7`` -> ``3``, 20-digit numbers rounded, a
  non-number aborts the run): they are written as the source holds them and the guard checks
  them (an ill-typed one is dropped with a finding).

* **A missing XML attribute aborts the run**: a reference to an attribute of the iterated
  element (``@isbn``) is read with ``e.attrib[name]``, so one record without that attribute
  raises ``KeyError`` and no triple is written. The records are handed to the reader with
  attributes where a missing one reads as absent, as a missing nested element already does;
  such records are then left out for that reference like any empty value (above).

* **A null anywhere under a JSON record's referenced keys drops the record**: the JSON reader
  flattens every member under the top-level keys a rule reads and drops a record with *any*
  null among them, so a venue whose unused ``geo`` is ``null`` loses its ``venue.name``
  triple, silently. The reader is replaced by the same flattening without that drop; records
  are then left out per reference, as for every other source (above), and counted.

(The function correction also writes a function-valued language map as a tag, not a quoted string,
and keeps an empty string output, which makes a triple: only a missing output is no value, RML-FNML.
A function of our UDF file with the IRI of an engine built-in replaces it for the run, where the
built-in differs from the GREL implementation, :mod:`pipeline.fno.udfs`.)

A derived source (:data:`~pipeline.materialize.rml.vocabulary.DERIVED_SUFFIX`) holds no null but
absent keys, so its empty strings are values.

Besides the corrections, some engine steps run more cheaply with the same result
(``tests/test_engine_terms.py``): each CSV/TSV source is parsed once per run, not once per
mapping rule (:class:`pipeline.materialize.readers.CsvReads`); a text-only source frame is not
converted cell by cell with ``str()`` (:func:`all_text`); and IRI-safe encoding and literal
escaping run over a whole column at once (:func:`iri_template`, :func:`literal_template`).
Morph-KGC encodes template values with a Python call per row (``Series.apply``), and
:func:`iri_safe` is a Python function where Morph-KGC's own encoder is compiled; but most
columns need no change at all (identifiers, codes, numbers): one regular-expression match over
a column's values joined by line breaks, in C, says so, and only the other columns are encoded
value by value (:func:`iri_safe_values`, :func:`nt_escape_values`).
"""
from __future__ import annotations

import atexit
import configparser
import io
import re
import shutil
import tempfile
from collections import Counter
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from pipeline.errors import InputError
from pipeline.fno import UDF_FILE, udfs
from pipeline.materialize.guard import BAD_PERCENT, FAST_IRI_TOKEN
from pipeline.materialize.readers import NO_VALUE_RECORDS, CsvReads, ElementPath, read_json
from pipeline.materialize.rml.vocabulary import BNODE_NS, DERIVED_SUFFIX, REF_NS
from pipeline.materialize.rule_cache import load, rule_key, store

__all__ = ["ENGINE_VERSION", "iri_safe", "nt_escape", "iri_safe_values", "nt_escape_values", "iri_template",
           "literal_template", "all_text", "engine_run", "run_engine", "engine_config", "EMPTY_VALUES", "NO_VALUE", "JOIN_MISSES", "note_join_misses", "KEY_SEPARATOR", "join_key_text",
           "engine_groups", "engine_rules", "asserted_groups", "group_frames", "trusted_template", "trusted_term"]

ENGINE_VERSION = "2.10.0"
#: ``(source file, reference) -> records left out`` because the value is null in the source
#: (filled by the last single-process :func:`run_engine`).
EMPTY_VALUES: Counter = Counter()
#: ``function execution id -> [frames]``: the rows of a rule whose referenced values are all there
#: (the engine left out those with a null before the call) and to which the function gave no value,
#: as DataFrames with (at least) the referenced columns. Drained per mapping group by the caller
#: (:func:`pipeline.materialize.materializer.function_drops`); the columnar path adds its rows too.
NO_VALUE: dict[str, list] = {}
#: ``(child source, subject map, predicate, child references, parent TriplesMap, parent references) ->
#: [key arrays, examples]``: per join rule the join keys (values NUL-joined) of child rows no parent
#: record matched (an empty array when all matched: the rule ran), and up to three ``(key, hint)``
#: with a near miss (a parent key equal without surrounding white space, or ignoring case). Moved
#: into the guard per mapping group, said at the end (:func:`pipeline.materialize.materializer.join_drops`).
JOIN_MISSES: dict[tuple, list] = {}
#: What separates the values of a composite join key in its text (:func:`join_key_text`): ASCII's
#: unit separator, a control character made to separate fields, which no text value holds. Not NUL:
#: pandas' string hash tables read a key as a C string, up to its first NUL, so ``'s1\x00A'`` and
#: ``'s1\x00B'`` would be one key.
KEY_SEPARATOR = "\x1f"


def join_key_text(columns: list) -> Any:
    """Join key tuples as one string each, the values separated by :data:`KEY_SEPARATOR`.

    The separator is added as an object array, never as a ``str`` scalar: numpy makes that a
    ``str_``, which drops trailing NULs (a NUL separator added so glued ``('US', 'Paris')`` into
    ``'USParis'``, the key of ``('USP', 'aris')`` too).

    Args:
        columns: one array (or ``pandas.Series``) of text per reference of the key, equal lengths.
    Returns:
        The first column itself for a key of one reference, else an object array of strings.
    """
    if len(columns) == 1:
        return columns[0]
    sep = np.array([KEY_SEPARATOR], dtype=object)
    out = np.asarray(columns[0], dtype=object)
    for col in columns[1:]:
        out = out + sep + np.asarray(col, dtype=object)
    return out


def _near_miss(key: str, parent_keys: Any) -> str:
    """How the child key ``key`` nearly matches one of ``parent_keys`` (a ``pandas.Index``), or ``""``."""
    stripped = key.strip()
    if stripped != key and stripped in parent_keys:
        return f"matches {stripped!r} without its surrounding white space"
    folded = key.casefold()
    for parent in parent_keys[:1_000_000]:  # once per example (three per rule), only when a key is unmatched
        if isinstance(parent, str) and parent.casefold() == folded:
            return f"matches {parent!r} ignoring case"
    return ""


def note_join_misses(rule: Any, child_refs: list, parent_refs: list, missing: Any, parent_keys: Any) -> None:
    """Keep the join keys ``missing`` (text, :func:`join_key_text` for several conditions) that no parent key
    matched for the engine rule ``rule``, in :data:`JOIN_MISSES`.

    Args:
        rule: the engine's rule (a row of its rule table). child_refs, parent_refs: the join's references.
        missing: the unmatched keys (an array of text, duplicates allowed). parent_keys: the parent's
            distinct keys (a ``pandas.Index``), for the near misses of the first examples.
    """
    key = (str(rule["logical_source_value"]), str(rule["subject_map_value"]), str(rule["predicate_map_value"]),
           tuple(child_refs), str(rule["object_map_value"]), tuple(parent_refs))
    entry = JOIN_MISSES.setdefault(key, [[], []])
    entry[0].append(np.asarray(missing, dtype=object))
    for k in dict.fromkeys(missing):
        if len(entry[1]) >= 3:
            break
        if all(k != e[0] for e in entry[1]):
            entry[1].append((k, _near_miss(k, parent_keys) if isinstance(k, str) else ""))

_UCSCHAR = ((0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF)) + tuple(
    (0x10000 * k, 0x10000 * k + 0xFFFD) for k in range(1, 15))
#: the characters Morph-KGC escapes in a literal by default (its ``literal_escaping_chars``), and ``\\``
_ESCAPED = {'"', "\n", "\r", "\\"}
# one scan in C: every character outside RFC 3987 iunreserved (ALPHA / DIGIT / -._~ / ucschar)
# str.strip with this set runs in C: far cheaper per value than the regular expression below
_ASCII_IUNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
_NOT_IUNRESERVED = re.compile("[^A-Za-z0-9\\-._~" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _UCSCHAR) + "]+")


def iri_safe(value: object) -> str:
    """The IRI-safe form of a template value (R2RML section 7.3, RML-Core "IRI-safe").

    Every character outside RFC 3987 ``iunreserved`` (ALPHA, DIGIT, ``-._~`` and the
    ``ucschar`` ranges) is UTF-8 encoded and percent-encoded with upper-case hex digits.
    Hence non-ASCII letters stay as they are and reserved characters are encoded:
    ``Zoë Krüger`` -> ``Zoë%20Krüger``, ``日本`` -> ``日本``, ``a/b?c#d`` -> ``a%2Fb%3Fc%23d``.
    We chose IRI-safe (what R2RML and RML-Core prescribe, kg-construct/rml-core#262) over the
    engine's URI-safe encoding (``Zo%C3%AB``): both give valid IRIs, only IRI-safe gives the
    IRIs a conformant engine mints, so KGs from different engines link.

    Args:
        value: the value (``str()`` is applied).
    Returns:
        The encoded string.
    """
    text = value if isinstance(value, str) else str(value)
    if not text.strip(_ASCII_IUNRESERVED):  # only ASCII iunreserved characters: nothing to encode (most values)
        return text
    return _encode(text)


@lru_cache(maxsize=1 << 16)
def _encode(text: str) -> str:
    # values that need encoding repeat (times, names): each distinct one is encoded once
    return _NOT_IUNRESERVED.sub(_percent, text)


def _percent(m: re.Match) -> str:
    return "".join(f"%{b:02X}" for b in m.group(0).encode("utf-8"))


def nt_escape(value: str) -> str:
    """Escape a string for an N-Triples ``STRING_LITERAL_QUOTE`` (``\\``, ``"``, LF, CR)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


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
    """:func:`iri_safe` of every value of a column.

    Args:
        values: a numpy array of objects or a pandas Series (template values, normally ``str``).
    Returns:
        ``values`` itself when every value is ASCII ``iunreserved`` text (nothing to encode),
        else a numpy object array of the encoded values, row for row.
    """
    items, text = _joined(values)
    if text is not None and _IUNRESERVED_LINES.fullmatch(text):
        return values
    return np.array([iri_safe(v) for v in items], dtype=object)


def nt_escape_values(values: Any) -> Any:
    """:func:`nt_escape` of every value of a column of ``str``.

    Returns:
        ``values`` itself when no value holds ``\\``, ``"``, LF or CR, else a numpy object array
        of the escaped values.
    """
    return _escaped(values, *_joined(values))


def _escaped(values: Any, items: list, text: str | None) -> Any:
    """:func:`nt_escape_values` of a column already joined by :func:`_joined`."""
    if text is not None and _NO_ESCAPE_LINES.fullmatch(text):
        return values
    return np.array([nt_escape(v) for v in items], dtype=object)


def iri_template(results_df: Any, template: str, position: str, columns_alias: str = "") -> Any:
    """Build an IRI column from an IRI template as Morph-KGC 2.10's ``_materialize_template``
    does for an IRI-typed template (without ``safe_percent_encoding`` and
    ``only_printable_characters``), with the values encoded by :func:`iri_safe_values`.

    Same result as the engine's step with ``encode_value`` replaced by
    :func:`iri_safe`: ``<`` + the template with each ``{reference}`` replaced by
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

    The engine escapes with four ``str.replace`` passes of a Python call per value; most columns
    hold nothing to escape, which one match finds.

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


@contextmanager
def engine_run() -> Iterator[None]:
    """Apply the corrections of the module docstring for the time of one engine run."""
    from morph_kgc import materializer
    from morph_kgc.constants import (RDB, RML_IRI, RML_LITERAL, RML_REFERENCE, RML_TEMPLATE, XSD_BOOLEAN,
                                     XSD_DATETIME, XSD_INTEGER)
    from morph_kgc.data_source import data_file
    from morph_kgc.fnml import fnml_executer
    from morph_kgc.utils import remove_null_values_from_dataframe

    null_values_original = fnml_executer.remove_null_values_from_dataframe
    xpath_original = data_file.elementpath
    json_original = data_file._read_json
    csv_original = data_file._read_csv
    template_original = materializer._materialize_template
    fnml_original = materializer._materialize_fnml_execution
    data_original = materializer.get_file_data
    encode_original = materializer.encode_value
    preprocess_original = materializer._preprocess_data
    merge_original = materializer._merge_data

    def template(results_df, template, expression_type, config, position, columns_alias="", termtype="", datatype=""):
        # the IRI-safe encoding and the literal escaping of a whole column at once, not a Python
        # call per value; the engine's own step where a setting or datatype asks for more
        plain = not config.only_write_printable_characters()
        if expression_type == RML_TEMPLATE and termtype.strip() == RML_IRI and plain \
                and not config.get_safe_percent_encoding():
            return iri_template(results_df, template, position, columns_alias)
        # xsd:integer values would go through float (3.7 -> 3, 20 digits rounded); kept as written, checked by the guard
        datatype = "" if datatype == XSD_INTEGER else datatype
        if expression_type in (RML_TEMPLATE, RML_REFERENCE) and termtype.strip() == RML_LITERAL and plain \
                and datatype not in (XSD_BOOLEAN, XSD_DATETIME) \
                and set(config.get_literal_escaping_chars()) <= _ESCAPED:
            done = literal_template(results_df, f"{{{template}}}" if expression_type == RML_REFERENCE else template,
                                    position, columns_alias)
            if done is not None:
                return done
        return template_original(results_df, template, expression_type, config, position, columns_alias, termtype,
                                 datatype)

    def fnml(results_df, fnml_execution, fnml_df, config, position, termtype=RML_LITERAL, datatype=""):
        datatype = "" if datatype == XSD_INTEGER else datatype
        results_df = fnml_original(results_df, fnml_execution, fnml_df, config, position, termtype, datatype)
        if position == "lang_datatype" and termtype.strip() == RML_LITERAL:
            # a function-valued language map: the engine would quote the tag ("Venus"@"en")
            results_df[position] = results_df[fnml_execution]
        elif termtype.strip() == RML_LITERAL:
            results_df[position] = '"' + nt_escape_values(results_df[fnml_execution].to_numpy(dtype=object)) + '"'
        return results_df

    def output_nulls(data, config, references, column=None):
        if column is not None:  # a function's output: only None is no value (RML-FNML: "" makes a triple)
            missing = data[column].isna()
            if missing.any():  # kept here, where the engine drops the rows; said by the materialize stage
                NO_VALUE.setdefault(str(column), []).append(data.loc[missing])
                return data[~missing]
            return data
        return null_values_original(data, config, references, column)

    def preprocess(data, rml_rule, references, config):
        if str(rml_rule.get("logical_source_value", "")).endswith(DERIVED_SUFFIX) and all_text(data):
            # a derived source holds no null but absent keys (dropped by file_data): "" is a value
            return data.convert_dtypes(convert_boolean=False).astype(str).drop_duplicates()
        if rml_rule["source_type"] == RDB or not all_text(data):
            return preprocess_original(data, rml_rule, references, config)
        # the engine's steps without `data.map(str)`, which changes no cell of text (a Python call per cell)
        data = remove_null_values_from_dataframe(data, config, references)
        return data.convert_dtypes(convert_boolean=False).astype(str).drop_duplicates()

    def merge(data, parent_data, rml_rule, join_condition):
        out = merge_original(data, parent_data, rml_rule, join_condition)
        if join_condition == "object_join_conditions" and len(data):
            import pandas as pd
            from morph_kgc.utils import get_references_in_join_condition

            child, parent = get_references_in_join_condition(rml_rule, join_condition)
            if all(c in data for c in child) and all(p in parent_data for p in parent):
                def keys(frame, refs):
                    return np.asarray(join_key_text([frame[r].astype(str).to_numpy(dtype=object) for r in refs]),
                                      dtype=object)

                parent_keys = pd.Index(pd.unique(keys(parent_data, parent)))
                child_keys = keys(data, child)
                missing = ~pd.Index(child_keys).isin(parent_keys)
                # child records this join leaves without object (none: the rule is noted as run)
                note_join_misses(rml_rule, child, parent, child_keys[missing], parent_keys)
        return out

    def file_data(rml_rule, references):
        NO_VALUE_RECORDS.clear()
        df = data_original(rml_rule, references)
        source = str(rml_rule["logical_source_value"])
        # the JSON reader counted per iterator record (an empty array leaves no row, "" is no value)
        for (src, ref), n in NO_VALUE_RECORDS.items():
            if n and src == source and ref in references:
                EMPTY_VALUES[(src, ref)] = max(EMPTY_VALUES[(src, ref)], n)
        NO_VALUE_RECORDS.clear()
        cols = [c for c in references if c in df.columns]
        if cols:
            null = df[cols].isna()
            if not source.endswith(DERIVED_SUFFIX) and str(rml_rule.get("source_type", "")).upper() in ("CSV", "TSV"):
                # an empty CSV cell makes no term (the engine's na_values): counted here, as a JSON "" is
                null |= df[cols].astype(str).eq("")
            if null.to_numpy().any():
                for c in cols:
                    key = (source, c)
                    # several rules read the same source: the count is per record, not per read
                    EMPTY_VALUES[key] = max(EMPTY_VALUES[key], int(null[c].sum()))
                df = df[~null.any(axis=1)]
        return df

    fnml_executer.remove_null_values_from_dataframe = output_nulls
    # a function of our UDF file with the IRI of a built-in replaces it (GREL as its Java implementation)
    replaced = {f: fnml_executer.bif_dict.pop(f) for f in list(fnml_executer.bif_dict) if f in udfs.REGISTRY}
    materializer._materialize_template = template
    materializer._materialize_fnml_execution = fnml
    materializer.get_file_data = file_data
    materializer.encode_value = iri_safe
    materializer._preprocess_data = preprocess
    materializer._merge_data = merge
    data_file.elementpath = ElementPath(xpath_original)
    data_file._read_csv = CsvReads(csv_original)
    data_file._read_json = lambda rule, refs: (json_original(rule, refs) if str(rule["logical_source_value"])
                                               .startswith("http") else read_json(rule, refs))
    try:
        yield
    finally:
        fnml_executer.remove_null_values_from_dataframe = null_values_original
        fnml_executer.bif_dict.update(replaced)
        data_file.elementpath = xpath_original
        data_file._read_json = json_original
        data_file._read_csv = csv_original
        materializer._materialize_template = template_original
        materializer._materialize_fnml_execution = fnml_original
        materializer.get_file_data = data_original
        materializer.encode_value = encode_original
        materializer._preprocess_data = preprocess_original
        materializer._merge_data = merge_original


#: Engine-side aliases of mapping files whose path Morph-KGC cannot take: ``path -> alias``.
_ALIASES: dict[str, str] = {}
_ALIAS_DIR: list[Path] = []


def _alias_dir() -> Path:
    if not _ALIAS_DIR:
        folder = Path(tempfile.mkdtemp(prefix="kgc-engine-")).resolve()
        atexit.register(shutil.rmtree, folder, True)
        _ALIAS_DIR.append(folder)
    return _ALIAS_DIR[0]


def ini_value(text: str) -> str:
    """``text`` as an INI value Morph-KGC reads back unchanged: it reads its configuration with
    ``configparser.ExtendedInterpolation``, where ``$`` starts a reference and ``$$`` is one ``$``
    (``%`` is plain there)."""
    return text.replace("$", "$$")


def engine_path(mapping_file: str | Path) -> str:
    """The absolute path of ``mapping_file`` as the engine configuration's ``mappings`` entry holds it.

    Morph-KGC splits ``mappings`` at commas (a list of files), so a path with a comma (a folder
    ``Report, 2024``) is given as an alias without one: a symbolic link (a copy where links are
    not allowed) in a temporary folder of this process, removed at exit. ``$`` is escaped
    (:func:`ini_value`).

    Raises:
        InputError: the temporary folder's own path holds a comma (set ``TMPDIR`` elsewhere).
    """
    path = str(Path(mapping_file).resolve())
    if "," in path:
        alias = _ALIASES.get(path)
        if alias is not None and not Path(alias).is_symlink():
            shutil.copyfile(path, alias)  # a copy follows the file as a link does
        if alias is None:
            folder = _alias_dir()
            if "," in str(folder):
                raise InputError(f"the engine (Morph-KGC) cannot read a mapping path with a comma, and the "
                                 f"temporary folder {folder} holds one too: set TMPDIR to a folder without a comma",
                                 path=path)
            target = folder / f"{len(_ALIASES)}-{Path(path).name.replace(',', '_')}"
            try:
                target.symlink_to(path)
            except OSError:
                shutil.copyfile(path, target)
            alias = _ALIASES[path] = str(target)
        path = alias
    return ini_value(path)


def engine_config(mapping_file: str | Path, processes: int = 1, output_file: str | Path | None = None,
                  output_format: str = "N-TRIPLES", *, mappings: str | None = None) -> str:
    """Morph-KGC configuration (INI text) for ``mapping_file``, with the ``udfs`` entry our FnO functions need.

    Paths are absolute, so the file works from any working directory; any path works
    (:func:`engine_path`: ``$`` escaped, a path with a comma through an alias).

    Args:
        mapping_file: the RML document. processes: worker processes.
        output_file: where Morph-KGC's command line (``python -m morph_kgc <ini>``) writes the KG
            (``None``: no ``output_file`` entry, for :func:`morph_kgc.materialize_set`).
        output_format: ``N-TRIPLES`` or ``N-QUADS`` (named graphs kept).
        mappings: the ``mappings`` entry as it is (already escaped), instead of :func:`engine_path`.
    Returns:
        The INI text (sections ``CONFIGURATION`` and ``DataSource1``).
    Raises:
        InputError: see :func:`engine_path`.
    """
    config = configparser.ConfigParser(interpolation=None)  # values are written escaped for the engine's reader
    config["CONFIGURATION"] = {"output_format": output_format, "udfs": ini_value(str(UDF_FILE.resolve())),
                               "number_of_processes": str(processes), "logging_level": "ERROR",
                               "na_values": ","}
    if output_file is not None:
        config["CONFIGURATION"]["output_file"] = ini_value(str(Path(output_file).resolve()))
    config["DataSource1"] = {"mappings": mappings if mappings is not None else engine_path(mapping_file)}
    buf = io.StringIO()
    config.write(buf)
    return buf.getvalue()


def run_engine(mapping_file: str, processes: int = 1) -> set[str]:
    """Run Morph-KGC (with the corrections) on one mapping file.

    Args:
        mapping_file: path of an engine-ready RML file (:func:`pipeline.materialize.rml.normalize.normalize_rml`).
        processes: worker processes.
    Returns:
        The engine's statements: ``"<s> <p> <o> <g>"`` text (graph empty for the default graph).
    Raises:
        whatever the engine raises (callers explain it).
    """
    import morph_kgc

    _check_version()
    EMPTY_VALUES.clear()
    with engine_run():
        return set(morph_kgc.materialize_set(engine_config(mapping_file, processes, output_format="N-QUADS")))


def _check_version() -> None:
    from morph_kgc._version import __version__

    if __version__ != ENGINE_VERSION:  # the corrections replace functions of this very version
        raise RuntimeError(f"Morph-KGC {ENGINE_VERSION} expected, {__version__} installed (see pyproject.toml)")


def engine_rules(mapping_file: str | Path, processes: int = 1) -> tuple[Any, Any, Any]:
    """Morph-KGC's rule table for one mapping file, as its command line makes it (``morph_kgc.__main__``),
    parsed once per distinct mapping and then read from :mod:`pipeline.materialize.rule_cache`.

    Args:
        mapping_file: an engine-ready RML file. processes: recorded in the engine configuration.
    Returns:
        ``(rml_df, fnml_df, config)``: the rules (every TriplesMap's, with their mapping
        partition), the function executions and the engine configuration.
    Raises:
        whatever the engine raises on the mapping (callers explain it).
    """
    from morph_kgc.args_parser import load_config_from_argument
    from morph_kgc.mapping.mapping_parser import retrieve_mappings

    _check_version()
    ini = engine_config(mapping_file, processes, output_format="N-QUADS")
    config = load_config_from_argument(ini)
    # the table depends on the document, not on where it lies
    key = rule_key(Path(mapping_file).read_bytes(), ini.replace(engine_path(mapping_file), ""), ENGINE_VERSION,
                   str(Path(mapping_file).resolve()))
    cached = load(key)
    if cached is not None:
        rml_df, fnml_df, http_api = cached
    else:
        rml_df, fnml_df, http_api_df = retrieve_mappings(config)
        http_api = http_api_df.to_csv()
        store(key, (rml_df, fnml_df, http_api))
    config.set("CONFIGURATION", "http_api_df", http_api)
    return rml_df, fnml_df, config


def engine_groups(mapping_file: str | Path, processes: int = 1) -> tuple[list, Any, Any, Any]:
    """Morph-KGC's plan for one mapping file (:func:`engine_rules`) grouped as its command line runs it.

    Args:
        mapping_file: an engine-ready RML file. processes: recorded in the engine configuration.
    Returns:
        ``(groups, rml_df, fnml_df, config)``: the asserted mapping rules grouped by mapping
        partition (a list of DataFrames; Morph-KGC's partitions produce disjoint statements),
        the parsed rules, functions and the engine configuration, for :func:`group_frames`.
    Raises:
        whatever the engine raises on the mapping (callers explain it).
    """
    EMPTY_VALUES.clear()
    rml_df, fnml_df, config = engine_rules(mapping_file, processes)
    return asserted_groups(rml_df), rml_df, fnml_df, config


def asserted_groups(rml_df: Any) -> list:
    """The asserted rules of a rule table, one DataFrame per Morph-KGC mapping partition."""
    from morph_kgc.constants import RML_TRIPLES_MAP_CLASS

    asserted = rml_df.loc[rml_df["triples_map_type"] == RML_TRIPLES_MAP_CLASS]
    return [group for _, group in asserted.groupby(by="mapping_partition")]


def trusted_template(template: str) -> bool:
    """Whether every IRI an IRI template can give is valid and canonical as the engine writes it,
    so that the guard need not check the column (:meth:`pipeline.materialize.guard.Guard.frame`).

    The engine (with :func:`iri_safe`) writes each value IRI-safe: only RFC 3987
    ``iunreserved`` characters (ASCII letters, digits, ``-._~``, ``ucschar``) and ``%XX`` with
    upper-case hex digits, all legal in a path, query or fragment and without ``/?#:@``. So the
    IRI is valid whatever the values when the template's constant parts are: the template with a
    letter for each reference passes the screen of canonical IRIs (lower-case scheme, ASCII, a
    ``%`` only before two upper-case hex digits, one ``#`` at most, no port), its authority ends
    before the first reference (values cannot reach host or port), and no value can make it a
    blank-node or reference IRI (the constant start is not a prefix of, nor starts with, the
    private namespaces). The columns of other templates are checked term by term.

    Args:
        template: the template as the engine holds it (``{reference}``, ``\\{`` escapes).
    Returns:
        ``True`` when the column need not be checked.
    """
    body = re.sub(r"(?<!\\)\{[^}]*\}", "\x00", template).replace("\\{", "{").replace("\\}", "}")
    if "\x00" not in body:
        return False
    start = body[:body.index("\x00")]
    m = re.match(r"[a-z][a-z0-9+.\-]*:", start)
    if m is None or (start[m.end():].startswith("//") and not re.search(r"[/?#]", start[m.end() + 2:])):
        return False
    if any(ns.startswith(start) or start.startswith(ns) for ns in (BNODE_NS, REF_NS)):
        return False
    iri = body.replace("\x00", "a")
    return re.fullmatch(FAST_IRI_TOKEN, f"<{iri}>") is not None and BAD_PERCENT.search(iri) is None


def trusted_term(rule: Any, position: str, config: Any) -> bool:
    """Whether the rule's ``position`` (``subject``/``object``) column was built by
    ``_materialize_template`` from an IRI template with :func:`iri_safe` values that
    :func:`trusted_template` accepts (read after the engine ran the rule: for a
    referencing object map it then holds the parent's subject map). An object that also has a
    datatype or language map is not: the engine appends ``^^``/``@`` to the IRI whatever its term
    type (the normalisation refuses such a mapping; the guard still checks what the engine wrote)."""
    from morph_kgc.constants import RML_IRI, RML_TEMPLATE

    if position == "object" and isinstance(rule.get("lang_datatype"), str) and rule.get("lang_datatype"):
        return False

    kind, value, termtype = (rule.get(f"{position}_map_type"), rule.get(f"{position}_map_value"),
                             rule.get(f"{position}_termtype"))
    if kind != RML_TEMPLATE or not isinstance(termtype, str) or termtype.strip() != RML_IRI \
            or not isinstance(value, str) or config.get_safe_percent_encoding() \
            or config.only_write_printable_characters():
        return False
    return trusted_template(value)


def group_frames(group: Any, rml_df: Any, fnml_df: Any, config: Any,
                 statements: bool = True) -> Iterator[tuple[str, list, Any, tuple]]:
    """Run the rules of one mapping group; per rule its statements as term columns.

    Must run inside :func:`engine_run`. The columns are the engine's own (Morph-KGC builds the
    subject, predicate and object term text of a rule as DataFrame columns and then joins them
    into one ``triple`` column); they are taken where the engine builds them, so no statement
    text is split again.

    Args:
        group, rml_df, fnml_df, config: from :func:`engine_groups`.
        statements: ``False``: the caller builds the statement lines itself (the guard worker of
            :mod:`pipeline.materialize.guard_worker`), so once a rule's term columns are taken the engine joins
            empty strings into its ``triple`` column instead of the terms (no CPU spent on text
            nobody reads; rules with quoted triples, whose nested statements the engine reads
            back, keep their text); ``triple`` is then ``None``.
    Yields:
        ``(triples map id, [subject, predicate, object, graph], triple, trusted)``: arrays of
        N-Triples term text of equal length, graph ``""`` for the default graph, the engine's
        statement text (``"s p o g"``; ``"s p o "`` in the default graph), and per position whether
        the column comes from an IRI template the guard need not check
        (:func:`trusted_template`); one item per rule, freed by the caller.
    """
    from morph_kgc import materializer
    from morph_kgc.constants import RML_QUOTED_TRIPLES_MAP

    terms_original = materializer._materialize_rml_rule_terms
    last: list = []
    blank: list = [False]

    def terms(results_df, *args, **kwargs):
        df = terms_original(results_df, *args, **kwargs)
        # the top-level rule's terms are the last built (nested rules are built first)
        last[:] = [df, [df[c].to_numpy(dtype=object) for c in ("subject", "predicate", "object")]
                   if "object" in df else None]
        if blank[0] and last[1] is not None:
            for c in ("subject", "predicate", "object"):
                df[c] = ""
        return df

    materializer._materialize_rml_rule_terms = terms
    try:
        for _, rule in group.iterrows():
            last.clear()
            blank[0] = not statements and RML_QUOTED_TRIPLES_MAP not in (rule["subject_map_type"],
                                                                         rule["object_map_type"])
            data = materializer._materialize_rml_rule(rule, rml_df, fnml_df, config)
            graph = data["graph"].to_numpy(dtype=object) if "graph" in data else None
            df, columns = last if last else (None, None)
            if columns is None or len(df) != len(data):
                raise RuntimeError(f"Morph-KGC rule {rule['triples_map_id']}: no term columns")  # not with 2.10
            yield str(rule["triples_map_id"]), [*columns, graph if graph is not None else [""] * len(df)], \
                data["triple"].to_numpy(dtype=object) if statements else None, \
                (trusted_term(rule, "subject", config), False, trusted_term(rule, "object", config), False)
            del data, df, graph, columns
            last.clear()
    finally:
        materializer._materialize_rml_rule_terms = terms_original
