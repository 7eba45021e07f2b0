"""Table audit: check every cell of a mapping table against the ontology and the data.

Each broken cell becomes a :class:`~pipeline.findings.Finding` naming the
file, the row's line, the column, the value, what was expected and the
closest valid candidate. Rows with an error are left out of ``kept``; the run
goes on with the rest. The same checks serve gold tables (the "gold audit")
and mapper output (validate-and-repair builds on them).

Literal datatypes are also checked against the property's ``rdfs:range``: SHACL's
``sh:datatype`` is an exact match (SHACL 4.1.1), so the shapes derived from a range reject every
literal of another datatype, even one OWL accepts (a narrower XSD type). Those are warnings.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

import pycountry
from lxml import etree
from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions
from rapidfuzz import fuzz, process
from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from pipeline.materialize.limits import ENGINE_CANNOT, json_reference_issue, xml_reference_issue
from pipeline.materialize.rml.check import unknown_xsd_datatype
from pipeline.materialize.rml.xml_sources import inherited_language
from pipeline.findings import Finding
from pipeline.fno import TABLE_FUNCTIONS, function_for_name
from pipeline.manifest import Case
from pipeline.ontology import (BUILTIN_DATATYPES, DATATYPE_SPELLING, WELL_KNOWN_PREFIXES, Ontology, datatype_restriction,
                               disjoint_ranges, is_langstring,
                               is_xsd_datatype)
from pipeline.rdflists import members as rdf_members
from pipeline.sources.load import SourceData
from pipeline.table import (MappingRow, MappingTable, parse_concat, parse_join_condition, parse_value_map, quoted_constant,
                            split_class_alternatives)
from pipeline.table.cells import IRI_MARKERS
from pipeline.compile.domain import outside_domain, outside_range
from pipeline.compile.parts import is_position, position_beside_other_part
from pipeline.compile.tag_or_datatype import tag_or_datatype
from pipeline.table.template import SCHEMES, TemplateError, parse_template
from pipeline.validation.loss import UNTAGGED_CODE
from pipeline.validation.terms import check_langtag

__all__ = ["AuditResult", "audit_table", "resolve_source", "IRI_MARKERS", "check_xpath", "language_reference",
           "iri_template",
           "review_finding", "is_language_tag", "closest_language_tag", "closest_reference"]


_XPATH_CHECK = etree.XPath  # compile-only syntax check


@dataclass
class AuditResult:
    """Outcome of :func:`audit_table`.

    Attributes:
        kept: rows with no error and no review mark (in table order): the rows to compile.
        dropped: rows left out, each with at least one error finding.
        review: rows marked for review (:attr:`~pipeline.table.MappingRow.review`): audited like the
            others, never compiled; each has a ``review`` finding, which ``audit.md`` lists first.
        findings: every finding (errors, warnings, info) in row order.
        row_sources: ``id(row)`` -> the :class:`SourceData` the row reads from.
    """

    kept: list[MappingRow] = field(default_factory=list)
    dropped: list[MappingRow] = field(default_factory=list)
    review: list[MappingRow] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    row_sources: dict[int, SourceData] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready summary: counts and findings."""
        return {"rows_kept": len(self.kept), "rows_dropped": len(self.dropped), "rows_review": len(self.review),
                "dropped_lines": [r.line for r in self.dropped],
                "errors": sum(f.severity == "error" for f in self.findings),
                "warnings": sum(f.severity == "warning" for f in self.findings),
                "findings": [f.to_dict() for f in self.findings]}


def check_xpath(expr: str, namespaces: dict[str, str]) -> str | None:
    """Return ``None`` when ``expr`` is a well-formed XPath 1.0 with known prefixes, else the reason."""
    try:
        _XPATH_CHECK(expr, namespaces=namespaces)
    except etree.XPathSyntaxError as exc:
        return f"malformed XPath ({exc})"
    except etree.XPathError as exc:
        return f"invalid XPath ({exc})"
    for p in re.findall(r"(?:^|[/\[(@,\s])([A-Za-z_][\w.\-]*):(?!:)", expr):
        if p not in namespaces and p != "xml":  # xml is bound in every document (Namespaces in XML, 3)
            return f"unknown namespace prefix {p!r}"
    return None


def closest_reference(value: str, options: list[str]) -> str | None:
    """The option (a column/path name, a function name) most like ``value`` by edit distance
    (rapidfuzz's ``fuzz.ratio``, 0-100) with case ignored, ``None`` below 50 or without options.

    Case is ignored in the comparison because a case-only change is the commonest slip in a hand-typed
    name (``{ID}`` for ``id``; ratio 0 letter by letter, though every letter is right); the option is
    returned as the source spells it.
    """
    if not options:
        return None
    best = process.extractOne(value, options, scorer=fuzz.ratio, processor=str.casefold)
    return best[0] if best and best[1] >= 50 else None


def _template_vars(template: str | None) -> list[str]:
    if not template:
        return []
    try:
        return [v for seg in parse_template(template) for v in seg.references()]
    except TemplateError:
        return []


def iri_template(row: MappingRow) -> bool:
    """The row's Data Reference is an IRI template (``http://ex.org/service/{service_id}``): its Datatype
    says IRI and the cell holds a ``{reference}`` variable. The object is the IRI the template makes of the
    record's values (an R2RML/RML template-valued term map), as a subject template makes a subject."""
    return bool(row.datatype and row.datatype.lower() in IRI_MARKERS and row.data_reference
                and "{" in row.data_reference and not parse_concat(row.data_reference))


def data_references(row: MappingRow) -> list[str]:
    """The references the row's Data Reference reads: a template's variables, ``concat``'s arguments
    (not its quoted constants), else the cell itself."""
    if iri_template(row):
        return _template_vars(row.data_reference)
    return [r for r in (parse_concat(row.data_reference) or [row.data_reference]) if r and not r.startswith(("'", '"'))]


def resolve_source(row: MappingRow, sources: list[SourceData], case: Case) -> SourceData | None:
    """The source a row reads from: the named one, else the one holding its references.

    Preference: the ``source_file`` hint (the source's manifest ``name``, file name or stem, fuzzy
    for near misses such as ``calendar_date``); else the single source where the data reference and
    all subject-template variables exist; else the first holding the data reference; else ``None``.
    """
    if row.source_file:
        # a source's own ``name`` first: several sources may read one file (other iterators)
        names = {s.source.path.name.lower(): s for s in sources}
        names.update({s.source.stem.lower(): s for s in sources})
        names.update({s.source.name.lower(): s for s in sources if s.source.name})
        hit = names.get(row.source_file.lower()) or names.get(row.source_file.lower().rsplit(".", 1)[0])
        if hit is None:
            best = process.extractOne(row.source_file.lower(), list(names), scorer=fuzz.ratio)
            hit = names[best[0]] if best and best[1] >= 80 else None
        if hit is not None:
            return hit
    refs = data_references(row)
    needed = refs + _template_vars(row.subject_template)
    full = [s for s in sources if needed and all(s.has_reference(r) for r in needed)]
    if len(full) >= 1:
        return full[0]
    partial = [s for s in sources if refs and all(s.has_reference(r) for r in refs)]
    if partial:
        return partial[0]
    tvars = _template_vars(row.subject_template)
    partial = [s for s in sources if tvars and all(s.has_reference(r) for r in tvars)]
    if partial:
        return partial[0]
    return sources[0] if len(sources) == 1 else None


def _shown(src: SourceData) -> str:
    """The source as the table names it: its manifest ``name``, else its file name."""
    return src.source.name or src.source.path.name


def _near_miss(hint: str, src: SourceData) -> bool:
    """``hint`` (a Source File cell, lower case) is ``src``'s name or stem by resolve_source's fuzzy test."""
    names = [src.source.path.name.lower(), src.source.stem.lower()]
    return max(fuzz.ratio(hint, n) for n in names) >= 80


class _RowAudit:
    def __init__(self, row: MappingRow, table: MappingTable, ontology: Ontology) -> None:
        self.row, self.file, self.ontology = row, table.source or "<table>", ontology
        self.findings: list[Finding] = []

    def add(self, column: str, message: str, expected: str, candidate: object = None,
            severity: str = "error", code: str = "") -> None:
        value = getattr(self.row, column, None)
        cand = self.ontology.compact(candidate) if isinstance(candidate, URIRef) else candidate
        if cand is not None and value is not None and str(cand).strip() == str(value).strip():
            cand = None  # the value the cell holds already is no fix to offer
        self.findings.append(Finding("audit", self.file, message, self.row.line, column, value, expected,
                                     None if cand is None else str(cand), severity, code=code))

    def term(self, column: str, kinds: set[str], pool: list[URIRef], what: str) -> URIRef | None:
        text = getattr(self.row, column)
        iri = self.ontology.expand(text)
        if iri is None:
            self.add(column, f"{what} {text!r}: {unexpanded(text, self.ontology)}", f"a {what} of the ontology",
                     self.ontology.closest(text, pool, _PROPOSE)[0])
            return None
        kind = self.ontology.kind(iri)
        if kind not in kinds:
            cand, _ = self.ontology.closest(str(iri), pool, _PROPOSE)
            found = f"a {kind.replace('_', ' ')}" if kind else "not in the ontology"
            self.add(column, f"{what} {text!r} is {found}", f"a {what} of the ontology", cand)
            return None
        return iri


#: Least similarity (normalised Levenshtein ratio of local names) at which the audit offers an
#: ontology term as the closest valid value of a property or class cell: below it the names share
#: less than half their characters, no sign of a misspelling (``42`` is near no ``lib:isbn``).
_PROPOSE = 0.5


def _narrower_than_range(a: _RowAudit, row: MappingRow, datatype: URIRef, ranges: set[URIRef]) -> None:
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



def _stated_range_clauses(onto: Ontology, prop: URIRef) -> list[frozenset[URIRef]]:
    """The clauses of :meth:`Ontology.range_clauses` that ``rdfs:range`` axioms state (of ``prop`` or a
    super-property; a union or intersection read through its named members): what rdfs3 entails. A
    schema.org ``rangeIncludes`` listing entails nothing (https://schema.org/docs/datamodel.html: text
    is expected where other types are), so its clause is left out."""
    def named(node, depth: int = 0) -> set:
        if isinstance(node, URIRef) or depth > 8:
            return {node}
        return {m for pred in (OWL.unionOf, OWL.intersectionOf) for lst in onto.graph.objects(node, pred)
                for x in rdf_members(onto.graph, lst) for m in named(x, depth + 1)}
    stated = {m for q in onto.superproperties(prop) for o in onto.graph.objects(q, RDFS.range) for m in named(o)}
    if prop in (RDFS.label, RDFS.comment):  # RDFS's axiomatic triples state their range (RDF Schema 1.1, 3.6, 3.7)
        stated.add(RDFS.Literal)
    return [c for c in onto.range_clauses(prop) if c and c <= stated]


def _class_range(onto: Ontology, prop: URIRef) -> str | None:
    """The range of ``prop`` in words (``ex:Page``, ``ex:A or ex:B``) when a stated clause of it
    (:func:`_stated_range_clauses`) holds classes of the ontology only, else ``None``."""
    for c in _stated_range_clauses(onto, prop):
        if all(r in onto.classes for r in c):
            return " or ".join(onto.compact(r) for r in sorted(c))
    return None


def _iris_for_literal_property(a: _RowAudit, row: MappingRow, prop: URIRef) -> None:
    """Warn when the row writes IRIs (Datatype ``IRI``, with ``mailto()``/``tel()`` or an IRI template, a
    value map to concepts, a Related Entity Class) as values of a property whose values are literals: an
    ``owl:DatatypeProperty`` (OWL 2 Structural Specification 5.4: it relates individuals to literals), or
    a property whose ``rdfs:range`` is a datatype (a stated clause of datatypes only,
    :func:`_stated_range_clauses`: an IRI is in no datatype's value space, RDF 1.1 Semantics, section 7). The KG then fails the shapes
    derived from the ontology (``sh:nodeKind sh:Literal``, ``sh:datatype``); a literal datatype, the
    range's, is the fix (the converse, literals for an ``owl:ObjectProperty``, is warned in
    :func:`_audit_row`)."""
    onto = a.ontology
    data_ranges = [c for c in _stated_range_clauses(onto, prop) if all(onto.is_datatype(r) for r in c)]
    data = onto.kind(prop) == "datatype_property"
    if not data and not data_ranges:
        return
    what = "Related Entity Class" if row.related_entity_class and not (row.datatype or "").strip() else \
        "a value map to concepts" if (row.datatype or "").lower() not in IRI_MARKERS else \
        f"Datatype {row.datatype.strip()!r}" + (f" with {row.function_name.strip()}" if row.function_name else "")
    xsd = sorted(r for c in data_ranges for r in c if is_xsd_datatype(r))
    shown = " or ".join(onto.compact(r) for c in data_ranges for r in sorted(c))
    why = (f"an owl:DatatypeProperty, whose values are literals (OWL 2 Structural Specification 5.4)" if data
           else "a property whose values are literals") + (f", of range {shown}" if shown else "")
    column = "related_entity_class" if what == "Related Entity Class" else "datatype"
    a.add(column, f"{row.ontology_property!r} is {why}, but {what} writes IRIs: an IRI is in no datatype's "
          "value space, so the KG fails the shapes derived from the ontology", "a literal datatype"
          + (f" (the range {onto.compact(xsd[0])})" if xsd else "") + ", or an object property for IRIs",
          xsd[0] if xsd and column == "datatype" else None, severity="warning")


#: Ranges any literal fits: no datatype to disagree with.
_ANY_LITERAL = {RDFS.Literal, RDF.PlainLiteral}


def _outside_range(a: _RowAudit, row: MappingRow, prop: URIRef) -> None:
    """Warn when the literals the row writes have a datatype outside the property's built-in ``rdfs:range``
    (and not narrower than it: :func:`_narrower_than_range` says that): ``xsd:int`` under
    ``xsd:nonNegativeInteger``, ``xsd:string`` (no tag) under ``rdf:langString``, a tag under ``xsd:string``.

    Every range holds (:meth:`Ontology.range_clauses`: two ``rdfs:range`` axioms are two clauses, a
    choice of datatypes is one ``owl:unionOf`` clause), so the datatype must meet each clause: be a
    member of it or narrower than one (``rdfs:range rdfs:Literal , xsd:integer`` still rejects
    ``xsd:string``). The datatype written is the compiler's: ``rdf:langString`` with a language tag,
    else the Datatype cell, else the single XSD range, else ``xsd:string`` (RDF 1.1: a plain literal).
    SHACL's ``sh:datatype`` is an exact match (SHACL 4.1.1), so the shapes derived from the range reject
    every value. A clause holding a term that is no built-in datatype (a vocabulary's own
    ``rdfs:Datatype``) is not judged."""
    onto = a.ontology
    clauses = [frozenset(RDF.langString if is_langstring(r) else r for r in c)  # xsd:langString too
               for c in onto.range_clauses(prop)]
    clauses = [c for c in clauses if not c & _ANY_LITERAL and all(is_xsd_datatype(r) for r in c)]
    if not clauses or disjoint_ranges(onto.graph, prop) is not None:
        return  # ranges with no common value: no datatype fits them, which reading the ontology says once
    ranges = {RDF.langString if is_langstring(r) else r for r in onto.ranges(prop)}
    conflict = tag_or_datatype(onto, row)
    if row.language_tag and (conflict is None or conflict.winner == "language_tag"):
        written = RDF.langString
    elif row.datatype:
        written = onto.expand(row.datatype)
        if written is None or not onto.is_datatype(written) or written in _ANY_LITERAL:
            return  # an invalid cell is an error of its own; rdfs:Literal writes the value as given
    else:
        xsd = sorted(r for r in ranges if is_xsd_datatype(r))  # as the compiler chooses (pipeline.compile.objects)
        written = xsd[0] if len(xsd) == 1 and xsd[0] != RDF.langString else XSD.string
    missed = [c for c in clauses if not (written in c or c & set(OWL_Datatype_Subsumptions.get(written, ())))]
    if not missed:
        return
    shown = " and ".join(sorted(" or ".join(sorted(onto.compact(r) for r in c)) for c in clauses)) if len(clauses) > 1 \
        else ", ".join(sorted(onto.compact(r) for r in clauses[0]))
    fix = "a language tag (or {column} of the record's tag)" if missed[0] == {RDF.langString} else f"the range {shown}"
    a.add("datatype", f"the row writes {onto.compact(written)} literals but the range of {row.ontology_property!r} is "
          f"{shown}: SHACL's sh:datatype is an exact match, so the shapes derived from the range reject every value",
          fix, None if missed[0] == {RDF.langString} else min(ranges & set().union(*clauses) or missed[0]),
          severity="warning")


def _outside_domain(a: _RowAudit, row: MappingRow, prop: URIRef) -> None:
    """Warn when an Entity Class of the row lies outside the property's domain (:mod:`pipeline.compile.domain`):
    under RDFS (rule rdfs2) every subject then also becomes an instance of the domain class."""
    _class_misfits(a, row, "entity_class", row.entity_class, lambda cls: outside_domain(a.ontology, prop, cls),
                   ("domain", "rdfs2", "subjects", "the vocabulary lists the property on other classes only "
                    "(schema:domainIncludes)"))


def _related_outside_range(a: _RowAudit, row: MappingRow, prop: URIRef) -> None:
    """Warn when a relation row's Related Entity Class lies outside the property's class range
    (:func:`pipeline.compile.domain.outside_range`): under RDFS (rule rdfs3) every object then also
    becomes an instance of the range class."""
    _class_misfits(a, row, "related_entity_class", row.related_entity_class,
                   lambda cls: outside_range(a.ontology, prop, cls),
                   ("range", "rdfs3", "objects", "the vocabulary lists other classes only as its values "
                    "(schema:rangeIncludes)"))


def _class_misfits(a: _RowAudit, row: MappingRow, column: str, cell_text: str | None, misfit_of,
                   words: tuple[str, str, str, str]) -> None:
    """One warning per class of ``cell_text`` that ``misfit_of`` finds outside the property's domain or range;
    ``words``: (``domain``/``range``, the RDFS rule, ``subjects``/``objects``, what a schema.org listing says)."""
    onto = a.ontology
    side, rule, ends, listed = words
    for cell in split_class_alternatives(cell_text):
        cls = onto.expand(cell)
        if cls is None or onto.kind(cls) != "class":
            continue  # not a class: an error of its own
        misfit = misfit_of(cls)
        if misfit is None:
            continue
        bounds = misfit.statement
        one = len(misfit.domains) == 1
        # the entailed class is the one the axioms name: a union's instance is in one member, not in each
        why = f"under RDFS (rule {rule}) each of its {ends} becomes an instance of {bounds} too" if misfit.entailed \
            else listed
        a.add(column, f"{cell} is not {row.ontology_property}'s {side} {bounds} nor a subclass of "
              f"{'each of them' if misfit.every else 'it' if one else 'one of them'}: {why}",
              f"a class within the {side} of {row.ontology_property} ({bounds})", misfit.closest, severity="warning")


def _audit_class_only(a: _RowAudit, row: MappingRow) -> None:
    """A class-only row (:attr:`MappingRow.class_only`) types its subjects and writes no value: a cell that
    would qualify a value (Datatype, Language Tag, Function Name or Output) has nothing to qualify, and is
    ignored with a warning rather than read as a mistake of the whole row."""
    for column in ("datatype", "language_tag", "function_name", "function_output"):
        if getattr(row, column):
            a.add(column, "the row only types its subjects (no Ontology Property, Data Reference nor Related Entity "
                  "Class): the cell qualifies no value and is ignored", "an empty cell", None, severity="warning")


def _audit_deprecated(a: _RowAudit, row: MappingRow) -> None:
    """A warning per property or class cell naming a term the ontology marks ``owl:deprecated true``
    (OWL 2 Structural Specification 5.5: the term should no longer be used)."""
    cells = [("ontology_property", row.ontology_property)]
    cells += [("entity_class", c) for c in split_class_alternatives(row.entity_class)]
    cells += [("related_entity_class", c) for c in split_class_alternatives(row.related_entity_class)]
    for column, text in cells:
        iri = a.ontology.expand(text) if text else None
        if iri is not None and iri in a.ontology.deprecated:
            a.add(column, f"{text!r} is marked owl:deprecated true in the ontology: it should no longer be used",
                  "a term the ontology does not deprecate", severity="warning", code="deprecated-term")


def unexpanded(text: str, ontology: Ontology) -> str:
    """Why a term cell names no IRI (:meth:`Ontology.expand` gave ``None``): ``unknown prefix 'mus'``
    when it is a prefixed name whose prefix neither the ontology nor the manifest declares, else
    ``not an IRI``."""
    prefix = text.split(":", 1)[0] if ":" in text else ""
    return f"unknown prefix {prefix!r}" if prefix and prefix not in ontology.prefixes else "not an IRI"


def _audit_row(row: MappingRow, table: MappingTable, ontology: Ontology, src: SourceData | None,
               case: Case) -> list[Finding]:
    a = _RowAudit(row, table, ontology)
    props, classes = ontology.sorted_terms  # sorted once per ontology, not once per row
    if row.class_only:
        _audit_class_only(a, row)
    elif not row.ontology_property:
        a.add("ontology_property", "row has no ontology property", "a property of the ontology (or, for a row "
              "that only types its subjects, an empty Data Reference too)")
    else:
        a.term("ontology_property", {"object_property", "datatype_property", "property"}, props, "property")
    for cls in split_class_alternatives(row.entity_class):
        iri = ontology.expand(cls)
        if iri is None or ontology.kind(iri) != "class":
            why = f": {unexpanded(cls, ontology)}" if iri is None else " is not a class of the ontology"
            a.add("entity_class", f"entity class {cls!r}{why}", "a class of the ontology",
                  ontology.closest(cls, classes)[0])
    if not row.entity_class:
        a.add("entity_class", "row has no entity class", "a class of the ontology")
    _audit_deprecated(a, row)
    if row.function_name and not row.class_only and not parse_value_map(row.function_output) \
            and function_for_name(row.function_name) is None:
        # a value map names its function freely; any other name must be one the compiler applies, or the
        # values would reach the KG untransformed (a misspelt toDecimal() leaves "1.234,50" for an xsd:decimal)
        names = [name for name, _ in TABLE_FUNCTIONS]
        a.add("function_name", f"function {row.function_name!r} is unknown",
              f"a function of the table ({', '.join(names)}) or a value map in Function Output",
              closest_reference(row.function_name, names))
    prop_iri = ontology.expand(row.ontology_property) if row.ontology_property else None
    if prop_iri is not None and ontology.kind(prop_iri) in ("object_property", "datatype_property", "property"):
        _outside_domain(a, row, prop_iri)
        if row.related_entity_class:
            _related_outside_range(a, row, prop_iri)
    literal_objects = (row.datatype or "").lower() not in IRI_MARKERS and not parse_value_map(row.function_output)
    related = split_class_alternatives(row.related_entity_class)
    class_range = _class_range(ontology, prop_iri) if prop_iri is not None else None
    if prop_iri is not None and (ontology.kind(prop_iri) == "object_property" or class_range) \
            and not row.related_entity_class and literal_objects:
        # an owl:ObjectProperty relates individuals (OWL 2 structural spec 5.3), and so does a property whose
        # range is a class (rdfs3 makes each object an instance of it; OWL 2 Direct Semantics keeps literals
        # out of every class): a literal object contradicts it
        what = "an owl:ObjectProperty" if ontology.kind(prop_iri) == "object_property" else \
            f"a property of range {class_range}"
        a.add("related_entity_class", f"{row.ontology_property!r} is {what} but the row has no "
              "related entity class (nor IRI datatype): its objects are written as literals",
              "the class of the objects (or IRI in the datatype column)", severity="warning")
    elif prop_iri is not None and literal_objects and len(related) == 1 and ontology.expand(related[0]) == SKOS.Concept \
            and row.data_reference and not row.join_condition:
        # the compiler turns codes into concepts only through a value map; without one the codes stay literals,
        # which an object property (OWL 2 structural spec 5.3) and the derived SHACL shapes (sh:nodeKind) reject
        a.add("function_output", f"{row.ontology_property!r} relates to skos:Concept but the row has no value map "
              f"(Function Output 'code -> concept IRI', one pair per code) nor IRI datatype: the values of "
              f"{row.data_reference!r} are written as literals, not concepts",
              "a value map from the column's codes to the concepts of the SKOS scheme", severity="warning")
    if prop_iri is not None and (not literal_objects or row.related_entity_class):
        _iris_for_literal_property(a, row, prop_iri)
    for cls in related:
        iri = ontology.expand(cls)
        if iri is None:
            a.add("related_entity_class", f"related class {cls!r}: {unexpanded(cls, ontology)}",
                  "a class of the ontology or skos:Concept", ontology.closest(cls, classes)[0])
        elif iri != SKOS.Concept and ontology.kind(iri) != "class":
            a.add("related_entity_class", f"related class {cls!r} is not declared in the ontology",
                  "a class of the ontology or skos:Concept", ontology.closest(cls, classes)[0], severity="warning")
    # a relation row's objects are the related entity's IRIs: its Datatype and Language Tag cells mark no
    # literal, and the planner says they are not applied (plan._unapplied_relation_cells)
    relation = _is_relation(row)
    if row.datatype and row.datatype.lower() not in IRI_MARKERS and not relation:
        iri = ontology.expand(row.datatype)
        prop = ontology.expand(row.ontology_property)
        if iri != RDF.langString and is_langstring(iri):
            a.add("datatype", f"{row.datatype!r} is read as rdf:langString", "rdf:langString",
                  "rdf:langString", severity="warning")
        elif prop is not None and iri is not None and not ontology.is_datatype(iri) \
                and iri in ontology.datatype_ranges(prop) and not unknown_xsd_datatype(iri)[0]:
            a.add("datatype", f"datatype {row.datatype!r} is no XSD datatype; it is used because the ontology "
                  f"declares it as the range of the datatype property {row.ontology_property!r}",
                  "an XSD datatype or rdfs:Literal", None, severity="warning")
        elif iri is None or not ontology.is_datatype(iri):
            # the nearest spelling first (xsd:integr meant xsd:integer whatever the range); the range
            # second when it differs, alone when no datatype's name is near
            ranges = sorted(r for r in (ontology.ranges(prop) if prop else set()) if is_xsd_datatype(r))
            spelt = ontology.closest(row.datatype, BUILTIN_DATATYPES, min_score=DATATYPE_SPELLING)[0]
            cand = spelt or (ranges[0] if ranges else None)
            second = f"; second hint: the range of {row.ontology_property!r}, {ontology.compact(ranges[0])}" \
                if spelt is not None and ranges and ranges[0] != spelt else ""
            a.add("datatype", f"datatype cell {row.datatype!r} is no datatype{second}",
                  "an XSD datatype or rdfs:Literal", cand)
        elif (restriction := datatype_restriction(ontology.graph, iri)) is not None:
            base = ontology.compact(restriction.base)
            a.add("datatype", f"datatype {row.datatype!r} is defined as a datatype restriction, "
                  f"{restriction.describe(ontology.graph)}: OWL 2 gives such a datatype no lexical space (Structural "
                  "Specification, section 9.4), so no literal may carry it; reasoners leave these values out and "
                  f"the shapes derived from the range expect {base}, whose values its facets then check",
                  f"the restriction's base datatype {base}", base, severity="warning")
        elif prop is not None:
            _narrower_than_range(a, row, iri, ontology.ranges(prop))
    conflict = None if relation else tag_or_datatype(ontology, row)
    if conflict is not None:
        used, dropped = (("Language Tag", "Datatype") if conflict.winner == "language_tag"
                         else ("Datatype", "Language Tag"))
        ignored = "datatype" if conflict.winner == "language_tag" else "language_tag"
        a.add(ignored, f"the Datatype cell {row.datatype!r} and the Language Tag cell {row.language_tag!r} "
              f"contradict each other (an RDF literal has a datatype or a language tag, rdf:langString, never both): "
              f"the {used} cell is used and the {dropped} cell ignored, as {conflict.why}",
              f"one of the two cells (clear the {dropped} cell, or the other to mean it)", None, severity="warning")
    if prop_iri is not None and ontology.kind(prop_iri) == "datatype_property" and literal_objects \
            and not row.related_entity_class:
        _outside_range(a, row, prop_iri)
    _audit_template_prefix(a, row)
    if not relation:
        _audit_language(a, row, src)
    if src is None:
        a.add("source_file", "cannot tell which source file the row reads (no hint, references found in none)",
              "a source file of the case", [s.name for s in case.sources][0] if case.sources else None)
        return a.findings
    hint = (row.source_file or "").strip().lower()
    # the source's own name too: a selection of a file's records (stix.json[?(@.type=="malware")]) is
    # named by neither its file nor its stem
    if hint and hint not in (src.source.path.name.lower(), src.source.stem.lower(), (src.source.name or "").lower()) \
            and hint.rsplit(".", 1)[0] != src.source.stem.lower():
        known = ", ".join(s.name for s in case.sources)
        if len(case.sources) > 1 and not _near_miss(hint, src):
            # a file the case does not have: which of several sources the row meant is a guess (the first
            # source holding its references), so the row is left out rather than read from another file
            a.add("source_file", f"source file {row.source_file!r} is not a source of the case; the row is left "
                  f"out (known source files: {known})", f"one of {known}", None)
        else:  # a near miss of the file read, or the case's only source: read from it, and say so
            a.add("source_file", f"source file {row.source_file!r} is not a source of the case; the row is read "
                  f"from {src.source.name}", f"one of {known}", src.source.name, severity="warning")
    _audit_references(a, row, src)
    return a.findings


def language_reference(cell: str | None, src: SourceData | None) -> str | None:
    """The reference a Language Tag cell names, else ``None`` (the cell is a constant tag).

    ``{lang}`` always names a reference; a bare cell does when it is a column/path of ``src``
    (a column called ``lang`` is data, not the tag "lang"). The compiler turns the reference
    into ``rml:languageMap [ rml:reference ... ]``: each literal takes its record's tag.
    """
    text = (cell or "").strip()
    m = re.fullmatch(r"\{\s*([^{}]+?)\s*\}", text)
    if m:
        return m.group(1)
    return text if text and src is not None and src.has_reference(text) else None


_TEMPLATE_PREFIX = re.compile(r"^([A-Za-z][\w.\-]*):(?!//)")


def _audit_template_prefix(a: _RowAudit, row: MappingRow) -> None:
    """A subject template written with a prefix (``ex:person/{id}``) whose prefix is declared nowhere
    would become an IRI of that "scheme" (``<bk:book/1>``) for every entity: an error, as for a
    property or class cell with an unknown prefix. IRI schemes without ``//`` (``urn:``, ``mailto:``
    ...) are no prefixes."""
    m = _TEMPLATE_PREFIX.match((row.subject_template or "").strip())
    if not m or m.group(1) in a.ontology.prefixes or m.group(1).lower() in SCHEMES:
        return
    # the candidates are the case's own prefixes (manifest, ontology), not the well-known ones
    own = sorted(p for p, ns in a.ontology.prefixes.items() if p and WELL_KNOWN_PREFIXES.get(p) != ns)
    best = process.extractOne(m.group(1), own, scorer=fuzz.ratio) if own else None
    a.add("subject_template", f"subject template {row.subject_template!r}: unknown prefix {m.group(1)!r}",
          "a prefix declared in the manifest ('prefixes:') or the ontology, or a full IRI",
          best[0] if best else None)


def is_language_tag(tag: str) -> bool:
    """Whether ``tag`` is a BCP 47 tag (RFC 5646 2.1) that names a language: a 2-3 letter primary language
    subtag, or the private-use ``x-`` and grandfathered ``i-`` forms (:func:`check_langtag`)."""
    return not check_langtag(tag)


def closest_language_tag(text: str) -> str | None:
    """The tag a cell that is no tag meant: ``en`` for ``english``/``eng``, ``en-US`` for ``en_US``; ``None``
    when nothing fits (ISO 639 names and codes from pycountry)."""
    cleaned = text.strip().replace("_", "-")
    if cleaned != text and is_language_tag(cleaned):
        return cleaned
    try:
        lang = pycountry.languages.lookup(cleaned.split("-")[0])
    except LookupError:
        return None
    return getattr(lang, "alpha_2", None) or lang.alpha_3


def _languages_per_record(src: SourceData | None, ref: str) -> list[list[str]]:
    """The values of the language reference ``ref`` in each record of ``src``; an ``xml:lang``
    attribute read as XML gives it to an element (XML 1.0 section 2.12: inherited from the nearest
    ancestor, ``xml:lang=""`` none), as ``kgc materialize`` reads it
    (:func:`pipeline.materialize.rml.xml_sources.inherited_language`)."""
    if src is None:
        return []
    inherited = inherited_language(ref) if src.source.format == "xml" else None
    read = src.per_record(inherited) if inherited is not None else None
    return read if read is not None else [rec.get(ref, []) for rec in src.records]


def _values_without_tag(src: SourceData | None, tags: list[list[str]], value_ref: str | None) -> int | None:
    """How many non-empty values of the plain reference ``value_ref`` are in records whose language
    reference gave no tag (``tags``: per record, as :func:`_languages_per_record` reads them); ``None``
    when ``value_ref`` is no column/path of ``src`` (a template: the count per record applies)."""
    if src is None or not value_ref or not src.has_reference(value_ref.strip()):
        return None
    return sum(sum(1 for v in rec.get(value_ref.strip(), []) if str(v).strip())
               for rec, record_tags in zip(src.records, tags) if not any(t.strip() for t in record_tags))


def _untagged_values(src: SourceData | None, ref: str, value_ref: str | None) -> int | None:
    """How many values of ``value_ref`` have no language when each takes its own element's
    ``xml:lang`` (``ref`` is ``<value_ref>/@xml:lang``): no ``xml:lang`` on the element or an
    ancestor, or the nearest one empty (XML 1.0 section 2.12). Counted per value, not per record: a
    record with an English and an untagged title loses one. ``None`` when ``ref`` is no such
    reference (the count per record applies)."""
    m = re.fullmatch(r"(?P<path>.+)/@xml:lang", ref.strip())
    if src is None or src.source.format != "xml" or m is None or not value_ref \
            or m.group("path") != value_ref.strip() or not re.fullmatch(r"[\w.:/-]+", value_ref.strip()):
        return None
    found = src.per_record(f"{value_ref.strip()}[not(ancestor-or-self::*[@xml:lang][1]/@xml:lang != '')]")
    return None if found is None else sum(len(vs) for vs in found)


def _audit_language(a: _RowAudit, row: MappingRow, src: SourceData | None) -> None:
    """A Language Tag cell is a BCP 47 tag, or a reference (``{col}`` / a column of the source)."""
    if not row.language_tag:
        return
    ref = language_reference(row.language_tag, src)
    if ref is None:
        if not is_language_tag(row.language_tag):
            a.add("language_tag", f"language tag {row.language_tag!r} is no BCP 47 tag and no column/path of the "
                  "source", "a BCP 47 tag such as 'en', or {column} for a tag per record",
                  closest_language_tag(row.language_tag))
        return
    if src is not None and not src.has_reference(ref):
        a.add("language_tag", f"language tag reference {ref!r} is no column/path of {_shown(src)}",
              f"a column/path of {_shown(src)}", closest_reference(ref, src.references))
        return
    if src is not None and src.source.format == "xml" and (reason := xml_reference_issue(ref, src.namespaces)):
        a.add("language_tag", f"language tag reference {ref!r}: {reason}",
              "a path of plain steps, ending in /@attribute at most")
        return
    per_record = _languages_per_record(src, ref)
    values = [v for vs in per_record for v in vs]
    bad = sorted({v for v in values if v.strip() and not is_language_tag(v.strip())})
    empty = sum(1 for vs in per_record if not any(v.strip() for v in vs))
    meant = [f"{v!r} -> {c}" for v in bad[:3] if (c := closest_language_tag(v))]
    why = f"; values that are no BCP 47 language tag ({', '.join(repr(v) for v in bad[:3])}) lose their triple " \
          f"at materialize{' (closest tags: ' + ', '.join(meant) + ')' if meant else ''}" if bad else ""
    untagged = _untagged_values(src, ref, row.data_reference)
    lost = untagged if untagged is not None else _values_without_tag(src, per_record, row.data_reference)
    # RML: a language map that yields no value generates no literal (the value's triple is left out)
    if untagged is not None:
        why += (f"; {untagged} value(s) of {row.data_reference!r} without a language (no xml:lang, or xml:lang=\"\", "
                "which says none: XML 1.0 section 2.12) get no literal") if untagged else ""
    elif lost is not None:
        why += f"; {lost} value(s) of {row.data_reference!r} in records without a tag get no literal" if lost else ""
    else:
        why += f"; {empty} record(s) without a tag get no literal" if empty else ""
    # the code and the count let the run's verdict weigh the values lost (pipeline.validation.loss)
    a.add("language_tag", f"language tag read per record from {ref!r}{why}", "a BCP 47 tag per record", None,
          severity="warning" if why else "info", code=UNTAGGED_CODE if lost else "")


def _is_relation(row: MappingRow) -> bool:
    """An object-property row linking two entities (its data reference is only a hint)."""
    return bool(row.related_entity_class) and not parse_value_map(row.function_output) and \
        (row.related_entity_class.strip().lower() != "skos:concept" or bool(row.join_condition))


def _check_nested_position(a: _RowAudit, refs: list[str], src: SourceData) -> None:
    """A subject template that reads the position of a part and a reference in another repeated part
    (:func:`~pipeline.compile.parts.position_beside_other_part`) is left out with what to do instead."""
    found = position_beside_other_part(src, refs)
    if found is not None:
        ref, inner, other = found
        a.add("subject_template", f"template variable {ref!r} is the position of an occurrence of {inner!r} "
              f"beside the other repeated part {other!r}, which the template reads too: every occurrence of one "
              "would be combined with every occurrence of the other (a cross product), which identifies nothing, "
              "so kgc does not compile it",
              f"references of one repeated part and of the parts enclosing it; or list the file once more with an "
              f"iterator at {other!r} so that its occurrences are records")


def _addressable(src: SourceData) -> list[str]:
    """The references of a CSV or JSON source a table row can use, for a "closest valid": those no row can
    address left out, and in place of an array of arrays the index that reads its inner arrays'
    first position (``coords`` -> ``coords[*][0]``, the candidate of its source finding)."""
    if not src.unaddressable:
        return src.references
    out = [r for r in src.references if r not in src.unaddressable]
    out += [f.candidate for f in src.findings
            if f.column == "reference" and f.value in src.unaddressable and f.candidate]
    return out


_PREFIX_USE = re.compile(r"(?:^|(?<=[/\[(@,\s]))([A-Za-z_][\w.\-]*):(?!:)")


def _foreign_prefixes(ref: str, src: SourceData, prefixes: dict[str, str]) -> dict[str, str]:
    """The prefixes of ``ref`` the XML source does not declare but the case does (manifest, ontology), for a
    namespace the source has elements of: prefix -> the source's prefix for that namespace URI."""
    return {p: src.element_prefixes[str(prefixes[p])] for p in _PREFIX_USE.findall(ref)
            if p not in src.namespaces and p in prefixes and str(prefixes[p]) in src.element_prefixes}


def _renamed(ref: str, src: SourceData, prefixes: dict[str, str]) -> str | None:
    """``ref`` with each prefix the case binds to a namespace of the source written as the source names
    that namespace (``dc:title`` -> ``d:title``), or ``None`` when there is none."""
    found = _foreign_prefixes(ref, src, prefixes)
    return _PREFIX_USE.sub(lambda m: f"{found.get(m.group(1), m.group(1))}:", ref) if found else None


def _prefix_of_namespace(ref: str, src: SourceData, prefixes: dict[str, str]) -> str:
    """Why a prefix the case binds is unknown to the XML source: references name elements by the prefixes
    the document declares, each for one namespace (:func:`pipeline.sources.namespaces.element_prefixes`)."""
    found = _foreign_prefixes(ref, src, prefixes)
    return "".join(f"; the case binds {p!r} to <{prefixes[p]}>, which {_shown(src)} names '{q}:'"
                   for p, q in found.items())


def _check_reference(a: _RowAudit, column: str, what: str, ref: str, src: SourceData) -> None:
    """One reference (data reference or template variable): well-formed XPath for XML, then present."""
    if is_position(src, ref):  # <part>.# / <part>/#: an occurrence's position (compile.parts)
        return
    is_xml = src.source.format == "xml"
    options = _absolute(src) if is_xml else _addressable(src)
    if is_xml:
        reason = check_xpath(ref, src.namespaces)
        if reason:
            a.add(column, f"{what} {ref!r}: {reason}{_prefix_of_namespace(ref, src, a.ontology.prefixes)}",
                  "a well-formed XPath of the source", _renamed(ref, src, a.ontology.prefixes) or closest_reference(ref, options))
            return
        named = _LOCAL_NAME.sub(lambda m: _bound_name(m.group(1), src), ref)
        if column == "data_reference" and named != ref:
            # Morph-KGC reads XML references as ElementTree paths, which have no functions
            a.add(column, f"{what} {ref!r} selects elements by local-name(), which the engine cannot evaluate "
                  "(it reads references as ElementTree paths); name the elements with a namespace prefix",
                  "a path of prefixed element names", named)
            return
    if not src.has_reference(ref) and src.json_path_values(ref) is not None:  # a JSONPath that parses
        a.add(column, f"{what} {ref!r} selects no value (a string, number or boolean) in any record of {_shown(src)}",
              "a JSONPath selecting values of the record", closest_reference(ref, options))
        return
    if not src.has_reference(ref):
        hint = ""
        if is_xml and src.default_prefixes:  # unprefixed names never match a default-namespace element
            uri, prefix = next(iter(src.default_prefixes.items()))
            hint = f" (its elements are in the default namespace <{uri}>, bound to '{prefix}:')"
        a.add(column, f"{what} {ref!r} is no column/path of {_shown(src)}{hint}",
              f"a column/path of {_shown(src)}", closest_reference(ref, options))
        return
    if is_xml and (bound := src.bind(ref)) != ref:
        uri = next((u for u, p in src.default_prefixes.items() if f"{p}:" in bound), "")
        a.add(column, f"{what} {ref!r} names elements of the default namespace <{uri}> without a prefix; "
              f"compiled as {bound!r}", "a namespaced XPath", bound, severity="info")
    if src.source.format == "json" and (reason := json_reference_issue(ref, src.path, src.iterator)):
        a.add(column, f"{what} {ref!r} {reason}", "a key without '.' (rename it in a copy of the data)")
    elif src.source.format == "json" and ref in src.unaddressable:  # an array of arrays: no values to read
        a.add(column, f"{what} {ref!r}: {src.unaddressable[ref]}", "a reference that yields values",
              next((f.candidate for f in src.findings if f.column == "reference" and f.value == ref), None))
    elif is_xml and (reason := xml_reference_issue(ref, src.namespaces)):
        a.add(column, f"{what} {ref!r}: {reason}", "a path of plain steps, ending in /@attribute at most",
              closest_reference(re.sub(r"\[[^\]]*\]", "", ref), options))


def _audit_references(a: _RowAudit, row: MappingRow, src: SourceData) -> None:
    relation = _is_relation(row)
    start = len(a.findings)
    if iri_template(row):
        try:
            parse_template(row.data_reference)
        except TemplateError as exc:
            a.add("data_reference", f"IRI template is malformed: {exc}", "an IRI template with {column} variables")
            return
    for ref in data_references(row):
        _check_reference(a, "data_reference", "data reference", ref, src)
    constant = quoted_constant(row.data_reference)
    if constant is not None and not relation and not src.has_reference(row.data_reference) \
            and src.has_reference(constant):
        a.add("data_reference", f"{row.data_reference.strip()} is a quoted constant: every record gets the text "
              f"{constant!r}, though {constant!r} is a column/path of {_shown(src)} whose values the row would read "
              "without the quotes", f"{constant} (the column's values)", constant, severity="warning")
    if row.subject_template:
        try:
            segments = parse_template(row.subject_template)
        except TemplateError as exc:
            a.add("subject_template", f"subject template is malformed: {exc}", "an IRI template with {column} "
                  "or $(xpath) variables")
            return
        refs = [r for seg in segments for r in seg.references()]
        for ref in refs:
            _check_reference(a, "subject_template", "template variable", ref, src)
        _check_nested_position(a, refs, src)
    elif row.ontology_property or row.class_only:
        a.add("subject_template", "row has no subject template", "an IRI template")
    if relation and _join_reads(row, src):
        # the join condition says which columns of the row's file link the two entities (a link file's
        # subject too), so the Data Reference is only a hint (BLINKG's link-file rows name the related class
        # there); without such a join the row's own record is the link, and a reference it does not hold is a
        # broken cell like any other
        for i in range(start, len(a.findings)):
            f = a.findings[i]
            if f.column in ("data_reference", "subject_template") and "malformed" not in f.message \
                    and not (ENGINE_CANNOT in f.message and f.column == "subject_template"):
                a.findings[i] = dataclasses.replace(f, severity="warning",
                                                    message=f.message + " (relation row: resolved by the compiler)")


def _join_reads(row: MappingRow, src: SourceData) -> bool:
    """Whether the row's Join Condition names a reference of the row's own source ``src`` on a side naming
    that source or no source (``student_sport.ID_Student==student.ID`` on ``student_sport.csv``): then the
    condition, not the Data Reference, says how the two entities are linked. A condition naming only
    references ``src`` lacks (``venue==venue``) says nothing of the data."""
    stem = src.source.stem.lower()
    for alt in parse_join_condition(row.join_condition, [src.source.stem]):
        for pair in alt:
            for name, ref in ((pair.child_source, pair.child_ref), (pair.parent_source, pair.parent_ref)):
                if name is None and ref.lower().startswith(stem + "."):  # an XPath side is not split
                    name, ref = stem, ref[len(stem) + 1:]
                named = name is None or name.lower() in stem or stem in name.lower()  # as the planner reads it
                if named and (src.has_reference(ref) or is_position(src, ref)):
                    return True
    return False


_LOCAL_NAME = re.compile(r"\*\[\s*local-name\(\)\s*=\s*['\"]([\w.\-]+)['\"]\s*\]")


def _bound_name(local: str, src: SourceData) -> str:
    """``prefix:local`` for an element name, with the prefix bound to the default namespace if any."""
    prefix = next(iter(src.default_prefixes.values()), None)
    return f"{prefix}:{local}" if prefix else local


def _absolute(src: SourceData) -> list[str]:
    base = (src.iterator or "").rstrip("/")
    return [f"{base}/{r}" for r in src.references]


def audit_table(table: MappingTable, ontology: Ontology, case: Case, sources: list[SourceData]) -> AuditResult:
    """Check every row of ``table``; keep the rows without errors.

    Args:
        table: the mapping table (gold or predicted).
        ontology: ontology + SKOS of the case.
        case: the case (for source names).
        sources: the loaded sources of the case.
    Returns:
        An :class:`AuditResult`; never raises on bad cells.
    """
    result = AuditResult()
    for row in table.rows:
        src = resolve_source(row, sources, case)
        findings = _audit_row(row, table, ontology, src, case)
        if row.review:  # a person decides: the row is shown, not asserted (see MappingRow.review)
            findings.insert(0, review_finding(row, table.source or "<table>"))
        result.findings.extend(findings)
        if src is not None:
            result.row_sources[id(row)] = src
        if any(f.severity == "error" for f in findings):
            result.dropped.append(row)
        elif row.review:
            result.review.append(row)
        else:
            result.kept.append(row)
    return result


def review_finding(row: MappingRow, file: str) -> Finding:
    """The finding of a row marked for review: what the row proposes, why it is marked, how to accept it."""
    what = " ".join(x for x in (row.data_reference or "", "->", row.ontology_property or "?", "of",
                                row.entity_class or "?") if x)
    return Finding("audit", file, f"marked for review, not asserted in the KG: {what}; {row.review} "
                   "(clear the Review cell to accept the row, or delete the row)", row.line, "review", row.review,
                   "a person's check of the row", None, "warning")
