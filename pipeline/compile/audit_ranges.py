"""Table audit: literal datatypes against the property's ``rdfs:range`` (a part of :mod:`pipeline.compile.audit`).

SHACL's ``sh:datatype`` is an exact match (SHACL 4.1.1), so the shapes derived from a range reject
every literal of another datatype, even one OWL accepts (a narrower XSD type). Both checks add a
warning to the row's audit (``a``: :class:`pipeline.compile.audit._RowAudit`, whose ``add`` records it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions
from rdflib import URIRef
from rdflib.namespace import RDF, RDFS, XSD

from pipeline.ontology import is_langstring, is_xsd_datatype
from pipeline.table import MappingRow

if TYPE_CHECKING:  # (audit imports this module)
    from pipeline.compile.audit import _RowAudit

__all__ = ["narrower_than_range", "outside_range"]


def narrower_than_range(a: _RowAudit, row: MappingRow, datatype: URIRef, ranges: set[URIRef]) -> None:
    """Warn when the row's datatype is a proper XSD subtype of the property's range (xsd:int under
    xsd:integer). OWL accepts it (every xsd:int value is an xsd:integer value; subsumptions from
    owlrl's table of XSD derivations), but SHACL's ``sh:datatype`` is an exact match (SHACL 4.1.1),
    so the shapes derived from ``rdfs:range`` reject every value: the KG fails SHACL."""
    wider = sorted(r for r in ranges if r != datatype and r in OWL_Datatype_Subsumptions.get(datatype, ()))
    if wider:
        a.add("datatype", f"datatype {row.datatype!r} is narrower than the range {a.ontology.compact(wider[0])} of "
              f"{row.ontology_property!r}: OWL accepts it, but SHACL's sh:datatype is an exact match, so the shapes "
              "derived from the range reject every value (SHACL fails)", f"the range {a.ontology.compact(wider[0])}",
              wider[0], severity="warning")


#: Ranges any literal fits: no datatype to disagree with.
_ANY_LITERAL = {RDFS.Literal, RDF.PlainLiteral}


def outside_range(a: _RowAudit, row: MappingRow, prop: URIRef) -> None:
    """Warn when the literals the row writes have a datatype outside the property's built-in ``rdfs:range``
    (and not narrower than it: :func:`narrower_than_range` says that): ``xsd:int`` under
    ``xsd:nonNegativeInteger``, ``xsd:string`` (no tag) under ``rdf:langString``, a tag under ``xsd:string``.

    The datatype written is the compiler's: ``rdf:langString`` with a language tag, else the Datatype
    cell, else the single XSD range, else ``xsd:string`` (RDF 1.1: a plain literal). SHACL's ``sh:datatype``
    is an exact match (SHACL 4.1.1), so the shapes derived from the range reject every value. Ranges
    that are no built-in datatype (a vocabulary's own ``rdfs:Datatype``) are not judged."""
    onto = a.ontology
    ranges = {RDF.langString if is_langstring(r) else r for r in onto.ranges(prop)}  # xsd:langString too
    if not ranges or ranges & _ANY_LITERAL or not all(is_xsd_datatype(r) for r in ranges):
        return
    if row.language_tag:
        written = RDF.langString
    elif row.datatype:
        written = onto.expand(row.datatype)
        if written is None or not onto.is_datatype(written) or written in _ANY_LITERAL:
            return  # an invalid cell is an error of its own; rdfs:Literal writes the value as given
    else:
        xsd = sorted(r for r in ranges if r != RDF.langString)
        written = xsd[0] if len(ranges) == 1 and xsd else XSD.string
    if written in ranges or ranges & set(OWL_Datatype_Subsumptions.get(written, ())):
        return
    shown = ", ".join(sorted(onto.compact(r) for r in ranges))
    fix = "a language tag (or {column} of the record's tag)" if ranges == {RDF.langString} else f"the range {shown}"
    a.add("datatype", f"the row writes {onto.compact(written)} literals but the range of {row.ontology_property!r} is "
          f"{shown}: SHACL's sh:datatype is an exact match, so the shapes derived from the range reject every value",
          fix, None if ranges == {RDF.langString} else min(ranges), severity="warning")
