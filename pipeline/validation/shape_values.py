"""The values SHACL Core's constraint parameters take, checked in a hand-written shapes file.

A shapes file can parse as RDF and still hold a constraint SHACL cannot use: an unclosed regular
expression (``sh:pattern "^[A-Z"``), a count written as a word (``sh:minCount "one"``), a
datatype given as a string (``sh:datatype "xsd:string"``). pySHACL finds these only while it
validates, and then the whole SHACL check fails without naming the file, line or shape. This
module states, per parameter, the value type SHACL gives it (W3C SHACL, section 4 "Core
Constraint Components" and section 2.1.3 "Targets"; the same types as the SHACL-for-SHACL shapes
of Appendix C) so that the shapes are checked when they are read, before any validation.

==========================================================  ====================================
parameter                                                    value
==========================================================  ====================================
``sh:class``, ``sh:datatype``, ``sh:equals``, ``sh:disjoint``,  an IRI
``sh:lessThan``, ``sh:lessThanOrEquals``, ``sh:targetClass``,
``sh:targetSubjectsOf``, ``sh:targetObjectsOf``, ``sh:severity``
``sh:minCount``, ``sh:maxCount``, ``sh:minLength``,            an ``xsd:integer`` literal >= 0
``sh:maxLength``, ``sh:qualifiedMinCount``, ``sh:qualifiedMaxCount``
``sh:minExclusive`` ... ``sh:maxInclusive``                    a literal
``sh:pattern``, ``sh:flags``                                   an ``xsd:string`` literal (plain
                                                               literal); the pattern a valid regex
``sh:uniqueLang``, ``sh:closed``, ``sh:deactivated``,          ``true`` or ``false`` (xsd:boolean)
``sh:qualifiedValueShapesDisjoint``
``sh:nodeKind``                                                one of the six node kinds
``sh:in``, ``sh:languageIn``, ``sh:and``, ``sh:or``,          a well-formed RDF list
``sh:xone``, ``sh:ignoredProperties``                          (``sh:languageIn``: of strings)
``sh:node``, ``sh:property``, ``sh:not``,                     a shape: an IRI or a blank node
``sh:qualifiedValueShape``
==========================================================  ====================================

A shape gives each of ``sh:datatype``, ``sh:nodeKind``, the counts, lengths and bounds,
``sh:pattern``, ``sh:flags``, ``sh:in``, ``sh:languageIn``, ``sh:closed``, ``sh:severity`` and
``sh:path`` at most one value (SHACL-for-SHACL's ``sh:maxCount 1``).

SHACL's ``sh:pattern`` is a SPARQL ``REGEX`` pattern (XPath's flavour). pySHACL, the engine kgc
runs, compiles it with Python's :mod:`re`, so a pattern Python refuses would stop the SHACL run;
the check compiles it the same way (with ``sh:flags`` ``i``, ``m``, ``s``, ``x`` as pySHACL maps
them).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH, XSD

from pipeline.rdflists import list_fault, members

__all__ = ["ValueFault", "constraint_value_faults"]

_NODE_KINDS = frozenset({SH.BlankNode, SH.IRI, SH.Literal, SH.BlankNodeOrIRI, SH.BlankNodeOrLiteral,
                         SH.IRIOrLiteral})


@dataclass(frozen=True)
class ValueFault:
    """One constraint parameter whose value SHACL cannot use.

    Attributes:
        shape: the shape holding the parameter (the subject of the triple).
        parameter: the parameter's IRI (``sh:pattern``).
        value: the offending value as written in the graph.
        problem: what is wrong (``not a valid regular expression (...)``).
        expected: what SHACL expects there (``an xsd:integer literal >= 0``).
    """

    shape: URIRef | BNode
    parameter: URIRef
    value: object
    problem: str
    expected: str


def _iri(value: object, g: Graph) -> str | None:
    return None if isinstance(value, URIRef) else "not an IRI"


def _count(value: object, g: Graph) -> str | None:
    if not isinstance(value, Literal) or value.datatype != XSD.integer:
        return "not an integer"
    if not isinstance(value.value, int):  # "one"^^xsd:integer: rdflib keeps an ill-typed literal's value None
        return "not a valid xsd:integer"
    return "negative" if value.value < 0 else None


def _literal(value: object, g: Graph) -> str | None:
    return None if isinstance(value, Literal) else "not a literal"


def _string(value: object, g: Graph) -> str | None:
    if not isinstance(value, Literal) or value.language is not None or value.datatype not in (None, XSD.string):
        return "not a string literal"
    return None


def _boolean(value: object, g: Graph) -> str | None:
    if not isinstance(value, Literal) or value.datatype != XSD.boolean or not isinstance(value.value, bool):
        return "not true or false"
    return None


def _node_kind(value: object, g: Graph) -> str | None:
    return None if value in _NODE_KINDS else "not a SHACL node kind"


def _shape(value: object, g: Graph) -> str | None:
    return None if isinstance(value, (URIRef, BNode)) else "not a shape (an IRI or a blank node)"


def _list(value: object, g: Graph) -> str | None:
    if value == RDF.nil:
        return None
    if not isinstance(value, BNode) and (value, RDF.first, None) not in g:
        return "not an RDF list ( ... )"
    fault = list_fault(g, value)
    return f"not a well-formed RDF list ({fault})" if fault else None


def _string_list(value: object, g: Graph) -> str | None:
    fault = _list(value, g)
    if fault:
        return fault
    bad = next((m for m in members(g, value) if _string(m, g)), None)
    return None if bad is None else f"the member {bad.n3()} is not a string literal"


#: parameter -> (check giving the problem or None, what SHACL expects).
_RULES: dict[URIRef, tuple[Callable[[object, Graph], str | None], str]] = {
    **{p: (_iri, "an IRI") for p in (SH["class"], SH.datatype, SH.equals, SH.disjoint, SH.lessThan,
                                     SH.lessThanOrEquals, SH.targetClass, SH.targetSubjectsOf,
                                     SH.targetObjectsOf, SH.severity)},
    **{p: (_count, "an xsd:integer literal >= 0, such as 1") for p in (
        SH.minCount, SH.maxCount, SH.minLength, SH.maxLength, SH.qualifiedMinCount, SH.qualifiedMaxCount)},
    **{p: (_literal, "a literal") for p in (SH.minExclusive, SH.minInclusive, SH.maxExclusive, SH.maxInclusive)},
    SH.pattern: (_string, "a string literal holding a regular expression"),
    SH.flags: (_string, "a string literal of regular-expression flags, such as \"i\""),
    **{p: (_boolean, "true or false") for p in (SH.uniqueLang, SH.closed, SH.deactivated,
                                                SH.qualifiedValueShapesDisjoint)},
    SH.nodeKind: (_node_kind, "one of sh:IRI, sh:Literal, sh:BlankNode, sh:BlankNodeOrIRI, "
                              "sh:BlankNodeOrLiteral, sh:IRIOrLiteral"),
    **{p: (_list, "an RDF list ( ... )") for p in (SH["in"], SH["and"], SH["or"], SH.xone, SH.ignoredProperties)},
    SH.languageIn: (_string_list, "an RDF list of language tags as strings, such as ( \"en\" \"fr\" )"),
    **{p: (_shape, "a shape (an IRI or a blank node)") for p in (SH.node, SH.property, SH["not"],
                                                                 SH.qualifiedValueShape)},
}

#: sh:flags letters and the :mod:`re` flags pySHACL compiles them to.
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def _pattern_faults(g: Graph) -> list[ValueFault]:
    out = []
    for shape, pattern in g.subject_objects(SH.pattern):
        if _string(pattern, g):
            continue  # reported by the value-type rule
        flags = 0
        for f in g.objects(shape, SH.flags):
            for letter in str(f).lower():
                flags |= _FLAGS.get(letter, 0)
        try:
            re.compile(str(pattern), flags)
        except re.error as exc:
            out.append(ValueFault(shape, SH.pattern, pattern, f"not a valid regular expression ({exc})",
                                  "a regular expression (SPARQL REGEX, XPath flavour)"))
    return out


#: The parameters a shape gives at most one value (``sh:maxCount 1`` in SHACL-for-SHACL, Appendix C).
_SINGLE = (SH.severity, SH.deactivated, SH.closed, SH.ignoredProperties, SH.datatype, SH["in"], SH.languageIn,
           SH.maxCount, SH.minCount, SH.maxExclusive, SH.maxInclusive, SH.minExclusive, SH.minInclusive,
           SH.maxLength, SH.minLength, SH.nodeKind, SH.pattern, SH.flags, SH.qualifiedMaxCount,
           SH.qualifiedMinCount, SH.qualifiedValueShape, SH.path)


def _repeated(g: Graph) -> list[ValueFault]:
    out = []
    for parameter in _SINGLE:
        values: dict[object, list] = {}
        for shape, value in g.subject_objects(parameter):
            values.setdefault(shape, []).append(value)
        out += [ValueFault(shape, parameter, sorted(vs, key=str)[1], f"the shape gives it {len(vs)} values",
                           "one value per shape (write one shape per value)")
                for shape, vs in values.items() if len(vs) > 1]
    return out


def constraint_value_faults(g: Graph) -> list[ValueFault]:
    """Every constraint parameter of ``g`` whose value SHACL cannot use (rules in the module docstring).

    Args:
        g: a shapes graph, as read from the user's file.
    Returns:
        The faults, in no particular order; empty when every value has its SHACL type.
    """
    out = []
    for parameter, (check, expected) in _RULES.items():
        for shape, value in g.subject_objects(parameter):
            problem = check(value, g)
            if problem:
                out.append(ValueFault(shape, parameter, value, problem, expected))
    return out + _pattern_faults(g) + _repeated(g)
