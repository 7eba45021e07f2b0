"""YARRRML for the RML subset this compiler emits: RML graph -> YARRRML text, and back.

YARRRML (https://rml.io/yarrrml/spec/) is the human-friendly YAML form of RML. The kept
library for it, yatter (2.0.4, the latest on PyPI), translates only the legacy RML vocabulary
(``http://semweb.mmlab.be/ns/rml#``, R2RML's ``rr:`` and the old ``fnml:functionValue``), not
the current ``http://w3id.org/rml/`` RML-Core + RML-FNML this project writes, so this module
converts the subset :mod:`.rml` emits itself:

* ``sources`` ``[{access, referenceFormulation: csv|jsonpath|xpath, iterator}]``;
* ``s`` / ``o`` values: ``$(reference)``, templates ``http://ex.org/$(id)`` (RML ``{id}``),
  constants (``type: iri`` for IRIs), ``datatype``, ``language``, ``type: iri|literal``;
* classes as ``[a, ex:Class]``;
* functions ``{function, parameters: [{parameter, value}]}`` with nested functions as values
  (RML-FNML ``functionExecution`` / ``input`` / ``inputValueMap``);
* references to other mappings ``{mapping, condition: [{function: equal, parameters:
  [[str1, $(child)], [str2, $(parent)]]}]}`` (``parentTriplesMap`` + ``joinCondition``).

A literal ``$(`` in a constant is written ``\\$(``. Relative ``access`` paths of YARRRML input
are taken relative to the YARRRML file. Anything outside the subset raises :class:`InputError`.
"""
from __future__ import annotations

from itertools import count
from pathlib import Path
from typing import Any

import yaml
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from pipeline.errors import InputError
from pipeline.table.template import TemplateError, closing_paren
from pipeline.compile.rml import MAPPING_NS, RML

__all__ = ["to_yarrrml", "from_yarrrml", "read_yarrrml"]

_FORMULATION = {RML.CSV: "csv", RML.JSONPath: "jsonpath", RML.XPath: "xpath"}
_FORMULATION_BACK = {v: k for k, v in _FORMULATION.items()}


def _template_to_yarrrml(template: str) -> str:
    """RML template ``a{x}b`` (``\\{`` escapes a brace) -> YARRRML ``a$(x)b``."""
    out, i = [], 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template) and template[i + 1] in "{}":
            out.append(template[i + 1])
            i += 2
        elif ch == "{":
            end = template.index("}", i)
            out.append(f"$({template[i + 1:end]})")
            i = end + 1
        elif template.startswith("$(", i):  # a literal '$(' would read as a reference
            out.append("\\$(")
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _split_value(text: str) -> list[tuple[str, str]]:
    """YARRRML value -> ``[("text", s) | ("ref", expr)]``; ``$( ... )`` may hold balanced parentheses and quotes."""
    parts: list[tuple[str, str]] = []
    buf, i = [], 0
    while i < len(text):
        if text.startswith("\\$(", i):
            buf.append("$(")
            i += 3
        elif text.startswith("$(", i):
            if buf:
                parts.append(("text", "".join(buf)))
                buf = []
            try:
                j = closing_paren(text, i + 1)
            except TemplateError as exc:
                raise InputError(f"unbalanced '$(' in YARRRML value {text!r}") from exc
            parts.append(("ref", text[i + 2:j]))
            i = j + 1
        else:
            buf.append(text[i])
            i += 1
    if buf:
        parts.append(("text", "".join(buf)))
    return parts


class _Writer:
    def __init__(self, g: Graph) -> None:
        self.g = g
        self.prefixes = {p: str(ns) for p, ns in g.namespaces() if p and str(ns) != str(MAPPING_NS)}
        self.used: set[str] = set()

    def name(self, iri: Any) -> str:
        text = str(iri)
        for prefix, ns in sorted(self.prefixes.items(), key=lambda x: -len(x[1])):
            if text.startswith(ns) and text[len(ns):] and all(c.isalnum() or c in "_-." for c in text[len(ns):]):
                self.used.add(prefix)
                return f"{prefix}:{text[len(ns):]}"
        return text

    def tm_name(self, tm: Any) -> str:
        return str(tm)[len(str(MAPPING_NS)):] if str(tm).startswith(str(MAPPING_NS)) else str(tm)

    def value(self, node: Any) -> Any:
        """A term map / input value map -> YARRRML value (string or function dict)."""
        g = self.g
        ex = g.value(node, RML.functionExecution)
        if ex is not None:
            params = []
            for inp in sorted(g.objects(ex, RML.input), key=lambda n: str(g.value(n, RML.parameter))):
                params.append({"parameter": self.name(g.value(inp, RML.parameter)),
                               "value": self.value(g.value(inp, RML.inputValueMap))})
            return {"function": self.name(g.value(ex, RML.function)), "parameters": params}
        for pred, show in ((RML.reference, lambda v: f"$({v})"), (RML.template, _template_to_yarrrml),
                           (RML.constant, lambda v: str(v).replace("$(", "\\$("))):
            v = g.value(node, pred)
            if v is not None:
                return show(str(v))
        raise InputError(f"term map {node} has no reference, template, constant or function: not in the subset")

    def term(self, node: Any, default_type: str) -> Any:
        val = self.value(node)
        out: dict[str, Any] = dict(val) if isinstance(val, dict) else {"value": val}
        tt = self.g.value(node, RML.termType)
        kind = "iri" if tt == RML.IRI else "literal" if tt == RML.Literal else "blank" if tt == RML.BlankNode \
            else default_type
        out["type"] = kind
        if (dt := self.g.value(node, RML.datatype)) is not None:
            out["datatype"] = self.name(dt)
        if (lang := self.g.value(node, RML.language)) is not None:
            out["language"] = str(lang)
        return out

    def mapping(self, tm: Any) -> dict[str, Any]:
        g = self.g
        ls = g.value(tm, RML.logicalSource)
        source = {"access": str(g.value(ls, RML.source)),
                  "referenceFormulation": _FORMULATION[g.value(ls, RML.referenceFormulation)]}
        if (it := g.value(ls, RML.iterator)) is not None:
            source["iterator"] = str(it)
        sm = g.value(tm, RML.subjectMap)
        po: list[Any] = [["a", self.name(c)] for c in sorted(g.objects(sm, RML["class"]))]
        for pom in sorted(g.objects(tm, RML.predicateObjectMap), key=lambda n: str(g.value(n, RML.predicate))):
            objects = []
            for om in g.objects(pom, RML.objectMap):
                parent = g.value(om, RML.parentTriplesMap)
                if parent is None:
                    objects.append(self.term(om, "literal"))
                    continue
                ref: dict[str, Any] = {"mapping": self.tm_name(parent)}
                conds = [{"function": "equal", "parameters": [["str1", f"$({g.value(jc, RML.child)})"],
                                                              ["str2", f"$({g.value(jc, RML.parent)})"]]}
                         for jc in g.objects(om, RML.joinCondition)]
                if conds:
                    ref["condition"] = conds if len(conds) > 1 else conds[0]
                objects.append(ref)
            objects.sort(key=str)
            po.append({"p": self.name(g.value(pom, RML.predicate)), "o": objects if len(objects) > 1 else objects[0]})
        return {"sources": [source], "s": self.term(sm, "iri"), "po": po}


def to_yarrrml(rml: Graph) -> str:
    """The RML document ``rml`` (current vocabulary, the subset :mod:`.rml` emits) as YARRRML text.

    Raises:
        InputError: a construct outside the subset (module docstring).
    """
    w = _Writer(rml)
    maps = {w.tm_name(tm): w.mapping(tm) for tm in sorted(rml.subjects(RDF.type, RML.TriplesMap))}
    used = {p: ns for p, ns in sorted(w.prefixes.items()) if p in w.used}
    return yaml.safe_dump({"prefixes": used, "mappings": maps}, sort_keys=False, allow_unicode=True, width=120,
                          default_flow_style=None)


class _Reader:
    def __init__(self, prefixes: dict[str, str], base: Path) -> None:
        self.g = Graph()
        self.prefixes = prefixes
        self.base = base
        self.ids = count(1)
        self.g.bind("rml", RML)
        self.g.bind("map", MAPPING_NS)
        for p, ns in prefixes.items():
            self.g.bind(p, ns)

    def iri(self, name: str) -> URIRef:
        prefix, _, local = str(name).partition(":")
        if prefix in self.prefixes and not local.startswith("//"):
            return URIRef(self.prefixes[prefix] + local)
        return URIRef(str(name))

    def value(self, node: BNode, value: Any, literal_inputs: bool = False) -> None:
        g = self.g
        if isinstance(value, dict) and "function" in value:
            ex = MAPPING_NS[f"exec{next(self.ids)}"]
            g.add((node, RML.functionExecution, ex))
            g.add((ex, RDF.type, RML.FunctionExecution))
            g.add((ex, RML.function, self.iri(value["function"])))
            for param in value.get("parameters", []):
                name, val = (param["parameter"], param["value"]) if isinstance(param, dict) else param
                inp, ivm = BNode(), BNode()
                g.add((ex, RML.input, inp))
                g.add((inp, RDF.type, RML.Input))
                g.add((inp, RML.parameter, self.iri(name)))
                g.add((inp, RML.inputValueMap, ivm))
                self.value(ivm, val, literal_inputs=True)
            return
        if not isinstance(value, str):
            raise InputError(f"YARRRML value {value!r} is not a string or a function")
        parts = _split_value(value)
        if len(parts) == 1 and parts[0][0] == "ref":
            g.add((node, RML.reference, Literal(parts[0][1])))
        elif any(kind == "ref" for kind, _ in parts):
            text = "".join(v.replace("{", "\\{").replace("}", "\\}") if k == "text" else "{" + v + "}"
                           for k, v in parts)
            g.add((node, RML.template, Literal(text)))
        else:
            g.add((node, RML.constant, Literal("".join(v for _, v in parts))))
            return
        if literal_inputs:
            g.add((node, RML.termType, RML.Literal))

    def term(self, node: BNode, spec: Any, default_type: str) -> None:
        spec = spec if isinstance(spec, dict) else {"value": spec}
        self.value(node, spec if "function" in spec else spec["value"])
        kind = spec.get("type", default_type)
        g = self.g
        if kind == "iri" and (c := g.value(node, RML.constant)) is not None:
            g.set((node, RML.constant, URIRef(str(c))))
        g.set((node, RML.termType, {"iri": RML.IRI, "literal": RML.Literal, "blank": RML.BlankNode}[kind]))
        if "datatype" in spec:
            g.add((node, RML.datatype, self.iri(spec["datatype"])))
        if "language" in spec:
            g.add((node, RML.language, Literal(spec["language"])))

    def mapping(self, name: str, spec: dict[str, Any]) -> None:
        g = self.g
        tm = MAPPING_NS[name]
        g.add((tm, RDF.type, RML.TriplesMap))
        sources = spec.get("sources") or []
        if len(sources) != 1:
            raise InputError(f"mapping {name!r}: one source expected, found {len(sources)}")
        src = sources[0]
        ls = BNode()
        g.add((tm, RML.logicalSource, ls))
        g.add((ls, RDF.type, RML.LogicalSource))
        access = Path(src["access"])
        g.add((ls, RML.source, Literal(str(access if access.is_absolute() else (self.base / access).resolve()))))
        g.add((ls, RML.referenceFormulation, _FORMULATION_BACK[str(src.get("referenceFormulation", "csv")).lower()]))
        if src.get("iterator"):
            g.add((ls, RML.iterator, Literal(src["iterator"])))
        sm = BNode()
        g.add((tm, RML.subjectMap, sm))
        self.term(sm, spec["s"], "iri")
        for entry in spec.get("po", []):
            if isinstance(entry, list) and entry and entry[0] in ("a", "rdf:type"):
                g.add((sm, RML["class"], self.iri(entry[1])))
                continue
            pom = BNode()
            g.add((tm, RML.predicateObjectMap, pom))
            g.add((pom, RML.predicate, self.iri(entry["p"])))
            for obj in entry["o"] if isinstance(entry["o"], list) else [entry["o"]]:
                om = BNode()
                g.add((pom, RML.objectMap, om))
                if isinstance(obj, dict) and "mapping" in obj:
                    g.add((om, RML.parentTriplesMap, MAPPING_NS[obj["mapping"]]))
                    conds = obj.get("condition") or []
                    for cond in conds if isinstance(conds, list) else [conds]:
                        args = dict(p if isinstance(p, list) else (p["parameter"], p["value"])
                                    for p in cond["parameters"])
                        jc = BNode()
                        g.add((om, RML.joinCondition, jc))
                        g.add((jc, RML.child, Literal(_split_value(args["str1"])[0][1])))
                        g.add((jc, RML.parent, Literal(_split_value(args["str2"])[0][1])))
                else:
                    self.term(om, obj, "literal")


def from_yarrrml(text: str, base: str | Path = ".") -> Graph:
    """Parse YARRRML (the subset of the module docstring) into an RML graph (current vocabulary).

    Args:
        text: the YARRRML document. base: folder that relative ``access`` paths are relative to.
    Returns:
        The RML graph; TriplesMaps are ``map:<mapping name>``.
    Raises:
        InputError: not YAML, no ``mappings``, or a construct outside the subset.
    """
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:  # one line: the problem and its line, as for manifests
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not YAML: {getattr(exc, 'problem', None) or exc}",
                         line=mark.line + 1 if mark else None) from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("mappings"), dict):
        raise InputError("a YARRRML document needs a 'mappings' object")
    reader = _Reader({str(k): str(v) for k, v in (doc.get("prefixes") or {}).items()}, Path(base))
    for name, spec in doc["mappings"].items():
        try:
            reader.mapping(str(name), spec)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"mapping {name!r}: not in the supported YARRRML subset ({type(exc).__name__}: {exc})",
                             key=str(name)) from exc
    return reader.g


def read_yarrrml(path: str | Path) -> Graph:
    """:func:`from_yarrrml` on a file, relative ``access`` paths taken relative to it.

    Raises:
        InputError: unreadable file or unsupported content (the message names the file).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the YARRRML file: {exc.strerror}", path=p) from exc
    try:
        return from_yarrrml(text, p.resolve().parent)
    except InputError as exc:
        raise InputError(str(exc), path=p, line=exc.line) from exc  # from_yarrrml's errors name no file
