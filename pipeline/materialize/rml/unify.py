"""RML vocabulary and sources: passes 1 and 2 of :func:`pipeline.materialize.rml.normalize.normalize_rml`.

1. ``unify``: R2RML (``rr:``) and legacy RML (``http://semweb.mmlab.be/ns/rml#``, ``ql:``)
   terms become RML-Core terms (``http://w3id.org/rml/``); constant shortcuts with a datatype or
   language tag become constant object maps and join child/parent maps become ``rml:child`` /
   ``rml:parent``, which is what Morph-KGC 2.10 reads; old FNML (``fnml:functionValue``) becomes
   RML-FNML (:func:`unify`).
2. ``sources``: RML-IO source descriptions and relative file names become absolute paths
   (:func:`resolve_sources`).
"""
from __future__ import annotations

from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

from pipeline.errors import RMLError
from pipeline.materialize.rml.check import node_name, triples_maps
from pipeline.materialize.rml.vocabulary import FNML, LEGACY, QL, RML, RR

__all__ = ["unify", "resolve_sources"]

_RENAMED = {RR.column: RML.reference, RR.logicalTable: RML.logicalSource, RR.sqlQuery: RML.query,
            RR.datatype: RML.datatype, RR.language: RML.language}
_NO_HASH = ("http://www.w3.org/ns/r2rml", "http://semweb.mmlab.be/ns/rml", "http://semweb.mmlab.be/ns/ql",
            "http://semweb.mmlab.be/ns/fnml")


def unify(g: Graph, where: str) -> Graph:
    """A copy of ``g`` in the RML-Core vocabulary.

    Raises:
        RMLError: an RML/R2RML namespace is missing its ``#``, or a join condition's child or parent
            map is not reference-valued.
    """
    missing = sorted({ns for _, p, o in g for term in (p, o) if isinstance(term, URIRef) for ns in _NO_HASH
                      if term.startswith(ns) and not term.startswith(ns + "#") and len(term) > len(ns)})
    if missing:
        raise RMLError(f"namespace{'s' if len(missing) > 1 else ''} {', '.join(f'<{ns}>' for ns in missing)} "
                       f"{'are missing their' if len(missing) > 1 else 'is missing its'} '#': no RML or R2RML term is recognised; "
                       f"declare the prefix{'es' if len(missing) > 1 else ''} as "
                       f"{', '.join(f'<{ns}#>' for ns in missing)}", path=where)
    out = Graph()
    for prefix, ns in g.namespaces():
        if str(ns) not in (str(RR), str(LEGACY), str(QL)):
            out.bind(prefix, ns)
    out.bind("rml", RML, override=True)

    def conv(t: Node) -> Node:
        if isinstance(t, URIRef):
            if t in _RENAMED:
                return _RENAMED[t]
            if t in (RML.URI, RML.UnsafeIRI):
                # RML-Core term types the engine does not know; their ASCII results equal IRI-safe ones
                return RML.IRI
            for ns in (RR, LEGACY, QL):
                if t.startswith(str(ns)):
                    return RML[t[len(str(ns)):]]
        return t

    for s, p, o in g:
        out.add((conv(s), conv(p), conv(o)))
    for pom, lit in list(out.subject_objects(RML.object)):
        if isinstance(lit, Literal) and (lit.datatype is not None or lit.language):
            # the engine drops the datatype / language tag of a constant shortcut (rml:object "x"@en)
            om = BNode()
            out.remove((pom, RML.object, lit))
            out.add((pom, RML.objectMap, om))
            out.add((om, RML.constant, lit))
    for om, lit in list(out.subject_objects(RML.constant)):
        if isinstance(lit, Literal) and (lit.datatype is not None or lit.language):
            out.set((om, RML.constant, Literal(str(lit))))
            if lit.language and out.value(om, RML.language) is None:
                out.add((om, RML.language, Literal(lit.language)))
            elif lit.datatype is not None and out.value(om, RML.datatype) is None:
                out.add((om, RML.datatype, lit.datatype))
    _legacy_functions(out, where)
    for short, long in ((RML.child, RML.childMap), (RML.parent, RML.parentMap)):
        # RML-Core join conditions may use child/parent maps; the engine reads rml:child/rml:parent
        for cond, m in list(out.subject_objects(long)):
            ref = out.value(m, RML.reference)
            if ref is None:
                om = out.value(None, RML.joinCondition, cond)
                pom = out.value(None, RML.objectMap, om)
                tm = out.value(None, RML.predicateObjectMap, pom)
                raise RMLError(f"TriplesMap {node_name(tm) if tm is not None else '?'}: a join condition's "
                               f"{long.n3(out.namespace_manager)} is not "
                               "reference-valued; the engine (Morph-KGC 2.10) joins on references only", path=where)
            out.remove((cond, long, m))
            out.add((cond, short, ref))
    return out


_FNO_EXECUTES = URIRef("https://w3id.org/function/ontology#executes")


def _legacy_functions(g: Graph, where: str) -> None:
    """Old FNML, in place: ``fnml:functionValue`` (a nested predicate-object map whose
    ``fno:executes`` names the function and whose other predicates are its parameters, what
    yarrrml-parser and RMLMapper write) becomes an RML-FNML ``rml:functionExecution``, which the
    engine (Morph-KGC 2.10) runs; it does not read the old form.

    Raises:
        RMLError: a function value without ``fno:executes``.
    """
    value = URIRef(FNML + "functionValue")
    for term_map, fv in list(g.subject_objects(value)):
        ex = BNode()
        fn = None
        for pom in list(g.objects(fv, RML.predicateObjectMap)):
            pred = g.value(pom, RML.predicate)
            if pred is None and g.value(pom, RML.predicateMap) is not None:
                pred = g.value(g.value(pom, RML.predicateMap), RML.constant)
            om = g.value(pom, RML.objectMap)
            if pred == _FNO_EXECUTES:
                fn = g.value(om, RML.constant) if om is not None else g.value(pom, RML.object)
                g.remove((om, None, None))
            elif pred is not None and om is not None:
                inp = BNode()
                g.add((ex, RML.input, inp))
                g.add((inp, RDF.type, RML.Input))
                g.add((inp, RML.parameter, pred))
                g.add((inp, RML.inputValueMap, om))
                g.remove((om, RDF.type, None))
            if g.value(pom, RML.predicateMap) is not None:
                g.remove((g.value(pom, RML.predicateMap), None, None))
            g.remove((pom, None, None))
        if fn is None:
            raise RMLError(f"the function value {node_name(fv)} names no function (no fno:executes)", path=where)
        g.remove((fv, None, None))
        g.remove((term_map, value, fv))
        g.remove((term_map, RDF.type, URIRef(FNML + "FunctionTermMap")))
        g.add((term_map, RML.functionExecution, ex))
        g.add((ex, RDF.type, RML.FunctionExecution))
        g.add((ex, RML.function, URIRef(str(fn))))


def resolve_sources(g: Graph, mapping_dir: Path, where: str) -> None:
    """Give every logical source an absolute file path, in place (relative names are looked up in
    ``mapping_dir``, then the current directory; ``rml:root`` decides for RML-IO sources).

    Raises:
        RMLError: a source file is not found (message names the TriplesMap and the paths tried).
    """
    for tm in triples_maps(g):
        ls = g.value(tm, RML.logicalSource)
        if ls is None:
            continue
        src = g.value(ls, RML.source)
        if isinstance(src, (BNode, URIRef)) and g.value(src, RML.path) is not None:
            root = g.value(src, RML.root)
            name = str(g.value(src, RML.path))
            bases = [Path.cwd()] if root == RML.CurrentWorkingDirectory else [mapping_dir]
        elif isinstance(src, Literal):
            name = str(src)
            if "://" in name or (name.startswith("{") and name.endswith("}")):
                continue  # a URL or an in-memory source: the engine reads it itself
            bases = [mapping_dir, Path.cwd()]
        else:
            continue
        path = Path(name)
        candidates = [path] if path.is_absolute() else [b / path for b in bases]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise RMLError(f"TriplesMap {node_name(tm)}: logical source file {name!r} not found "
                           f"(looked for {', '.join(str(c) for c in candidates)})", path=where)
        new_ls = BNode()
        for p, o in list(g.predicate_objects(ls)):
            g.add((new_ls, p, o))
        g.set((new_ls, RML.source, Literal(str(found.resolve()))))
        g.set((tm, RML.logicalSource, new_ls))  # a shared logical source node stays shared in meaning
