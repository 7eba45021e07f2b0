"""YARRRML -> RML: a reader of the YARRRML specification's syntax (https://rml.io/yarrrml/spec/).

The document becomes the RML kgc runs (RML-Core + RML-FNML, ``http://w3id.org/rml/``); what the
specification or yarrrml-parser accepts and RML-Core cannot express, or kgc does not run, is
refused naming the mapping, the key and the line (exit 2), never dropped.

Read: ``prefixes`` (over the predefined ones, :mod:`.prefixes`), ``base`` (the base IRI of relative
IRIs), document-level named ``sources``, ``external`` references (``$(_name)``), ``authors``
(metadata, noted and left out), and ``mappings`` (also ``mapping``, ``m``) with their shortcuts:

* ``sources`` / ``source``: a name of a document-level source, ``[access~formulation, iterator]``
  (``csv``, ``jsonpath``, ``xpath``) or ``{access, referenceFormulation, iterator}``; a mapping
  with several sources (or several subjects) becomes one TriplesMap per source and subject, and
  a reference to it joins with each (as yarrrml-parser does);
* ``subjects`` / ``subject`` / ``s``: templates, references, constants, functions, ``type: blank``;
  none is a blank node per record;
* ``predicateobjects`` / ``predicateobject`` / ``po``: ``[p, o]``, ``[p, o, datatype]``,
  ``[p, o, lang~lang]``, ``[[p1, p2], [o1, o2]]``, ``[a, Class]``, ``value~iri``, and the long form
  ``{predicates, objects, condition, graphs}`` with objects ``{value, type: iri|literal|blank,
  datatype, language, function, parameters, mapping, condition}``; ``language`` and ``datatype``
  may be references or templates (``$(locale)``: a language map);
* functions: ``{function, parameters: [[parameter, value(~iri), s|o], {parameter, value}]}``, nested
  functions as values, the shortcut ``grel:toUpperCase(grel:valueParameter = $(name))``, and
  ``equal`` (IDLab's ``equal`` on ``str1``/``str2``);
* ``condition`` on a mapping, a predicate-object or an object: the term is generated only where
  the condition function returns true (IDLab's ``trueCondition``, as yarrrml-parser writes it;
  kgc's function file implements it, :mod:`pipeline.fno`);
* joins: ``{mapping: m, condition: {function: equal, parameters: [[str1, $(child)], [str2,
  $(parent)]]}}``, the third element of a parameter (``s``/``o``) saying which side it reads;
* ``graphs`` / ``graph`` / ``g`` on a mapping or a predicate-object.

Refused, with the reason: logical targets and authentication (kgc writes one KG file), databases
and Web APIs as sources, other reference formulations, inverse predicates, change detection, join
conditions that are not equalities of two references, and function parameters read from the
parent (``o``) outside joins.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from pipeline.compile.rml import MAPPING_NS, RML
from pipeline.compile.yarrrml.prefixes import MORPH_KGC_PREFIXES, PREDEFINED, UnknownPrefix, expand_name, \
    unusable_prefix
from pipeline.compile.yarrrml.syntax import (Node, function_shortcut, is_function_shortcut, line_of, load_document,
                                             split_value)
from pipeline.errors import InputError
from pipeline.materialize.rml.check import unknown_xsd_datatype

__all__ = ["YarrrmlMapping", "parse_yarrrml", "IDLAB"]

IDLAB = "https://w3id.org/imec/idlab/function#"
_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"
_FORMULATIONS = {"csv": RML.CSV, "jsonpath": RML.JSONPath, "xpath": RML.XPath}
_RDF_TYPE = str(RDF.type)
#: An IRI's scheme (RFC 3987): what a relative IRI lacks.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
#: A text that reads as a BCP 47 language tag (``en``, ``pt-BR``): the hint ``en~lang``.
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
_EXAMPLE = {"datatype": "xsd:integer", "predicate": "schema:name", "class": "schema:Person"}

#: Shortcuts of the specification (yarrrml-parser's ``expander.js``), canonical key first.
_TOP = {"prefixes": (), "base": (), "sources": (), "mappings": ("mapping", "m"), "external": (), "authors": (),
        "targets": (), "authentications": ()}
_MAPPING = {"sources": ("source",), "subjects": ("subject", "s"), "predicateobjects": ("predicateobject", "po"),
            "graphs": ("graph", "g"), "conditions": ("condition", "c"), "authors": (), "targets": (),
            "changeDetection": ()}
_PO = {"predicates": ("predicate", "p"), "objects": ("object", "o"), "conditions": ("condition", "c"),
       "graphs": ("graph", "g"), "datatype": (), "language": (), "targets": ()}
_TERM = {"value": ("v",), "type": (), "datatype": (), "language": (), "function": ("f", "fn"),
         "parameters": ("pms",), "mapping": (), "conditions": ("condition", "c"), "inversepredicates": ("iv",
                                                                                                       "inversepredicate"),
         "targets": ("target", "t"), "graphs": ("graph", "g")}
_SOURCE = {"access", "referenceFormulation", "iterator", "delimiter", "encoding", "type", "query", "table",
           "queryFormulation", "credentials", "contentType", "operationType", "security", "method", "headers"}
_REFUSED = {
    "targets": "logical targets (where triples are written) are not supported: kgc writes one KG file",
    "authentications": "authentications (for targets and Web sources) are not supported",
    "changeDetection": "change detection (IncRML) is not supported",
    "inversepredicates": "inverse predicates are not supported (RML-Core has none); write the inverse triple "
                         "in the other mapping",
}


@dataclass
class YarrrmlMapping:
    """A YARRRML document read as RML.

    Attributes:
        graph: the RML graph; TriplesMaps are ``map:<mapping>`` (``map:<mapping>_<n>`` when a
            mapping has several sources or subjects).
        notes: what was read with a remark (a mapping without rules, authors left out), one line each.
        base_iri: the document's ``base``, else the one given, else ``None``.
        triples_maps: mapping name -> its TriplesMap IRIs.
        origins: where each generated term map, function execution and join condition was written:
            node -> ``(place, line)``, ``place`` as errors name it (``mapping 'person',
            predicateobjects[2], object 1``), ``line`` 1-based or ``None``; checks of the RML
            (functions the engine knows, columns the sources have) name the YARRRML this way.
    """

    graph: Graph
    notes: list[str] = field(default_factory=list)
    base_iri: str | None = None
    triples_maps: dict[str, list[URIRef]] = field(default_factory=dict)
    origins: dict[Any, tuple[str, int | None]] = field(default_factory=dict)


def _canonical(spec: Any, keys: dict[str, tuple[str, ...]], where: str, fail) -> dict[str, Any]:
    """``spec`` (a mapping) with its shortcut keys replaced by the canonical ones; an unknown key,
    or a key given twice under two names, is refused. The lines of a :class:`Node` are kept under
    the canonical names, in the result and in ``spec`` (so that errors found later, naming the
    canonical key, point at the line the shortcut was written on)."""
    alias = {a: k for k, aliases in keys.items() for a in (k, *aliases)}
    out: dict[str, Any] = Node()
    out.line = getattr(spec, "line", None)
    out.lines = {}
    for key, value in spec.items():
        name = alias.get(str(key))
        if name is None:
            close = difflib.get_close_matches(str(key), list(alias), n=1)
            fail(f"{where}: unknown key {key!r} (known: {', '.join(sorted(keys))})"
                 + (f"; did you mean {close[0]!r}?" if close else ""), spec, key)
        if name in out:
            fail(f"{where}: {name!r} is given twice (as {key!r} too)", spec, key)
        if name in _REFUSED:
            fail(f"{where}: {_REFUSED[name]}", spec, key)
        out[name] = value
        if isinstance(spec, Node) and key in spec.lines:
            out.lines[name] = spec.lines[key]
            spec.lines.setdefault(name, spec.lines[key])
    return out


def _listed(value: Any) -> list:
    return [] if value is None else list(value) if isinstance(value, list) else [value]


class _Reader:
    """One document: prefixes, sources, and the RML graph being written."""

    def __init__(self, path: Path | None, base_dir: Path, prefixes: dict[str, str], base_iri: str | None) -> None:
        self.path = path
        self.base_dir = base_dir
        self.prefixes = dict(prefixes)
        self.base_iri = base_iri
        self.external: dict[str, str] = {}
        self.sources: dict[str, Any] = {}
        self.notes: list[str] = []
        self.g = Graph()
        self.g.bind("rml", RML)
        self.g.bind("map", MAPPING_NS)
        self.ids = 0
        self.maps: dict[str, list[URIRef]] = {}
        self.origins: dict[Any, tuple[str, int | None]] = {}
        #: references to another mapping without a condition: (child TriplesMap, parent, place, object)
        self.unjoined: list[tuple[Any, Any, str, Any]] = []

    # --- errors and names -------------------------------------------------------------------
    def fail(self, message: str, container: Any = None, key: Any = None) -> None:
        raise InputError(message, path=self.path, line=line_of(container, key))

    def iri(self, name: Any, where: str, container: Any = None, key: Any = None, absolute: str | None = None) -> str:
        """A prefixed name or IRI (templates too) expanded.

        Args:
            absolute: what the IRI is (``datatype``, ``predicate``, ``class``) when it must be
                absolute: a constant without a scheme is refused (in the RML it would be resolved
                against the mapping file's path, a ``file:`` IRI of the user's folder), with the
                hint ``en~lang`` for a datatype that reads as a language tag.
        Raises:
            InputError: an undeclared prefix; a relative constant where ``absolute`` is given.
        """
        if not isinstance(name, str) or not name.strip():
            self.fail(f"{where}: expected an IRI or a prefixed name, found {name!r}", container, key)
        if name == "a":
            return _RDF_TYPE
        try:
            expanded = expand_name(name.strip(), self.prefixes)
        except UnknownPrefix as exc:
            self.fail(f"{where}: {exc}", container, key)
        if absolute and "$(" not in expanded and not _SCHEME.match(expanded):
            hint = (f"; a language tag is written '{name.strip()}~lang'"
                    if absolute == "datatype" and _LANGUAGE_TAG.match(name.strip()) else "")
            self.fail(f"{where}: {name.strip()!r} is no {absolute} IRI: a relative IRI, which would resolve against "
                      f"the mapping file's path; expected a prefixed name ({_EXAMPLE[absolute]}) or an absolute "
                      f"IRI{hint}", container, key)
        if absolute == "datatype":
            unknown, closest = unknown_xsd_datatype(expanded)
            if unknown:
                self.fail(f"{where}: {name.strip()!r} is in the XSD namespace but XSD defines no datatype "
                          f"{expanded.rsplit('#', 1)[-1]!r}: its literals would have a datatype no processor knows "
                          f"(expected an XSD datatype{f'; closest: {closest}' if closest else ''})", container, key)
        return expanded

    def node(self, kind: str) -> URIRef:
        self.ids += 1
        return MAPPING_NS[f"{kind}{self.ids}"]

    # --- values -----------------------------------------------------------------------------
    def parts(self, text: str, where: str, container: Any = None, key: Any = None) -> list[tuple[str, str]]:
        try:
            parts = split_value(text)
        except ValueError as exc:
            self.fail(f"{where}: {exc}", container, key)
        # an external reference $(_name) with a value given under `external` is that text
        return [("text", self.external[v[1:]]) if k == "ref" and v.startswith("_") and v[1:] in self.external
                else (k, v) for k, v in parts]

    def expression(self, node: Any, text: str, iri: bool, where: str, container: Any = None, key: Any = None) -> str:
        """Write ``text`` on ``node`` as rml:reference, rml:template or rml:constant; returns which."""
        if iri:
            text = self.iri(text, where, container, key)
        else:  # a declared prefix is expanded in literals too (yarrrml-parser, Morph-KGC); other text stays
            try:
                text = expand_name(text, self.prefixes)
            except UnknownPrefix:
                pass
        parts = self.parts(text, where, container, key)
        self.origins.setdefault(node, (where, line_of(container, key)))
        g = self.g
        if len(parts) == 1 and parts[0][0] == "ref":
            g.add((node, RML.reference, Literal(parts[0][1])))
            return "reference"
        if any(k == "ref" for k, _ in parts):
            g.add((node, RML.template, Literal("".join(
                v.replace("\\:", ":").replace("{", "\\{").replace("}", "\\}") if k == "text"
                else "{" + v.replace("{", "\\{").replace("}", "\\}") + "}" for k, v in parts))))
            return "template"
        constant = "".join(v for _, v in parts).replace("\\:", ":")
        g.add((node, RML.constant, URIRef(constant) if iri else Literal(constant)))
        return "constant"

    # --- functions --------------------------------------------------------------------------
    def function_spec(self, spec: Any, where: str, join: bool = False) -> tuple[str, list[tuple[str, Any, str, str]]]:
        """(function IRI, [(parameter IRI, value, from, type)]) of a function description; in a join
        condition (``join``) ``str2`` reads the object (parent) side unless said otherwise."""
        name = spec.get("function")
        params_in = spec.get("parameters")
        if isinstance(name, str) and is_function_shortcut(name):
            try:
                name, pairs = function_shortcut(name)
            except ValueError as exc:
                self.fail(f"{where}: {exc}", spec, "function")
            params_in = [[p, v] for p, v in pairs]
        params: list[tuple[str, Any, str, str]] = []
        for i, p in enumerate(_listed(params_in)):
            at = f"{where}, parameter {i + 1}"
            if isinstance(p, list):
                if len(p) < 2:
                    self.fail(f"{at}: expected [parameter, value] or [parameter, value, s|o], found {p!r}", spec,
                              "parameters")
                pname, value = p[0], p[1]
                side = str(p[2]) if len(p) > 2 else ("object" if join and pname == "str2" else "subject")
            elif isinstance(p, dict):
                p = _canonical(p, {"parameter": ("pm",), "value": ("v",), "from": (), "type": ()}, at, self.fail)
                pname, value, side = p.get("parameter"), p.get("value"), str(p.get("from") or "subject")
            else:
                self.fail(f"{at}: expected [parameter, value] or {{parameter, value}}, found {p!r}", spec, "parameters")
            side = {"s": "subject", "o": "object"}.get(side, side)
            if side not in ("subject", "object", "function"):
                self.fail(f"{at}: the third element says which side the value is read from: s (subject) or o "
                          f"(object), found {side!r}", spec, "parameters")
            kind = "literal"
            if isinstance(value, str) and value.endswith("~iri"):
                value, kind = value[:-4], "iri"
            if value is None:
                self.fail(f"{at}: parameter {pname!r} has no value", spec, "parameters")
            params.append((str(pname), value, side, kind))
        if name == "equal" and join:  # the parameters name the sides; the join needs no function
            return IDLAB + "equal", params
        if name == "equal":  # yarrrml-parser's name for IDLab's equal on str1/str2
            return IDLAB + "equal", [({"str1": _GREL + "valueParameter", "str2": _GREL + "valueParameter2"}.get(p, p),
                                      v, s, k) for p, v, s, k in params]
        return self.iri(name, f"{where}: function", spec, "function"), params

    def function(self, node: Any, spec: Any, where: str) -> None:
        """Write the function execution of ``spec`` (a function description) on the term map ``node``."""
        fn, params = self.function_spec(spec, where)
        g = self.g
        ex = self.node("exec")
        self.origins[ex] = (where, line_of(spec, "function"))
        g.add((node, RML.functionExecution, ex))
        g.add((ex, RDF.type, RML.FunctionExecution))
        g.add((ex, RML.function, URIRef(fn)))
        for pname, value, side, kind in params:
            at = f"{where}, parameter {pname}"
            # outside a join there is one side: `o` is read from the record too (as yarrrml-parser does)
            inp, ivm = BNode(), BNode()
            g.add((ex, RML.input, inp))
            g.add((inp, RDF.type, RML.Input))
            g.add((inp, RML.parameter, URIRef(self.iri(pname, at, spec, "parameters"))))
            g.add((inp, RML.inputValueMap, ivm))
            if isinstance(value, dict):
                self.function(ivm, _canonical(value, _TERM, at, self.fail), at)
            else:
                self.expression(ivm, str(value), kind == "iri", at, spec, "parameters")
                if g.value(ivm, RML.constant) is None:
                    g.add((ivm, RML.termType, RML.IRI if kind == "iri" else RML.Literal))

    def conditioned(self, node: Any, conditions: Any, value: Any, kind: str, where: str, container: Any) -> None:
        """The term map ``node`` generates ``value`` only where every condition holds: IDLab's
        ``trueCondition(strBoolean = condition, str = value)``, nested once per condition."""
        conds = _listed(conditions)
        if not conds:
            self.fail(f"{where}: an empty condition", container, "conditions")
        spec = value
        for cond in reversed(conds):
            if not isinstance(cond, dict) or "function" not in {_TERM_ALIAS.get(str(k)) for k in cond}:
                self.fail(f"{where}: a condition is a function description ({{function, parameters}}), found "
                          f"{cond!r}", container, "conditions")
            inner = spec + "~iri" if isinstance(spec, str) and kind == "iri" and spec is value else spec
            spec = {"function": IDLAB + "trueCondition",
                    "parameters": [{"parameter": IDLAB + "strBoolean", "value": cond},
                                   {"parameter": IDLAB + "str", "value": inner}]}
        self.function(node, spec, where)
        self.g.add((node, RML.termType, {"iri": RML.IRI, "blank": RML.BlankNode}.get(kind, RML.Literal)))

    # --- sources ----------------------------------------------------------------------------
    def source(self, spec: Any, where: str, container: Any, key: Any) -> tuple[URIRef, str, str | None]:
        """(reference formulation, absolute access path, iterator) of one source description."""
        if isinstance(spec, str):
            if spec in self.sources:
                return self.source(self.sources[spec], f"{where} (source {spec!r})", container, key)
            if "~" in spec:
                return self.source([spec], where, container, key)
            self.fail(f"{where}: source {spec!r} is not defined under the document's 'sources' (defined: "
                      f"{', '.join(sorted(self.sources)) or 'none'})", container, key)
        if isinstance(spec, list):
            if not spec or not isinstance(spec[0], str) or "~" not in spec[0]:
                self.fail(f"{where}: a source shortcut is [access~formulation] or [access~formulation, iterator], "
                          f"e.g. [people.csv~csv]; found {spec!r}", container, key)
            access, _, formulation = spec[0].rpartition("~")
            spec = {"access": access, "referenceFormulation": formulation,
                    **({"iterator": spec[1]} if len(spec) > 1 and spec[1] is not None else {})}
        if not isinstance(spec, dict):
            self.fail(f"{where}: expected a source description, found {spec!r}", container, key)
        unknown = sorted(set(map(str, spec)) - _SOURCE)
        if unknown:
            self.fail(f"{where}: unknown source key(s) {', '.join(map(repr, unknown))} (known: "
                      f"{', '.join(sorted(_SOURCE))})", spec, unknown[0])
        database = next((k for k in ("type", "query", "table", "credentials") if spec.get(k)), None)
        if database:
            self.fail(f"{where}: databases and Web APIs as sources are not supported; kgc reads CSV, JSON and XML "
                      "files", spec, database)
        formulation = str(spec.get("referenceFormulation") or "").lower()
        if formulation not in _FORMULATIONS:
            self.fail(f"{where}: reference formulation {spec.get('referenceFormulation')!r} is not supported "
                      f"(supported: {', '.join(_FORMULATIONS)})", spec, "referenceFormulation")
        delimiter = spec.get("delimiter")
        if delimiter not in (None, ","):
            self.notes.append(f"{where}: delimiter {delimiter!r}: the file is read with its separator detected")
        access = spec.get("access")
        if not isinstance(access, str) or not access.strip():
            self.fail(f"{where}: a source needs 'access' (the file)", spec, "access")
        if "://" not in access:
            path = Path(access)
            if not path.is_absolute():
                # relative to the mapping's folder, else to the working directory (where Morph-KGC and
                # RMLMapper look, so that a mapping run from its project's root as shipped works too)
                here = [(self.base_dir / path).resolve(), (Path.cwd() / path).resolve()]
                path = next((c for c in here if c.is_file()), here[0])
            access = str(path)
        iterator = spec.get("iterator")
        return _FORMULATIONS[formulation], access, None if iterator is None else str(iterator)

    # --- mappings ---------------------------------------------------------------------------
    def mapping_sources(self, spec: dict[str, Any]) -> list:
        """The sources of a mapping: ``sources: [a.json~jsonpath, $.people[*]]`` is one source (an
        access~formulation and an iterator), not two."""
        raw = spec.get("sources")
        if isinstance(raw, list) and len(raw) == 2 and all(isinstance(x, str) for x in raw) and "~" in raw[0] \
                and "~" not in raw[1] and raw[1] not in self.sources:
            return [list(raw)]
        return _listed(raw)

    def declare(self, name: str, spec: dict[str, Any]) -> None:
        """Name the TriplesMaps of mapping ``name`` before any is written (joins refer to them)."""
        n = max(1, len(self.mapping_sources(spec))) * max(1, len(_listed(spec.get("subjects"))))
        key = quote(name, safe="-._~")
        self.maps[name] = [MAPPING_NS[key]] if n == 1 else [MAPPING_NS[f"{key}_{i + 1}"] for i in range(n)]

    def mapping(self, name: str, spec: dict[str, Any], raw: Node) -> None:
        where = f"mapping {name!r}"
        sources = self.mapping_sources(spec)
        if not sources:
            self.fail(f"{where}: no source (expected 'sources', e.g. [people.csv~csv])", raw, None)
        subjects = _listed(spec.get("subjects")) or [None]
        tms = iter(self.maps[name])
        for s_i, src in enumerate(sources):
            formulation, access, iterator = self.source(src, f"{where}, source {s_i + 1}", raw, "sources")
            for subject in subjects:
                tm = next(tms)
                g = self.g
                g.add((tm, RDF.type, RML.TriplesMap))
                ls = BNode()
                g.add((tm, RML.logicalSource, ls))
                g.add((ls, RDF.type, RML.LogicalSource))
                g.add((ls, RML.source, Literal(access)))
                g.add((ls, RML.referenceFormulation, formulation))
                if iterator is not None:
                    g.add((ls, RML.iterator, Literal(iterator)))
                if self.base_iri:
                    g.add((tm, RML.baseIRI, URIRef(self.base_iri)))
                sm = BNode()
                g.add((tm, RML.subjectMap, sm))
                self.subject(sm, subject, spec.get("conditions"), f"{where}, subject", raw)
                for graph in _listed(spec.get("graphs")):
                    self.graph_map(sm, graph, f"{where}, graph", raw)
                for i, po in enumerate(_listed(spec.get("predicateobjects"))):
                    self.predicate_object(tm, sm, po, f"{where}, predicateobjects[{i + 1}]", raw)

    def subject(self, sm: BNode, subject: Any, conditions: Any, where: str, raw: Node) -> None:
        kind = "iri"
        if isinstance(subject, dict):
            spec = _canonical(subject, _TERM, where, self.fail)
            misplaced = sorted(set(spec) - {"value", "type", "function", "parameters", "graphs"})
            if misplaced:
                self.fail(f"{where}: {', '.join(map(repr, misplaced))} on a subject (a subject has value, type, "
                          "function and parameters, graphs; a condition goes on the mapping)", subject, misplaced[0])
            kind = str(spec.get("type") or "iri")
            if kind not in ("iri", "blank"):
                self.fail(f"{where}: type {kind!r}; a subject is an IRI or a blank node (type: iri|blank)", subject,
                          "type")
            for graph in _listed(spec.get("graphs")):
                self.graph_map(sm, graph, f"{where}, graph", subject)
            value = spec if "function" in spec else spec.get("value")
        else:
            value = subject
        if value is None:
            kind = "blank"
        if conditions is not None:
            if value is None:
                self.fail(f"{where}: a condition on a mapping needs a subject to condition (a blank-node subject "
                          "has no value)", raw, "conditions")
            self.conditioned(sm, conditions, value, kind, where, raw)
            return
        if isinstance(value, dict):
            self.function(sm, value, where)
        elif value is not None:
            self.expression(sm, str(value), kind == "iri", where, raw, "subjects")
        self.g.add((sm, RML.termType, RML.BlankNode if kind == "blank" else RML.IRI))

    def graph_map(self, owner: Any, graph: Any, where: str, container: Any) -> None:
        gm = BNode()
        self.g.add((owner, RML.graphMap, gm))
        if isinstance(graph, dict):
            spec = _canonical(graph, _TERM, where, self.fail)
            if "function" in spec:
                self.function(gm, spec, where)
                self.g.add((gm, RML.termType, RML.IRI))
                return
            graph = spec.get("value")
        if graph in ("rr:defaultGraph", "rml:defaultGraph"):
            self.g.add((gm, RML.constant, RML.defaultGraph))
            return
        self.expression(gm, str(graph), True, where, container, "graphs")

    def predicate_object(self, tm: URIRef, sm: BNode, po: Any, where: str, raw: Node) -> None:
        if isinstance(po, list):
            if len(po) not in (2, 3):
                self.fail(f"{where}: expected [predicate, object] or [predicate, object, datatype|lang~lang], "
                          f"found {len(po)} elements", raw, "predicateobjects")
            spec: dict[str, Any] = {"predicates": po[0], "objects": po[1]}
            if len(po) == 3:
                third = str(po[2])
                spec["language" if third.endswith("~lang") else "datatype"] = third.removesuffix("~lang")
            container = po
        elif isinstance(po, dict):
            spec = _canonical(po, _PO, where, self.fail)
            container = po
        else:
            self.fail(f"{where}: expected a list [predicate, object] or {{predicates, objects}}, found {po!r}", raw,
                      "predicateobjects")
        predicates = [self.iri(p if not isinstance(p, dict) else p.get("value"), f"{where}, predicate", container,
                               "predicates", absolute="predicate") for p in _listed(spec.get("predicates"))]
        if not predicates:
            self.fail(f"{where}: no predicate", container, "predicates")
        objects = _listed(spec.get("objects"))
        if not objects:
            self.fail(f"{where}: no object (expected 'objects')", container, "objects")
        typing = predicates == [_RDF_TYPE]
        g = self.g
        if typing and spec.get("conditions") is None and all(
                isinstance(o, str) and "$(" not in o and not is_function_shortcut(o) for o in objects):
            for o in objects:  # classes: the subject map's rml:class
                g.add((sm, RML["class"], URIRef(self.iri(o.removesuffix("~iri"), f"{where}, class", container,
                                                         "objects", absolute="class"))))
            return
        pom = BNode()
        g.add((tm, RML.predicateObjectMap, pom))
        for p in predicates:
            self.constant_or_map(pom, p, RML.predicate, URIRef, RML.predicateMap, True, f"{where}, predicate",
                                 container, "predicates")
        for graph in _listed(spec.get("graphs")):
            self.graph_map(pom, graph, f"{where}, graph", container)
        for j, obj in enumerate(objects):
            self.object_map(pom, obj, spec, typing, f"{where}, object {j + 1}", container)

    def object_map(self, pom: BNode, obj: Any, po: dict[str, Any], typing: bool, where: str, container: Any) -> None:
        g = self.g
        if isinstance(obj, list):
            if not obj or len(obj) > 2:
                self.fail(f"{where}: expected [value] or [value, datatype|lang~lang], found {obj!r}", container,
                          "objects")
            spec: dict[str, Any] = {"value": obj[0]}
            if len(obj) == 2:
                extra = str(obj[1])
                spec["language" if extra.endswith("~lang") else "datatype"] = extra.removesuffix("~lang")
        elif isinstance(obj, dict):
            spec = _canonical(obj, _TERM, where, self.fail)
            container = obj
            if "graphs" in spec:
                self.fail(f"{where}: graphs on an object; they go on the predicate-object or the mapping", obj,
                          "graphs")
        else:
            spec = {"value": obj}
        value = spec.get("value")
        kind = spec.get("type")
        if isinstance(value, str) and value.endswith("~iri"):
            value, kind = value[:-4], "iri"
        kind = str(kind or ("iri" if typing else "literal"))
        if kind not in ("iri", "literal", "blank"):
            self.fail(f"{where}: type {kind!r} (expected iri, literal or blank)", container, "type")
        conditions = [*_listed(po.get("conditions")), *_listed(spec.get("conditions"))]
        if "mapping" in spec:
            if po.get("conditions") is not None:
                self.fail(f"{where}: a predicate-object condition on a reference to mapping {spec['mapping']!r}: "
                          "write the join condition on the object ({mapping, condition})", container, "conditions")
            self.joins(pom, spec, where, container)
            return
        datatype = spec.get("datatype", po.get("datatype"))
        language = spec.get("language", po.get("language"))
        if isinstance(language, dict):
            language = language.get("value")
        if datatype is not None and language is not None:
            if self.iri(str(datatype), f"{where}, datatype", container, "datatype", absolute="datatype") \
                    == str(RDF.langString):
                datatype = None  # rdf:langString is what a language tag gives anyway
            else:
                self.fail(f"{where}: both a datatype and a language tag; a literal has one or the other", container,
                          "language")
        om = BNode()
        g.add((pom, RML.objectMap, om))
        term = spec if "function" in spec else value
        if term is None:
            self.fail(f"{where}: the object has no value" + (
                "; the engine (Morph-KGC 2.10) cannot make one blank node per record without one: give it a "
                "template with the record's key (value: $(id))" if kind == "blank" else ""), container, "objects")
        if conditions:
            self.conditioned(om, conditions, term, kind, where, container)
        elif isinstance(term, dict):
            self.function(om, term, where)
            g.add((om, RML.termType, {"iri": RML.IRI, "blank": RML.BlankNode}.get(kind, RML.Literal)))
        else:
            if term is not None:
                self.expression(om, str(term), kind == "iri", where, container, "objects")
            g.add((om, RML.termType, {"iri": RML.IRI, "blank": RML.BlankNode}.get(kind, RML.Literal)))
        if kind != "literal" and (datatype is not None or language is not None):
            self.fail(f"{where}: a datatype or language tag on a {kind} object", container, "objects")
        if datatype is not None:
            dt = self.iri(str(datatype), f"{where}, datatype", container, "datatype", absolute="datatype")
            self.constant_or_map(om, dt, RML.datatype, URIRef, RML.datatypeMap, True, f"{where}, datatype",
                                 container, "datatype")
        if language is not None:
            lang = str(language)
            # a tag per record: a language map (yarrrml-parser#107)
            self.constant_or_map(om, lang, RML.language, Literal, RML.languageMap, False, f"{where}, language",
                                 container, "language")

    def check_joins(self) -> None:
        """Refuse a reference to another mapping without a condition when the two read different sources
        (R2RML section 8, RML-Core: records of two logical sources are joined only on a join condition).

        Raises:
            InputError: at the line of the reference, naming the mapping, both sources and the condition
                to write.
        """
        g = self.g

        def source(tm: Any) -> tuple[str, str | None]:
            ls = g.value(tm, RML.logicalSource)
            it = g.value(ls, RML.iterator)
            return str(g.value(ls, RML.source)), None if it is None else str(it)

        def said(src: tuple[str, str | None]) -> str:
            name = Path(src[0]).name if "://" not in src[0] else src[0]
            return name + (f" with iterator {src[1]!r}" if src[1] is not None else "")
        for child, parent, where, container in self.unjoined:
            if child is None or source(child) == source(parent):
                continue  # one source: each record with itself (R2RML section 8)
            self.fail(f"{where} reads another source ({said(source(parent))}; this mapping reads "
                      f"{said(source(child))}): records of two sources are joined only on a condition, add one "
                      "to the object: condition: {function: equal, parameters: [[str1, $(child reference), s], "
                      "[str2, $(parent reference), o]]}", container, "mapping")

    def constant_or_map(self, owner: BNode, value: str, constant_predicate: URIRef, term: type,
                        map_predicate: URIRef, iri: bool, where: str, container: Any, key: str) -> None:
        """``owner constant_predicate term(value)`` for a fixed value (``term``: URIRef or Literal); for
        one with ``$(...)`` a term map (``map_predicate``) whose expression is ``value`` (an IRI template
        when ``iri``)."""
        if "$(" not in value:
            self.g.add((owner, constant_predicate, term(value)))
            return
        node = BNode()
        self.g.add((owner, map_predicate, node))
        self.expression(node, value, iri, where, container, key)

    def joins(self, pom: BNode, spec: dict[str, Any], where: str, container: Any) -> None:
        g = self.g
        for parent in _listed(spec["mapping"]):
            if str(parent) not in self.maps:
                self.fail(f"{where}: mapping {parent!r} is not defined (defined: {', '.join(sorted(self.maps))})",
                          container, "mapping")
            conds = _listed(spec.get("conditions"))
            for parent_tm in self.maps[str(parent)]:
                if not conds:  # checked once every mapping's source is written
                    self.unjoined.append((g.value(predicate=RML.predicateObjectMap, object=pom), parent_tm,
                                          f"{where}: mapping {str(parent)!r}", container))
                om = BNode()
                g.add((pom, RML.objectMap, om))
                g.add((om, RML.parentTriplesMap, parent_tm))
                for c_i, cond in enumerate(conds):
                    at = f"{where}, join condition {c_i + 1}"
                    if not isinstance(cond, dict):
                        self.fail(f"{at}: expected {{function: equal, parameters: [[str1, $(child)], [str2, "
                                  f"$(parent)]]}}, found {cond!r}", container, "conditions")
                    fn, params = self.function_spec(_canonical(cond, _TERM, at, self.fail), at, join=True)
                    if fn not in (IDLAB + "equal", "http://example.com/idlab/function/equal") or len(params) != 2:
                        self.fail(f"{at}: a join condition is the equality of two references (function: equal with "
                                  f"str1 and str2); {fn!r} with {len(params)} parameter(s) is not supported",
                                  container, "conditions")
                    sides: dict[str, str] = {}
                    for pname, value, side, _ in params:
                        parts = self.parts(str(value), at, container, "conditions") if isinstance(value, str) else []
                        if len(parts) != 1 or parts[0][0] != "ref":
                            self.fail(f"{at}: parameter {pname!r}: a join compares references ($(column)); "
                                      f"found {value!r}", container, "conditions")
                        if side in sides:
                            self.fail(f"{at}: both parameters read the {side} side; one reads the subject (s), the "
                                      "other the object (o)", container, "conditions")
                        sides[side] = parts[0][1]
                    jc = BNode()
                    self.origins[jc] = (at, line_of(cond, "parameters") or line_of(container, "conditions"))
                    g.add((om, RML.joinCondition, jc))
                    g.add((jc, RML.child, Literal(sides["subject"])))
                    g.add((jc, RML.parent, Literal(sides["object"])))


_TERM_ALIAS = {a: k for k, aliases in _TERM.items() for a in (k, *aliases)}


def parse_yarrrml(text: str, base_dir: str | Path = ".", *, path: str | Path | None = None,
                  prefixes: dict[str, str] | None = None, base_iri: str | None = None) -> YarrrmlMapping:
    """Read a YARRRML document into an RML graph (see the module docstring).

    Args:
        text: the document. base_dir: the folder relative ``access`` paths are read from first (then the working directory).
        path: the file, named in errors. prefixes: prefixes known besides the predefined ones
            (the manifest's); the document's own override both.
        base_iri: the base IRI of relative IRIs when the document has no ``base``.
    Returns:
        The :class:`YarrrmlMapping`.
    Raises:
        InputError: not YAML, or a construct outside what kgc runs (the message names the mapping,
            the key and the line).
    """
    path = Path(path) if path is not None else None
    try:
        doc = load_document(text)
    except RecursionError as exc:
        raise InputError("not a YARRRML document: collections nested too deeply to read", path=path) from exc
    except Exception as exc:  # yaml's errors: one line with the problem and its line, as for manifests
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not YAML: {getattr(exc, 'problem', None) or exc}", path=path,
                         line=mark.line + 1 if mark else None) from exc
    if not isinstance(doc, dict):
        raise InputError("a YARRRML document is a mapping with 'mappings' (and 'prefixes', 'sources' ...)", path=path)
    reader = _Reader(path, Path(base_dir), {**PREDEFINED, **(prefixes or {})}, base_iri)
    top = _canonical(doc, _TOP, "the document", reader.fail)
    declared = top.get("prefixes") or {}
    if not isinstance(declared, dict):
        reader.fail("prefixes: expected a mapping prefix -> namespace IRI", doc, "prefixes")
    reader.prefixes.update({str(k): str(v) for k, v in declared.items()})
    for prefix, ns in declared.items():
        if (why := unusable_prefix(str(prefix), str(ns))) is not None and MORPH_KGC_PREFIXES.get(str(prefix)) != str(ns):
            # kgc reads the document's declaration, as the specification says; Morph-KGC does not
            reader.notes.append(f"prefixes: {prefix!s} is declared as <{ns}>, which kgc uses; {why}, so it makes "
                                "other IRIs of this file (declare another name)")
    for prefix, ns in declared.items():
        reader.g.bind(str(prefix), str(ns), override=True)
    if top.get("base"):
        reader.base_iri = str(top["base"])
    if top.get("authors"):
        reader.notes.append("authors: left out (they describe the rules, not the KG)")
    external = top.get("external") or {}
    if not isinstance(external, dict):
        reader.fail("external: expected a mapping name -> value", doc, "external")
    reader.external = {str(k): str(v) for k, v in external.items()}
    sources = top.get("sources") or {}
    if not isinstance(sources, dict):
        reader.fail("sources: the document-level sources are a mapping name -> source", doc, "sources")
    reader.sources = dict(sources)
    mappings = top.get("mappings")
    if not isinstance(mappings, dict) or not mappings:
        reader.fail("a YARRRML document needs 'mappings' (a mapping name -> its rules)", doc,
                    "mappings" if "mappings" in doc else None)
    specs: dict[str, tuple[dict[str, Any], Node]] = {}
    for name, spec in mappings.items():
        if spec is None:
            reader.notes.append(f"mapping {name!r}: no rules; skipped")
            continue
        if not isinstance(spec, dict):
            reader.fail(f"mapping {name!r}: expected its rules (sources, subjects, predicateobjects), found "
                        f"{spec!r}", mappings, name)
        specs[str(name)] = (_canonical(spec, _MAPPING, f"mapping {name!r}", reader.fail), spec)
    for name, (spec, _) in specs.items():
        reader.declare(name, spec)
    for name, (spec, raw) in specs.items():
        if spec.get("authors"):
            reader.notes.append(f"mapping {name!r}: authors left out (they describe the rules, not the KG)")
        reader.mapping(name, spec, raw)
    reader.check_joins()
    return YarrrmlMapping(reader.g, reader.notes, reader.base_iri, reader.maps, reader.origins)
