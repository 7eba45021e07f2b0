"""Deterministic cleaning of mapping tables: the "post-processed" scoring setting.

BLINKG (section 4.2) scores LLM tables twice: as produced ("raw") and after
an automatic clean-up ("post-processed"). The clean-up here is deterministic
and applied identically to the predicted and the gold table, cell by cell:

* every cell: backticks removed, whitespace collapsed, empty markers -> ``None``
  (:func:`pipeline.table.cells.clean_cell`); ``<br/>``, ``<BR>`` ... -> ``" <br> "``;
* term cells (property, entity class and each ``a/b`` alternative, related
  class, datatype): ``<IRI>`` brackets dropped, IRI case repaired to the
  ontology's spelling when exactly one term matches case-insensitively, then
  written in the ontology's prefixed form (expansion + compaction);
* datatype: a marker naming no datatype (``Object Property``, ``IRI``) -> ``None``,
  ``xsd:langString`` (any prefix) -> ``rdf:langString``;
* subject template: a leading prefixed name expanded to its namespace
  (``ex:person/{ID}`` -> ``http://example.org/person/{ID}``), scheme and host
  lower-cased, spaces removed;
* data reference: spaces around ``,`` ``(`` ``)`` removed (``concat(a, b)``);
* join condition: re-written canonically from
  :func:`pipeline.table.cells.parse_join_condition`
  (``a.x==b.y and c.z==d.w``, alternatives joined by `` or ``);
* language tag: ``@`` dropped, lower-cased;
* function name / output: a name written into the output cell is moved back
  (:func:`~pipeline.table.cells.split_function_cell`), trailing ``()`` dropped;
  value maps re-written as ``key -> IRI`` items sorted by key, joined by ``<br>``.

Nothing here consults the gold table, so cleaning can never leak the answer.
"""
from __future__ import annotations

import dataclasses
import logging
import re

from rdflib.namespace import RDF

from pipeline.ontology import Ontology
from pipeline.table.cells import (IRI_MARKERS, clean_cell, parse_join_condition, parse_value_map,
                            split_class_alternatives, split_function_cell)
from pipeline.table.model import MappingRow, MappingTable

__all__ = ["clean_table", "clean_row", "clean_term", "clean_datatype", "clean_template", "canonical_join"]

log = logging.getLogger(__name__)

_BR = re.compile(r"\s*<br\s*/?>\s*", re.I)
_SCHEME_HOST = re.compile(r"^([a-zA-Z][\w+.\-]*://)([^/{}$]+)")
_PREFIXED = re.compile(r"^([A-Za-z][\w\-.]*):(?!//)(.*)$")
_TERM_COLUMNS = ("ontology_property", "related_entity_class")
_LANGSTRING = re.compile(r"^(?:[A-Za-z][\w\-]*:)?langString$")


def _case_index(ontology: Ontology) -> dict[str, str | None]:
    """Lower-cased IRI -> IRI for every named subject of the ontology (``None`` when ambiguous)."""
    cached = getattr(ontology, "_scoring_case_index", None)
    if cached is not None:
        return cached
    index: dict[str, str | None] = {}
    for s in set(ontology.graph.subjects()):
        text = str(s)
        key = text.lower()
        index[key] = text if index.get(key, text) == text else None
    try:
        setattr(ontology, "_scoring_case_index", index)
    except AttributeError:  # frozen or slotted ontology: no cache, still correct
        pass
    return index


def clean_term(cell: str | None, ontology: Ontology | None) -> str | None:
    """Canonical form of a term cell: cleaned, case-repaired, prefixed when a prefix covers it.

    Args:
        cell: ``ex:Person``, ``<http://example.org/Person>``, ``ex:person`` ...
        ontology: gives prefixes and term spellings; ``None`` only cleans the text.
    Returns:
        The canonical text, or ``None`` for an empty cell. Non-IRI text
        (``Object Property``) is returned cleaned.
    """
    text = clean_cell(_BR.sub(" <br> ", cell) if cell else cell)
    if text is None or ontology is None:
        return text
    iri = ontology.expand(text)
    if iri is None:
        return text
    fixed = _case_index(ontology).get(str(iri).lower())
    return ontology.compact(fixed or str(iri))


def clean_datatype(cell: str | None, ontology: Ontology | None) -> str | None:
    """Canonical datatype cell: a term cell (:func:`clean_term`), ``None`` for a marker that names
    no datatype (``Object Property``, ``IRI``: the row's object is an IRI) and ``rdf:langString``
    for any ``<prefix>:langString`` (``xsd:langString`` in several gold tables; only RDF defines it).
    """
    text = clean_term(cell, ontology)
    if text is None or text.lower() in IRI_MARKERS:
        return None
    if _LANGSTRING.match(text) or text == str(RDF.langString):
        return ontology.compact(str(RDF.langString)) if ontology is not None else "rdf:langString"
    return text


def clean_template(cell: str | None, ontology: Ontology | None) -> str | None:
    """Canonical subject template: prefix expanded, scheme/host lower-cased, spaces removed."""
    text = clean_cell(cell)
    if text is None:
        return None
    text = text.strip("<>").replace(" ", "")
    m = _PREFIXED.match(text)
    if m and ontology is not None and m.group(1) in ontology.prefixes and not text.startswith("$("):
        text = ontology.prefixes[m.group(1)] + m.group(2)
    return _SCHEME_HOST.sub(lambda mm: mm.group(1).lower() + mm.group(2).lower(), text, count=1)


def canonical_join(cell: str | None) -> str | None:
    """``a.x==b.y and c.z==d.w [or ...]`` from any accepted join syntax; cleaned text when unparsable."""
    text = clean_cell(cell)
    if text is None:
        return None
    alternatives = parse_join_condition(text)
    if not alternatives:
        return text
    parts = []
    for alt in alternatives:
        sides = []
        for pair in alt:
            left = f"{pair.child_source}.{pair.child_ref}" if pair.child_source else pair.child_ref
            right = f"{pair.parent_source}.{pair.parent_ref}" if pair.parent_source else pair.parent_ref
            sides.append(f"{left}=={right}")
        parts.append(" and ".join(sides))
    return " or ".join(parts)


def _clean_reference(cell: str | None) -> str | None:
    text = clean_cell(cell)
    if text is None:
        return None
    return re.sub(r"\s*([,()])\s*", r"\1", text)


def _clean_function(name: str | None, output: str | None) -> tuple[str | None, str | None]:
    name, output = clean_cell(name), clean_cell(output)
    name, output = split_function_cell(name, output)
    if name:
        name = re.sub(r"\(\s*\)$", "", name).strip() or None
    if output:
        vmap = parse_value_map(output)
        if vmap:
            output = " <br> ".join(f"{k} -> {v}" for k, v in sorted(vmap.items()))
        else:
            output = _BR.sub(" <br> ", output).strip()
    return name, output


def clean_row(row: MappingRow, ontology: Ontology | None) -> MappingRow:
    """A cleaned copy of ``row`` (provenance fields kept)."""
    out = dataclasses.replace(row)
    for col in _TERM_COLUMNS:
        setattr(out, col, clean_term(getattr(row, col), ontology))
    if row.entity_class:
        alts = [a.strip() for a in row.entity_class.split("/")] if _is_alternatives(row.entity_class) \
            else [row.entity_class]
        cleaned = [c for c in (clean_term(a, ontology) for a in alts) if c]
        out.entity_class = "/".join(cleaned) if cleaned else None
    out.datatype = clean_datatype(row.datatype, ontology)
    out.subject_template = clean_template(row.subject_template, ontology)
    out.data_reference = _clean_reference(row.data_reference)
    out.source_file = clean_cell(row.source_file)
    out.join_condition = canonical_join(row.join_condition)
    tag = clean_cell(row.language_tag)
    out.language_tag = tag.lstrip("@").lower() or None if tag else None
    out.function_name, out.function_output = _clean_function(row.function_name, row.function_output)
    return out


def _is_alternatives(cell: str) -> bool:
    return len(split_class_alternatives(clean_cell(cell))) > 1


def clean_table(table: MappingTable, ontology: Ontology | None) -> MappingTable:
    """Apply the deterministic clean-up above to every row; returns a new table.

    Args:
        table: a parsed mapping table (predicted or gold).
        ontology: prefixes and term spellings; ``None`` skips the ontology-based steps.
    Returns:
        A new :class:`MappingTable` with the same rows, cleaned; never raises on odd cells.
    """
    rows = []
    for row in table.rows:
        try:
            rows.append(clean_row(row, ontology))
        except Exception as exc:  # a scorer never raises on messy data; keep the row as is
            log.warning("cannot clean row at line %s: %s", row.line, exc)
            rows.append(row)
    return MappingTable(rows=rows, source=table.source, notes=list(table.notes) + ["post-processed"],
                        columns=list(table.columns), ignored_headers=list(table.ignored_headers))
