"""The offline mapper: a deterministic mapping table from data and ontology evidence alone.

No network, no LLM. A JSON file whose fields are wrapped in envelopes is mapped through its unwrapped
view (:mod:`.envelopes`), an XML file of several kinds of record kind by kind (:mod:`.containers`).
This module runs the decisions in order: keys and foreign keys
(:mod:`.keys`), document-like XML records (:mod:`.xmldoc`), the primary class of each source
(:mod:`.classes`), property matching (:mod:`.properties`, :mod:`.nested`), identifier keys
(:mod:`.identity`), assignment by elimination (:mod:`.elimination`), then the rows (:mod:`.rows`:
datatype-property rows with language tags from :mod:`.language`, ``concat`` rows, object-property
rows by foreign key, composite foreign key, link file and same record, SKOS value maps for coded
columns), transformation functions (:mod:`.functions`) and what is left unmapped as findings
(:mod:`.unmapped`, in the provenance's ``findings``, which a run adds to ``audit.md``).
:mod:`.analysis` lists the decisions and holds their records; :mod:`.fit`, :mod:`.profile` and
:mod:`.names` hold the measures they share. Subjects are ``base + class path + key``
(``http://example.org/person/{ID}``). Every row carries its evidence and a confidence.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS

from pipeline import __version__
from pipeline.findings import Finding
from pipeline.ontology import Ontology
from pipeline.table import MappingTable
from pipeline.mappers.contract import MapInput, MapResult
from pipeline.mappers.registry import register
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.classes import choose_class, class_from_references, type_column
from pipeline.mappers.offline.confidence import basis_of, calibrate_rows
from pipeline.mappers.offline.containers import Kind, rewrite, split
from pipeline.mappers.offline.doubts import mark_doubtful_rows
from pipeline.mappers.offline.elimination import assign_by_elimination
from pipeline.mappers.offline.envelopes import Unwrapped, unwrap
from pipeline.mappers.offline.envelopes import rewrite as write_on_file
from pipeline.mappers.offline.features import describe_rows
from pipeline.mappers.offline.functions import propose_functions
from pipeline.mappers.offline.geojson import assign_positions, geojson_type_members, point_positions
from pipeline.mappers.offline.identity import id_like, name_words, prefer_identifier_key
from pipeline.mappers.offline.iris import assign_identifier_iris, assign_iri_columns
from pipeline.mappers.offline.hierarchy import class_from_hierarchy
from pipeline.mappers.offline.keys import (analyse_keys, find_composite_keys, find_foreign_keys,
                                           find_foreign_keys_into_new_keys, find_foreign_keys_named_by_relations,
                                           find_self_references, key_by_references, one_to_many_keys)
from pipeline.mappers.offline.jsonld import context_assignments, node_iri
from pipeline.mappers.offline.kinds import (RecordKind, kind_class, mark_references_across_kinds,
                                            mark_untyped_rows, record_kinds)
from pipeline.mappers.offline.kinds import split as split_kinds
from pipeline.mappers.offline.labels import assign_labels, naming_properties
from pipeline.mappers.offline.nested import follow_owner_key
from pipeline.mappers.offline.onekind import merge, spread
from pipeline.mappers.offline.language import file_languages, language_column
from pipeline.mappers.offline.names import NameMatcher, own_words, reference_words, words
from pipeline.mappers.offline.properties import assign_properties, identifier_entities
from pipeline.mappers.offline.rows import RowBuilder, drop_repeated_rows, mark_cross_products
from pipeline.mappers.offline.unmapped import entity_rows, misfit_findings, unmapped_findings
from pipeline.mappers.offline.xmldoc import DocumentMapper, is_document

__all__ = ["OfflineMapper"]

log = logging.getLogger(__name__)

#: Namespaces whose properties are about vocabularies, never proposed for data.
_META = (str(RDF), str(RDFS), str(OWL))


def _representatives(ont: Ontology, props: list[URIRef]) -> list[URIRef]:
    """One property per set of equivalent ones (``owl:equivalentProperty``: the same relation, OWL 2
    section 9.2.2): the one the vocabularies describe most (most statements about it: its own domain,
    range, labels), so that ``schema:url`` is proposed rather than a bare alias declared beside it."""
    pool = set(props)
    out = []
    for p in props:
        same = {q for q in ont.superproperties(p) if q in pool and p in ont.superproperties(q)}
        best = max(sorted(same, key=str), key=lambda q: len(list(ont.graph.predicate_objects(q))))
        if best == p:
            out.append(p)
    return out


def _deprecated_note(case, ont: Ontology) -> Finding:
    """An info naming the vocabulary terms marked ``owl:deprecated true`` that the mapper does not propose
    (up to five, then how many more)."""
    gone = sorted(ont.compact(t) for t in ont.deprecated)
    shown = ", ".join(gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    return Finding("map", ", ".join(str(p) for p in case.ontologies), f"{len(gone)} term(s) marked owl:deprecated "
                   f"true in the vocabulary not proposed: {shown}", severity="info")


def _borrow(infos: list[SourceInfo]) -> None:
    """Mark classes a source only refers to: its entities of the class carry nothing but a composite
    key of another source, which describes the same class with more (``lives.csv`` repeats the
    persons of ``persons.csv`` by ``fname, lname``; ``persons.csv`` adds ``amount``)."""
    by_name = {i.name: i for i in infos}
    for s in infos:
        for ck in s.cfks:
            t = by_name[ck.target]
            if t.cls is None:
                continue
            mine = {a.reference for a in s.assignments if a.cls == t.cls}
            theirs = {a.reference for a in t.assignments if a.cls == t.cls}
            if mine and mine <= set(ck.refs) and theirs - set(t.key):
                s.borrowed.add(t.cls)
                log.info("%s refers to %s of %s by %s", s.name, t.cls, t.name, list(ck.refs))


#: Predicates stating a property's range: RDFS's and schema.org's (either scheme).
_RANGE_PREDICATES = (RDFS.range, URIRef("http://schema.org/rangeIncludes"), URIRef("https://schema.org/rangeIncludes"))


def _literal_range(ont: Ontology, prop: URIRef) -> bool:
    """True when a range stated on ``prop`` itself is a datatype (``schema:Text``, ``xsd:string``).
    A super-property's ranges are not read: schema.org's sub-properties narrow them (``homeLocation``
    is a ``location`` whose values are places or contact points, never the ``Text`` that ``location``
    admits)."""
    return any(isinstance(r, URIRef) and ont.is_datatype(r)
               for pred in _RANGE_PREDICATES for r in ont.graph.objects(prop, pred))


@register("offline")
class OfflineMapper:
    """Deterministic mapper from data and ontology evidence (default; no network, no key)."""

    name = "offline"

    def map(self, inputs: MapInput, *, use_embeddings: bool | None = None, **_: Any) -> MapResult:
        """Propose a mapping table for ``inputs.case``.

        Args:
            inputs: the case with its loaded ontology (SKOS included) and sources.
            use_embeddings: ``None`` uses sentence embeddings when available, ``False`` forces lexical.
        Returns:
            :class:`MapResult` whose rows carry evidence and confidence; provenance
            records the similarity mode and the per-source decisions.
        """
        t0 = time.perf_counter()
        case, ont = inputs.case, inputs.ontology
        infos = []
        # a file holding collections of records of several kinds is mapped kind by kind (containers.py)
        kinds: dict[str, Kind] = {}
        sources = []
        taken = {d.source.name or d.source.path.name for d in inputs.sources}
        # a JSON file whose fields are wrapped in envelopes is mapped through its unwrapped view (envelopes.py)
        unwrapped: dict[str, Unwrapped] = {}
        positions: dict[str, dict[str, int]] = {}  # source -> its Point coordinates -> elements per position
        # sources listed one by one that are of one kind are mapped as one, their rows written for each (onekind.py)
        listed, groups, notes = merge(list(inputs.sources), taken)
        node_keys: dict[str, str] = {}  # source -> why its JSON-LD @id member keys it (jsonld.py)
        # an array of records of several kinds, each naming its kind in a member: one source per kind (kinds.py);
        # the member, constant within a kind, is no property value
        by_record_kind: dict[str, RecordKind] = {}  # a kind's source -> what the mapper keeps of the kind
        stems = {d.source.stem for d in inputs.sources}
        for data in listed:
            parts = split(data, data.source.name or data.source.path.name, taken)
            kinds.update((k.name, k) for k, _ in parts)
            view = unwrap(data, data.source.name or data.source.path.name)
            if view is not None:
                unwrapped[view[1].name] = view[1]
                notes.append(view[2])
            by_kind = split_kinds(data, stems) if not parts and view is None else None
            if by_kind is not None:
                member, subs = by_kind
                by_record_kind.update(record_kinds(data, member, subs))
                notes.append(Finding("map", str(data.source.path), f"the records of {data.source.name or data.source.path.name} "
                                     f"are of {len(subs)} kinds told apart by their member {member!r} (each kind has "
                                     "members of its own): each kind is mapped as a source of its own, read through "
                                     "a JSONPath filter iterator", column="iterator", value=data.iterator,
                                     severity="info"))
            sources += [sub for _, sub in parts] or ([view[0]] if view is not None else by_kind[1] if by_kind
                                                     else [data])
        for data in sources:
            src = data.source
            refs = [r for r in data.references
                    if any(v.strip() for v in data.values(r)) and r not in data.unaddressable
                    and r not in data.markup]  # markup is part of its element's text, mapped whole
            if src.name in by_record_kind:
                refs = [r for r in refs if r != by_record_kind[src.name].member]
            info = SourceInfo(data, src.name or src.path.name, src.stem, refs)
            if data.jsonld is not None:  # a record's own @context is no data (JSON-LD 1.1 section 3.1)
                info.refs = refs = [r for r in refs if "@context" not in r.split(".")]
            info.typed = type_column(info, ont)
            if info.typed is not None:  # the records' class, no property value
                info.refs = refs = [r for r in refs if r != info.typed[0]]
            found = node_iri(info)
            if found is not None:  # the records' IRIs (a JSON-LD @id): their subjects, no property value
                info.node_iri, node_keys[info.name] = found
                info.refs = refs = [r for r in refs if r != info.node_iri]
            # GeoJSON: a `type` member names the format's structure, and a Point's coordinates are one
            # position whose elements are read one by one (.geojson)
            structure, positions[info.name] = set(geojson_type_members(info)), point_positions(info)
            if structure or positions[info.name]:
                info.refs = refs = [r for r in refs if r not in structure and r not in positions[info.name]]
            found = language_column(data, refs)
            info.lang_col = found[0] if found else None
            infos.append(info)
        languages = file_languages([(i.name, i.refs) for i in infos])  # one file per language (language.py)
        for info in infos:
            info.file_lang = languages.get(info.name)
        skip = {OWL.Thing, SKOS.Concept, SKOS.ConceptScheme, RDFS.Resource}
        # a class the vocabularies only name as a superclass, never describing it, is a term of a vocabulary not
        # loaded: the records would fit it vacuously (it has no property), and the mapper would climb to it
        skip |= ont.undescribed_superclasses
        # so is one the vocabularies only declare as equivalent to a class they describe: the same instances
        # (OWL 2), and the described class is the vocabulary's term for them (schema:Person, not foaf:Person)
        skip |= ont.undescribed_equivalents
        # a term the vocabulary marks owl:deprecated true should no longer be used (OWL 2 Structural
        # Specification 5.5): it is no candidate, and the note says which were left out
        skip |= ont.deprecated
        if ont.deprecated:
            notes.append(_deprecated_note(case, ont))
        classes = sorted(c for c in ont.classes if c not in skip and not str(c).startswith(str(SKOS)))
        # a vocabulary of properties alone (Dublin Core elements) declares no class: every individual is an
        # owl:Thing (OWL 2 Direct Semantics), the one class its entities can be typed with
        classes = classes or [OWL.Thing]
        # the terms of RDF, RDFS and OWL describe vocabularies (rdf:type, rdfs:subClassOf, owl:sameAs), not data
        # nor is a term the vocabularies also declare a class (schema:Audience typed a datatype property by a
        # vocabulary that meant schema:audience): a property named like a class would take its columns
        props = _representatives(ont, [p for p in ont.properties if not str(p).startswith(_META)
                                       and p not in ont.classes and p not in ont.deprecated])
        # a property whose own ranges include a datatype as well as classes (schema.org's `description`: Text
        # or TextObject; `image`: URL or ImageObject) takes a literal column too: "rangeIncludes" lists the
        # types its values may have, one of which is a literal (https://schema.org/docs/datamodel.html); an
        # owl:ObjectProperty never does (OWL 2: its values are individuals)
        dprops = sorted(p for p in props if p not in ont.object_properties
                        and (not (ont.ranges(p) & ont.classes) or _literal_range(ont, p))
                        and (p, RDF.type, OWL.AnnotationProperty) not in ont.graph)
        oprops = sorted(p for p in props if p in ont.object_properties or ont.ranges(p) & ont.classes
                        or SKOS.Concept in ont.ranges(p))
        matcher = NameMatcher(ont, use_embeddings)
        texts = [" ".join(reference_words(r, c)) for i in infos for r in i.refs for c in (0, 1)]
        texts += [own_words(r, i.stem) for i in infos for r in i.refs]
        texts += [" ".join(words(i.stem)) for i in infos]
        texts += [" ".join(name_words(r)) for i in infos for r in i.refs if id_like(r)]  # identifiers (iris.py)
        matcher.prepare(texts, [*classes, *dprops, *oprops])
        analyse_keys(infos)
        for info in infos:  # a kind of few records cannot tell its key: its file's records do (kinds.py)
            kind = by_record_kind.get(info.name)
            if kind and kind.key and set(kind.key) <= set(info.refs) and tuple(info.key) != kind.key:
                info.key = kind.key
                info.key_evidence = f"the key of every record of the file, whatever their kind: {kind.key_evidence}"
        for info in infos:
            if info.node_iri is not None:
                info.key, info.key_evidence = (info.node_iri,), node_keys[info.name]
        find_foreign_keys(infos)
        find_composite_keys(infos)
        builder = RowBuilder(case, ont, matcher)
        builder.findings += notes
        documents = {i.name for i in infos if is_document(i)}
        for info in infos:
            if info.name in documents:
                builder.rows += DocumentMapper(info, ont, matcher, case.base_iri, classes, dprops, oprops).run()
            elif not info.link:
                choose_class(info, ont, matcher, classes, dprops, oprops)
        class_from_references([i for i in infos if i.name not in documents], ont, matcher, classes, dprops, oprops)
        # a source whose records name their parent by its key: the hierarchy relation's domain and range entail
        # their class (hierarchy.py)
        class_from_hierarchy([i for i in infos if i.name not in documents], ont, matcher, oprops)
        for info in infos:  # the class of one kind of record: from evidence only (kinds.py)
            if info.name in by_record_kind and not info.link and info.typed is None:
                info.cls, why = kind_class(info, ont, matcher, classes, [*dprops, *oprops],
                                           set(by_record_kind[info.name].own))
                info.cls_score = info.cls_name_fit = 0.0 if info.cls == OWL.Thing else 1.0
                info.cls_evidence = f"{why} (name and property fit: {info.cls_evidence})"
        described = {i.cls: i for i in infos if i.cls is not None and i.name not in documents and not i.link}
        for info in infos:
            if info.name not in documents and not info.link:
                context_assignments(info, ont)  # what a JSON-LD context states comes before names (jsonld.py)
                assign_properties(info, ont, matcher, dprops, described, oprops)
                builder.findings += assign_positions(info, ont, matcher, dprops, positions[info.name])
        # an entity opened from an identifier column alone needs a class the ontology declares: a class
        # only implied by a domain union (a trimmed vocabulary) has no modelled instances of its own
        implied = ont.implied_classes()
        identifier_entities([i for i in infos if i.name not in documents], ont, matcher,
                            [c for c in classes if c not in implied], dprops)
        before = {i.name: i.key for i in infos}
        for info in infos:
            if info.name not in documents:
                prefer_identifier_key(info, ont, matcher)
        find_foreign_keys_into_new_keys([i for i in infos if i.name not in documents], before)
        find_foreign_keys_named_by_relations([i for i in infos if i.name not in documents], ont, matcher, oprops)
        one_to_many_keys([i for i in infos if i.name not in documents])
        key_by_references([i for i in infos if i.name not in documents])
        for info in infos:
            if info.name not in documents:
                follow_owner_key(info, before[info.name])
        naming = naming_properties(ont, matcher)
        for info in infos:
            if info.name not in documents and not info.link:
                assign_labels(info, ont, matcher, dprops, naming)
        for info in infos:
            if info.name not in documents and not info.link:
                assign_iri_columns(info, ont, matcher, oprops, set(described))
                assign_identifier_iris(info, ont, matcher, oprops, set(described))
        for info in infos:
            if info.name not in documents:
                assign_by_elimination(info, ont, matcher, dprops)
                find_self_references(info)
        _borrow(infos)
        for info in infos:
            if info.name in documents:
                continue
            builder.datatype_rows(info)
            builder.concat_rows(info, dprops)
            builder.skos_rows(info, oprops)
        builder.object_rows(infos, oprops)
        data = {i.name: i.data for i in infos}
        builder.rows = drop_repeated_rows(builder.rows, data)
        for info in infos:
            if not info.link and info.name not in documents and not any(r.source_file == info.name
                                                                        for r in builder.rows):
                extra, why = entity_rows(info, ont, matcher, dprops, case.base_iri, builder.template)
                builder.rows += extra
                if why:
                    builder.findings.append(Finding("map", str(info.data.source.path), f"no entity for "
                                                    f"{info.name}: {why}", column="entity_class", value=info.name,
                                                    severity="warning"))
        for info in infos:  # what a JSON-LD context says of a member mapped by name (jsonld.py)
            for row in builder.rows:
                if row.source_file == info.name and row.data_reference in info.context_notes:
                    row.evidence.append(info.context_notes[row.data_reference])
        propose_functions(builder.rows, data, ont)
        builder.findings += unmapped_findings(infos, builder.rows, ont, matcher, dprops)
        builder.findings += misfit_findings(infos, builder.rows)
        for info in infos:
            notes = list(info.key_notes)
            if not notes and info.key_evidence.startswith("no key found") and len(info.key) > 1 \
                    and any(r.source_file == info.name for r in builder.rows):
                notes.append(f"no column or minimal set of columns identifies the records of {info.name}: the "
                             f"subject key joins every column {list(info.key)}, so a record lacking any of them "
                             "gets no subject")
            builder.findings += [Finding("map", str(info.data.source.path), n, column="subject_template",
                                         value=", ".join(info.key), severity="warning") for n in notes]
        sampled = {i.name: note for i in infos if (note := i.data.profiling())}
        for row in builder.rows:  # a decision screened on the sample says so (see pipeline.sources.columns)
            if row.source_file in sampled:
                row.evidence.append(f"profiling: {sampled[row.source_file]}")
        mark_cross_products(builder.rows, data)
        describe_rows(builder.rows, [basis_of(r) for r in builder.rows], infos, ont, matcher, dprops)
        calibrate_rows(builder.rows)
        mark_doubtful_rows(builder.rows, infos, ont)
        mark_untyped_rows([r for r in builder.rows if r.source_file in by_record_kind], ont)
        mark_references_across_kinds(builder.rows, infos, by_record_kind)
        rewrite(builder.rows, kinds)
        write_on_file(builder.rows, unwrapped)
        builder.rows = spread(builder.rows, groups)
        table = MappingTable(rows=builder.rows, source=f"offline mapper {case.name}")
        for i, row in enumerate(table.rows, 1):
            row.line = i
        kind_of = {g.name: g.members for g in groups}  # a group's listed files (onekind.py)
        decisions = [{"source": i.name, "class": builder.c(i.cls), "class_score": round(i.cls_score, 3),
                      "class_evidence": i.cls_evidence, "key": list(i.key), "key_evidence": i.key_evidence,
                      "link_file": i.link, "foreign_keys": {r: f"{f.target}.{f.target_ref}" for r, f in i.fks.items()},
                      "findings": [str(f) for f in i.data.findings],
                      **({"one_kind": list(kind_of[i.name])} if i.name in kind_of else {}),
                      **({"profiling": sampled[i.name]} if i.name in sampled else {})} for i in infos]
        for f in builder.findings:
            log.info("%s", f)
        elapsed = time.perf_counter() - t0
        log.info("offline mapper: %s, %d rows in %.2f s (%s)", case.name, len(table), elapsed, matcher.mode)
        return MapResult(table, {"mapper": self.name, "version": __version__, "similarity": matcher.mode,
                                 "similarity_note": matcher.note, "latency_s": round(elapsed, 4),
                                 "sources": decisions, "findings": [f.to_dict() for f in builder.findings]})
