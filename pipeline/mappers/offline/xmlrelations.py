"""Object-property rows of document-like XML records (steps 3 and 4 of :mod:`.xmldoc`).

Value maps (an object property whose label names a concept scheme takes a coded element, through
a packaged code-list crosswalk or concept notations), and same-record relations (object properties
between the record's entities, range and domain read from ``rdfs:range``/``rdfs:domain``, OWL
restrictions, labels and comments, made specific by codes or a linear chain of subclasses).
The class-hierarchy helpers here serve the datatype rows of :mod:`.xmldoc` too.
"""
from __future__ import annotations

import re

from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS

from pipeline.fno.crosswalk import crosswalks
from pipeline.ontology import Ontology
from pipeline.table import MappingRow
from pipeline.mappers.offline.codeclass import coded_subclass
from pipeline.mappers.offline.names import words
from pipeline.mappers.offline.skos import concept_schemes, match_value_map

__all__ = ["RelationsMixin", "restriction_classes", "direct_subclasses", "most_specific"]

#: Verbs and function words dropped from an object property's label to name its range.
_VERBS = {"has", "is", "of", "to", "for", "by", "describes", "describe", "refers", "refer", "uses", "use",
          "concerns", "concern", "submissions", "the", "a", "an", "in", "into", "divided", "scope", "played"}


def restriction_classes(ontology: Ontology, prop: URIRef) -> set[URIRef]:
    """Named classes with an ``owl:Restriction`` superclass ``owl:onProperty prop`` (or a sub-property)."""
    g = ontology.graph
    out: set[URIRef] = set()
    for r in g.subjects(OWL.onProperty, prop):
        for c in g.subjects(RDFS.subClassOf, r):
            if isinstance(c, URIRef):
                out.add(c)
    return out


def direct_subclasses(ontology: Ontology, cls: URIRef) -> list[URIRef]:
    """Named classes declared ``rdfs:subClassOf cls`` (other than ``cls``), sorted."""
    return sorted(s for s in ontology.graph.subjects(RDFS.subClassOf, cls) if isinstance(s, URIRef) and s != cls)


def most_specific(ontology: Ontology, cls: URIRef) -> URIRef:
    """Walk down while ``cls`` has exactly one named subclass (``Document -> Notice -> ResultNotice``)."""
    seen = {cls}
    while True:
        subs = direct_subclasses(ontology, cls)
        if len(subs) != 1 or subs[0] in seen:
            return cls
        cls = subs[0]
        seen.add(cls)


class RelationsMixin:
    """Methods of :class:`.xmldoc.DocumentMapper` that write value-map and relation rows (steps 3-4).

    Relies on the document mapper's ``info``, ``ont``, ``m``, ``classes``, ``oprops``, ``entities``,
    ``suffix``, ``rows``, ``abs``, ``c``, ``entity``, ``template``, ``join`` and ``_subject_ev``.
    """

    # -- 3: value maps ------------------------------------------------------------
    def _class_named_in(self, prop: URIRef) -> tuple[URIRef | None, str]:
        text = set(words(self.ont.verbalise(prop), expand=False))
        hits = [c for c in self.classes if (n := self.m.names(c)) and set(n[0].split()) <= text]
        hits.sort(key=lambda c: -len(self.m.names(c)[0]))
        if hits:
            return hits[0], f"{self.c(hits[0])} is named in the label/comment of {self.c(prop)}"
        restricted = sorted(restriction_classes(self.ont, prop))
        if restricted:
            return restricted[0], f"{self.c(restricted[0])} has an OWL restriction on {self.c(prop)}"
        return None, ""

    def _coded(self, scheme: URIRef) -> tuple[str, dict[str, str], str] | None:
        """Coded element feeding ``scheme``: ``(reference, code -> concept IRI, evidence)``."""
        concepts = {re.split(r"[#/]", str(c))[-1]: str(c) for c in concept_schemes(self.ont).get(scheme, [])}
        for cw in crosswalks():
            if cw.target_scheme.rstrip("/") != str(scheme).rstrip("/"):
                continue
            for r in self.info.refs:
                if r.endswith("/@listURI") and any(cw.source_list in v for v in self.info.data.values(r)):
                    return r[:-len("/@listURI")], concepts, (
                        f"listURI of {r[:-len('/@listURI')]} names code list {cw.source_list}, which crosswalk "
                        f"{cw.name!r} maps onto <{scheme}>")
        for r in self.info.refs:
            if "@" in r:
                continue
            vm = match_value_map(self.ont, r, self.info.data.values(r), min_coverage=1.0)
            if vm is not None and vm.scheme == scheme:
                return r, vm.mapping, vm.evidence
        return None

    def value_map_rows(self) -> None:
        schemes = concept_schemes(self.ont)
        for prop in self.oprops:
            rng = self.ont.ranges(prop)
            if rng and SKOS.Concept not in rng:
                continue
            pw = [w for w in words(self.m.names(prop)[0]) if w not in ("has", "is")]
            best, bs = None, 0.0
            for s in schemes:
                sw = words(re.split(r"[#/]", str(s).rstrip("/#"))[-1])
                score = len(set(pw) & set(sw)) / len(set(pw)) if pw else 0.0
                if score > bs:
                    best, bs = s, score
            if best is None or bs < 0.99:
                continue
            coded = self._coded(best)
            if coded is None:
                continue
            ref, mapping, cev = coded
            cls, why = self._class_named_in(prop)
            if cls is None:
                continue
            self.entity(cls, f"{self.c(prop)} value map")
            name = "".join(w.capitalize() for w in pw)
            self.rows.append(MappingRow(
                data_reference=None, source_file=self.info.name, ontology_property=self.c(prop),
                entity_class=self.c(cls), related_entity_class="skos:Concept", subject_template=self.template(cls),
                function_name=name[:1].lower() + name[1:] + "()",
                function_output=" <br> ".join(f"{k}: <{v}>" for k, v in sorted(mapping.items())),
                confidence=round(0.5 + 0.5 * bs, 3),
                evidence=[f"label of {self.c(prop)} names concept scheme <{best}>", cev,
                          f"input {self.abs(ref)} (left to the compiler, which reads it through its listURI)",
                          f"class {self.c(cls)}: {why}", self._subject_ev(cls)]))

    # -- 4: same-record relations ------------------------------------------------------
    def _specialise(self, base: URIRef, why: str) -> tuple[URIRef, str]:
        """``base`` made specific: by the records' codes when a code list tells its subclasses apart
        (:mod:`.codeclass`), else down a linear chain of subclasses (:func:`most_specific`)."""
        coded = coded_subclass(self.ont, self.info.data, self.info.refs, base)
        if coded is not None:
            return coded[0], f"{why}; {coded[1]}"
        return most_specific(self.ont, base), why

    def range_of(self, prop: URIRef) -> tuple[URIRef | None, str]:
        rng = sorted(r for r in self.ont.ranges(prop) if r in self.ont.classes and r != SKOS.Concept)
        if rng:
            return self._specialise(rng[0], f"rdfs:range {self.c(rng[0])}")
        label = [w for w in words(self.m.names(prop)[0]) if w not in _VERBS]
        if not label:
            return None, ""
        heads = [c for c in self.classes if (n := self.m.names(c)) and n[0].split()[-1] == label[-1]]
        if heads:  # the head noun of the label names the range ("... divided into lot" -> Lot)
            heads.sort(key=lambda c: (len(self.m.names(c)[0].split()), str(c)))
            return self._specialise(heads[0], f"{self.c(heads[0])} is the head noun {label[-1]!r} of the label "
                                              f"of {self.c(prop)}")
        named = [c for c in self.classes if (n := self.m.names(c)) and set(label) <= set(n[0].split())]
        if named:  # every content word of the label is in the class name ("uses technique" -> TechniqueUsage)
            named.sort(key=lambda c: (len(self.m.names(c)[0].split()), str(c)))
            return self._specialise(named[0], f"the label words {label} of {self.c(prop)} name {self.c(named[0])}")
        text = " ".join(label)
        best = max(((self.m.score(text, c), c) for c in self.classes), default=(0.0, None))
        if best[1] is None or best[0] < 0.6:
            return None, ""
        return self._specialise(best[1], f"{self.c(best[1])} named by the label of {self.c(prop)} ({best[0]:.2f})")

    def domain_of(self, prop: URIRef, target: URIRef) -> tuple[URIRef | None, str]:
        mine = list(self.entities)
        doms = self.ont.domains(prop)
        if doms:
            if len(doms) > 2:
                return None, ""  # a generic property (union domain): not evidence of a relation here
            hits = [e for e in mine if self.ont.superclasses(e) & doms]
            return (hits[0], f"rdfs:domain of {self.c(prop)}") if hits else (None, "")
        restricted = restriction_classes(self.ont, prop)
        hits = [e for e in mine if self.ont.superclasses(e) & restricted]
        if hits:
            return hits[0], f"{self.c(hits[0])} has an OWL restriction on {self.c(prop)}"
        text = set(words(self.ont.comment(prop), expand=False))
        for sup in self.ont.superclasses(target):
            text |= set(words(self.ont.comment(sup), expand=False))
        hits = [e for e in mine if e != target and (n := self.m.names(e)) and set(n[0].split()) <= text]
        if hits:
            return hits[0], f"{self.c(hits[0])} is named in the comments of {self.c(prop)} / {self.c(target)}"
        return None, ""

    def relation_rows(self) -> None:
        """Relations from the record's entities, then (one hop) from the entities they reach when a
        declared ``rdfs:domain`` covers those; of a property and its sub-property linking the same
        pair of classes only the super-property is kept."""
        found: dict[tuple[URIRef, URIRef], list[tuple[URIRef, str, str]]] = {}
        for hop in (0, 1):
            for prop in self.oprops:
                if SKOS.Concept in self.ont.ranges(prop) or (hop and not self.ont.domains(prop)):
                    continue
                target, rwhy = self.range_of(prop)
                if target is None:
                    continue
                dom, dwhy = self.domain_of(prop, target)
                if dom is None or dom == target or any(p == prop for p, _, _ in found.get((dom, target), [])):
                    continue
                found.setdefault((dom, target), []).append((prop, dwhy, rwhy))
            for _, target in list(found):
                if hop == 0 and target not in self.entities:
                    self.entity(target, "reached by a relation")
        # relations from per-occurrence entities first: a range class no row generates is then
        # minted per occurrence too (the compiler takes the first row's IRI convention)
        for (dom, target), cands in sorted(found.items(), key=lambda kv: kv[0][0] not in self.suffix):
            props = {p for p, _, _ in cands}
            general = [c for c in cands if not (self.ont.superproperties(c[0]) - {c[0]}) & props]
            for prop, dwhy, rwhy in general:
                self._relation(prop, dom, target, dwhy, rwhy)

    def _relation(self, prop: URIRef, dom: URIRef, target: URIRef, dwhy: str, rwhy: str) -> None:
        self.rows.append(MappingRow(
                source_file=self.info.name, ontology_property=self.c(prop), entity_class=self.c(dom),
                related_entity_class=self.c(target), subject_template=self.template(dom), join_condition=self.join(),
                confidence=0.6, evidence=[f"{self.c(dom)} and {self.c(target)} are described by the same record",
                                          f"domain: {dwhy}", f"range: {rwhy}", self._subject_ev(dom)]))
