"""CS2 OWL consistency of a KG with its ontologies: OWL 2 RL closure (owlrl) and HermiT.

Design for size: a reasoner does not need every triple of the KG. Only
instance triples that some schema axiom talks about can take part in an
inconsistency - ``rdf:type`` statements, ``owl:sameAs``/``owl:differentFrom``
and statements whose predicate has a domain, range, characteristic,
super-/sub-/inverse-property or restriction in the schema
(:func:`relevant_instance_data`). Everything else (labels, values of
properties the ontology does not describe) is left out. The reasoner runs in
a child process bounded by ``timeout_s``; a timeout or a crash is reported as
``status="timeout"``/``"failed"`` with ``value=None``, never as inconsistency.

owlrl records inconsistencies as ``ErrorMessage`` nodes instead of raising
(owlrl ``Closure.py``, ``add_error``); they are collected as findings. OWL 2 RL
rules do not turn a maximum cardinality of 1 into a clash (they infer
``owl:sameAs``); this module adds the one case that is a clash under OWL
semantics: more distinct *literal values* than a max/exact cardinality (or an
``owl:FunctionalProperty``) allows (OWL 2 Direct Semantics, literals with
different values denote different data values).

owlrl 7.1.4's rule prp-key (``owl:hasKey``) compares the first n-1 of n key properties
(``range(0, len(pis) - 1)`` in ``OWLRL.py``): with one key property every two instances of
the class become ``owl:sameAs``, and a functional property then "clashes" on a valid KG. It
also compares every pair of instances. So the ``owl:hasKey`` axioms are taken out of owlrl's
input and prp-key is applied here (:func:`_key_equalities`, OWL 2 RL profile, Table 4: same
class, a shared value for every key property -> ``owl:sameAs``), then the closure is extended.

HermiT is the one bundled with owlready2 (``owlready2/hermit``), run on the
same reduced N-Triples input through its command line, as
``owlready2.sync_reasoner_hermit`` does, with ``--ignoreUnsupportedDatatypes``
(xsd:date and friends are outside the OWL 2 datatype map): the literals it so ignores are counted
per datatype (:func:`ignored_datatypes`, ``details["ignored_datatypes"]``) and its result says so
(``details["caveat"]``: ``passes, xsd:date values not reasoned over: 2 literals``, never a plain
pass); owlrl's result, which compares them, stands beside it. Its input holds no ``owl:imports``
triple: the ontology is the files given (HermiT would otherwise fetch the imports from the
network, and fail without it); :func:`pipeline.validation.module.unresolved_imports` names the
imports none of them holds. A JVM that cannot start is ``not_run``, a HermiT that fails is
``failed``, each with a one-line reason (:func:`pipeline.validation.java.java_failure`).

Both reasoners are given what the caller passes as the ontology; :func:`pipeline.run.evaluate.
graph_validation` passes the module of the ontology the KG's terms reach
(:mod:`pipeline.validation.module`), so a large ontology costs what the KG uses of it.

Speed (same closure, same messages): the reasoner's graph uses the context-free ``SimpleMemory``
store (owlrl reads no context), and in the child owlrl's rules read ``OWL.sameAs`` ... from
:class:`_KeptTerms`, not rdflib's ``DefinedNamespace``, which resolves each read anew (some 6
million reads for a sample of a million-triple KG).
"""
from __future__ import annotations

import dataclasses
import logging
import os
import re
import subprocess
import tempfile
import time
from collections import defaultdict
from typing import Any, Callable

import owlrl
import owlrl.Closure
import pyoxigraph
import owlrl.OWLRL
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from pipeline.findings import Finding
from pipeline.rdflists import members as rdf_members
from pipeline.validation.axioms import AxiomCheck
from pipeline.validation.java import JVM_FLAGS, hermit_classpath, java, java_failure
from pipeline.validation.parallel import start_child
from pipeline.validation.result import Result

__all__ = ["relevant_instance_data", "owlrl_consistency", "start_owlrl", "hermit_consistency", "hermit_available",
           "hermit_missing"]

log = logging.getLogger(__name__)

_PROP_AXIOMS = (RDFS.domain, RDFS.range, RDFS.subPropertyOf, OWL.inverseOf, OWL.equivalentProperty,
                OWL.propertyDisjointWith, OWL.propertyChainAxiom)
_PROP_TYPES = (OWL.FunctionalProperty, OWL.InverseFunctionalProperty, OWL.SymmetricProperty,
               OWL.AsymmetricProperty, OWL.TransitiveProperty, OWL.IrreflexiveProperty, OWL.ReflexiveProperty)
_KEEP = {RDF.type, OWL.sameAs, OWL.differentFrom}
_CODES = (("disjoint classes", "disjoint-classes"), ("complementarity", "complement-classes"),
          ("'nothing'", "type-nothing"), ("functional", "functional-property"), ("asymmetric", "asymmetric-property"),
          ("irreflexive", "irreflexive-property"), ("disjoint properties", "disjoint-properties"),
          ("cardinality", "cardinality"), ("lexical value", "ill-typed-literal"), ("sameas", "same-and-different"),
          ("negative", "negative-assertion"), ("allvaluesfrom", "all-values-from"))


def _g(x: Any) -> Graph:
    return x.graph if hasattr(x, "graph") and not isinstance(x, Graph) else x


def _schema_properties(schema: Graph) -> set:
    props = {s for p in _PROP_AXIOMS for s in schema.subjects(p, None)}
    props |= {o for o in schema.objects(None, RDFS.subPropertyOf)}
    props |= {o for p in (OWL.inverseOf, OWL.equivalentProperty, OWL.propertyDisjointWith) for o in schema.objects(None, p)}
    props |= {s for t in _PROP_TYPES for s in schema.subjects(RDF.type, t)}
    props |= set(schema.objects(None, OWL.onProperty))
    for keys in schema.objects(None, OWL.hasKey):  # prp-key reads the key properties' values
        props |= set(rdf_members(schema, keys))
    return {p for p in props if isinstance(p, URIRef)}


def relevant_instance_data(kg: Graph, schema: Any) -> Graph:
    """The instance triples of ``kg`` that an OWL reasoner needs to find a clash.

    Args:
        kg: the materialized KG.
        schema: ontology graph (or an object with ``.graph``).
    Returns:
        A new graph with ``rdf:type``, ``owl:sameAs``, ``owl:differentFrom`` triples
        and triples whose predicate is described by a schema axiom (domain, range,
        sub/super/inverse/equivalent/disjoint property, property characteristic,
        restriction ``owl:onProperty``).
    """
    keep = _schema_properties(_g(schema)) | _KEEP
    out = Graph(bind_namespaces="none")
    for t in kg:
        if t[1] in keep:
            out.add(t)
    return out


def _value_key(o: Any) -> Any:
    if isinstance(o, Literal):
        try:
            v = o.toPython()
            if not isinstance(v, Literal):
                return (str(o.datatype or ""), v if isinstance(v, (int, float, str, bool)) else str(v))
        except Exception:  # noqa: BLE001 - an ill-typed literal: fall back to its lexical form
            pass
        return (str(o.datatype or ""), str(o), (o.language or "").lower())
    return o


def _literal_cardinality_clashes(g: Graph) -> list[str]:
    """Max/exact cardinality and functional properties exceeded by distinct literal values."""
    limits: dict[URIRef, list[tuple[Any, int]]] = defaultdict(list)  # property -> [(class or None, max)]
    for r in g.subjects(OWL.onProperty, None):
        p = g.value(r, OWL.onProperty)
        for pred in (OWL.maxCardinality, OWL.cardinality, OWL.maxQualifiedCardinality, OWL.qualifiedCardinality):
            n = g.value(r, pred)
            if n is None:
                continue
            try:
                limit = int(n)
            except (TypeError, ValueError):
                continue
            for cls in g.subjects(RDFS.subClassOf, r):
                limits[p].append((cls, limit))
    for p in g.subjects(RDF.type, OWL.FunctionalProperty):
        limits[p].append((None, 1))
    out = []
    for p, rules in limits.items():
        values: dict[Any, set] = defaultdict(set)
        for s, o in g.subject_objects(p):
            if isinstance(o, Literal):
                values[s].add(_value_key(o))
        for s, vals in values.items():
            for cls, limit in rules:
                if len(vals) > limit and (cls is None or (s, RDF.type, cls) in g):
                    what = f"instance of {cls}" if cls is not None else "functional property"
                    out.append(f"Cardinality: {s} has {len(vals)} distinct literal values of {p}, "
                               f"at most {limit} allowed ({what})")
    return out


def _key_equalities(g: Graph, keys: list[tuple[Any, list]]) -> set[tuple[Any, Any]]:
    """OWL 2 RL rule prp-key (OWL 2 Profiles, Table 4) over ``g``.

    Args:
        g: the closure so far. keys: ``(class, [key property, ...])`` per ``owl:hasKey`` axiom.
    Returns:
        ``(x, y)`` pairs, x != y, not yet ``owl:sameAs`` in ``g``: both instances of the class,
        sharing a value (literals compared by value, :func:`_value_key`) for every key property.
    """
    out = set()
    for cls, props in keys:
        if not props:
            continue
        groups: dict[tuple, set] = defaultdict(set)
        for x in g.subjects(RDF.type, cls):
            combos: list[tuple] = [()]
            for p in props:  # every combination of the values of x (a key property may have several)
                combos = [c + (_value_key(z),) for c in combos for z in g.objects(x, p)]
            for c in combos:
                groups[c].add(x)
        for members in groups.values():
            first, *rest = sorted(members)
            out |= {(first, y) for y in rest if (first, OWL.sameAs, y) not in g}
    return out


class _KeptTerms:
    """A namespace whose terms are looked up once: ``proxy.sameAs`` is ``OWL.sameAs``, then a plain attribute."""

    def __init__(self, ns: Any) -> None:
        self._ns = ns

    def __getattr__(self, name: str) -> Any:  # called only for a term not read before
        term = getattr(self._ns, name)
        setattr(self, name, term)
        return term

    def __getitem__(self, key: str) -> Any:
        return self._ns[key]


def _keep_owlrl_terms() -> None:
    """In the reasoner's child only: owlrl's rule modules read their vocabulary through
    :class:`_KeptTerms` (module docstring: same terms, fewer namespace lookups)."""
    for module in (owlrl.OWLRL, owlrl.Closure):
        for name, ns in (("OWL", OWL), ("RDF", RDF), ("RDFS", RDFS)):
            if getattr(module, name, None) is ns:
                setattr(module, name, _KeptTerms(ns))


def _labelled_blank_nodes(data: Graph) -> Graph:
    """``data`` with each blank node ``x`` replaced by one whose id is ``_:x``: owlrl writes the nodes
    of its messages with ``str()``, so a blank node reads ``_:x`` there as in every other finding
    (the checks keep the file's labels), not as a bare word. ``data`` itself when it has none."""
    if not any(isinstance(t, BNode) for t in data.all_nodes()):
        return data
    out = Graph()
    for p, ns in data.namespaces():
        out.bind(p, ns)

    def term(t: Any) -> Any:
        return BNode(f"_:{t}") if isinstance(t, BNode) else t
    out.addN((term(s), p, term(o), out) for s, p, o in data)
    return out


def _owlrl_child(data: Graph, conn: Any) -> None:
    try:
        _keep_owlrl_terms()
        data = _labelled_blank_nodes(data)
        keys = [(c, rdf_members(data, k)) for c, k in data.subject_objects(OWL.hasKey)]
        data.remove((None, OWL.hasKey, None))  # owlrl's prp-key is wrong (module docstring); applied below
        closure = owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                                         datatype_axioms=False)
        closure.expand(data)
        for _ in range(10):  # a sameAs can make new key matches (types, values); stops when none is new
            same = _key_equalities(data, keys)
            if not same:
                break
            for x, y in same:
                data.add((x, OWL.sameAs, y))
            closure.expand(data)
        err = URIRef("http://www.daml.org/2002/03/agents/agent-ont#error")
        messages = sorted(str(m) for m in data.objects(None, err))
        messages += _literal_cardinality_clashes(data)
        conn.send(("ok", messages, len(data)))
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a reasoner failure
        conn.send(("failed", [f"{type(exc).__name__}: {exc}"], 0))
    finally:
        conn.close()


def _code(message: str) -> str:
    low = message.lower()
    return next((code for key, code in _CODES if key in low), "owl-rl-inconsistency")


def owlrl_consistency(kg: Graph, ontology: Any, *, timeout_s: float = 120.0, reduce: bool = True) -> Result:
    """CS2 with the OWL 2 RL closure of owlrl.

    Args:
        kg: the KG (rdflib graph).
        ontology: ontology + SKOS graph, or an object with ``.graph`` (``pipeline.ontology.Ontology``).
        timeout_s: wall-clock bound in seconds for the closure.
        reduce: reason over :func:`relevant_instance_data` only (default) instead of the whole KG.
    Returns:
        ``Result(name="CS2-owlrl", value=consistent)``; one ``error`` finding per
        clash (code ``disjoint-classes``, ``functional-property``, ``cardinality`` ...).
        ``details``: ``n_input_triples``, ``n_reasoned_triples``, ``n_closure_triples``,
        ``n_inconsistencies``, ``run_success``. Timeout/failure -> ``value=None``.
    """
    return start_owlrl(kg, ontology, timeout_s=timeout_s, reduce=reduce)()


def start_owlrl(kg: Graph, ontology: Any, *, timeout_s: float = 120.0, reduce: bool = True) -> Callable[[], Result]:
    """Start :func:`owlrl_consistency`'s reasoner in its child process and return at once.

    The child is forked here, so call this before starting any thread; the caller can do
    other work (HermiT, SHACL) while the closure runs on another core. Returns a function
    that waits (at most what is left of ``timeout_s``) and gives the :class:`Result`.
    """
    t0 = time.perf_counter()
    schema = _g(ontology)
    data = Graph(store="SimpleMemory", bind_namespaces="none")  # no contexts: owlrl reads none (docstring)
    for t in schema:
        data.add(t)
    inst = relevant_instance_data(kg, schema) if reduce else kg
    for t in inst:
        data.add(t)
    details: dict[str, Any] = {"n_input_triples": len(kg), "n_reasoned_triples": len(inst),
                               "n_schema_triples": len(schema), "reduced": reduce}
    wait = start_child(_owlrl_child, data)

    def finish() -> Result:
        got, answer = wait(max(0.0, timeout_s - (time.perf_counter() - t0)))
        if got == "ok":
            status, payload, n_closure = answer
        else:
            status, payload, n_closure = got, [f"reasoner process {answer}"] if answer else [], 0
        return _owlrl_result(status, payload, n_closure, details, len(inst), timeout_s, time.perf_counter() - t0)

    return finish


def _owlrl_result(status: str, payload: list, n_closure: int, details: dict[str, Any], n_inst: int,
                  timeout_s: float, elapsed: float) -> Result:
    details["run_success"] = status == "ok"
    if status != "ok":
        msg = payload[0] if payload else f"owlrl did not finish within {timeout_s:g} s"
        details["reason"] = msg
        log.warning("CS2-owlrl %s: %s", status, msg)
        return Result("CS2-owlrl", None, status=status, details=details, elapsed_s=elapsed,
                      findings=[Finding(severity="error", message=msg, code=f"reasoner-{status}")])
    findings, seen = [], set()
    for m in payload:  # owlrl reports a symmetric clash (disjointness) once per direction
        key = (_code(m), frozenset(re.findall(r"(?:https?|urn|file):[^\s,()]+", m)))
        if key not in seen:
            seen.add(key)
            if _owlrl_lexical_false_positive(m):
                findings.append(Finding(severity="warning", message=m + " - not counted: the lexical form is valid "
                                        "(owlrl's float/double check rejects zero)", location=_subject_of(m),
                                        code="owlrl-false-positive"))
                continue
            findings.append(Finding(severity="error", message=m, location=_subject_of(m), code=_code(m)))
    errors = [f for f in findings if f.severity == "error"]
    details.update(n_closure_triples=n_closure, n_inconsistencies=len(errors))
    log.info("CS2-owlrl: %d clashes over %d triples in %.2f s", len(errors), n_inst, elapsed)
    return Result("CS2-owlrl", not errors, findings=findings, details=details, elapsed_s=elapsed)


_OWLRL_LEXICAL = re.compile(r"Lexical value of the literal '(.*)' does not match its datatype \((\S+)\)", re.S)


def _owlrl_lexical_false_positive(message: str) -> bool:
    """owlrl's ``_strToFloat``/``_strToDouble`` accept only 1e-50 < |v| < 1e40, so ``"0.0"^^xsd:float``
    is reported ill-typed although XSD allows it; rdflib's lexical check decides instead."""
    m = _OWLRL_LEXICAL.search(message)
    return bool(m) and not Literal(m.group(1), datatype=URIRef(m.group(2))).ill_typed


_INDIVIDUAL = re.compile(r"common individual (\S+)\s*$")
_ILL_TYPED = re.compile(r"^Lexical value of the literal '(.*)' does not match its datatype \((\S+)\)\s*$", re.S)


def _subject_of(message: str) -> str:
    """What an owlrl clash is about, for the finding's ``location`` (then located in the KG file): the
    individual of a disjointness (``... have a common individual _:b1``: the node, not the last class
    named), the literal of a lexical clash in N-Triples form (``"X1"^^<...#integer>``, not its datatype),
    else the last IRI the message names."""
    if m := _INDIVIDUAL.search(message):
        return m.group(1)
    if m := _ILL_TYPED.match(message):
        lexical = m.group(1).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        return f'"{lexical}"^^<{m.group(2)}>'
    iris = re.findall(r"(?:https?|urn|file):[^\s,()]+", message)
    return iris[-1] if iris else ""


#: The OWL 2 datatype map (OWL 2 Structural Specification, section 4, Table 3), plus rdf:langString (the
#: RDF 1.1 name of a plain literal with a language tag): HermiT reasons over these values only.
OWL2_DATATYPES = frozenset(
    [str(OWL) + t for t in ("real", "rational")]
    + [str(XSD) + t for t in ("decimal", "integer", "nonNegativeInteger", "nonPositiveInteger", "positiveInteger",
                              "negativeInteger", "long", "int", "short", "byte", "unsignedLong", "unsignedInt",
                              "unsignedShort", "unsignedByte", "double", "float", "string", "normalizedString",
                              "token", "language", "Name", "NCName", "NMTOKEN", "boolean", "hexBinary",
                              "base64Binary", "anyURI", "dateTime", "dateTimeStamp")]
    + [str(RDF) + t for t in ("PlainLiteral", "XMLLiteral", "langString")] + [str(RDFS.Literal)])


def ignored_datatypes(data: Graph) -> dict[str, int]:
    """Datatype IRI -> number of literals of ``data`` whose datatype is outside :data:`OWL2_DATATYPES`
    (``xsd:date``, ``xsd:gYear``, ``xsd:duration`` ..., or one of the KG's own), most frequent first: the
    values HermiT's ``--ignoreUnsupportedDatatypes`` leaves out of its reasoning."""
    counts: dict[str, int] = defaultdict(int)
    for o in data.objects():
        if isinstance(o, Literal) and o.datatype is not None and str(o.datatype) not in OWL2_DATATYPES:
            counts[str(o.datatype)] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _short_xsd(iri: str) -> str:
    return "xsd:" + iri[len(str(XSD)):] if iri.startswith(str(XSD)) else f"<{iri}>"


def _caveat(ignored: dict[str, int]) -> str:
    """``xsd:date values not reasoned over: 2 literals``: what a HermiT result does not cover."""
    names = ", ".join(_short_xsd(d) for d in ignored)
    n = sum(ignored.values())
    return f"{names} values not reasoned over: {n} literal{'s' if n != 1 else ''}"


def hermit_available() -> bool:
    """True when a ``java`` executable and owlready2's bundled HermiT jar are present."""
    return hermit_missing() is None


def hermit_missing() -> str | None:
    """Why HermiT cannot run here, in one line (``None``: it can)."""
    if java() is None:
        return ("no Java runtime found (java on PATH or JAVA_HOME): HermiT's OWL 2 DL check needs Java 17; "
                "owlrl's OWL 2 RL check ran")
    if hermit_classpath() is None:
        return "owlready2's HermiT jar is not installed: HermiT's OWL 2 DL check cannot run; owlrl's OWL 2 RL check ran"
    return None


_NOTHING = "http://www.w3.org/2002/07/owl#Nothing"


def _oxi(term: Any) -> Any:
    """An rdflib term as the pyoxigraph term :class:`~pipeline.validation.axioms.AxiomCheck` reads."""
    if isinstance(term, Literal):
        if term.language:
            return pyoxigraph.Literal(str(term), language=term.language)
        return pyoxigraph.Literal(str(term), datatype=pyoxigraph.NamedNode(str(term.datatype or XSD.string)))
    if isinstance(term, BNode):
        return pyoxigraph.BlankNode(str(term))
    return pyoxigraph.NamedNode(str(term))


def inconsistency_causes(data: Graph, ontology: Any) -> list[Finding]:
    """The triples of ``data`` that contradict an axiom of ``ontology`` needing no reasoner
    (:class:`~pipeline.validation.axioms.AxiomCheck`'s errors: a value outside a datatype range or its
    facets, two values of a functional property, a node of two disjoint classes, a maximum cardinality
    exceeded): what a reasoner's bare "inconsistent" can be traced to. Empty when the clash needs
    reasoning (inferred types, ``owl:sameAs`` ...).

    Args:
        data: the instance triples the reasoner saw. ontology: ontology graph or an object with ``.graph``.
    Returns:
        ``error`` findings, each naming the subject (``location``: an IRI, or ``_:`` and a blank node's
        label) and the value (``term``, N-Triples), sorted by subject.
    """
    check = AxiomCheck(_g(ontology))
    for s, p, o in data:
        check.add(_oxi(s), _oxi(p), _oxi(o))
    out = []
    for f in check.result().findings:
        if f.severity == "error":  # the subject as SHACL's results name a focus node: an IRI without brackets
            out.append(dataclasses.replace(f, location=f.location[1:-1] if f.location.startswith("<") else f.location))
    return sorted(out, key=lambda f: (f.location, f.term or "", f.message))  # data's order is the graph's


def _causes_sentence(causes: list[Finding]) -> str:
    """``; <s>: the value ... (and 2 more, listed)``: the first cause found, for the one-line verdict."""
    if not causes:
        return ("; no single triple contradicts an axiom that needs no reasoner (a datatype range or facet, a "
                "functional property, disjoint classes, a maximum cardinality): the clash needs reasoning")
    first = causes[0]
    more = f" (and {len(causes) - 1} more, listed)" if len(causes) > 1 else ""
    subject = first.location if first.location.startswith("_:") else f"<{first.location}>"
    return f"; {subject}: {first.message}{more}"


def hermit_consistency(kg: Graph, ontology: Any, *, timeout_s: float = 300.0, reduce: bool = True,
                       java_memory_mb: int = 2000) -> Result:
    """CS2 with HermiT (owlready2's bundled jar), on schema + relevant instance data.

    Args:
        kg: the KG.
        ontology: ontology graph or an object with ``.graph``.
        timeout_s: wall-clock bound in seconds for the Java process.
        reduce: pass only :func:`relevant_instance_data` (default).
        java_memory_mb: ``-Xmx`` for the JVM.
    Returns:
        ``Result(name="CS2-hermit", value=consistent)`` with ``details``:
        ``run_success`` (HermiT finished), ``consistent``, ``n_unsatisfiable_classes``
        and the list ``unsatisfiable_classes`` (named classes equivalent to
        ``owl:Nothing``). ``status="not_applicable"`` without Java; ``"not_run"`` when the JVM
        cannot start, ``"timeout"``/``"failed"`` when HermiT does not finish (``value=None``,
        the one-line reason in ``details["reason"]`` and in the finding).
    """
    cp = hermit_classpath()
    exe = java()
    if cp is None or exe is None:
        return Result.not_applicable("CS2-hermit", "Java or owlready2's HermiT is not available")
    t0 = time.perf_counter()
    data = Graph(bind_namespaces="none")
    for t in _g(ontology):
        if t[1] != OWL.imports:  # HermiT would fetch them from the network; the files given are the ontology
            data.add(t)
    for t in (relevant_instance_data(kg, ontology) if reduce else kg):
        data.add(t)
    fd, path = tempfile.mkstemp(suffix=".nt", prefix="cs2-hermit-")
    os.close(fd)
    details: dict[str, Any] = {"n_reasoned_triples": len(data), "run_success": False}
    ignored = ignored_datatypes(data)
    if ignored:  # HermiT drops them (--ignoreUnsupportedDatatypes): a pass does not cover these values
        details["ignored_datatypes"] = ignored
        details["caveat"] = _caveat(ignored)
    try:
        data.serialize(path, format="nt", encoding="utf-8")
        cmd = [exe, *JVM_FLAGS, f"-Xmx{java_memory_mb}M", "-cp", cp, "org.semanticweb.HermiT.cli.CommandLine",
               "-c", "--ignoreUnsupportedDatatypes", "-I", f"file://{path}"]
        try:
            # run in the input's folder: HermiT (the OWL API) derives a default base IRI from the working
            # directory and fails on '/' ("unable to create default IRI base"), a container's usual one
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False,
                                  cwd=os.path.dirname(path))
        except subprocess.TimeoutExpired:
            reason = f"HermiT did not finish within {timeout_s:g} s"
            return Result("CS2-hermit", None, status="timeout", details={**details, "reason": reason},
                          elapsed_s=time.perf_counter() - t0,
                          findings=[Finding(severity="error", message=reason, code="reasoner-timeout")])
        except OSError as exc:
            reason = f"the JVM could not start HermiT: {exc}"
            return Result("CS2-hermit", None, status="not_run", details={**details, "reason": reason},
                          elapsed_s=time.perf_counter() - t0,
                          findings=[Finding(severity="error", message=reason, code="reasoner-not-run")])
    finally:
        os.unlink(path)
    out = proc.stdout + proc.stderr
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        if "Inconsistent ontology" in out or "InconsistentOntologyException" in out:
            details.update(run_success=True, consistent=False, n_unsatisfiable_classes=None)
            causes = inconsistency_causes(kg if not reduce else relevant_instance_data(kg, ontology), ontology)
            details["causes_found"] = len(causes)
            return Result("CS2-hermit", False, details=details, elapsed_s=time.perf_counter() - t0,
                          findings=[Finding(severity="error", code="inconsistent",
                                            message="HermiT: the ontology with the KG's data is inconsistent"
                                            + _causes_sentence(causes)), *causes])
        status, reason = java_failure(out, "HermiT")
        log.warning("CS2-hermit %s: %s", status, reason)
        return Result("CS2-hermit", None, status=status, details={**details, "reason": reason}, elapsed_s=elapsed,
                      findings=[Finding(severity="error", message=reason,
                                        code=f"reasoner-{status.replace('_', '-')}")])
    unsat = sorted({iri for line in out.splitlines() if _NOTHING in line and line.startswith("EquivalentClasses")
                    for iri in re.findall(r"<([^>]+)>", line) if iri != _NOTHING})
    details.update(run_success=True, consistent=True, n_unsatisfiable_classes=len(unsat),
                   unsatisfiable_classes=unsat)
    findings = [Finding(severity="warning", message=f"unsatisfiable class {c}", location=c, code="unsatisfiable-class")
                for c in unsat]
    if ignored:
        findings.append(Finding(severity="warning", code="datatypes-ignored", message=(
            f"HermiT did not reason over {sum(ignored.values())} literal(s) of datatypes outside the OWL 2 datatype "
            "map (" + ", ".join(f"{_short_xsd(d)}: {n}" for d, n in ignored.items()) + "): a functional property, "
            "cardinality or range clash on these values is not seen by it (owlrl's CS2 compares them)")))
    log.info("CS2-hermit: consistent, %d unsatisfiable classes, %.2f s", len(unsat), elapsed)
    return Result("CS2-hermit", True, findings=findings, details=details, elapsed_s=elapsed)
