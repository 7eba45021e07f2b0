"""Static checks of an RML mapping (RML-Core vocabulary, after :func:`pipeline.materialize.rml.normalize.normalize_rml`
unified it): what would crash Morph-KGC with an unexplained ``KeyError``/``IndexError`` or silently
yield nothing becomes an :class:`~pipeline.errors.RMLError` naming the TriplesMap, the term map
and the cause. Also the FnO function executions: the function must be one the engine has
(its built-ins and our UDF file), each parameter one of its parameters. The helpers that walk a
mapping (:func:`triples_maps`, :func:`term_maps`, :func:`source_key`, :func:`node_name`) serve
the other passes too.
"""
from __future__ import annotations

import difflib
import re

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD
from rdflib.term import Node

from pipeline.errors import RMLError
from pipeline.findings import Finding
from pipeline.fno import UDF_FILE
from pipeline.materialize.rml.vocabulary import FNML, RML
from pipeline.ontology import BUILTIN_DATATYPES, DATATYPE_SPELLING, closest_term
from pipeline.rdflists import members as rdf_members
from pipeline.validation.terms import check_langtag

__all__ = ["unknown_xsd_datatype", "check_mapping", "misplaced_term_map_keys", "check_functions", "function_problems", "term_maps", "triples_maps", "mapping_nodes",
           "source_key", "node_name", "gather_members"]
_VALUE = (RML.constant, RML.reference, RML.template, RML.functionExecution, RML.parentTriplesMap,
          RML.quotedTriplesMap)


#: Datatypes XSD 1.1 Part 2 (section 3, built-in datatypes) defines beyond those RDF 1.1 Concepts
#: (section 5.1) lists as usable in RDF (:data:`pipeline.ontology.BUILTIN_DATATYPES`): written
#: rarely, but defined, so never taken for a misspelling.
_XSD_OTHER = {"anyType", "anySimpleType", "anyAtomicType", "QName", "NOTATION", "ID", "IDREF", "IDREFS", "ENTITY",
              "ENTITIES", "NMTOKENS"}
_XSD_DEFINED = {str(d)[len(str(XSD)):] for d in BUILTIN_DATATYPES if str(d).startswith(str(XSD))} | _XSD_OTHER


def unknown_xsd_datatype(iri: Node | str) -> tuple[bool, str | None]:
    """Whether ``iri`` is in the XSD namespace without naming a datatype XSD defines (``xsd:integr``).

    Such a datatype is a typo: no processor knows it, so its literals are neither checked nor
    compared (RDF 1.1 Concepts 5.1: an unrecognised datatype IRI), and SHACL's ``sh:datatype``
    rejects them only where a shape names the intended one.

    Args:
        iri: a datatype IRI (any other term gives ``(False, None)``).
    Returns:
        ``(unknown, closest)``: ``closest`` the prefixed name of the XSD datatype nearest in spelling
        (``xsd:integer``; :func:`pipeline.ontology.closest_term` from
        :data:`pipeline.ontology.DATATYPE_SPELLING`, else ``None``).
    """
    text = str(iri)
    if not isinstance(iri, (URIRef, str)) or isinstance(iri, Literal) or not text.startswith(str(XSD)):
        return False, None
    local = text[len(str(XSD)):]
    if local in _XSD_DEFINED:
        return False, None
    best = closest_term(local, [d for d in BUILTIN_DATATYPES if str(d).startswith(str(XSD))], DATATYPE_SPELLING)[0]
    return True, (f"xsd:{str(best)[len(str(XSD)):]}" if best is not None else None)


def node_name(node: Node) -> str:
    return f"<{node}>" if isinstance(node, URIRef) else f"[] (blank node {node})"


def triples_maps(g: Graph) -> list[Node]:
    maps = set(g.subjects(RDF.type, RML.TriplesMap)) | set(g.subjects(RML.logicalSource, None))
    maps |= set(g.subjects(RML.subjectMap, None)) | set(g.subjects(RML.subject, None))
    maps |= set(g.objects(None, RML.parentTriplesMap))
    return sorted(maps, key=str)


def source_key(g: Graph, tm: Node) -> tuple:
    ls = g.value(tm, RML.logicalSource)
    if ls is None:
        return (None,)
    return tuple(str(g.value(ls, p)) for p in (RML.source, RML.iterator, RML.referenceFormulation,
                                                 RML.query, RML.tableName))


def gather_members(g: Graph, node: Node) -> list[Node]:
    """The term maps an RML-CC gather map gathers (its ``rml:gather`` list, in order; ``[]`` for
    any other term map)."""
    return rdf_members(g, g.value(node, RML.gather)) if not isinstance(node, Literal) else []


#: Links a walk of a TriplesMap's own nodes does not follow: into another TriplesMap or the logical
#: source, and to terms that are values, not nodes holding references.
_NOT_FOLLOWED = {RML.parentTriplesMap, RML.logicalSource, RDF.type, RML.function, RML.parameter, RML.predicate,
                 RML["class"], RML.datatype, RML.constant, RML.baseIRI, RML.termType}


def mapping_nodes(g: Graph, tm: Node, seen: set[Node]):
    """The nodes of TriplesMap ``tm`` that may hold references or templates: ``tm`` itself, its term
    maps, predicate-object maps, join conditions, language maps and function executions (any depth),
    never another TriplesMap or the logical source; a node in ``seen`` is skipped, and each one
    yielded is added to it (a node shared by several TriplesMaps is yielded once).

    Yields:
        rdflib nodes, depth first; the caller may change their triples while iterating.
    """
    stack = [tm]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        stack += [o for p, o in g.predicate_objects(node) if p not in _NOT_FOLLOWED
                  and isinstance(o, (BNode, URIRef)) and (o, RDF.type, RML.TriplesMap) not in g]


def term_maps(g: Graph, tm: Node):
    """``(role, node)`` for the subject map, predicate, object and graph maps of one TriplesMap,
    and the term maps gathered by a gather map (RML-CC), which make terms as object maps do."""
    def with_members(role: str, node: Node):
        yield role, node
        for member in gather_members(g, node):
            yield from with_members("object map", member)

    for sm in g.objects(tm, RML.subjectMap):
        yield from with_members("subject map", sm)
        for gm in g.objects(sm, RML.graphMap):
            yield "graph map", gm
    for pom in g.objects(tm, RML.predicateObjectMap):
        for role, p in (("predicate map", RML.predicateMap), ("object map", RML.objectMap),
                        ("graph map", RML.graphMap)):
            for node in g.objects(pom, p):
                yield from with_members(role, node)


def check_mapping(g: Graph, where: str, r2rml: bool = False) -> list[Node]:
    """Refuse what would crash the engine or silently yield nothing (see the module docstring).

    Args:
        g: the mapping in the RML-Core vocabulary. where: the file named in errors.
        r2rml: the user wrote R2RML terms (``rr:datatype``): messages name terms that way.
    Returns:
        The TriplesMaps that make statements (those with a subject map).
    Raises:
        RMLError: the first fault, naming the TriplesMap (and, as ``key``, the value a term map
            is written with, so the caller can give its line: :func:`pipeline.materialize.rml.locate.at_triples_map`).
    """
    maps = triples_maps(g)
    declared = set(g.subjects(RDF.type, RML.TriplesMap))
    for tm in maps:
        has_ls = g.value(tm, RML.logicalSource) is not None
        has_sm = g.value(tm, RML.subjectMap) is not None or g.value(tm, RML.subject) is not None
        if tm in set(g.objects(None, RML.parentTriplesMap)) and not (has_ls or has_sm or tm in declared):
            raise RMLError(f"parent TriplesMap {node_name(tm)} is referenced but not defined", path=where)
        if has_sm and not has_ls:
            raise RMLError(f"TriplesMap {node_name(tm)} has a subject map but no logical source (is the logical "
                           "source declared on another node than its subject map?)", path=where)
        if has_ls and not has_sm:
            raise RMLError(f"TriplesMap {node_name(tm)} has a logical source but no subject map (is the subject map "
                           "declared on another node than its logical source?)", path=where)
        if len(set(g.objects(tm, RML.subjectMap))) + len(set(g.objects(tm, RML.subject))) > 1:
            raise RMLError(f"TriplesMap {node_name(tm)} has more than one subject map", path=where)
        ls = g.value(tm, RML.logicalSource)
        if ls is not None and g.value(ls, RML.source) is None and g.value(ls, RML.query) is None \
                and g.value(ls, RML.tableName) is None:
            raise RMLError(f"TriplesMap {node_name(tm)}: its logical source has no rml:source", path=where)
        if (tm, RDF.type, RML.AssertedTriplesMap) in g and (tm, RDF.type, RML.NonAssertedTriplesMap) in g:
            raise RMLError(f"TriplesMap {node_name(tm)} is typed both rml:AssertedTriplesMap and "
                           "rml:NonAssertedTriplesMap (RML-star: a triples map is one or the other)", path=where)
        for pom in g.objects(tm, RML.predicateObjectMap):
            if g.value(pom, RML.quotedTriplesMap) is not None:
                raise RMLError(f"TriplesMap {node_name(tm)}: a predicate-object map has rml:quotedTriplesMap "
                               "(RML-star: a quoted triples map belongs in a subject map or an object map)", path=where)
            if g.value(pom, RML.predicate) is None and g.value(pom, RML.predicateMap) is None:
                raise RMLError(f"TriplesMap {node_name(tm)}: a predicate-object map has no predicate", path=where)
            if g.value(pom, RML.object) is None and g.value(pom, RML.objectMap) is None:
                raise RMLError(f"TriplesMap {node_name(tm)}: a predicate-object map has no object map", path=where)
        _check_vocabulary_terms(g, tm, where)
        _check_literal_only(g, tm, where, "rr" if r2rml else "rml")
        for role, node in term_maps(g, tm):
            _check_term_map(g, tm, role, node, where)
            if isinstance(node, Literal):
                raise RMLError(f"TriplesMap {node_name(tm)}: the {role} is the literal {str(node)!r}, not a term map "
                               "(use the constant shortcut, e.g. rml:object)", path=where)
            values = [p for p in _VALUE if g.value(node, p) is not None]
            gather = g.value(node, RML.gather) is not None
            if gather and (g.value(node, RML.gatherAs) not in (RDF.List, RDF.Bag, RDF.Seq, RDF.Alt)):
                raise RMLError(f"TriplesMap {node_name(tm)}: the {role} is a gather map whose rml:gatherAs is "
                               f"{g.value(node, RML.gatherAs)} (RML-CC: one of rdf:List, rdf:Bag, rdf:Seq, rdf:Alt)",
                               path=where)
            if gather and not gather_members(g, node):
                raise RMLError(f"TriplesMap {node_name(tm)}: the {role} is a gather map with an empty rml:gather list "
                               "(RML-CC: a non-empty list of term maps)", path=where)
            if not values and not gather and not any(str(p).startswith(FNML) for p in g.predicates(node)) \
                    and g.value(node, RML.termType) != RML.BlankNode:
                raise RMLError(f"TriplesMap {node_name(tm)}: the {role} has no rml:constant, rml:reference, "
                               "rml:template, rml:functionExecution or rml:parentTriplesMap", path=where)
            if len(values) > 1:
                raise RMLError(f"TriplesMap {node_name(tm)}: the {role} has more than one value "
                               f"({', '.join(p.n3(g.namespace_manager) for p in values)})", path=where)
            parent = g.value(node, RML.parentTriplesMap)
            if parent is not None:
                if g.value(parent, RML.subjectMap) is None and g.value(parent, RML.subject) is None:
                    raise RMLError(f"TriplesMap {node_name(tm)}: the object map's parent TriplesMap {node_name(parent)} "
                                   "is not defined (no subject map)", path=where)
                if g.value(node, RML.joinCondition) is None and source_key(g, tm) != source_key(g, parent):
                    raise RMLError(f"TriplesMap {node_name(tm)} references parent TriplesMap {node_name(parent)}, which "
                                   "reads another logical source, without a join condition (R2RML section 8: "
                                   "add rml:joinCondition [ rml:child ...; rml:parent ... ])", path=where)
    return [tm for tm in maps if g.value(tm, RML.subjectMap) is not None or g.value(tm, RML.subject) is not None]


#: Keys of a term map (R2RML sections 7, 8; RML-Core), which the engine reads on a term map only.
_TERM_MAP_KEYS = ("datatype", "language", "languageMap", "datatypeMap", "termType", "reference", "template",
                  "constant", "parentTriplesMap", "joinCondition")


def misplaced_term_map_keys(g: Graph, maps: list[Node], where: str) -> list[Finding]:
    """Warn of a term map's key written on a predicate-object map or on the TriplesMap itself
    (``rr:predicateObjectMap [ rr:predicate ex:p ; rr:objectMap [...] ; rr:datatype xsd:date ]``):
    no engine reads it there, so the terms are made without it, silently.

    Returns:
        A ``warning`` per TriplesMap and key, naming the node it is on and where it belongs.
    """
    findings = []
    for tm in maps:
        nodes = [("TriplesMap", tm)] + [("predicate-object map", pom) for pom in g.objects(tm, RML.predicateObjectMap)]
        for what, node in nodes:
            for key in _TERM_MAP_KEYS:
                if what == "TriplesMap" and key in ("reference", "template", "constant"):
                    continue  # shortcuts some documents put here are read elsewhere (or refused there)
                for value in g.objects(node, RML[key]):
                    findings.append(Finding(
                        "normalise", where, f"TriplesMap {node_name(tm)}: rml:{key} {value.n3()} is on the {what}, "
                        f"where no engine reads it (it is a key of a term map: the object map's, most likely); the "
                        "terms are made without it", column=key, severity="warning"))
    return findings


def _vocabulary_terms(g: Graph, tm: Node):
    """``(what, term)`` for the constant predicates, classes and datatypes of TriplesMap ``tm``: the
    terms that name vocabulary and so must be absolute IRIs (R2RML sections 6.1, 7.2, 7.4)."""
    sm = g.value(tm, RML.subjectMap)
    if sm is not None:
        for c in g.objects(sm, RML["class"]):
            yield "class (rml:class)", c
    for pom in g.objects(tm, RML.predicateObjectMap):
        for p in g.objects(pom, RML.predicate):
            yield "predicate (rml:predicate)", p
        for pm in g.objects(pom, RML.predicateMap):
            if not isinstance(pm, Literal) and (c := g.value(pm, RML.constant)) is not None:
                yield "predicate (rml:constant of the predicate map)", c
        for om in g.objects(pom, RML.objectMap):
            if not isinstance(om, Literal):
                for d in g.objects(om, RML.datatype):
                    yield "datatype (rml:datatype)", d


def _check_vocabulary_terms(g: Graph, tm: Node, where: str) -> None:
    """A predicate, class or datatype written as a literal (``rml:predicate "http://..."``) or as a
    relative IRI (``rml:datatype <en>``, which the Turtle parser resolved against the mapping file's
    own ``file:`` location: a datatype naming the user's folder) is refused naming the TriplesMap.

    Raises:
        RMLError: the first such term, with what was expected.
    """
    for what, term in _vocabulary_terms(g, tm):
        kind = what.split()[0]
        if isinstance(term, Literal):
            raise RMLError(f"TriplesMap {node_name(tm)}: the {what} is the literal {str(term)!r}; a {kind} is an IRI "
                           f"(R2RML: predicates, classes and datatypes are IRIs): write <{term}> or a prefixed name",
                           path=where)
        unknown, closest = unknown_xsd_datatype(term) if kind == "datatype" else (False, None)
        if unknown:
            raise RMLError(f"TriplesMap {node_name(tm)}: the {what} <{term}> is in the XSD namespace but XSD defines "
                           f"no datatype {str(term)[len(str(XSD)):]!r}: its literals would have a datatype no "
                           f"processor knows (expected an XSD datatype{f'; closest: {closest}' if closest else ''})",
                           path=where, key=str(term))
        if isinstance(term, URIRef) and str(term).startswith("file:"):
            written = str(term).rsplit("/", 1)[-1]
            hint = (f"; a language tag is rml:language \"{written}\""
                    if kind == "datatype" and not check_langtag(written) else "")
            raise RMLError(f"TriplesMap {node_name(tm)}: the {what} <{term}> is a relative IRI (<{written}>) resolved "
                           f"against the mapping file's location; expected an absolute {kind} IRI or a prefixed name "
                           f"(e.g. {'xsd:string' if kind == 'datatype' else 'ex:name'}){hint}", path=where)


_PLACEHOLDERS = re.compile(r"\\[{}\\]|\{|\}")


def _check_term_map(g: Graph, tm: Node, role: str, node: Node, where: str) -> None:
    """Template syntax, constants that cannot have the term type, language tags, value-less blank nodes."""
    if isinstance(node, Literal):
        return
    template = g.value(node, RML.template)
    if template is not None:
        depth = 0
        for m in _PLACEHOLDERS.finditer(str(template)):
            tok = m.group(0)
            if tok in "{}":
                depth += 1 if tok == "{" else -1
                if depth not in (0, 1):
                    raise RMLError(f"TriplesMap {node_name(tm)}: the {role}'s template {str(template)!r} has "
                                   f"{'nested' if depth > 1 else 'unmatched'} braces (escape a literal brace as "
                                   "\\{ or \\})", path=where)
        if depth:
            raise RMLError(f"TriplesMap {node_name(tm)}: the {role}'s template {str(template)!r} has an unclosed '{{'",
                           path=where)
        if "{}" in str(template).replace("\\{}", ""):
            raise RMLError(f"TriplesMap {node_name(tm)}: the {role}'s template {str(template)!r} has an empty "
                           "reference '{}'", path=where)
    tt = g.value(node, RML.termType)
    if tt == RML.BlankNode and g.value(node, RML.constant) is not None:
        raise RMLError(f"TriplesMap {node_name(tm)}: the {role} is a constant with term type rml:BlankNode "
                       "(a constant is an IRI or a literal)", path=where)
    if tt == RML.BlankNode and role == "subject map" and not any(
            g.value(node, p) is not None for p in (RML.template, RML.reference, RML.functionExecution)):
        raise RMLError(f"TriplesMap {node_name(tm)}: the subject map is a blank node without template or reference; "
                       "the engine (Morph-KGC 2.10) cannot make one blank node per record: add "
                       "rml:template with the record's key", path=where)
    if tt == RML.Literal and role in ("subject map", "predicate map", "graph map"):
        raise RMLError(f"TriplesMap {node_name(tm)}: the {role} has term type rml:Literal (only an object map "
                       "can make literals)", path=where)
    if tt == RML.BlankNode and role in ("predicate map", "graph map"):
        raise RMLError(f"TriplesMap {node_name(tm)}: the {role} has term type rml:BlankNode (it must make IRIs)",
                       path=where)
    lang = g.value(node, RML.language)
    if lang is not None:
        if check_langtag(str(lang)):
            raise RMLError(f"TriplesMap {node_name(tm)}: the {role}'s language tag {str(lang)!r} is not a BCP 47 "
                           "language tag (e.g. en, en-GB; a primary language subtag has 2 or 3 letters)",
                           path=where)


def _term_type(g: Graph, role: str, node: Node) -> Node:
    """The term type of a term map (R2RML section 7.4): the explicit one; else a constant's kind;
    else IRI, except an object map with a reference, language or datatype: literal."""
    tt = g.value(node, RML.termType)
    if tt is not None:
        return tt
    constant = g.value(node, RML.constant)
    if constant is not None:
        return RML.Literal if isinstance(constant, Literal) else RML.IRI
    if role == "object map" and any(g.value(node, p) is not None for p in (
            RML.reference, RML.language, RML.languageMap, RML.datatype, RML.datatypeMap)):
        return RML.Literal
    return RML.IRI


def _literal_only_fault(g: Graph, tm: Node, role: str, node: Node, prefix: str) -> tuple[str, RMLError] | None:
    """``(the term map in words, the error)`` of a term map that makes IRIs or blank nodes and has
    a datatype or language tag (see :func:`_check_literal_only`), ``None`` for any other term map."""
    if isinstance(node, Literal):
        return None
    given = [(f"{prefix if p in (RML.datatype, RML.language) else 'rml'}:{str(p).rsplit('/', 1)[-1]}", g.value(node, p))
             for p in (RML.datatype, RML.language, RML.datatypeMap, RML.languageMap) if g.value(node, p) is not None]
    tt = _term_type(g, role, node)
    if not given or tt == RML.Literal:
        return None
    term, value = given[0]
    value = value.n3(g.namespace_manager) if isinstance(value, URIRef) else "[ ... ]" if isinstance(value, BNode) \
        else repr(str(value))
    which = role
    if role == "object map":
        pom = next(iter(g.subjects(RML.objectMap, node)), None)
        pred = g.value(pom, RML.predicate) if pom is not None else None
        if pred is None and pom is not None and g.value(pom, RML.predicateMap) is not None:
            pred = g.value(g.value(pom, RML.predicateMap), RML.constant)
        if isinstance(pred, URIRef):
            which = f"object map of {pred.n3(g.namespace_manager)}"
    written = next(((p, g.value(node, p)) for p in (RML.template, RML.reference, RML.constant)
                    if g.value(node, p) is not None), None)
    how = f" ({str(written[0]).rsplit('/', 1)[-1]} {str(written[1])!r})" if written is not None else ""
    fix = f"remove {term}" + (f", or make the term map a literal ({prefix}:termType {prefix}:Literal)"
                              if role == "object map" else "")
    kind = "a blank node" if tt == RML.BlankNode else "an IRI"
    return which, RMLError(f"TriplesMap {node_name(tm)}: {term} on {kind} term map: the {which}{how} makes "
                    f"{'blank nodes' if tt == RML.BlankNode else 'IRIs'} and has {term} {value} (R2RML sections 7.5 "
                    f"and 7.6: a datatype or language tag is for literal term maps only); {fix}",
                    key=str(written[1]) if written is not None and isinstance(written[1], Literal) else None)


def _check_literal_only(g: Graph, tm: Node, where: str, prefix: str) -> None:
    """A datatype or language tag (or map) on a term map of ``tm`` that makes IRIs or blank nodes is
    refused (R2RML sections 7.5 and 7.6: they are for literal term maps only; the engine would
    append ``^^<datatype>`` to the IRI, which is no RDF term).

    Raises:
        RMLError: naming the TriplesMap, the term map (predicate, value) and the term, and how many
            other term maps of ``tm`` have the same fault; its ``key`` is the value the term map is
            written with (template, reference or constant), by which its line is found.
    """
    faults = [e for e in (_literal_only_fault(g, tm, role, node, prefix) for role, node in term_maps(g, tm)) if e]
    if not faults:
        return
    faults.sort(key=lambda f: (f[1].key is None, str(f[1])))
    first = faults[0][1]
    more = f" (so has the {', the '.join(sorted({w for w, _ in faults[1:]}))})" if len(faults) > 1 else ""
    raise RMLError(str(first) + more, path=where, key=first.key)


_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"
#: GREL parameter resources -> the ``fno:predicate`` the engine keys its built-in functions by
#: (from the GREL FnO description, e.g. ``grel:valueParam fno:predicate grel:valueParameter``).
_GREL_PARAMETERS = {f"{_GREL}{a}": f"{_GREL}{b}" for a, b in (
    ("valueParam", "valueParameter"), ("valueParam2", "valueParameter2"), ("param_find", "p_string_find"),
    ("param_replace", "p_string_replace"), ("modeParam", "modeParameter"), ("p_int_i_from", "param_int_i_from"),
    ("p_int_i_opt_to", "param_int_i_opt_to"))}


_IDLAB = "https://w3id.org/imec/idlab/function#"
#: IDLab parameter resources -> their ``fno:predicate`` (functions_idlab.ttl: ``idlab-fn:_str fno:predicate
#: idlab-fn:str``), which the engine and our UDF file key the functions' parameters by.
_IDLAB_PARAMETERS = {f"{_IDLAB}_{n}": f"{_IDLAB}{n}" for n in (
    "str", "otherStr", "delimiter", "list", "expectedStr", "result", "strBoolean", "path", "endpoint", "strDate",
    "pattern", "lang", "iri", "watchedProperty", "unique", "state", "inputFile", "fromColumn", "toColumn")}
_IDLAB_PARAMETERS.update({f"{_IDLAB}_{n}": f"{_IDLAB}p_{n}" for n in ("test", "from", "to")})
#: The outputs of the GREL FnO description (the engine's functions each have one output).
_GREL_OUTPUTS = {f"{_GREL}{n}" for n in ("stringOut", "stringOutput", "output_number", "output_bool", "output_array",
                                         "output_string", "output_value", "output_date")}


_XSD = "http://www.w3.org/2001/XMLSchema#"
#: The ``fno:type`` of the outputs of the GREL and IDLab FnO descriptions that are not strings
#: (FnOio/grel-functions-fno grel.ttl, FnOio/idlab-functions-java functions_idlab.ttl): a literal
#: made from such an output has that datatype (RML-FNML: the function's output keeps its type).
OUTPUT_TYPES = {f"{_GREL}output_number": f"{_XSD}integer", f"{_GREL}output_bool": f"{_XSD}boolean",
                f"{_GREL}output_decimal": f"{_XSD}decimal", f"{_GREL}output_date": f"{_XSD}date",
                f"{_GREL}output_datetime": f"{_XSD}dateTime", f"{_IDLAB}_boolOut": f"{_XSD}boolean"}


def _return_ok(ret: str) -> bool:
    if ret.startswith(_GREL):
        return ret in _GREL_OUTPUTS
    if ret.startswith(_IDLAB):
        return re.fullmatch(r"_\w+Out", ret[len(_IDLAB):]) is not None
    return True


def _known_functions() -> dict[str, set[str]]:
    """Function IRI -> parameter IRIs the engine can run: its built-ins and our UDF file."""
    from morph_kgc.fnml.built_in_functions import bif_dict

    known = {f: set(d["parameters"].values()) for f, d in bif_dict.items()}

    def udf(fun_id, **params):  # the decorator the engine defines before it runs the UDF file
        known[fun_id] = set(params.values())
        return lambda funct: funct

    exec(compile(UDF_FILE.read_text(encoding="utf-8"), str(UDF_FILE), "exec"), {"udf": udf})  # noqa: S102
    return known


def check_functions(g: Graph, maps: list[Node], where: str) -> None:
    """Function executions: the function must be one the engine has, each parameter one of its
    parameters (GREL parameter resources are renamed to the predicates the engine expects)."""
    executions = set(g.objects(None, RML.functionExecution))
    if not executions:
        return
    known = _known_functions()
    owner = {}
    for tm in maps:
        for role, node in term_maps(g, tm):
            ex = g.value(node, RML.functionExecution)
            if ex is not None:
                owner[ex] = (tm, role)
    for term_map in set(g.subjects(RML.functionExecution, None)):
        ret = g.value(term_map, RML["return"])
        if ret is None and g.value(term_map, RML.returnMap) is not None:
            ret = g.value(g.value(term_map, RML.returnMap), RML.constant)
        if ret is not None and not _return_ok(str(ret)):
            tm, role = owner.get(g.value(term_map, RML.functionExecution), (None, "term map"))
            at = f"TriplesMap {node_name(tm)}, {role}: " if tm is not None else ""
            raise RMLError(f"{at}rml:return <{ret}> is not an output of function "
                           f"<{g.value(g.value(term_map, RML.functionExecution), RML.function)}>", path=where)
        typed = OUTPUT_TYPES.get(str(ret)) if ret is not None else None
        if typed and g.value(None, RML.objectMap, term_map) is not None and g.value(term_map, RML.termType) in (
                None, RML.Literal) and not any(g.value(term_map, p) is not None for p in (
                RML.datatype, RML.datatypeMap, RML.language, RML.languageMap)):
            g.add((term_map, RML.datatype, URIRef(typed)))
            # the engine reads rml:return as a second rule beside the datatype; the return is checked
            g.remove((term_map, RML["return"], None))
    problems = function_problems(g, known)
    if problems:
        ex, problem = problems[0]
        tm, role = owner.get(ex, (None, "function input"))
        at = f"TriplesMap {node_name(tm)}, {role}: " if tm is not None else ""
        raise RMLError(f"{at}{problem}", path=where)
    for ex in executions:
        fn = str(g.value(ex, RML.function))
        for inp in g.objects(ex, RML.input):
            param = g.value(inp, RML.parameter)
            name = _engine_parameter(param, known[fn]) if param is not None else None
            if name is not None and name != str(param):
                g.set((inp, RML.parameter, URIRef(name)))


def _engine_parameter(param: Node, known: set[str]) -> str | None:
    """The name by which the engine takes parameter ``param`` of a function whose parameters are
    ``known``: itself, or the predicate a GREL/IDLab parameter resource stands for; ``None``: none."""
    if str(param) in known:
        return str(param)
    renamed = _GREL_PARAMETERS.get(str(param)) or _IDLAB_PARAMETERS.get(str(param))
    return renamed if renamed in known else None


def function_problems(g: Graph, known: dict[str, set[str]] | None = None) -> list[tuple[Node, str]]:
    """Every function execution of ``g`` that the engine cannot run, without changing ``g``
    (``known``: the engine's functions and their parameters, read from the engine and the UDF file
    when not given).

    Returns:
        ``(execution node, problem)`` pairs in the order of the nodes' names: a function the
        engine does not have (Morph-KGC's built-ins and the UDF file; the closest name given), a
        parameter the function does not take (GREL/IDLab parameter resources that the engine
        names otherwise are accepted: :func:`check_functions` renames them).
    """
    known = _known_functions() if known is None else known
    problems: list[tuple[Node, str]] = []
    for ex in sorted(set(g.objects(None, RML.functionExecution)), key=str):
        fn = g.value(ex, RML.function)
        if fn is None:
            problems.append((ex, f"function execution {node_name(ex)} names no rml:function"))
            continue
        if str(fn) not in known:
            close = difflib.get_close_matches(str(fn), list(known), n=1)
            problems.append((ex, f"function <{fn}> is not known to the engine (Morph-KGC built-ins and the UDF "
                                 f"file){f'; closest: <{close[0]}>' if close else ''}"))
            continue
        for inp in g.objects(ex, RML.input):
            param = g.value(inp, RML.parameter)
            if param is None:
                continue
            if _engine_parameter(param, known[str(fn)]) is None:
                problems.append((ex, f"function <{fn}> has no parameter <{param}> (its parameters: "
                                     f"{', '.join(sorted(known[str(fn)]))})"))
    return problems
