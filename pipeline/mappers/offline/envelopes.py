"""JSON records whose fields are wrapped in envelopes: mapped as the fields their outer keys name.

A file whose records' members are envelopes (:mod:`pipeline.sources.envelopes`: ``"name": {"excerpt":
"morph-kgc", "confidence": [1.0], "technique": "GitHub API"}``) says one thing per member: its outer key
names the field, its value member holds the value, its other members say how the value was obtained.
Mapped as it is, ``name.excerpt`` is matched by the word ``excerpt``, the value's own context, and every
field's envelope looks like an entity of its own; its metadata members look like values.

The mapper maps an unwrapped view of the file instead (:func:`unwrap`): every envelope replaced by its
value (``name`` -> ``"morph-kgc"``; a list of envelopes by the list of their values; a value that is a
list of objects, SOMEF's ``releases``, is a repeating part like any other array of objects, one entity
per occurrence), the metadata members left out. Every decision (class, properties, keys, nested
entities) is taken on the view, then the rows are written on the file (:func:`rewrite`): every
reference gets the value member after the field's step (``name`` -> ``name.excerpt``,
``releases.tagName`` -> ``releases.excerpt.tagName``), so the compiler and the engine read the file as
it is. The metadata members are named in an info finding, not mapped: they describe the extraction,
not the record's entity.
"""
from __future__ import annotations

from dataclasses import dataclass

from pipeline.compile.parts import POSITION
from pipeline.findings import Finding
from pipeline.mappers.offline.references import rewrite_references
from pipeline.sources.envelopes import Envelopes, find_envelopes
from pipeline.sources.load import SourceData
from pipeline.sources.tree import flatten_records
from pipeline.table import MappingRow

__all__ = ["Unwrapped", "unwrap", "rewrite"]


@dataclass(frozen=True)
class Unwrapped:
    """A JSON source mapped through its unwrapped view.

    Attributes:
        name: the source's name (the table's Source File).
        stem: the name without its suffix, as join conditions name the source.
        envelopes: what :func:`pipeline.sources.envelopes.find_envelopes` found in its records.
        listed: the fields that hold a list of envelopes in some record (their occurrences are the list's).
    """

    name: str
    stem: str
    envelopes: Envelopes
    listed: frozenset[str]

    def reference(self, ref: str) -> str:
        """The file's reference for the view's ``ref``: the value member after a field's step
        (``name`` -> ``name.excerpt``, ``releases.tagName`` -> ``releases.excerpt.tagName``); a
        position of a field's occurrences (``releases.#``) counts the list of envelopes when the field
        holds one, else the value's list (``releases.excerpt.#``). Other references are the file's."""
        head, dot, tail = ref.partition(".")
        if head not in self.envelopes.fields:
            return ref
        if tail == POSITION and head in self.listed:
            return ref
        return f"{head}.{self.envelopes.value}" + (f".{tail}" if dot else "")


def _unwrapped(value, env: Envelopes):
    """A field's value without its envelope(s): the value member of an object; of a list of envelopes,
    their values in order (a value that is a list is spread into it, as the engine reads
    ``field[*].value[*]``); ``None`` when no envelope holds a value."""
    if isinstance(value, dict):
        return value.get(env.value)
    if isinstance(value, list):
        out = []
        for o in value:
            v = o.get(env.value) if isinstance(o, dict) else None
            if v is not None:
                out.extend(v if isinstance(v, list) else [v])
        return out or None
    return value


def unwrap(data: SourceData, name: str) -> tuple[SourceData, Unwrapped, Finding] | None:
    """The unwrapped view of a JSON source whose records hold envelopes; ``None`` for any other source.

    Args:
        data: the loaded source. name: its name in the manifest (the table's Source File).
    Returns:
        ``(view, how to write its rows on the file, an info finding naming the value and metadata
        members)``. The view has the source's manifest entry, path and iterator, and its records in
        memory (``_json``), which :mod:`pipeline.compile.parts` reads for the repeating parts.
    """
    if data.source.format != "json" or not data._json:
        return None
    env = find_envelopes(data._json)
    if env is None:
        return None
    fields = set(env.fields)
    recs = [{k: (_unwrapped(v, env) if k in fields else v) for k, v in r.items()} for r in data._json]
    recs = [{k: v for k, v in r.items() if v is not None} for r in recs]
    records, refs, odd, inner = flatten_records(recs)
    listed = frozenset(k for r in data._json for k in fields if isinstance(r.get(k), list))
    how = Unwrapped(name, data.source.stem, env, listed)
    view = SourceData(data.source, data.path, data.iterator, refs, records, list(data.findings), _json=recs)
    view.unaddressable = {r: why for r in refs if (why := data.unaddressable.get(how.reference(r)))}
    for r in sorted((odd | inner) - set(view.unaddressable)):
        view.unaddressable[r] = "a key on its path holds '.' or white space at its ends, or it holds arrays"
    shown = ", ".join(repr(f) for f in env.fields[:4]) + (", ..." if len(env.fields) > 4 else "")
    meta = ", ".join(repr(m) for m in (*env.metadata, *env.extra))
    note = Finding("map", str(data.source.path), f"{len(env.fields)} members of the records of {name} ({shown}) "
                   f"wrap their value in objects of one shape: each is mapped as the field its key names, its value "
                   f"read from {env.value!r} ({env.fields[0]}.{env.value}); the members beside it ({meta}) take a "
                   "small closed set of values repeated across the fields, metadata of how the value was "
                   "obtained, and are not mapped", column="reference", value=env.value, severity="info")
    return view, how, note


def rewrite(rows: list[MappingRow], unwrapped: dict[str, Unwrapped]) -> None:
    """Write the rows of each unwrapped source on its file, in place (:meth:`Unwrapped.reference` for
    every reference; a join side naming another source is left as it is).

    Args:
        rows: the table's rows; rows of other sources are left as they are.
        unwrapped: by source name.
    """
    def side(how: Unwrapped, text: str) -> str:
        # a side names its source by stem (`somef.name`) or not (`name`); another source's side has no field's
        # step first and stays as it is
        r = text.strip()
        head, dot, tail = r.partition(".")
        return f"{head}.{how.reference(tail)}" if dot and head == how.stem else how.reference(r)

    for row in rows:
        how = unwrapped.get(row.source_file or "")
        if how is not None:
            rewrite_references(row, how.reference, lambda t, h=how: side(h, t))
