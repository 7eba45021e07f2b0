"""Labels of entities whose vocabulary has no name property for them.

A vocabulary may declare classes and few or no datatype properties (GeoNames' classes, a code list
of railway concepts, materials-science terms); the records still have a column that says what people
call each entity. An annotation property applies to any resource (OWL 2 Structural Specification 10:
annotations carry no semantics and have no domain), and RDFS gives every vocabulary ``rdfs:label``:
"a human-readable version of a resource's name" (RDF Schema 1.1, 3.6; domain ``rdfs:Resource``).
:func:`naming_properties` lists the naming annotation properties the vocabularies declare or use (their
names say name, title or label: ``skos:prefLabel``, ``dct:title``) beside ``rdfs:label``;
:func:`assign_labels` gives a name column the one the vocabularies name their own terms with, when no
property of the entity's class took the column and the class has no name of its own taken by another
column.
"""
from __future__ import annotations

from dataclasses import dataclass

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS

from pipeline.ontology import Ontology, namespace
from pipeline.mappers.offline.analysis import Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_fits
from pipeline.mappers.offline.identity import id_like
from pipeline.mappers.offline.language import language_variants
from pipeline.mappers.offline.names import NameMatcher, words
from pipeline.mappers.offline.profile import is_numeric

__all__ = ["assign_labels", "label_like", "naming_properties", "NamingProperty", "LABEL_WORDS", "LABEL_SCORE", "PREFERRED_WORDS", "class_label", "translations"]

#: Words of a column (last step, or the element an XML attribute belongs to) naming what people call a thing.
LABEL_WORDS = frozenset({"name", "title", "label"})
#: Raw score of a label found so (the column's name says it is a name; the property is RDFS's own).
LABEL_SCORE = 0.7
#: Words that name a vocabulary's main label among its labels (SKOS's "preferred label").
PREFERRED_WORDS = frozenset({"preferred", "primary", "main"})


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


@dataclass(frozen=True)
class NamingProperty:
    """A naming annotation property: ``declared`` ``owl:AnnotationProperty`` by a file, else used as one;
    ``uses``: how many of the vocabularies' classes and properties carry a value of it
    (:attr:`pipeline.ontology.Ontology.annotation_uses`)."""

    prop: URIRef
    declared: bool
    uses: int

    @property
    def strength(self) -> tuple[int, bool]:
        """What ranks it: the vocabularies' own use first (the property they name their terms with), then a
        declaration."""
        return self.uses, self.declared


def naming_properties(ontology: Ontology, matcher: NameMatcher) -> list[NamingProperty]:
    """The naming annotation properties of the vocabularies, strongest first, ``rdfs:label`` always among them.

    Naming: ``rdfs:label``, or a property whose names say name, title or label (:data:`LABEL_WORDS`:
    ``skos:prefLabel``, ``dct:title``; ``rdfs:comment`` is no name). Ranked by :attr:`NamingProperty.strength`,
    ties by ``rdfs:label`` first (RDFS's own, known to every RDF tool) then IRI."""
    uses = ontology.annotation_uses
    declared = {p for p in ontology.annotation_properties if (p, RDF.type, OWL.AnnotationProperty) in ontology.graph}
    out = [NamingProperty(p, p in declared, uses.get(p, 0)) for p in sorted({RDFS.label, *uses}, key=str)
           if p == RDFS.label or _named(ontology, matcher, p)]
    return sorted(out, key=lambda n: (-n.uses, not n.declared, n.prop != RDFS.label, str(n.prop)))


def class_label(naming: list[NamingProperty], matcher: NameMatcher, ontology: Ontology,
                cls: URIRef) -> NamingProperty | None:
    """The naming property of ``naming`` that the vocabulary of ``cls`` declares as its preferred label, else ``None``.

    A vocabulary that defines a class and its own sub-properties of ``rdfs:label`` (SKOS: ``skos:Concept``,
    ``skos:prefLabel``, ``skos:altLabel``, ``skos:hiddenLabel``) says how its instances are named: a name
    column of such entities is that vocabulary's label, and the one for a thing's name is the one named
    preferred (:data:`PREFERRED_WORDS`: "preferred label"; the others are alternative or hidden names).
    Stating it entails ``rdfs:label`` (RDF 1.1 Semantics, rdfs7), so nothing that ``rdfs:label`` says is
    lost. The property must be in the namespace of ``cls`` (:func:`pipeline.ontology.namespace`) and have
    ``rdfs:label`` among its super-properties; ``None`` unless exactly one such property is preferred (or
    there is one alone)."""
    own = [n for n in naming if n.prop != RDFS.label and namespace(n.prop) == namespace(cls)
           and RDFS.label in ontology.superproperties(n.prop)]
    if len(own) > 1:
        own = [n for n in own if set(words(" ".join(matcher.names(n.prop)), expand=False)) & PREFERRED_WORDS]
    return own[0] if len(own) == 1 else None


def _choose(ref: str, stem: str, naming: list[NamingProperty], matcher: NameMatcher,
            ontology: Ontology, cls: URIRef | None = None) -> tuple[NamingProperty, str, str | None]:
    """``(property, evidence, review)`` for the name column ``ref``: the naming property the column's name
    names word for word (``title`` ~ ``dct:title``), else the preferred label of the vocabulary of the
    entities' class ``cls`` (:func:`class_label`), else the strongest; ``review`` says why when the choice
    is one among equals (several properties as strong, none named by the column)."""
    exact = [n for n in naming if matcher.named_exactly(ref, stem, n.prop)]
    if len(exact) == 1:
        return exact[0], f"the column's name is the name of {ontology.compact(exact[0].prop)}", None
    preferred = class_label(naming, matcher, ontology, cls) if cls is not None and not exact else None
    if preferred is not None:
        return preferred, (f"{ontology.compact(preferred.prop)}, the preferred label of the vocabulary of "
                           f"{ontology.compact(cls)} (a sub-property of rdfs:label: each value is an rdfs:label "
                           "too, RDF 1.1 Semantics rdfs7)"), None
    pool = exact or naming
    best = pool[0]
    how = "declared owl:AnnotationProperty" if best.declared else (
        "used as an annotation" if best.prop != RDFS.label else "RDFS's own")
    why = (f"{ontology.compact(best.prop)}, the naming annotation property of the vocabularies ({how}; on "
           f"{best.uses} of their terms)")
    equal = [n for n in pool[1:] if n.strength == best.strength]
    review = None
    if equal:
        others = ", ".join(ontology.compact(n.prop) for n in equal)
        review = (f"{ontology.compact(best.prop)} chosen among naming annotation properties the vocabularies give "
                  f"equal weight ({others}: {how}, on {best.uses} of their terms each): confirm the property")
    return best, why, review


def assign_labels(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                  datatype_props: list[URIRef], naming: list[NamingProperty] | None = None) -> list[Assignment]:
    """Label each entity class of ``info`` that has no name property, assigned or free, with its best
    label column.

    A class whose own datatype properties include a name (``shop:productName``) is left to them (the
    assignment by elimination pairs a text column with it). A column qualifies (:func:`label_like`)
    when it is unassigned, no foreign key, holds text (not numbers) and its values are distinct in at
    least half of the records (a name tells entities apart; a column of a few repeated words is a
    category). The property is :func:`_choose`'s of ``naming`` (default: :func:`naming_properties`); a choice
    among equals is marked for review. Returns the new assignments (also appended)."""
    naming = naming or naming_properties(ontology, matcher)
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
        chosen, why, review = _choose(r, info.stem, naming, matcher, ontology, cls)
        # the same name in other languages (labelEN beside labelFR and labelNL): one label per language
        for c in [r, *translations(r, cands, info.refs)]:
            a = Assignment(c, chosen.prop, cls, LABEL_SCORE, [
                f"{c!r} names the entities of {ontology.compact(cls)} (a name column, distinct values) and no "
                f"property of the class took it: {why}; an annotation property applies to any resource"]
                + ([f"{c!r} is {r!r} in another language (their names differ by a language code alone)"]
                   if c != r else []), "label", review)
            info.assignments.append(a)
            done.add(c)
            new.append(a)
    return new


def translations(ref: str, cands: list[str], refs: list[str]) -> list[str]:
    """The columns of ``cands`` that hold the name ``ref`` holds in other languages: their names and
    ``ref``'s differ by a language code alone (``labelFR``, ``labelNL`` for ``labelEN``:
    :func:`.language.language_variants`); ``[]`` when ``ref``'s name states no language."""
    variants = language_variants(ref, refs)
    return [c for c in cands if c != ref and c in variants]
