"""Labels of entities whose vocabulary has no name property for them (``rdfs:label``).

A vocabulary may declare classes and few or no datatype properties (GeoNames' classes, a code list
of railway concepts); the records still have a column that says what people call each entity. RDFS
gives every vocabulary ``rdfs:label``: "a human-readable version of a resource's name" (RDF Schema
1.1, 3.6; domain ``rdfs:Resource``, usable on any class). :func:`assign_labels` gives such a column
that property when no property of the entity's class took it and the class has no name of its own
taken by another column.
"""
from __future__ import annotations

from rdflib import URIRef
from rdflib.namespace import RDFS

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_fits
from pipeline.mappers.offline.identity import id_like
from pipeline.mappers.offline.names import NameMatcher, words
from pipeline.mappers.offline.profile import is_numeric

__all__ = ["assign_labels", "label_like", "LABEL_WORDS", "LABEL_SCORE"]

#: Words of a column (last step, or the element an XML attribute belongs to) naming what people call a thing.
LABEL_WORDS = frozenset({"name", "title", "label"})
#: Raw score of a label found so (the column's name says it is a name; the property is RDFS's own).
LABEL_SCORE = 0.7


def _steps(ref: str) -> list[str]:
    """The words of a reference's last step, and of its element when the last step is an attribute
    whose name says nothing of its own (``OPName/@Value`` -> ``op name``)."""
    steps = [s for s in ref.replace(".", "/").split("/") if s]
    last = words(steps[-1].lstrip("@"), expand=False) if steps else []
    if steps and steps[-1].startswith("@") and len(steps) > 1 and set(last) <= {"value", "text", "val"}:
        return words(steps[-2], expand=False)
    return last


def label_like(ref: str) -> bool:
    """A column named as a name, title or label (``stop_name``, ``OPName/@Value``); never an identifier.

    A column named only after the records' entity (``note`` in ``notes.csv``) is not taken: it may hold
    the entity's content as well as its name."""
    ws = _steps(ref)
    if not ws or id_like(ref):
        return False
    return bool(set(ws) & LABEL_WORDS)


def _named(ontology: Ontology, matcher: NameMatcher, prop: URIRef) -> bool:
    return bool(set(words(" ".join(matcher.names(prop)), expand=False)) & LABEL_WORDS) or prop == RDFS.label


def assign_labels(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                  datatype_props: list[URIRef]) -> list[Assignment]:
    """Label each entity class of ``info`` that has no name property, assigned or free, with its best
    label column.

    A class whose own datatype properties include a name (``shop:productName``) is left to them (the
    assignment by elimination pairs a text column with it). A column qualifies (:func:`label_like`)
    when it is unassigned, no foreign key, holds text (not numbers) and its values are distinct in at
    least half of the records (a name tells entities apart; a column of a few repeated words is a
    category). Returns the new assignments (also appended)."""
    done = {a.reference for a in info.assignments}
    classes = [c for c in dict.fromkeys([info.cls, *(a.cls for a in info.assignments)]) if c is not None]
    new: list[Assignment] = []
    for cls in classes:
        if cls in info.borrowed or any(a.cls == cls and _named(ontology, matcher, a.prop) for a in info.assignments):
            continue
        if any(_named(ontology, matcher, p) and domain_fits(ontology, p, cls) == 1.0 for p in datatype_props):
            continue
        cands = []
        for r in info.refs:
            if r in done or r in info.fks or r == info.lang_col or not label_like(r):
                continue
            values = [v for v in info.data.values(r) if v and v.strip()]
            if not values or is_numeric(values) or len(set(values)) < 0.5 * len(values):
                continue
            cands.append(r)
        if cls != info.cls:  # a second entity's label lies in its own object (venue.name for the venue)
            own = {a.reference.rsplit(".", 1)[0].rsplit("/", 1)[0] for a in info.assignments if a.cls == cls}
            cands = [r for r in cands if r.rsplit(".", 1)[0].rsplit("/", 1)[0] in own]
        elif any(a.cls != cls for a in info.assignments):
            cands = [r for r in cands if "." not in r and r.count("/") <= 1]
        if not cands:
            continue
        r = cands[0]
        a = Assignment(r, RDFS.label, cls, LABEL_SCORE, [
            f"{r!r} names the entities of {ontology.compact(cls)} (a name column, distinct values) and no property "
            f"of the class took it: rdfs:label, RDFS's human-readable name of any resource"], "label")
        info.assignments.append(a)
        done.add(r)
        new.append(a)
    return new
