"""BLINKG rows of the offline mapper from its decisions (:mod:`.analysis`) about each source.

Datatype-property rows (datatype from ``rdfs:range``, else lexical profiling; language tag for
``rdf:langString`` through :mod:`.language`), ``concat`` rows for a property whose name is shared
by two name-part columns, object-property rows (by foreign key, composite foreign key, link file
and same record), SKOS value-map rows for coded columns, and the removal of a literal row whose
triples another source's row already produces. Subjects are ``base + class path + key``
(:func:`subject_template`). The order of the steps is in :mod:`.mapper`.
"""
from __future__ import annotations

import itertools
import re
from typing import Any

from rdflib import URIRef
from rdflib.namespace import SKOS

from pipeline.compile.parts import common_element, encloses, repeating_part
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.ontology import Ontology, is_langstring, is_xsd_datatype
from pipeline.table import MappingRow, parse_concat
from pipeline.table.template import placeholder
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.confidence import evidence_line
from pipeline.mappers.offline.fit import _disjoint, domain_evidence, domain_fits, misfits
from pipeline.mappers.offline.iris import function_output
from pipeline.mappers.offline.language import (choose_language, column_language, language_column, language_hint, language_members,
                                                own_language, takes_tagged_string, vocabulary_language)
from pipeline.mappers.offline.names import NameMatcher, reference_words, words
from pipeline.mappers.offline.nested import foreign_key_owners, parent
from pipeline.mappers.offline.profile import DATATYPE_PATTERNS, distinct_values, profile_datatype, value_counts
from pipeline.mappers.offline.skos import match_members, match_value_map

__all__ = ["mark_cross_products", "range_fits", "RowBuilder", "subject_template", "drop_repeated_rows"]


def subject_template(base: str, ontology: Ontology, cls: URIRef, key: tuple[str, ...]) -> str:
    """``base + class path + "/" + {k1}_{k2}``; class path is the class local name, first letter lower-cased."""
    local = re.split(r"[#/:]", str(cls).rstrip("/#"))[-1]
    path = local[:1].lower() + local[1:]
    sep = "" if base.endswith(("/", "#")) else "/"
    return f"{base}{sep}{path}/" + "_".join(placeholder(k) for k in key)


def range_fits(ontology: Ontology, prop: URIRef, cls: URIRef) -> bool:
    """A range of ``prop`` is ``cls``, a superclass of it, or a subclass of it: by ``rdfs:range``
    the referenced entities are then instances of the range (``lentTo`` ranges over ``Patron``,
    ``members.csv`` describes persons: its persons are the patrons)."""
    return any(r in ontology.superclasses(cls) or cls in ontology.superclasses(r) for r in ontology.ranges(prop))


#: A URI as profiling recognises one (an absolute URI with its scheme: ``https://``, ``urn:``, ``mailto:``).
_URI = dict(DATATYPE_PATTERNS)["xsd:anyURI"]


def range_misfits(values: Any, datatype: str) -> int:
    """How many non-empty values (repeats counted) do not fit ``datatype`` (a compact XSD name), for the
    choice among a property's several datatype ranges.

    The lexical checks are :func:`.fit.misfits`'; ``xsd:anyURI`` is judged by what it denotes, a URI
    (XSD 1.1 Part 2, section 3.3.17): a value that is no URI (``Pride and Prejudice``, ``9780141439518``)
    is a misfit, although the anyURI lexical space admits nearly any string. So schema.org's Text or
    URL range (``schema:identifier``) gives text ``xsd:string`` and links ``xsd:anyURI``, where equal
    counts would leave the choice to the order of the IRIs."""
    if datatype == "xsd:anyURI":
        return sum(n for v, n in value_counts(values).items() if v and v.strip() and not _URI.match(v.strip()))
    return sum(misfits(values, {datatype})[0].values())


class RowBuilder:
    """Collects the rows and findings of one case (``rows``, ``findings``); a method per kind of row."""

    def __init__(self, case: Case, ontology: Ontology, matcher: NameMatcher) -> None:
        self.case, self.ont, self.matcher = case, ontology, matcher
        self.rows: list[MappingRow] = []
        self.findings: list[Finding] = []

    def c(self, iri: URIRef | None) -> str | None:
        return None if iri is None else self.ont.compact(iri)

    def template(self, info: SourceInfo, cls: URIRef) -> str:
        """The Subject Generation of ``info``'s entities of ``cls``: :func:`subject_template`, or ``{member}``
        for the primary entity keyed by the member whose values are its IRIs (a JSON-LD ``@id``,
        :attr:`.analysis.SourceInfo.node_iri`; the compiler writes the value as the IRI)."""
        key = info.keys.get(cls) or info.key
        if info.node_iri is not None and cls == info.cls and tuple(key) == (info.node_iri,):
            return placeholder(info.node_iri)
        return subject_template(self.case.base_iri, self.ont, cls, key)

    def basis(self, info: SourceInfo, a: Any) -> str:
        """The basis of a datatype row (:mod:`.confidence`): a name match is ``exact name`` when the
        column's words (without its entity's, see :func:`.names.own_words`) are one of the property's
        names word for word, ``subject key`` when the column keys the entity's subject (its value is
        already in the IRI); other bases as the assignment has them."""
        if a.basis != "name":
            return a.basis
        if a.reference in (info.keys.get(a.cls) or info.key):
            return "subject key"
        return "exact name" if self.matcher.named_exactly(a.reference, info.stem, a.prop) else "name"

    def datatype_rows(self, info: SourceInfo) -> None:
        for a in info.assignments:
            if a.cls in info.borrowed:
                continue
            values = info.data.values(a.reference)
            ranges = sorted(self.ont.datatype_ranges(a.prop))
            reference = a.reference
            if a.datatype is not None:  # the data states it (a JSON-LD term definition, .jsonld)
                dt, ev = a.datatype, f"datatype {a.datatype}: stated by the data's JSON-LD context"
            elif a.iri_of is not None:  # an identifier (.iris): the object is the IRI of the entity it names
                reference = subject_template(self.case.base_iri, self.ont, a.iri_of, (a.reference,))
                dt, ev = "IRI", f"the object is the IRI of the {self.c(a.iri_of)} that {a.reference!r} identifies"
            elif a.function is not None:  # e-mail addresses, telephone numbers (.iris): the function writes the IRI
                dt, ev = "IRI", f"the values are written as IRIs by {a.function}: IRI objects"
            elif a.prop in self.ont.object_properties:  # a column of IRIs (.iris): the values are the objects
                dt, ev = "IRI", f"{self.c(a.prop)} is an owl:ObjectProperty and the values are IRIs: IRI objects"
            elif any(is_langstring(r) for r in ranges):
                dt, ev = "rdf:langString", f"rdfs:range of {self.c(a.prop)} is {self.c(ranges[0])}: language-tagged"
            elif ranges:
                # of several ranges (schema.org's Date or DateTime) the one the values fit, fewest misfits first
                best = min(ranges, key=lambda r: (range_misfits(values, self.c(r)), str(r)))
                dt, ev = self.ont.compact(best), f"datatype from rdfs:range of {self.c(a.prop)}" + (
                    f" (of {', '.join(self.c(r) for r in ranges)}: the one the values fit)" if len(ranges) > 1 else "")
            else:
                dt, ev = profile_datatype(values)
                ev = f"datatype by profiling: {ev}"
            lang = None
            # why the records are of this class, on every row that types them so (the table is what a knowledge
            # engineer reads, and a wrong class makes every row of the source wrong)
            typed = [f"entity class {self.c(a.cls)}: {info.cls_evidence}"] if a.cls == info.cls and info.cls_evidence \
                else []
            evidence = list(a.evidence) + [ev, *typed, f"subject key: {info.key_evidence}"]
            own = own_language(info.data, info.refs, a.reference)
            # a range of rdfs:Literal (or none) admits a language-tagged string, xsd:string does not
            admits_tag = dt in ("xsd:string", "rdfs:Literal") and takes_tagged_string(self.ont, a.prop)
            tags = language_members(info.refs, a.reference)
            if a.language is not None or a.datatype is not None:
                # the data states the tag, or that there is none (a JSON-LD term definition): nothing to detect
                lang = a.language or None
                if lang:
                    dt = "rdf:langString"
                    evidence.append(f"language tag {lang!r}: stated by the data's JSON-LD context")
            elif tags and (dt == "rdf:langString" or admits_tag):
                # a member of a language map is named by its text's language (JSON-LD 1.1 section 4.2.4)
                lang, dt, unsure = tags[a.reference], "rdf:langString", False
                evidence.append(f"language tag {lang!r}: the member name of {a.reference!r}, in an object whose "
                                f"members are all language tags ({', '.join(tags.values())})")
            elif (named := column_language(a.reference, info.refs)) and (dt == "rdf:langString" or admits_tag):
                # the column's name states its language (labelEN beside labelFR): the tag of its text
                lang, dt, unsure = named, "rdf:langString", False
                evidence.append(f"language tag {lang!r}: the last word of the column's name {a.reference!r}")
            elif dt == "rdf:langString" or ((language_hint(info.name) or info.file_lang or own) and admits_tag):
                # the element's own language attribute (cbc:Description/@languageID) tags its text, not another's
                lang_col = (own, f"the element's own attribute {own!r}") if own else \
                    language_column(info.data, info.refs, exclude=(*info.key, a.reference))
                lang, why, unsure = choose_language(info.data, a.reference, info.name, lang_col,
                                                    [r for r in info.refs if r not in info.key],
                                                    vocabulary_language(self.ont, a.prop)
                                                    if dt == "rdf:langString" and ranges else None, info.file_lang)
                evidence.append(why)
                dt = "rdf:langString"
                if unsure:
                    self.findings.append(Finding(
                        "map", str(info.data.source.path), f"language of {a.reference!r} ({self.c(a.prop)}) "
                        f"is unsure: {why}",
                        column="language_tag", value=a.reference,
                        expected="a language column, a language in the file name, text lingua is sure of, or "
                                 "free text of the same records lingua is sure of",
                        severity="warning"))
            # an rdf:langString literal needs its tag (RDF 1.1 Concepts 3.3): without one the row would
            # write ill-typed literals, so it is shown for review instead of asserted
            untagged = dt == "rdf:langString" and not lang
            review = "; ".join(w for w in (
                "no language tag could be determined for this rdf:langString value: write one in the Language Tag "
                "cell (a tag such as en, or a language column {col})" if untagged else None, a.review) if w) or None
            self.rows.append(MappingRow(data_reference=reference, source_file=info.name,
                                        ontology_property=self.c(a.prop), entity_class=self.c(a.cls),
                                        subject_template=self.template(info, a.cls), datatype=dt,
                                        language_tag=lang, confidence=round(min(1.0, a.score), 3),
                                        function_name=a.function, function_output=function_output(a.function),
                                        evidence=[evidence_line(self.basis(info, a), a.score), *evidence],
                                        review=review))

    def concat_rows(self, info: SourceInfo, datatype_props: list[URIRef]) -> None:
        for cls in sorted({a.cls for a in info.assignments} - info.borrowed):
            used = {a.prop for a in info.assignments if a.cls == cls}
            mine = [a for a in info.assignments if a.cls == cls]
            for p in datatype_props:
                if p in used or domain_fits(self.ont, p, cls) < 1.0:
                    continue
                heads = [set(n.split()) for n in self.matcher.names(p)]
                for a, b in itertools.combinations(mine, 2):
                    wa, wb = set(reference_words(a.reference)), set(reference_words(b.reference))
                    if any(h and h <= wa and h <= wb for h in heads):
                        ref = f"concat({a.reference},{b.reference})"
                        self.rows.append(MappingRow(
                            data_reference=ref, source_file=info.name, ontology_property=self.c(p),
                            entity_class=self.c(cls), subject_template=self.template(info, cls),
                            datatype=self.c(sorted(r for r in self.ont.ranges(p) if is_xsd_datatype(r))[0])
                            if any(is_xsd_datatype(r) for r in self.ont.ranges(p)) else "xsd:string",
                            confidence=0.6, evidence=[evidence_line("name", 0.6),
                                                      f"{self.c(p)} names what {a.reference!r} and "
                                                      f"{b.reference!r} share ({sorted(heads[0])}); no single "
                                                      "column matched it"]))
                        used.add(p)
                        break

    def object_rows(self, infos: list[SourceInfo], object_props: list[URIRef]) -> None:
        by_name = {i.name: i for i in infos}

        def best_prop(ref_text: str, dom: URIRef, rng: URIRef) -> tuple[URIRef | None, float]:
            cands = [p for p in object_props if domain_fits(self.ont, p, dom) > 0 and range_fits(self.ont, p, rng)]
            if not cands:
                return None, 0.0
            scored = sorted(((self.matcher.score(ref_text, p), p) for p in cands), key=lambda x: -x[0])
            return scored[0][1], scored[0][0]

        for s in infos:
            if s.link:
                (ra, fa), (rb, fb) = list(s.fks.items())[:2]
                ta, tb = by_name[fa.target], by_name[fb.target]
                for (r1, f1, t1), (r2, f2, t2) in (((ra, fa, ta), (rb, fb, tb)), ((rb, fb, tb), (ra, fa, ta))):
                    if t1.cls is None or t2.cls is None:
                        continue
                    p, score = best_prop(" ".join(words(r2)), t1.cls, t2.cls)
                    if p is None:
                        continue
                    self.rows.append(MappingRow(
                        data_reference=r2, source_file=s.name, ontology_property=self.c(p),
                        entity_class=self.c(t1.cls), related_entity_class=self.c(t2.cls),
                        subject_template=self.template(t1, t1.cls),
                        join_condition=f"{s.stem}.{r1}=={t1.stem}.{f1.target_ref} and {s.stem}.{r2}=={t2.stem}.{f2.target_ref}",
                        confidence=round(0.5 + 0.5 * score, 3),
                        evidence=[evidence_line("key", 0.5 + 0.5 * score), f"link file {s.name}: {r1!r} values in {t1.name}.{f1.target_ref}, {r2!r} values "
                                  f"in {t2.name}.{f2.target_ref}", f"{self.c(p)} has domain "
                                  f"{self.c(t1.cls)} and range {self.c(t2.cls)}"]))
                    break
                continue
            if s.cls is None:
                continue
            for ref, fk in s.fks.items():
                t = by_name[fk.target]
                if t.cls is None:
                    continue
                # a foreign key in an occurrence of a repeating part relates that occurrence's entity first
                p, score, owner = None, 0.0, s.cls
                for owner in foreign_key_owners(s, ref, t.cls):
                    if ref in s.self_relations and owner == s.cls:  # the hierarchy's relation (hierarchy.py)
                        p, score = s.self_relations[ref], self.matcher.score(" ".join(reference_words(ref)),
                                                                              s.self_relations[ref])
                        break
                    p, score = self.exact_relation(ref, owner, t.cls, {i.cls for i in infos} - {t.cls, None},
                                                   object_props)
                    if p is None:
                        p, score = best_prop(" ".join(reference_words(ref)), owner, t.cls)
                    if p is not None:
                        break
                if p is None:
                    self.reverse_key_row(s, t, ref, fk, best_prop)
                    continue
                self.rows.append(MappingRow(
                    data_reference=ref, source_file=s.name, ontology_property=self.c(p), entity_class=self.c(owner),
                    related_entity_class=self.c(t.cls), subject_template=self.template(s, owner),
                    join_condition=f"{s.stem}.{ref}=={t.stem}.{fk.target_ref}", confidence=round(0.5 + 0.5 * score, 3),
                    evidence=[evidence_line("key", 0.5 + 0.5 * score), f"inclusion dependency: values of {s.name}.{ref} are "
                              f"{_included_share(s, fk)} in {t.name}.{fk.target_ref} "
                              f"({'key' if (fk.target_ref,) == tuple(t.key) else 'a unique column'} of {t.name})",
                              *([f"{ref!r} is a member of each occurrence of {parent(ref)!r}, whose entity is a "
                                 f"{self.c(owner)}"] if owner != s.cls else []),
                              f"{self.c(p)}: {domain_evidence(self.ont, p, owner)}, range fits "
                              f"{self.c(t.cls)}; name similarity {score:.2f}"],
                    review=_dangling_review(s, t, fk)))
            for ck in s.cfks:
                t = by_name[ck.target]
                for c in sorted(s.borrowed & ({t.cls} - {None})):
                    for other in sorted(set(s.keys) - s.borrowed):
                        self.composite_row(s, t, ck, c, other, best_prop)
                if t.cls is not None and t.cls not in s.borrowed and s.cls not in s.borrowed:
                    self.composite_reference_row(s, t, ck, best_prop)
            classes = sorted(set(s.keys) - {s.cls} - s.borrowed)
            # two nested entities, one inside the other's object (a person in a post of members[]; an element in
            # another element, XML's separator being '/'), are related like the record's entity and a nested
            # one, when a property's domain names the outer
            place = {c: {parent(a.reference) for a in s.assignments if a.cls == c} for c in classes}
            inner = [(a, b) for a in classes for b in classes if a != b and len(place[a]) == 1 == len(place[b])
                     and next(iter(place[a])) and encloses(s.data, next(iter(place[a])), next(iter(place[b])))]
            pairs = [pair for o in classes for pair in ((s.cls, o), (o, s.cls))]
            pairs += [pair for a, b in inner for pair in ((a, b), (b, a))]
            # and two read in one object (an order line and the product its sku names, both in lines[]): the
            # members of one occurrence describe things of that occurrence, related as the vocabulary says
            pairs += [pair for a in classes for b in classes if str(a) < str(b) and len(place[a]) == 1 == len(place[b])
                      and next(iter(place[a])) and place[a] == place[b] for pair in ((a, b), (b, a))]
            # an entity per occurrence of a repeating part is related to its owner's (the record's, or the
            # enclosing occurrence's for a part inside another) by the property the part's name chose
            # (occurrences.py), one way only
            pairs = [(d, r) for d, r in pairs if not (d in s.part_relations and r == s.part_owners.get(d, s.cls))]
            if s.cls not in s.borrowed:
                for dom, rng in pairs:
                    part = s.part_relations.get(rng) if dom == s.part_owners.get(rng, s.cls) else None
                    p, score = (part[0], part[2]) if part else best_prop(" ".join(words(self.c(rng) or "")), dom, rng)
                    if p is None or (s.cls not in (dom, rng) and domain_fits(self.ont, p, dom) < 1.0):
                        continue
                    # the only object property between the two classes is forced; one of several is a
                    # guess by the name of the range class, or chosen by the name of the repeating part
                    several = sum(1 for q in object_props if domain_fits(self.ont, q, dom) > 0
                                  and range_fits(self.ont, q, rng)) > 1
                    basis = ("name" if part else "record choice") if several else "record"
                    why = ([f"each occurrence of the repeating part {part[1]!r} is a {self.c(rng)}; the part's name "
                            f"fits {self.c(p)} (similarity {score:.2f})"] if part else [])
                    # the same record: both entities' keys agree (child key, then parent key); when one
                    # key contains the other (shape_id in shape_id + shape_pt_sequence) the smaller suffices
                    kd, kr = tuple(s.keys.get(dom) or s.key), tuple(s.keys.get(rng) or ())
                    nested = [k for k in (kd, kr) if k and set(k) <= set(kd) & set(kr)]
                    key = nested[0] if nested else tuple(dict.fromkeys((*kd, *kr)))
                    self.rows.append(MappingRow(
                        ontology_property=self.c(p), source_file=s.name, entity_class=self.c(dom),
                        related_entity_class=self.c(rng), subject_template=self.template(s, dom),
                        join_condition=", ".join(f"{k}=={k}" for k in key), confidence=round(0.4 + 0.4 * score, 3),
                        evidence=[evidence_line(basis, score),
                                  f"{self.c(dom)} and {self.c(rng)} come from the same record of {s.name}", *why,
                                  f"{self.c(p)} has domain {self.c(dom)} and range {self.c(rng)}"]))

    def exact_relation(self, ref: str, owner: URIRef, target: URIRef, described: set[URIRef],
                       object_props: list[URIRef]) -> tuple[URIRef | None, float]:
        """The object property a foreign key column names word for word, when its range is not the referenced
        class: ``stops.parent_station`` (values in ``stops.stop_id``) is ``gtfs:parentStation`` ("Parent
        Station", domain ``gtfs:Stop``, range ``gtfs:Station``), not the one of the properties ranging over
        stops whose name fits best (``gtfs:destinationStop``). ``rdfs:range`` entails that the referenced
        records are of the range class too (RDF 1.1 Semantics, rdfs3); it forbids nothing, so the property fits
        unless a range is declared disjoint with the referenced class or is the class another source describes
        (the values would then be that source's records, not these). The domain must fit ``owner``.
        ``(None, 0.0)`` when no property is so named."""
        found = []
        for p in object_props:
            rng = self.ont.ranges(p)
            if not rng or domain_fits(self.ont, p, owner) <= 0 or rng & described \
                    or _disjoint(self.ont, rng, self.ont.superclasses(target)):
                continue
            if self.matcher.named_exactly(ref, "", p):
                found.append((self.matcher.score(" ".join(reference_words(ref)), p), p))
        if len(found) != 1:  # two properties of that very name decide nothing
            return None, 0.0
        return found[0][1], found[0][0]

    def reverse_key_row(self, s: SourceInfo, t: SourceInfo, ref: str, fk: Any, best_prop: Any) -> None:
        """Relation from the referenced entity (``t``'s class) to the referencing one (``s``'s), joined on
        the foreign key: a row on ``t`` with ``t.key==s.fk``, subject from ``t``'s template.

        A foreign key says which parent each child record belongs to (one parent, many children:
        ``distributions.dataset_id`` -> ``datasets.identifier``); the vocabulary may state that relation
        from the parent (``dcat:distribution``: domain ``dcat:Dataset``, range ``dcat:Distribution``;
        ``schema:hasPart``, ``org:hasMember``). The statement is the same fact read the other way, so
        it is written when no property leads from the child to the parent. Of several such properties
        the one whose name fits the child's class best is taken (the property names what it points to).
        """
        p, score = best_prop(" ".join(words(self.c(s.cls) or "")), t.cls, s.cls)
        if p is None:
            return
        raw = 0.5 + 0.5 * score
        self.rows.append(MappingRow(
            source_file=t.name, ontology_property=self.c(p), entity_class=self.c(t.cls),
            related_entity_class=self.c(s.cls), subject_template=self.template(t, t.cls),
            join_condition=f"{t.stem}.{fk.target_ref}=={s.stem}.{ref}", confidence=round(raw, 3),
            review=_dangling_review(s, t, fk),
            evidence=[evidence_line("key", raw), f"inclusion dependency: values of {s.name}.{ref} are {_included_share(s, fk)} in "
                      f"{t.name}.{fk.target_ref} (key of {t.name}): each {self.c(s.cls)} of {s.name} belongs to "
                      f"one {self.c(t.cls)}", f"no object property leads from {self.c(s.cls)} to {self.c(t.cls)}; "
                      f"{self.c(p)} has domain {self.c(t.cls)} and range {self.c(s.cls)}: the relation stated from "
                      f"the referenced entity; name similarity {score:.2f}"]))

    def composite_row(self, s: SourceInfo, t: SourceInfo, ck: Any, cls: URIRef, other: URIRef, best_prop: Any) -> None:
        """Relation from ``cls`` (described by ``t``) to ``other`` (described by ``s``), joined on the
        composite key: ``t.k1==s.k1 and t.k2==s.k2``; subject from ``t``'s template."""
        p, score = best_prop(" ".join(words(self.c(other) or "")), cls, other)
        if p is None:
            return
        self.rows.append(MappingRow(
            source_file=t.name, ontology_property=self.c(p), entity_class=self.c(cls),
            related_entity_class=self.c(other), subject_template=self.template(t, cls),
            join_condition=" and ".join(f"{t.stem}.{a}=={s.stem}.{b}" for a, b in zip(ck.target_refs, ck.refs)),
            confidence=round(0.5 + 0.4 * score, 3),
            evidence=[evidence_line("key", 0.5 + 0.4 * score), f"composite foreign key: every ({', '.join(ck.refs)}) of {s.name} is a key of {t.name}, "
                      f"which describes {self.c(cls)}; {s.name} only refers to those entities",
                      f"{self.c(other)} comes from {s.name}; {self.c(p)} has domain {self.c(cls)} and "
                      f"range {self.c(other)}"]))

    def composite_reference_row(self, s: SourceInfo, t: SourceInfo, ck: Any, best_prop: Any) -> None:
        """Relation from ``s``'s entity to the ``t`` record its composite foreign key names (``shipments(order_id,
        line_no)`` -> ``order_lines``): ``s.k1==t.k1 and s.k2==t.k2``, subject from ``s``'s template; the property
        leads from ``s``'s class to ``t``'s, else (no such property) from ``t``'s to ``s``'s, the same fact read
        the other way (as :meth:`reverse_key_row` for a single column). Nothing when no property relates them."""
        p, score = best_prop(" ".join(words(self.c(t.cls) or "")), s.cls, t.cls)
        forward = p is not None
        if not forward:
            p, score = best_prop(" ".join(words(self.c(s.cls) or "")), t.cls, s.cls)
            if p is None:
                return
        dom, rng, a, b, ka, kb = (s, t, s, t, ck.refs, ck.target_refs) if forward else (t, s, t, s, ck.target_refs, ck.refs)
        raw = 0.5 + 0.5 * score
        self.rows.append(MappingRow(
            source_file=dom.name, ontology_property=self.c(p), entity_class=self.c(dom.cls),
            related_entity_class=self.c(rng.cls), subject_template=self.template(dom, dom.cls),
            join_condition=" and ".join(f"{a.stem}.{x}=={b.stem}.{y}" for x, y in zip(ka, kb)),
            confidence=round(raw, 3),
            evidence=[evidence_line("key", raw), f"composite foreign key: every ({', '.join(ck.refs)}) of {s.name} is "
                      f"one of {t.name}'s, a key of {t.name}", f"{self.c(p)} has domain {self.c(dom.cls)} and range "
                      f"{self.c(rng.cls)}; name similarity {score:.2f}"]))

    def skos_rows(self, info: SourceInfo, object_props: list[URIRef]) -> None:
        """Value-map rows of ``info``'s coded columns: codes that are concepts of a SKOS scheme, for a property
        of range ``skos:Concept``, or that name the declared members of a class, for a property whose range is
        that class (an enumeration: ``status`` ``SCH`` -> the concept of notation ``SCH``, an instance of
        ``s:EventStatusType``, the range of ``s:eventStatus``; :func:`.skos.match_members`). Of several such
        properties, the one whose range covers most codes, then the best-named."""
        if info.cls is None or info.cls in info.borrowed:
            return
        assigned = {a.reference for a in info.assignments}
        usable = [p for p in object_props if domain_fits(self.ont, p, info.cls) > 0]
        concept_props = [p for p in usable if SKOS.Concept in self.ont.ranges(p)]
        enumerations = [(p, r) for p in usable if SKOS.Concept not in self.ont.ranges(p)
                        for r in sorted(self.ont.ranges(p)) if r in self.ont.enumerated_classes]
        if not concept_props and not enumerations:
            return
        for ref in info.refs:
            if ref in info.fks or ref in info.key or ref == info.lang_col:
                continue
            text = " ".join(reference_words(ref))
            found = []
            vm = match_value_map(self.ont, ref, info.data.values(ref)) if concept_props else None
            if vm is not None:
                score, p = max((self.matcher.score(text, p), p) for p in concept_props)
                found.append((vm.coverage, score, str(p), p, vm, SKOS.Concept))
            for p, r in enumerations:
                vm = match_members(self.ont, ref, info.data.values(ref), r)
                if vm is not None:
                    found.append((vm.coverage, self.matcher.score(text, p), str(p), p, vm, r))
            if not found:
                continue
            _, score, _, p, vm, rng = max(found, key=lambda f: f[:3])
            if ref in assigned and score < 0.6:
                continue
            name = re.sub(r"[^A-Za-z0-9]", "", "".join(w.capitalize() for w in words(ref, expand=False)))
            self.rows.append(MappingRow(
                data_reference=ref, source_file=info.name, ontology_property=self.c(p),
                entity_class=self.c(info.cls), related_entity_class=self.c(rng),
                subject_template=self.template(info, info.cls), function_name=name[:1].lower() + name[1:] + "SKOS",
                function_output=vm.output(), confidence=round(0.5 * vm.coverage + 0.5 * score, 3),
                evidence=[evidence_line("value map", 0.5 * vm.coverage + 0.5 * score), vm.evidence,
                          f"{self.c(p)} ranges over {self.c(rng)}; name similarity {score:.2f}"]))


def _included_share(s: SourceInfo, fk: Any) -> str:
    """``"all"``, or ``"2 of 3 distinct values"`` for a foreign key with dangling values."""
    if not fk.missing:
        return "all"
    n = len(distinct_values(s.data.values(fk.reference)))
    return f"{n - len(fk.missing)} of {n} distinct values"


def _dangling_review(s: SourceInfo, t: SourceInfo, fk: Any) -> str | None:
    """Why a relation joined on a foreign key with dangling values (:func:`.keys.find_foreign_keys`) needs a
    person: the records holding them get no link, and the inclusion that makes the column a foreign key
    holds for most values only."""
    if not fk.missing:
        return None
    shown = ", ".join(repr(v) for v in fk.missing[:3]) + (", ..." if len(fk.missing) > 3 else "")
    n = len(distinct_values(s.data.values(fk.reference)))
    return (f"{len(fk.missing)} of the {n} distinct values of {s.name}.{fk.reference} "
            f"({shown}) {'is' if len(fk.missing) == 1 else 'are'} not in {t.name}.{fk.target_ref}: the records holding them get no link; confirm that "
            f"{fk.reference!r} refers to {t.name}")


def _repeats(data: Any, reference: str, memo: dict[tuple[int, str], bool]) -> bool:
    """``reference`` holds several values in some record of ``data`` (a repeated element)."""
    key = (id(data), reference)
    if key not in memo:
        memo[key] = any(len(r.get(reference, ())) > 1 for r in data.records)
    return memo[key]


def mark_cross_products(rows: list[MappingRow], data: dict[str, Any]) -> None:
    """Mark for review each row of an XML source whose references include two that repeat within one record.

    An XPath reference that selects several nodes gives one term per node, and an RML engine
    combines the terms of two such references in every pairing (RML: a term map gives one term per
    value of its reference; a triple is made for each combination of subject and object): a
    document holding 25 operational points read as one record gives each point the names of all of
    them. The reading is wrong whatever the names say; the file needs an iterator at the repeated
    element (the file listed once per kind of record), which the row's review mark says. References
    inside one repeating part, or parts nested in one another, are read per occurrence by the
    compiler and are not marked. JSON
    sources are left alone: their nested arrays are read one object at a time
    (:mod:`.nested`)."""
    memo: dict[tuple[int, str], bool] = {}
    for row in rows:
        src = data.get(row.source_file or "")
        if src is None or src.source.format != "xml":
            continue
        subject = set(re.findall(r"\{([^{}]+)\}", row.subject_template or ""))
        value = set(parse_concat(row.data_reference) or ([row.data_reference] if row.data_reference else []))
        multi = sorted(r for r in subject | value if _repeats(src, r, memo))
        if _one_chain_of_parts(src, multi):
            continue
        repeated_values = [r for r in value - subject if r in multi]
        # a value and what qualifies it, read from one element (price and price/@currency), are paired
        # per element by the compiler (pipeline.compile.elements.pair_per_element): together they count as one
        paired = common_element(repeated_values) is not None
        if len(multi) - (len(repeated_values) - 1 if paired else 0) > 1:
            why = (f"{', '.join(multi)} each repeat within one record of {row.source_file}: their values would be "
                   "combined as a cross product; read the repeated element as records of their own (list the file "
                   "in the manifest once more with an iterator at it)")
            row.review = f"{row.review}; {why}" if row.review else why


def _one_chain_of_parts(src: Any, refs: list[str]) -> bool:
    """Every reference of ``refs`` lies in a repeating part, and those parts nest one in another
    (``Line`` and ``Line/Discount``; one part counts too): the compiler reads them per occurrence of
    the innermost part, each value with those of its own enclosing occurrences
    (:mod:`pipeline.compile.views`), so they are not combined as a cross product. Parts side by
    side (``Line`` and ``Tag``) are."""
    parts = [repeating_part(src, src.source.iterator, r) for r in refs]
    if len(refs) < 2 or any(p is None for p in parts):
        return False
    deepest = max(parts, key=len)
    return all(p == deepest or encloses(src, p, deepest) for p in parts)


def _statements(data: Any, row: MappingRow) -> set[tuple[tuple[str, ...], str]] | None:
    """``(subject key values, value)`` of every record for a literal row, ``None`` if not computable."""
    keys = re.findall(r"\{([^{}]+)\}", row.subject_template or "")
    if not keys or not row.data_reference:
        return None
    out = set()
    for rec in data.records:
        vals = [rec.get(k) or [""] for k in (*keys, row.data_reference)]
        if any(len(v) != 1 for v in vals):
            return None  # repeated values: not a plain column
        out.add((tuple(v[0] for v in vals[:-1]), vals[-1][0]))
    return out


def drop_repeated_rows(rows: list[MappingRow], data: dict[str, Any]) -> list[MappingRow]:
    """Drop a literal row whose triples another source's row already produces.

    Two rows with the same property, class, subject template, data reference and datatype read
    from different files (``city_en.csv`` and ``city_es.csv`` both carry ``ID``) write the same
    triples when one file's (key, value) pairs are a subset of the other's: the subset row adds
    nothing (BLINKG CN4) and is dropped; the kept row's evidence says so.
    """
    kept: list[MappingRow] = []
    for row in rows:
        twin = next((k for k in kept if k.source_file != row.source_file and row.source_file in data
                     and k.source_file in data and (k.ontology_property, k.entity_class, k.subject_template,
                                                    k.data_reference, k.datatype, k.language_tag)
                     == (row.ontology_property, row.entity_class, row.subject_template, row.data_reference,
                         row.datatype, row.language_tag)), None)
        if twin is not None:
            mine, theirs = _statements(data[row.source_file], row), _statements(data[twin.source_file], twin)
            if mine is not None and theirs is not None and (mine <= theirs or theirs <= mine):
                if theirs < mine:  # keep the row that says more
                    kept[kept.index(twin)] = row
                    twin, row = row, twin
                twin.evidence.append(f"{row.source_file} {row.data_reference!r} gives the same triples "
                                     f"({len(mine & theirs)} statements): not mapped twice")
                continue
        kept.append(row)
    return kept
