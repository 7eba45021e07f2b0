"""A hierarchy within one source: the class and the relation a self-reference entails.

Reference data (a thesaurus, a code list, a taxonomy, an organisation chart) is often one file of records
each naming its parent by the parent's key (``id;name;parentID``): :func:`.keys.self_reference_columns`
finds such a column by its values (every one the key of another record of the file). Both ends of that
relation are records of the source, so the vocabulary's relation for it is a property whose domain and
range, its own or inherited from a super-property, admit one class for both ends (its range alone when it
states no domain: the range types every parent, a record of the same kind): SKOS's ``skos:broader``
(``skos:broader`` < ``skos:broaderTransitive`` < ``skos:semanticRelation``, domain and range
``skos:Concept``). The property is the one the column names (``parent`` ~ ``skos:broader``, whose comment
says broader concepts "are typically rendered as parents in a concept hierarchy"), and its domain and
range entail the records' class (RDF 1.1 Semantics, rdfs2 and rdfs3: every record with a parent is a
subject of it, every parent an object). :func:`class_from_hierarchy` types the records with that class when
their own class rests on no name match and admits no such relation.
"""
from __future__ import annotations

from rdflib import URIRef

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import ForeignKey, SourceInfo
from pipeline.mappers.offline.identity import ID_WORDS
from pipeline.mappers.offline.keys import self_reference_columns
from pipeline.mappers.offline.names import NameMatcher, words

__all__ = ["hierarchy_class", "hierarchy_relations", "class_from_hierarchy", "HIERARCHY_NAME_SCORE"]

#: Least name similarity of the self-referencing column to the relation (the least a name match needs, as for
#: a leftover column in :mod:`.elimination`): the column must say which relation it is, since a vocabulary has
#: several between one class's members (SKOS: broader, narrower, related and their transitive and mapping forms).
HIERARCHY_NAME_SCORE = 0.45
#: Least file-name fit of a class that stands against the class a hierarchy entails (a name match:
#: :data:`.classes.SUBCLASS_EVIDENCE`).
NAMED_CLASS = 0.7


def hierarchy_class(ontology: Ontology, prop: URIRef) -> URIRef | None:
    """The one class that both ends of ``prop`` must be, by its domains and ranges (own or inherited,
    :meth:`pipeline.ontology.Ontology.domains`/``ranges``): a class that is or is a subclass of every domain
    and every range, and is itself one of them (the most specific stated). A property of no domain gives its
    range alone: within one source the parents are records of the file as the children are, and the range
    types every parent (rdfs3), so the file's one kind of record is of it (an excerpt of SKOS that declares
    ``skos:broader``'s range ``skos:Concept`` and not ``skos:semanticRelation``, whose domain it inherits).
    ``None`` when the property states no class range (it relates things of any kind) or no stated class is
    below all the others."""
    doms = ontology.domains(prop)
    rngs = ontology.ranges(prop) & ontology.classes
    if not rngs:
        return None
    both = doms | rngs
    fits = [c for c in sorted(both, key=str) if both <= ontology.superclasses(c)]
    return fits[0] if len(fits) == 1 else None


def _text(ref: str) -> str:
    """The column's words without identifier words (``parentID`` -> ``parent``): what it relates to, not that
    its values are keys."""
    ws = words(ref.split("/")[-1].split(".")[-1].lstrip("@"), expand=False)
    return " ".join([w for w in ws if w not in ID_WORDS] or ws)


def hierarchy_relations(ontology: Ontology, matcher: NameMatcher, ref: str,
                        object_props: list[URIRef]) -> list[tuple[float, URIRef, URIRef]]:
    """The relations the self-referencing column ``ref`` may be: ``(name similarity, property, class)`` for
    each object property of :func:`hierarchy_class` whose name similarity to the column's words
    (:func:`_text`) is at least :data:`HIERARCHY_NAME_SCORE`, best first (ties by IRI)."""
    text = _text(ref)
    out = []
    for p in object_props:
        cls = hierarchy_class(ontology, p)
        if cls is not None and (score := matcher.score(text, p)) >= HIERARCHY_NAME_SCORE:
            out.append((score, p, cls))
    return sorted(out, key=lambda t: (-t[0], str(t[1])))


def class_from_hierarchy(infos: list[SourceInfo], ontology: Ontology, matcher: NameMatcher,
                         object_props: list[URIRef]) -> None:
    """Type the records of a source that refers to itself with the class its hierarchy relation entails.

    For each source with a self-referencing column (:func:`.keys.self_reference_columns`) that the best
    relation of :func:`hierarchy_relations` names, no runner-up as well: the column becomes a foreign key
    into the source's own key (the relation row follows in :mod:`.rows`, with the property recorded in
    ``info.self_relations``), and the records take the relation's class when their class rests on no name
    match (file name fit below :data:`NAMED_CLASS`), no type member states it, and it is neither
    that class nor a subclass of it. Runs after every source's class is chosen, before their properties;
    the class replaces a guess among classes the columns fit alike (a thesaurus of ``id;name;parentID``
    typed ``prov:Influence`` by a name and a key), it does not override a name match."""
    for info in infos:
        if info.cls is None or info.link or info.typed is not None:
            continue
        for ref in self_reference_columns(info):
            found = hierarchy_relations(ontology, matcher, ref, object_props)
            if not found or (len(found) > 1 and found[1][0] == found[0][0]):
                continue
            score, prop, cls = found[0]
            if cls not in ontology.superclasses(info.cls):
                if info.cls_name_fit >= NAMED_CLASS:
                    continue  # a name match stands; the relation does not fit its class
                was = info.cls
                info.cls, info.cls_score = cls, max(info.cls_score, score)
                info.cls_evidence = (f"{ref!r} names other records of {info.name} by their {info.key[0]!r}, and "
                                     f"{ontology.compact(prop)} ({score:.2f}) relates a {ontology.compact(cls)} to a "
                                     f"{ontology.compact(cls)} (its domain and range): every record of the hierarchy "
                                     f"is one (RDF 1.1 Semantics rdfs2, rdfs3); its name fitted no class "
                                     f"({ontology.compact(was)} was a guess); " + info.cls_evidence)
            info.fks[ref] = ForeignKey(ref, info.name, info.key[0], 1.0)
            info.self_relations[ref] = prop
            break
