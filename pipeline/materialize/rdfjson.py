"""RDF/JSON (W3C Working Group Note, 7 November 2013, https://www.w3.org/TR/rdf-json/): writer and reader.

No library we use writes this serialization (rdflib and pyoxigraph do not), and RML-IO logical
targets may ask for it (``formats:RDF_JSON``). A document is one JSON object: subject (IRI, or
``_:label`` for a blank node) -> predicate IRI -> array of objects
``{"type": "uri" | "literal" | "bnode", "value": ..., "lang": ..., "datatype": ...}``.
RDF/JSON has no named graphs: quads are written as their triples.
"""
from __future__ import annotations

import json
from collections.abc import Iterable

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.term import Node

__all__ = ["serialize_rdfjson", "parse_rdfjson"]


def _object(o: Node) -> dict:
    if isinstance(o, URIRef):
        return {"type": "uri", "value": str(o)}
    if isinstance(o, BNode):
        return {"type": "bnode", "value": f"_:{o}"}
    entry = {"type": "literal", "value": str(o)}
    if o.language:
        entry["lang"] = o.language
    elif o.datatype is not None and o.datatype != XSD.string:
        entry["datatype"] = str(o.datatype)
    return entry


def serialize_rdfjson(triples: Iterable[tuple[Node, Node, Node]]) -> str:
    """RDF/JSON text of ``triples`` (rdflib terms; subjects and predicates sorted, objects in order)."""
    doc: dict[str, dict[str, list]] = {}
    for s, p, o in triples:
        key = f"_:{s}" if isinstance(s, BNode) else str(s)
        objects = doc.setdefault(key, {}).setdefault(str(p), [])
        entry = _object(o)
        if entry not in objects:
            objects.append(entry)
    ordered = {s: dict(sorted(doc[s].items())) for s in sorted(doc)}
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def parse_rdfjson(text: str) -> list[tuple[Node, Node, Node]]:
    """Triples of an RDF/JSON document.

    Read leniently where documents in the wild deviate from the note: a ``value`` given as a JSON
    number or boolean (the note requires a string) is read as JSON-LD reads native values
    (``xsd:integer``, ``xsd:double``, ``xsd:boolean``) unless a ``datatype`` is given; a missing
    ``type`` with a string value is a literal.

    Raises:
        ValueError: not JSON, or not an object of objects of arrays.
    """
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError("RDF/JSON: the document is not a JSON object")
    bnodes: dict[str, BNode] = {}

    def node(value: str) -> Node:
        return bnodes.setdefault(value[2:], BNode()) if value.startswith("_:") else URIRef(value)

    out = []
    for s, preds in doc.items():
        if not isinstance(preds, dict):
            raise ValueError(f"RDF/JSON: the value of subject {s!r} is not an object")
        for p, objects in preds.items():
            if not isinstance(objects, list):
                raise ValueError(f"RDF/JSON: the value of {s!r} {p!r} is not an array")
            for o in objects:
                kind, value = o.get("type", "literal"), o.get("value")
                if kind == "uri":
                    term: Node = URIRef(str(value))
                elif kind == "bnode":
                    term = node(str(value))
                elif o.get("lang"):
                    term = Literal(str(value), lang=o["lang"])
                elif o.get("datatype"):
                    term = Literal(str(value), datatype=URIRef(o["datatype"]))
                elif isinstance(value, bool):
                    term = Literal(str(value).lower(), datatype=XSD.boolean)
                elif isinstance(value, int):
                    term = Literal(str(value), datatype=XSD.integer)
                elif isinstance(value, float):
                    term = Literal(repr(value), datatype=XSD.double)
                else:
                    term = Literal(str(value))
                out.append((node(s), URIRef(p), term))
    return out
