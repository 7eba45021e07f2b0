"""RML -> YARRRML: the RML kgc compiles (RML-Core + RML-FNML) written as YARRRML.

The kept library for this, yatter (2.0.4, the latest on PyPI), translates only the legacy RML
vocabulary (``http://semweb.mmlab.be/ns/rml#``, R2RML's ``rr:`` and the old ``fnml:functionValue``),
not the ``http://w3id.org/rml/`` vocabulary kgc writes, so this module writes it, in the
specification's long forms that :mod:`.read` and yarrrml-parser both read:

* ``base``: the TriplesMaps' ``rml:baseIRI`` (relative IRIs resolve against it);
* ``sources: [{access, referenceFormulation: csv|jsonpath|xpath, iterator}]``;
* ``s`` / ``o``: ``$(reference)``, templates ``http://ex.org/$(id)`` (RML ``{id}``), constants,
  with ``type``, ``datatype``, ``language``; a language or datatype map is written
  ``language: $(lang)`` / ``datatype: $(dt)``;
* classes as ``[a, ex:Class]``; every predicate of a predicate-object map (``p: [ex:a, ex:b]``);
* functions ``{function, parameters: [{parameter, value}]}`` with full IRIs (Morph-KGC 2.10 looks a
  function up by the name as written), nested functions as values;
* prefixes: the user's names (a manifest's ``sdo:`` for ``https://schema.org/``) over those the graph
  binds; a name a YARRRML reader would read otherwise is numbered (``s1:``): one Morph-KGC predefines
  for another namespace (it keeps ``schema: http://schema.org/`` whatever a document declares), or
  one of the key shortcuts it renames wherever they occur (``s``, ``p``, ``o``, ``fn`` ...);
* references to other mappings ``{mapping, condition: {function: equal, parameters: [[str1,
  $(child), s], [str2, $(parent), o]]}}``;
* graph maps as ``graphs``.

A TriplesMap over a logical view of a repeated XML element (:mod:`pipeline.compile.nesting`; YARRRML
has no logical views) is written as a mapping iterating that element, the record's fields read
upwards (``../@id``) and the position as ``count(preceding-sibling::<element>)`` (an element directly below
the record; the position of a more deeply nested one is refused); a view over a JSON array cannot
be written (JSONPath has no parent step): an :class:`InputError` says so.

A literal ``$(`` in a constant is written ``\\$(``; parentheses inside a reference are escaped
(``$(replace\\(x,'a','b'\\))``), since yarrrml-parser ends a reference at the first ``)``.
"""
from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import unquote

import re

import yaml
from rdflib import Graph
from rdflib.namespace import RDF

from pipeline.compile.rml import MAPPING_NS, RML
from pipeline.compile.yarrrml.prefixes import MORPH_KGC_PREFIXES, PREDEFINED, unusable_prefix
from pipeline.compile.yarrrml.syntax import escape_reference
from pipeline.errors import InputError

__all__ = ["to_yarrrml"]

_FORMULATION = {RML.CSV: "csv", RML.JSONPath: "jsonpath", RML.XPath: "xpath"}


def _template_to_yarrrml(template: str) -> str:
    """RML template ``a{x}b`` (``\\{`` escapes a brace) -> YARRRML ``a$(x)b``."""
    out, i = [], 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template) and template[i + 1] in "{}":
            out.append(template[i + 1])
            i += 2
        elif ch == "{":
            end = i + 1
            while end < len(template) and template[end] != "}":
                end += 2 if template[end] == "\\" else 1
            ref = template[i + 1:end].replace("\\{", "{").replace("\\}", "}")
            out.append(f"$({escape_reference(ref)})")
            i = end + 1
        elif template.startswith("$(", i):  # a literal '$(' would read as a reference
            out.append("\\$(")
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _prefix_names(g: Graph, preferred: Mapping[str, str] | None) -> dict[str, str]:
    """Namespace -> the one prefix name the document writes it with: the user's names first
    (``preferred``, in order), then a name the YARRRML readers predefine for it, then the graph's; a name
    some reader would read otherwise (:func:`~.prefixes.unusable_prefix`: ``schema`` for
    ``https://schema.org/`` is ``http://schema.org/`` to Morph-KGC whatever the document declares; a
    prefix ``s`` is its shortcut for ``subjects``) is numbered (``s1``), never written as it is."""
    out: dict[str, str] = {}
    candidates = [*(preferred or {}).items(), *PREDEFINED.items(), *MORPH_KGC_PREFIXES.items(),
                  *((p, str(ns)) for p, ns in g.namespaces())]
    for prefix, ns in candidates:
        ns = str(ns)
        if not prefix or ns == str(MAPPING_NS) or ns in out:
            continue
        name, n = prefix, 0
        while name in out.values() or unusable_prefix(name, ns) is not None:  # the user's name, numbered
            n += 1
            name = f"{prefix}{n}"
        out[ns] = name
    return out


class _Writer:
    def __init__(self, g: Graph, preferred: Mapping[str, str] | None = None) -> None:
        self.g = g
        self.prefixes = {p: ns for ns, p in _prefix_names(g, preferred).items()}
        self.used: set[str] = set()
        #: view key -> the expression it stands for, in the mapping being written
        self.rename: dict[str, str] = {}

    def name(self, iri: Any) -> str:
        text = str(iri)
        for prefix, ns in sorted(self.prefixes.items(), key=lambda x: -len(x[1])):
            if text.startswith(ns) and text[len(ns):] and all(c.isalnum() or c in "_-." for c in text[len(ns):]):
                self.used.add(prefix)
                return f"{prefix}:{text[len(ns):]}"
        return text

    def tm_name(self, tm: Any) -> str:
        return unquote(str(tm)[len(str(MAPPING_NS)):]) if str(tm).startswith(str(MAPPING_NS)) else str(tm)

    def value(self, node: Any) -> Any:
        """A term map / input value map -> YARRRML value (string or function dict)."""
        g = self.g
        ex = g.value(node, RML.functionExecution)
        if ex is not None:
            params = []
            # functions and parameters as full IRIs: Morph-KGC 2.10 looks a function up by the name as written
            for inp in sorted(g.objects(ex, RML.input), key=lambda n: str(g.value(n, RML.parameter))):
                params.append({"parameter": str(g.value(inp, RML.parameter)),
                               "value": self.value(g.value(inp, RML.inputValueMap))})
            return {"function": str(g.value(ex, RML.function)), "parameters": params}
        for pred, show in ((RML.reference, lambda v: f"$({escape_reference(self.rename.get(v, v))})"),
                           (RML.template, lambda v: _template_to_yarrrml(self.renamed(v))),
                           (RML.constant, lambda v: str(v).replace("$(", "\\$("))):
            v = g.value(node, pred)
            if v is not None:
                return show(str(v))
        raise InputError(f"term map {node} has no reference, template, constant or function: not in the subset")

    def term(self, node: Any, default_type: str) -> Any:
        g = self.g
        val = self.value(node)
        out: dict[str, Any] = dict(val) if isinstance(val, dict) else {"value": val}
        tt = g.value(node, RML.termType)
        kind = "iri" if tt == RML.IRI else "literal" if tt == RML.Literal else "blank" if tt == RML.BlankNode \
            else default_type
        out["type"] = kind
        if (dt := g.value(node, RML.datatype)) is not None:
            out["datatype"] = self.name(dt)
        elif (dm := g.value(node, RML.datatypeMap)) is not None:
            out["datatype"] = self.value(dm)
        if (lang := g.value(node, RML.language)) is not None:
            out["language"] = str(lang)
        elif (lm := g.value(node, RML.languageMap)) is not None:  # a tag per record
            out["language"] = self.value(lm)
        return out

    def graphs(self, owner: Any) -> list[Any]:
        out = []
        for gm in sorted(self.g.objects(owner, RML.graphMap), key=str):
            out.append(self.value(gm))
        for const in sorted(self.g.objects(owner, RML.graph), key=str):
            out.append(str(const))
        return [self.name(v) if isinstance(v, str) and "$(" not in v else v for v in out]

    def predicates(self, pom: Any) -> list[str]:
        """Every predicate of a predicate-object map, sorted: constants (``rml:predicate``) as prefixed
        names, predicate maps as their ``$(reference)``/template (R2RML 6.3: one triple per predicate
        and object)."""
        out = sorted(self.name(p) for p in self.g.objects(pom, RML.predicate))
        for pm in sorted(self.g.objects(pom, RML.predicateMap), key=str):
            value = self.value(pm)
            if isinstance(value, dict):
                raise InputError("a predicate computed by a function has no YARRRML form kgc reads back; "
                                 "use the RML document")
            out.append(value if "$(" in value else self.name(value))
        return out

    def renamed(self, template: str) -> str:
        if not self.rename:
            return template
        return re.sub(r"(?<!\\)\{((?:[^{}\\]|\\.)*)\}", lambda m: "{" + self.rename.get(m.group(1), m.group(1))
                      .replace("{", "\\{").replace("}", "\\}") + "}", template)

    def view_source(self, tm: Any, view: Any) -> tuple[Any, str | None]:
        """The logical source under a view of repeated XML elements (an iterable field, possibly with one
        iterable field nested in it, and so on) and the iterator at the innermost element; fills
        :attr:`rename` with what each of the view's keys reads from that element (the fields of
        enclosing levels upwards, ``../``; a position as ``count(preceding-sibling::...)``)."""
        g = self.g
        ls = g.value(view, RML.viewOn)
        levels: list[tuple[str, Any, str]] = [("", view, "")]  # (key prefix, node, iterator from the level above)
        while True:
            inner = [f for f in g.objects(levels[-1][1], RML.field) if (f, RDF.type, RML.IterableField) in g]
            if len(inner) > 1 or ls is None or g.value(ls, RML.referenceFormulation) != RML.XPath:
                raise InputError(f"TriplesMap {self.tm_name(tm)} reads a logical view over nested JSON, or over "
                                 "several repeated parts side by side, which YARRRML cannot express (JSONPath has no "
                                 "parent step; a YARRRML mapping iterates one element); use the RML document")
            if not inner:
                break
            it = inner[0]
            levels.append((levels[-1][0] + str(g.value(it, RML.fieldName)) + ".", it, str(g.value(it, RML.iterator))))
        if len(levels) == 1:
            raise InputError(f"TriplesMap {self.tm_name(tm)} reads a logical view without an iterable field, which "
                             "YARRRML cannot express; use the RML document")
        steps = [re.split(r"/(?![^\[]*\])", part) for _, _, part in levels[1:]]
        self.rename = {}
        for k, (prefix, node, _) in enumerate(levels):
            up = "../" * sum(len(s) for s in steps[k:])  # from the innermost element to this level's
            for f in g.objects(node, RML.field):
                if (f, RDF.type, RML.IterableField) not in g:
                    ref = str(g.value(f, RML.reference))
                    self.rename[prefix + str(g.value(f, RML.fieldName))] = up + ref if up and ref != "." else \
                        (up.rstrip("/") if ref == "." and up else ref)
            if k == 0:
                continue
            key = f"{prefix}#"
            if len(steps[k - 1]) == 1:
                self.rename[key] = f"count({up}preceding-sibling::{steps[k - 1][0].split('[')[0]})"
            elif any(key in str(v) for p in (RML.template, RML.reference) for v in g.objects(None, p)):
                # the view numbers the occurrences over the enclosing level; preceding-sibling counts within the parent
                raise InputError(f"TriplesMap {self.tm_name(tm)} keys the occurrences of the nested element "
                                 f"{levels[k][2]} by their position in the record, which YARRRML cannot express; "
                                 "use the RML document")
        base = str(g.value(ls, RML.iterator) or "").rstrip("/")
        return ls, "/".join([base] + [part for _, _, part in levels[1:]])

    def mapping(self, tm: Any) -> dict[str, Any]:
        g = self.g
        ls = g.value(tm, RML.logicalSource)
        self.rename, iterator = {}, None
        if g.value(ls, RML.viewOn) is not None:
            ls, iterator = self.view_source(tm, ls)
        source = {"access": str(g.value(ls, RML.source)),
                  "referenceFormulation": _FORMULATION[g.value(ls, RML.referenceFormulation)]}
        if iterator is not None:
            source["iterator"] = iterator
        elif (it := g.value(ls, RML.iterator)) is not None:
            source["iterator"] = str(it)
        sm = g.value(tm, RML.subjectMap)
        subject = self.term(sm, "iri")
        po: list[Any] = [["a", self.name(c)] for c in sorted(g.objects(sm, RML["class"]))]
        for pom in sorted(g.objects(tm, RML.predicateObjectMap), key=lambda n: str(self.predicates(n))):
            objects = []
            for om in g.objects(pom, RML.objectMap):
                parent = g.value(om, RML.parentTriplesMap)
                if parent is None:
                    objects.append(self.term(om, "literal"))
                    continue
                ref: dict[str, Any] = {"mapping": self.tm_name(parent)}
                conds = [{"function": "equal",
                          "parameters": [["str1", f"$({escape_reference(self.rename.get(c, c))})", "s"],
                                         ["str2", f"$({escape_reference(str(g.value(jc, RML.parent)))})", "o"]]}
                         for jc in g.objects(om, RML.joinCondition) if (c := str(g.value(jc, RML.child)))]
                if conds:
                    ref["condition"] = conds if len(conds) > 1 else conds[0]
                objects.append(ref)
            objects.sort(key=str)
            predicates = self.predicates(pom)
            entry: dict[str, Any] = {"p": predicates if len(predicates) > 1 else predicates[0],
                                     "o": objects if len(objects) > 1 else objects[0]}
            if graphs := self.graphs(pom):
                entry["graphs"] = graphs
            po.append(entry)
        out: dict[str, Any] = {"sources": [source], "s": subject}
        if graphs := self.graphs(sm):
            out["graphs"] = graphs
        out["po"] = po
        return out


def to_yarrrml(rml: Graph, prefixes: Mapping[str, str] | None = None) -> str:
    """The RML document ``rml`` (current vocabulary, what :mod:`pipeline.compile.rml` emits) as YARRRML text.

    Args:
        rml: the RML graph.
        prefixes: the user's prefix names (a manifest's, an ontology's), preferred in this order over
            the names the graph binds; a name a YARRRML reader predefines for another namespace is never
            written (:func:`_prefix_names`).
    Returns:
        The document: ``base`` (when the TriplesMaps share an ``rml:baseIRI``), the prefixes it
        uses, and one mapping per TriplesMap; functions and their parameters are full IRIs.
    Raises:
        InputError: a term map with no value (not RML kgc writes).
    """
    w = _Writer(rml, prefixes)
    maps = {w.tm_name(tm): w.mapping(tm) for tm in sorted(rml.subjects(RDF.type, RML.TriplesMap))
            if rml.value(tm, RML.logicalSource) is not None and rml.value(tm, RML.subjectMap) is not None}
    used = {p: ns for p, ns in sorted(w.prefixes.items()) if p in w.used}
    doc: dict[str, Any] = {}
    bases = {str(b) for b in rml.objects(None, RML.baseIRI)}
    if len(bases) == 1:
        doc["base"] = bases.pop()
    doc["prefixes"] = used
    doc["mappings"] = maps
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120, default_flow_style=None)
