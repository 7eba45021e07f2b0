"""Term maps evaluated in Python, record by record, for what is computed beside the engine.

The engine (Morph-KGC) makes the terms of every TriplesMap it runs. RML-CC gather maps need the
terms of each *iteration* together (a collection gathers the values one record yields), which
the engine's output does not keep; :mod:`pipeline.materialize.gather` therefore evaluates those
TriplesMaps with :class:`TermMaker`, on the normalised mapping (after
:func:`pipeline.materialize.rml.normalize.normalize_rml`), so the terms are those the engine
would make: templates of IRIs encode each value with the engine's :func:`~pipeline.materialize.engine.iri_safe`,
blank-node and reference-valued term maps are already IRI templates under
:data:`~pipeline.materialize.rml.vocabulary.BNODE_NS` / :data:`~pipeline.materialize.rml.vocabulary.REF_NS`
that the guard turns into blank nodes and IRIs, as for the engine's statements.

Terms are N-Triples token text (``<iri>``, ``"lexical"^^<datatype>``, ``"text"@lang``).
"""
from __future__ import annotations

import json

from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from pipeline.errors import InputError, RMLError
from pipeline.materialize.engine import iri_safe
from pipeline.materialize.rml.check import node_name, source_key
from pipeline.materialize.rml.vocabulary import DERIVED_SUFFIX, RML
from pipeline.materialize.views.derive import source_of
from pipeline.materialize.views.records import Iteration, Value, iterate, read_document
from pipeline.materialize.views.view import expand_template

__all__ = ["TermMaker", "literal_token"]

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def literal_token(lexical: str, datatype: str | None = None, language: str | None = None) -> str:
    """N-Triples text of a literal (``\\``, ``"``, LF, CR escaped)."""
    body = lexical.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    if language:
        return f'"{body}"@{language}'
    if datatype and datatype != _XSD_STRING:
        return f'"{body}"^^<{datatype}>'
    return f'"{body}"'


class TermMaker:
    """Evaluates the term maps of a normalised RML graph in the iterations of their logical sources.

    Args:
        g: the normalised mapping (RML-Core vocabulary, resolved sources).
        where: the mapping file, for messages.
    """

    def __init__(self, g: Graph, where: str) -> None:
        self.g, self.where = g, where
        self._iterations: dict[Node, list[Iteration]] = {}

    def iterations(self, tm: Node) -> list[Iteration]:
        """The iterations of a TriplesMap's logical source (read once per logical source)."""
        ls = self.g.value(tm, RML.logicalSource)
        if ls not in self._iterations:
            src = source_of(self.g, ls)
            try:
                if str(src.path).endswith(DERIVED_SUFFIX):  # a key holds one value or the list of them
                    self._iterations[ls] = [_DerivedRecord(r) for r in json.loads(src.path.read_text(encoding="utf-8"))]
                else:
                    self._iterations[ls] = iterate(src.formulation, read_document(src), src.iterator,
                                                   namespaces=src.namespaces, nulls=src.nulls, where=src.label())
            except (InputError, OSError, ValueError) as exc:
                raise RMLError(f"TriplesMap {node_name(tm)}: {exc}", path=self.where) from exc
        return self._iterations[ls]

    def _strings(self, node: Node, it: Iteration, encode: bool) -> list[str]:
        g = self.g
        constant = g.value(node, RML.constant)
        if constant is not None:
            return [str(constant)]
        ref = g.value(node, RML.reference)
        if ref is not None:
            return [v.lexical for v in it.values(str(ref))]
        template = g.value(node, RML.template)
        if template is not None:
            if not encode:
                return expand_template(str(template), it.values)
            return expand_template(str(template), lambda r: [_Encoded(iri_safe(v.lexical)) for v in it.values(r)])
        if g.value(node, RML.functionExecution) is not None:
            raise RMLError(f"a function execution ({node_name(node)}) in a TriplesMap evaluated beside the engine "
                           "(with a gather map) is not supported", path=self.where)
        return []

    def kind(self, node: Node, role: str) -> URIRef:
        """The term type of a term map (explicit, else R2RML's default for its role)."""
        g = self.g
        tt = g.value(node, RML.termType)
        if tt is not None:
            return tt
        if role == "object map" and (g.value(node, RML.reference) is not None or any(
                g.value(node, p) is not None for p in (RML.language, RML.languageMap, RML.datatype, RML.datatypeMap))):
            return RML.Literal
        constant = g.value(node, RML.constant)
        if role == "object map" and isinstance(constant, Literal):
            return RML.Literal
        return RML.IRI

    def terms(self, node: Node, it: Iteration, role: str = "object map") -> list[str]:
        """The terms one term map makes in one iteration (N-Triples tokens, in order).

        Raises:
            RMLError: a function execution (not evaluated beside the engine).
        """
        if isinstance(node, (URIRef, Literal)) and (node, None, None) not in self.g:
            return [f"<{node}>" if isinstance(node, URIRef) else literal_token(str(node))]  # a constant shortcut
        kind = self.kind(node, role)
        if kind == RML.Literal:
            values = self._strings(node, it, encode=False)
            language = self._one(node, RML.language, RML.languageMap, it)
            datatype = None if language else self._one(node, RML.datatype, RML.datatypeMap, it)
            return [literal_token(v, datatype, language) for v in values]
        if kind == RML.BlankNode:  # normally rewritten to an IRI template by the normalisation
            return [f"_:kgcbn{abs(hash(v))}" for v in self._strings(node, it, encode=True)]
        return [f"<{v}>" for v in self._strings(node, it, encode=True)]

    def _one(self, node: Node, short: URIRef, long: URIRef, it: Iteration) -> str | None:
        v = self.g.value(node, short)
        if v is not None:
            return str(v)
        m = self.g.value(node, long)
        if m is None:
            return None
        values = self._strings(m, it, encode=False)
        return values[0] if values else None

    def subjects(self, tm: Node, it: Iteration) -> list[str]:
        sm = self.g.value(tm, RML.subjectMap)
        return self.terms(sm, it, "subject map") if sm is not None else []

    def graphs(self, maps: list[Node], it: Iteration) -> list[str]:
        """The graph terms of graph maps (``""``: the default graph; none: the default graph)."""
        out = []
        for gm in maps:
            for t in self.terms(gm, it, "graph map"):
                out.append("" if t == f"<{RML.defaultGraph}>" else t)
        return out or [""]

    def joined(self, child_tm: Node, ref_map: Node, it: Iteration, index: int) -> list[str]:
        """The subjects of the parent TriplesMap of a referencing object map that join iteration
        ``it`` (number ``index`` of the child's iterations): the iterations whose parent values
        equal the child's for every join condition; without condition, on the same logical
        source, the same iteration."""
        g = self.g
        parent = g.value(ref_map, RML.parentTriplesMap)
        conditions = [(str(g.value(c, RML.child)), str(g.value(c, RML.parent)))
                      for c in g.objects(ref_map, RML.joinCondition)]
        parents = self.iterations(parent)
        if not conditions:
            if source_key(g, child_tm) != source_key(g, parent):
                raise RMLError(f"TriplesMap {node_name(child_tm)}: parent TriplesMap {node_name(parent)} reads another "
                               "logical source and there is no join condition", path=self.where)
            return self.subjects(parent, parents[index]) if index < len(parents) else []
        out: list[str] = []
        wanted = [{v.lexical for v in it.values(c)} for c, _ in conditions]
        for p in parents:
            if all(wanted[i] & {v.lexical for v in p.values(pr)} for i, (_, pr) in enumerate(conditions)):
                for s in self.subjects(parent, p):
                    if s not in out:
                        out.append(s)
        return out


class _DerivedRecord(Iteration):
    """A record of a derived source (:mod:`pipeline.materialize.views.derive`): a key holds one
    lexical form or the list of them; an absent key, none."""

    def __init__(self, record: dict) -> None:
        self.record = record

    def values(self, reference: str) -> list[Value]:
        v = self.record.get(reference)
        if v is None:
            return []
        return [Value(x) for x in v] if isinstance(v, list) else [Value(v)]

    def document(self) -> dict:
        return self.record


class _Encoded:
    """A value already IRI-safe encoded, as :func:`expand_template` reads values (``.lexical``)."""

    __slots__ = ("lexical",)

    def __init__(self, lexical: str) -> None:
        self.lexical = lexical

