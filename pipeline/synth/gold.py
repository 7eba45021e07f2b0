"""The schema side and the gold of a generated scenario: ontology, SKOS code list, gold table, gold KG.

Written as text in a fixed order (no rdflib serializer, whose prefix and blank-node
choices are not part of its contract), so that one seed gives byte-identical files.
"""
from __future__ import annotations

import re

from pipeline.synth.builder import ScenarioBuilder
from pipeline.synth.vocab import Attr

__all__ = ["ontology_ttl", "skos_ttl", "gold_table_md", "gold_graph_nt", "DATATYPE_OF_KIND"]

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
#: attribute kind -> datatype of its property's range (``None``: xsd:string)
DATATYPE_OF_KIND = {"year": "xsd:gYear", "int": "xsd:integer", "decimal": "xsd:decimal", "date": "xsd:date",
                    "langtext": "rdf:langString"}
_HEADER = ("| Data Reference | Source File | Ontology Property | Entity Class | Related Entity Class | "
           "Subject Generation | Join Condition | Datatype | Language Tag | Function Name | Function Output |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n")


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"@en'


def ontology_ttl(b: ScenarioBuilder) -> str:
    """OWL ontology: three classes, their datatype properties (domain, range, label, comment), identifier
    keys (``owl:hasKey``), and the foreign-key, link and code-list object properties."""
    d, p = b.dom, b.dom.prefix
    out = [f"@prefix {p}: <{b.ns}> .", "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
           "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .",
           "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", f"@prefix skos: <{SKOS}> .",
           f"@prefix xsd: <{XSD}> .", "",
           f"<{b.ns.rstrip('#')}> a owl:Ontology ; rdfs:label {_q(d.name + ' ontology')} .", ""]
    for e in b.entities().values():
        out.append(f"{p}:{e.local} a owl:Class ; rdfs:label {_q(e.label)} ; rdfs:comment {_q(e.comment)} ;")
        out.append(f"    owl:hasKey ( {p}:{e.attrs[0].local} ) .")
        for a in e.attrs:
            rng = DATATYPE_OF_KIND.get(a.kind, "xsd:string")
            kinds = "owl:DatatypeProperty , owl:FunctionalProperty" if a.kind == "id" else "owl:DatatypeProperty"
            out.append(f"{p}:{a.local} a {kinds} ; rdfs:domain {p}:{e.local} ; rdfs:range {rng} ;")
            out.append(f"    rdfs:label {_q(a.label)} ; rdfs:comment {_q(a.comment)} .")
        out.append("")
    for (local, label, comment), rng in ((d.fk, f"{p}:{d.parent.local}"), (d.link, f"{p}:{d.member.local}"),
                                         (d.coded, "skos:Concept")):
        out.append(f"{p}:{local} a owl:ObjectProperty ; rdfs:domain {p}:{d.main.local} ; rdfs:range {rng} ;")
        out.append(f"    rdfs:label {_q(label)} ; rdfs:comment {_q(comment)} .")
    return "\n".join(out) + "\n"


def skos_ttl(b: ScenarioBuilder) -> str:
    """SKOS concept scheme of the coded column: one concept per code, with ``skos:notation`` and label."""
    d = b.dom
    scheme = f"{b.concept('')[:-1]}"
    out = [f"@prefix skos: <{SKOS}> .", "", f"<{scheme}> a skos:ConceptScheme ; skos:prefLabel {_q(d.scheme[1])} ."]
    for code, label in d.codes:
        out.append(f"<{b.concept(code)}> a skos:Concept ; skos:inScheme <{scheme}> ; skos:notation \"{code}\" ; "
                   f"skos:prefLabel {_q(label)} .")
    return "\n".join(out) + "\n"


def _function_name(column: str) -> str:
    """Value-map function named after its input column, as BLINKG's gold tables do (``route_type`` ->
    ``routeTypeSKOS``)."""
    name = "".join(w.capitalize() for w in re.split(r"[^A-Za-z0-9]+", column) if w)
    return name[:1].lower() + name[1:] + "SKOS"


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |\n"


def gold_table_md(b: ScenarioBuilder) -> str:
    """The gold mapping table (our Markdown format, one row per mapped reference).

    The language column is written in the Language Tag cell as ``{column}`` (a reference:
    each literal takes its record's tag); the coded column as a value map code -> concept IRI, its function
    named after the column (:func:`_function_name`).
    """
    d, p = b.dom, b.dom.prefix
    lines = [_HEADER]
    for role, e in b.entities().items():
        tpl, f = b.template(role), b.file(role)
        for a in e.attrs:
            dt = DATATYPE_OF_KIND.get(a.kind, "xsd:string")
            lang = fn = out = ""
            if a.kind == "langtext":
                lang = "{" + b.special["lang"][b.level] + "}"
            if a.kind == "date" and b.date_format != "iso":
                fn, out = "toDate()", "date normalised to xsd:date (YYYY-MM-DD)"
            lines.append(_row(b.ref(role, a), f, f"{p}:{a.local}", f"{p}:{e.local}", "", tpl, "", dt, lang, fn, out))
        if role == "main":
            vm = " <br> ".join(f"{code} -> {b.concept(code)}" for code, _ in d.codes)
            lines.append(_row(b.special["code"][b.level], f, f"{p}:{d.coded[0]}", f"{p}:{e.local}", "skos:Concept",
                              tpl, "", "", "", _function_name(b.special["code"][b.level]), vm))
            fk = b.special["fk"][b.level]
            lines.append(_row(fk, f, f"{p}:{d.fk[0]}", f"{p}:{e.local}", f"{p}:{d.parent.local}", tpl,
                              f"{b.stem('main')}.{fk}=={b.stem('parent')}.{b.ref('parent', d.parent.attrs[0])}",
                              "", "", "", ""))
    m, c = b.special["m"][b.level], b.special["c"][b.level]
    member_key = f"{b.stem('member')}.{b.ref('member', d.member.attrs[0])}"
    if b.nested_links:  # the list of member keys inside each main record
        lines.append(_row(c, b.file("main"), f"{p}:{d.link[0]}", f"{p}:{d.main.local}", f"{p}:{d.member.local}",
                          b.template("main"), f"{b.stem('main')}.{c}=={member_key}", "", "", "", ""))
    else:
        link = b.link_file()[:-4]
        lines.append(_row(c, b.link_file(), f"{p}:{d.link[0]}", f"{p}:{d.main.local}", f"{p}:{d.member.local}",
                          b.template("main"), f"{link}.{m}=={b.stem('main')}.{b.ref('main', d.main.attrs[0])} and "
                          f"{link}.{c}=={member_key}", "", "", "", ""))
    return "".join(lines)


def _literal(b: ScenarioBuilder, a: Attr, value: object, rec: dict[str, object]) -> str:
    dt = DATATYPE_OF_KIND.get(a.kind)
    text = str(value)
    esc = text.replace("\\", "\\\\").replace('"', '\\"')
    if a.kind == "langtext":
        return f'"{esc}"@{rec["~lang"]}'
    if a.kind == "date":
        y, m, day = value  # type: ignore[misc]
        return f'"{y:04d}-{m:02d}-{day:02d}"^^<{XSD}date>'
    if dt is None:
        return f'"{esc}"'
    return f'"{esc}"^^<{(RDF if dt.startswith("rdf:") else XSD)}{dt.split(":", 1)[1]}>'


def gold_graph_nt(b: ScenarioBuilder, recs: dict[str, list[dict[str, object]]]) -> str:
    """The gold KG as sorted N-Triples, built from the records (types, literals, links, concepts)."""
    d = b.dom
    triples: set[str] = set()
    for role, e in b.entities().items():
        for rec in recs[role]:
            s = f"<{b.iri(role, str(rec[e.attrs[0].local]))}>"
            triples.add(f"{s} <{RDF}type> <{b.ns}{e.local}> .")
            for a in e.attrs:
                if rec.get(a.local) is not None:
                    triples.add(f"{s} <{b.ns}{a.local}> {_literal(b, a, rec[a.local], rec)} .")
            if role == "main":
                triples.add(f"{s} <{b.ns}{d.coded[0]}> <{b.concept(str(rec['~code']))}> .")
                triples.add(f"{s} <{b.ns}{d.fk[0]}> <{b.iri('parent', str(rec['~fk']))}> .")
                for mk in rec["~members"]:  # type: ignore[union-attr]
                    triples.add(f"{s} <{b.ns}{d.link[0]}> <{b.iri('member', str(mk))}> .")
    return "\n".join(sorted(triples)) + "\n"
