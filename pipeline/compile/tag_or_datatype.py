"""Which of a row's Datatype and Language Tag cells its literals take when it fills both.

An RDF literal has a datatype or a language tag, never both (RDF 1.1 Concepts 3.3: a literal with a
language tag has the datatype ``rdf:langString``; R2RML 7.4: a term map has ``rr:datatype`` or
``rr:language``, not both). A Datatype cell that says the same as a tag (``rdf:langString``, or
``rdfs:Literal``/``rdf:PlainLiteral``, which every tagged literal is) is no conflict. Otherwise one
cell wins, decided by vocabulary semantics:

1. the property's ``rdfs:range``: when it admits the tagged literal (``rdf:langString``) but not the
   datatype, the tag wins; when it admits the datatype (itself or a wider XSD type) but not a tagged
   literal, the datatype wins. The range is what SHACL shapes derived from the ontology check.
2. no range decides: with ``xsd:string`` the tag wins (a tagged string is a string that also says
   its language: nothing of the Datatype cell is lost); with any other datatype (a number, a date)
   the datatype wins (a language tag qualifies text, it says nothing about a number).

The audit reports the decision as a warning naming both cells (:mod:`pipeline.compile.audit`); the
compiler writes the literals accordingly (:mod:`pipeline.compile.objects`).
"""
from __future__ import annotations

from dataclasses import dataclass

from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions
from rdflib import URIRef
from rdflib.namespace import RDF, RDFS, XSD

from pipeline.ontology import Ontology, is_langstring
from pipeline.table import MappingRow
from pipeline.table.cells import IRI_MARKERS

__all__ = ["CellConflict", "tag_or_datatype"]

#: Datatype cells every language-tagged literal fits: no conflict with a tag.
_TAG_FITS = {RDFS.Literal, RDF.PlainLiteral}


@dataclass(frozen=True)
class CellConflict:
    """A row filling both cells. ``winner``: ``"datatype"`` or ``"language_tag"`` (the cell used);
    ``datatype``: the Datatype cell's IRI; ``why``: the reason, a clause for a message."""

    winner: str
    datatype: URIRef
    why: str


def tag_or_datatype(onto: Ontology, row: MappingRow) -> CellConflict | None:
    """The cell a row's literals take when its Datatype and Language Tag cells contradict each other.

    Args:
        onto: the case's ontology (ranges, prefixes). row: a table row.
    Returns:
        ``None`` when there is no conflict: a cell is empty, the Datatype cell says IRI, names no
        datatype (an error of its own) or fits a tagged literal (``rdf:langString``,
        ``rdfs:Literal``); else the decision (module docstring).
    """
    if not (row.language_tag or "").strip() or not (row.datatype or "").strip() \
            or row.datatype.strip().lower() in IRI_MARKERS:
        return None
    dt = onto.expand(row.datatype)
    if dt is None or not onto.is_datatype(dt) or is_langstring(dt) or dt in _TAG_FITS:
        return None
    prop = onto.expand(row.ontology_property) if row.ontology_property else None
    ranges = {RDF.langString if is_langstring(r) else r for r in (onto.ranges(prop) if prop else set())}
    fits_tag = RDF.langString in ranges
    fits_dt = dt in ranges or bool(ranges & set(OWL_Datatype_Subsumptions.get(dt, ())))
    shown = ", ".join(sorted(onto.compact(r) for r in ranges))
    if fits_tag and not fits_dt:
        return CellConflict("language_tag", dt, f"the range of {row.ontology_property!r} is {shown}")
    if fits_dt and not fits_tag:
        return CellConflict("datatype", dt, f"the range of {row.ontology_property!r} is {shown}")
    if dt == XSD.string:
        return CellConflict("language_tag", dt, "no range decides, and a tagged string is a string that also "
                            "says its language")
    return CellConflict("datatype", dt, f"no range decides, and a language tag qualifies text, not "
                        f"{onto.compact(dt)} values")
