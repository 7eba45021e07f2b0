"""RML normalisation pass: any RML document -> the engine copy Morph-KGC 2.10 runs correctly.

Runs on every RML document before the engine copy (``*.morph-kgc.ttl``) is written, both for
compiled tables and for hand-written RML. A chain of small passes on the RDF graph
(parse -> unify -> resolve -> check -> rewrite), never on Turtle text:

1. ``unify``: R2RML (``rr:``) and legacy RML (``http://semweb.mmlab.be/ns/rml#``, ``ql:``)
   terms become RML-Core terms (``http://w3id.org/rml/``). The engine does this too, except
   for the legacy ``rml:languageMap`` (what YARRRML tools still emit), which it ignores
   (morph-kgc#284): unified here, language tags are kept.
2. ``sources``: RML-IO source descriptions (``rml:RelativePathSource`` with ``rml:root
   rml:MappingDirectory`` / ``rml:CurrentWorkingDirectory``, ``rml:path``) and relative file
   names become absolute paths; the engine reads only a literal file name.
3. ``check``: what would crash the engine with an unexplained ``KeyError``/``IndexError`` is
   bad input named by TriplesMap and term map (:class:`~pipeline.errors.RMLError`): a
   namespace missing its ``#``, a logical source split from its subject map, a term map with
   no value, a parent TriplesMap on another logical source without join condition (R2RML
   section 8: such a referencing object map must have one), a missing source file.
   JSON sources: ``$.``-absolute references become relative, values take their natural
   datatype, a reference to a key no record has is bad input; so is, in an XML source, a
   reference to an element or attribute no record has.
4. ``base``: relative IRI templates are resolved against the base IRI (``rml:baseIRI`` of the
   TriplesMap, else the document's ``@base``, else the manifest's ``base_iri``), as R2RML
   section 11.2 and RML-Core prescribe, instead of leaving relative IRIs the guards drop.
5. ``blank nodes``: blank-node templates and references become IRI templates under
   :data:`~pipeline.materialize.rml.vocabulary.BNODE_NS`, so the engine percent-encodes their
   values; the guard turns those IRIs back into blank nodes (one per distinct value), so a
   blank-node template with a space (``{first} {last}``) makes blank nodes, not illegal IRIs.
6. ``self-joins``: a join whose parent TriplesMap reads the same logical source with equal
   child and parent references is collapsed by the engine into "each record with itself"
   (morph-kgc#209). The parent becomes a non-asserted copy whose source path is spelled
   differently (``dir/./file``), so the engine performs the real join (same file, same rows).

Passes 1-2 are in :mod:`pipeline.materialize.rml.unify`, the checks in :mod:`pipeline.materialize.rml.check`, the JSON
passes in :mod:`pipeline.materialize.rml.json_sources` and :mod:`pipeline.materialize.rml.xml_sources`; passes 4-6 and the driver (:func:`normalize_rml`) are here.
Which file the engine reads for a logical source is decided in :mod:`pipeline.sources.engine_copy`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.findings import Finding
from pipeline.fno import FN
from pipeline.materialize.engine import iri_safe
from pipeline.materialize.rml.check import (check_functions, check_mapping, misplaced_term_map_keys, node_name,
                                           source_key, term_maps, triples_maps)
from pipeline.materialize.rml.json_sources import json_datatypes, json_iterators, json_references
from pipeline.materialize.rml.repeated import xml_cross_products
from pipeline.materialize.rml.unify import resolve_sources, unify
from pipeline.materialize.rml.vocabulary import BNODE_NS, KGC, LEGACY, REF_NS, RML, RR
from pipeline.materialize.rml.xml_sources import xml_iterators, xml_languages, xml_references
from pipeline.materialize.views.view import PLACEHOLDER, unescape
from pipeline.materialize.gather import GatherPlan, extract_gathers
from pipeline.materialize.targets import TargetPlan, split_targets
from pipeline.materialize.views.derive import derive_sources
from pipeline.sources.engine_copy import scratch_folder

__all__ = ["Normalized", "normalize_rml", "document_base", "has_graph_maps"]

_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_BASE = re.compile(r"^\s*(?:@base\s*<([^>]*)>\s*\.|BASE\s*<([^>]*)>)", re.MULTILINE | re.IGNORECASE)


@dataclass
class Normalized:
    """The engine-ready mapping and what the pass changed.

    Attributes:
        graph: the normalised RML graph (RML-Core vocabulary, absolute source paths).
        findings: one ``info``/``warning`` finding per repair made (errors are raised).
        triples_maps: IRIs (or blank-node ids) of the asserted TriplesMaps, sorted.
        graph_maps: the mapping has a graph map other than the default graph.
        gathers: the RML-CC gather maps taken out of ``graph``, computed beside the engine
            (:mod:`pipeline.materialize.gather`), or ``None``.
        targets: the RML-IO logical targets and which TriplesMaps write to each
            (:mod:`pipeline.materialize.targets`), or ``None`` (everything to the output).
        derived: ``(derived source file, key) -> what the key holds as the user wrote it``
            (:func:`pipeline.materialize.views.derive.derive_sources`).
    """

    graph: Graph
    findings: list[Finding] = field(default_factory=list)
    triples_maps: list[str] = field(default_factory=list)
    graph_maps: bool = False
    gathers: GatherPlan | None = None
    targets: TargetPlan | None = None
    derived: dict[tuple[str, str], str] = field(default_factory=dict)

    def in_user_terms(self, finding: Finding, mapping_file: str | Path) -> Finding:
        """``finding`` on a key of a derived source (a file kgc computed, ``k2_title_xml_lang``) told in
        the user's terms: the reference, TriplesMap and data file it stands for, on ``mapping_file``
        (the mapping the user has); any other finding as it is."""
        said = self.derived.get((finding.file, finding.column or ""))
        if said is None:
            return finding
        return dataclasses.replace(finding, file=str(mapping_file), column=None,
                                   message=finding.message.replace(repr(finding.column), said))


def document_base(text: str) -> str | None:
    """The ``@base``/``BASE`` IRI of a Turtle document's text, or ``None``."""
    m = _BASE.search(text)
    return (m.group(1) or m.group(2)) if m else None


def has_graph_maps(rml: Graph) -> bool:
    """Whether a normalised mapping assigns triples to a named graph (not ``rml:defaultGraph``)."""
    for p in (RML.graphMap, RML.graph):
        for gm in rml.objects(None, p):
            value = gm if p == RML.graph else rml.value(gm, RML.constant)
            if value is None or value != RML.defaultGraph:
                return True
    return False


def _iri_valued(g: Graph, role: str, node: Node) -> bool:
    tt = g.value(node, RML.termType)
    if tt is not None:
        return tt in (RML.IRI, RML.URI, RML.UnsafeIRI)
    if role != "object map":
        return True
    # R2RML 7.4: an object map is a literal by default when it has a reference, language or datatype
    return not any(g.value(node, p) is not None for p in (RML.reference, RML.language, RML.languageMap,
                                                            RML.datatype, RML.datatypeMap))


def _rewrite_terms(g: Graph, maps: list[Node], base: str | None, where: str) -> list[Finding]:
    findings: list[Finding] = []
    resolved = 0
    for tm in maps:
        tm_base = g.value(tm, RML.baseIRI)
        tm_base = str(tm_base) if tm_base is not None else base
        for role, node in term_maps(g, tm):
            for dm in g.objects(node, RML.datatypeMap):  # a datatype map makes IRIs: relative ones are resolved
                dt_template = g.value(dm, RML.template)
                if dt_template is not None and tm_base and not _ABSOLUTE.match(str(dt_template)):
                    g.set((dm, RML.template, Literal(tm_base + str(dt_template))))
                    resolved += 1
            template = g.value(node, RML.template)
            reference = g.value(node, RML.reference)
            execution = g.value(node, RML.functionExecution)
            explicit_iri = g.value(node, RML.termType) in (RML.IRI, RML.URI, RML.UnsafeIRI)
            if execution is not None and tm_base and not _absolute_output(g, execution) and (
                    explicit_iri or (role in ("subject map", "graph map") and g.value(node, RML.termType) is None)):
                # RML-Core makes a relative IRI absolute with the base; the engine does so for references
                # and templates, not for a function's value: the function is wrapped in fn:resolveIri
                _resolve_function_iri(g, node, execution, tm_base)
                resolved += 1
                continue
            if reference is not None and g.value(node, RML.termType) != RML.BlankNode and _iri_valued(g, role, node):
                ref = str(reference).replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")
                g.remove((node, RML.reference, None))
                g.set((node, RML.template, Literal(f"{REF_NS}{iri_safe(tm_base or '')}/{{{ref}}}")))
                g.set((node, RML.termType, RML.IRI))
                continue
            if g.value(node, RML.termType) == RML.BlankNode and (template is not None or reference is not None):
                if template is None:
                    template = Literal("{" + str(reference).replace("{", "\\{").replace("}", "\\}") + "}")
                    g.remove((node, RML.reference, None))
                g.set((node, RML.template, Literal(BNODE_NS + _encode_constant_parts(str(template)))))
                g.set((node, RML.termType, RML.IRI))
            elif template is not None and _iri_valued(g, role, node) and not _ABSOLUTE.match(str(template)):
                if not tm_base:
                    findings.append(Finding("normalise", where, f"TriplesMap {node_name(tm)}: the {role}'s template "
                                            f"{str(template)!r} is a relative IRI and there is no base IRI",
                                            value=str(template), expected="an absolute IRI template or a base IRI",
                                            severity="warning"))
                    continue
                g.set((node, RML.template, Literal(tm_base + str(template))))
                resolved += 1
    if resolved:
        findings.append(Finding("normalise", where, f"{resolved} relative IRI template(s) resolved against the "
                                "base IRI", value=base, severity="info"))
    return findings


def _constant_templates(g: Graph, maps: list[Node]) -> None:
    """A template without a placeholder (``rr:template "http://ex.org/vocab#CVE"``) becomes the
    constant it denotes: R2RML section 7.3 does not ask a template to reference a column, and
    CARML and the RMLMapper write its text, while the engine stops on it. Its escaped braces are
    unescaped; an IRI unless the term map makes literals (term type, or an object map with a
    language or datatype, R2RML section 7.4). Runs after relative templates are resolved."""
    for tm in maps:
        for role, node in term_maps(g, tm):
            template = g.value(node, RML.template)
            if template is None or PLACEHOLDER.search(str(template)) or g.value(node, RML.constant) is not None:
                continue
            text = unescape(str(template))
            literal = g.value(node, RML.termType) == RML.Literal or (role == "object map" and any(
                g.value(node, p) is not None for p in (RML.language, RML.languageMap, RML.datatype, RML.datatypeMap)))
            g.remove((node, RML.template, None))
            g.set((node, RML.constant, Literal(text) if literal else URIRef(text)))


def _absolute_output(g: Graph, execution: Node) -> bool:
    """Whether a function execution's value is an absolute IRI whatever the record: a concatenation
    whose first input is a constant with a scheme (how kgc compiles IRI templates with functions),
    a value map (``fn:valueMap``) whose every value has a scheme, or ``fn:mailto`` / ``fn:tel``
    (a ``mailto:`` / ``tel:`` IRI, or no value)."""
    function = g.value(execution, RML.function)
    if function in (FN.mailto, FN.tel):
        return True
    constants = {g.value(inp, RML.parameter): g.value(g.value(inp, RML.inputValueMap), RML.constant)
                 for inp in g.objects(execution, RML.input)}
    if function == FN.concat:
        first = constants.get(FN.first)
        return first is not None and _ABSOLUTE.match(str(first)) is not None
    if function == FN.valueMap and constants.get(FN.map) is not None:
        try:
            table = json.loads(str(constants[FN.map]))
        except ValueError:
            return False
        return isinstance(table, dict) and all(_ABSOLUTE.match(str(v)) for v in table.values())
    return False


def _resolve_function_iri(g: Graph, node: Node, execution: Node, base: str) -> None:
    """Make the term map ``node`` call ``fn:resolveIri(<its function's value>, base)`` (FNML
    composition: the original execution becomes the value map of the new one's first input)."""
    outer, value_input, value_map, base_input, base_map = BNode(), BNode(), BNode(), BNode(), BNode()
    g.remove((node, RML.functionExecution, execution))
    g.add((node, RML.functionExecution, outer))
    g.add((outer, RDF.type, RML.FunctionExecution))
    g.add((outer, RML.function, FN.resolveIri))
    for inp, param, vm in ((value_input, FN.value, value_map), (base_input, FN.base, base_map)):
        g.add((outer, RML.input, inp))
        g.add((inp, RDF.type, RML.Input))
        g.add((inp, RML.parameter, param))
        g.add((inp, RML.inputValueMap, vm))
    g.add((value_map, RML.functionExecution, execution))
    g.add((base_map, RML.constant, Literal(base)))
    for predicate in (RML["return"], RML.returnMap):  # the output chosen applies to the inner function
        for o in list(g.objects(node, predicate)):
            g.remove((node, predicate, o))
            g.add((value_map, predicate, o))


def _encode_constant_parts(template: str) -> str:
    """IRI-safe encoding of the text between the placeholders of a template (escaped braces decoded)."""
    parts = re.split(r"((?<!\\)\{[^{}]*(?<!\\)\})", template)
    return "".join(p if i % 2 else iri_safe(p.replace("\\{", "{").replace("\\}", "}"))
                   for i, p in enumerate(parts))


def _copy(g: Graph, node: Node, new: Node | None = None) -> Node:
    """Deep copy of the blank-node tree below ``node`` (IRIs are shared)."""
    new = BNode() if new is None else new
    for p, o in list(g.predicate_objects(node)):
        g.add((new, p, _copy(g, o) if isinstance(o, BNode) and p != RML.parentTriplesMap else o))
    return new


def _self_joins(g: Graph, maps: list[Node], where: str) -> list[Finding]:
    findings: list[Finding] = []
    copies: dict[Node, Node] = {}
    ids = count(1)
    for tm in maps:
        for _, node in list(term_maps(g, tm)):
            parent = g.value(node, RML.parentTriplesMap)
            conds = list(g.objects(node, RML.joinCondition))
            if parent is None or not conds or source_key(g, tm) != source_key(g, parent):
                continue
            same = all(g.value(c, RML.child) is not None and g.value(c, RML.child) == g.value(c, RML.parent)
                       for c in conds)
            if not same:
                continue  # the engine performs the real join itself
            if parent not in copies:
                copy = URIRef(f"{BNODE_NS}selfjoin{next(ids)}") if not isinstance(parent, URIRef) \
                    else URIRef(f"{parent}-kgc-self-join-parent")
                _copy(g, parent, copy)
                g.remove((copy, RDF.type, None))
                g.remove((copy, RML.predicateObjectMap, None))
                g.add((copy, RDF.type, RML.NonAssertedTriplesMap))
                ls = g.value(copy, RML.logicalSource)
                src = Path(str(g.value(ls, RML.source)))
                g.set((ls, RML.source, Literal(os.path.join(str(src.parent), ".", src.name))))
                copies[parent] = copy
            g.set((node, RML.parentTriplesMap, copies[parent]))
            findings.append(Finding("normalise", where, f"TriplesMap {node_name(tm)}: self-join on "
                                    f"{', '.join(str(g.value(c, RML.child)) for c in conds)} performed as a real "
                                    "join (the engine would link each record only to itself, morph-kgc#209)",
                                    severity="info"))
    return findings


def normalize_rml(rml: Graph, *, mapping_dir: Path | None = None, base_iri: str | None = None,
                  where: str = "mapping", copies: Path | None = None) -> Normalized:
    """Normalise an RML document for the engine (see the module docstring for the passes).

    Args:
        rml: the mapping as parsed (R2RML, legacy RML or RML-Core vocabulary; not modified).
        mapping_dir: folder that relative source paths and ``rml:MappingDirectory`` refer to
            (default: the current directory).
        base_iri: base for relative IRI templates when a TriplesMap has no ``rml:baseIRI``
            (the document's ``@base``, see :func:`document_base`, else the manifest's ``base_iri``).
        where: file name used in messages and findings.
        copies: folder for decoded copies of compressed/encoded sources and for derived sources
            (default: a temporary folder removed when the process ends, never one beside the inputs:
            :func:`pipeline.sources.engine_copy.scratch_folder`).
    Returns:
        A :class:`Normalized` with the engine-ready graph and the repairs made.
    Raises:
        RMLError: the mapping is invalid (message names the TriplesMap, term map and cause).
    """
    g = unify(rml, where)
    natural = not any(str(p).startswith(str(LEGACY)) for p in rml.predicates())
    mapping_dir = Path(mapping_dir) if mapping_dir is not None else Path.cwd()
    findings = resolve_sources(g, mapping_dir, where, copies)
    findings += xml_cross_products(g, where)  # on the references as written, before xml:lang is rewritten
    xml_languages(g)  # inherited xml:lang: an XPath the derived-source pass evaluates
    # before the derived sources replace the XML ones: iterators and references that select nothing
    findings += xml_iterators(g, where)
    findings += xml_references(g, triples_maps(g), where)
    derived: dict[tuple[str, str], str] = {}
    findings += derive_sources(g, Path(copies) if copies is not None else scratch_folder(mapping_dir), where, natural,
                               derived)
    g.remove((None, KGC.derive, None))
    maps = check_mapping(g, where, r2rml=any(True for _ in rml.triples((None, RR.datatype, None)))
                         or any(True for _ in rml.triples((None, RR.language, None))))
    check_functions(g, maps, where)
    findings += misplaced_term_map_keys(g, maps, where)
    json_references(g, maps)
    json_iterators(g, maps)
    findings += json_datatypes(g, maps, natural, where)
    findings += _rewrite_terms(g, maps, base_iri, where)
    _constant_templates(g, maps)
    findings += _self_joins(g, maps, where)
    asserted = [tm for tm in maps if (tm, RDF.type, RML.NonAssertedTriplesMap) not in g]
    targets = split_targets(g, mapping_dir, where)
    gathers = extract_gathers(g, where)
    return Normalized(g, findings, sorted(str(tm) for tm in asserted),
                      has_graph_maps(g) or (gathers is not None and has_graph_maps(gathers.graph)), gathers, targets,
                      derived)
