"""Document-like XML records (one record = one nested document, e.g. a CODICE notice).

A flat XML record (``<student><ID/><Name/></student>``) is mapped like a CSV
row by :mod:`.analysis`. A *document* record, whose references are paths
several elements deep, describes several entities at once; this module maps
it property first:

1. **datatype properties**: maximum-weight matching (Hungarian) between leaf
   references and all datatype properties (name similarity x value fit);
2. **class of each property**: its ``rdfs:domain``; else a class whose OWL
   restriction names the property (``LotAwardOutcome`` restricts
   ``hasAwardDecisionDate``); else the closest class to the property and its
   XML context, where count-valued properties prefer statistics classes;
   classes are made as specific as a linear chain of subclasses allows
   (``Document -> Notice -> ResultNotice``);
3. **value maps**: an object property whose label names a concept scheme
   (``hasProcedureType`` -> ``procurement-procedure-type``) takes the coded
   element whose ``listURI`` a packaged crosswalk knows for that scheme, or
   whose values are concept notations;
4. **same-record relations**: object properties from an entity of the record
   to a class named by their range or label (``describesLot`` -> ``Lot``,
   ``refersToRole`` -> ``Buyer``), join ``id==id``; a coded element whose code
   list tells the range's subclasses apart decides the subclass
   (:mod:`.codeclass`: contracting-system code 3 "contract based on a framework
   agreement" -> ``FrameworkAgreementTechniqueUsage``, code 0 -> ``TechniqueUsage``);
5. **subjects**: ``base [+ vocabulary prefix] + lowerCamel(class) + "/" +
   [standard "_"] + key``, the key being the record identifier with the URL
   prefix shared by its values stripped through ``replace()``;
6. **repeating elements**: when an entity's properties are read from an
   element that occurs several times in one record (two ``cac:TenderResult``
   per notice), its key is extended with ``_`` + the identifier of that
   element (:meth:`DocumentMapper.repeat_key`: an identifier-like element
   below it, as frequent as the property in every record, with distinct
   values, closest to the property in the tree), so each occurrence gets its
   own IRI (``lotAwardOutcome/codice_<id>_$(.../ProcurementProjectLotID)``).
   Relation rows from such entities come first, so a range class that no row
   generates (``Lot``) is minted per occurrence by the compiler's IRI
   convention.

This module holds the document mapper and its datatype rows (steps 1-2); subjects (steps 5-6)
are in :mod:`.xmlsubjects`, value maps and relations (steps 3-4) in :mod:`.xmlrelations`.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from rdflib import URIRef
from scipy.optimize import linear_sum_assignment

from pipeline.ontology import Ontology
from pipeline.table import MappingRow
from pipeline.mappers.offline.analysis import MIN_SCORE, SourceInfo
from pipeline.mappers.offline.classes import value_fit
from pipeline.mappers.offline.keys import id_like
from pipeline.mappers.offline.names import NameMatcher, reference_words, words
from pipeline.mappers.offline.profile import profile_datatype
from pipeline.mappers.offline.xmlrelations import RelationsMixin, direct_subclasses, most_specific, restriction_classes
from pipeline.mappers.offline.xmlsubjects import SubjectsMixin, key_expression, standard_name

__all__ = ["is_document", "DocumentMapper"]

log = logging.getLogger(__name__)

#: Words of count-valued properties and of the classes that hold statistics.
_COUNT_WORDS = {"quantity", "number", "count", "total", "amount", "tenders", "received"}
_STAT_WORDS = {"statistical", "statistics", "statistic"}


def is_document(info: SourceInfo) -> bool:
    """True for an XML source whose element references nest at least two levels below the record."""
    if info.data.source.format != "xml":
        return False
    return any(r.count("/") >= 2 and "@" not in r for r in info.refs)


@dataclass
class _Entity:
    cls: URIRef
    evidence: list[str] = field(default_factory=list)


class DocumentMapper(SubjectsMixin, RelationsMixin):
    """Rows for one document-like XML source (see the module docstring).

    Args:
        info: the analysed source (references, key). ontology / matcher: as in the mapper.
        base: the case's base IRI. classes / dprops / oprops: candidate terms.
    """

    def __init__(self, info: SourceInfo, ontology: Ontology, matcher: NameMatcher, base: str,
                 classes: list[URIRef], dprops: list[URIRef], oprops: list[URIRef]) -> None:
        self.info, self.ont, self.m, self.base = info, ontology, matcher, base
        self.classes, self.dprops, self.oprops = classes, dprops, oprops
        self.it = (info.data.iterator or "").rstrip("/")
        self.entities: dict[URIRef, _Entity] = {}
        #: class -> (XPath, evidence) of the repeating element's identifier appended to its key.
        self.suffix: dict[URIRef, tuple[str, str]] = {}
        self.rows: list[MappingRow] = []
        key = [r for r in info.refs if "/" not in r and id_like(r) and r not in info.nonkeys] or list(info.key)
        self.key_ref = key[0] if key else None
        std = standard_name(info.data.namespaces)
        self.tag = f"{std}_" if std else ""
        if self.key_ref:
            self.key_seg, self.key_ev = key_expression(self.abs(self.key_ref), info.data.values(self.key_ref))
        else:
            self.key_seg, self.key_ev = "", "no record identifier"
        if std:
            self.key_ev += f"; keys tagged {self.tag!r} after the standard named by the XML namespaces"

    # -- helpers -----------------------------------------------------------------
    def abs(self, ref: str) -> str:
        """Absolute XPath of a reference relative to the record iterator."""
        return f"{self.it}/{ref}" if self.it else "/" + ref

    def c(self, iri: URIRef) -> str:
        return self.ont.compact(iri)

    def entity(self, cls: URIRef, why: str) -> None:
        self.entities.setdefault(cls, _Entity(cls)).evidence.append(why)

    # -- 1-2: datatype properties and their classes ----------------------------------
    def _leaves(self) -> list[str]:
        """Element references that may carry literals: not attributes, not the key, not coded
        elements (a ``listURI`` names their code list: they map to concepts, not literals).

        Top-level elements of a record count only when the record is the whole document (one
        record per file, like one notice per file): their values then describe the document
        itself (its title, dispatch date); in a feed of many entries they are entry metadata."""
        coded = {r[:-len("/@listURI")] for r in self.info.refs if r.endswith("/@listURI")}
        whole = len(self.info.data.records) <= 1
        return [r for r in self.info.refs if "@" not in r and r != self.key_ref and ("/" in r or whole)
                and r not in coded and r not in self.info.nonkeys]

    def class_of(self, prop: URIRef, ref: str) -> tuple[URIRef | None, str]:
        """Class of the subject of ``prop`` read at ``ref`` (see the module docstring, step 2)."""
        doms = sorted(self.ont.domains(prop))
        if doms:
            cls = most_specific(self.ont, doms[0])
            return cls, f"rdfs:domain {self.c(doms[0])}" + (f", most specific {self.c(cls)}" if cls != doms[0] else "")
        restricted = sorted(restriction_classes(self.ont, prop))
        if restricted:
            cls = most_specific(self.ont, restricted[0])
            return cls, (f"{self.c(restricted[0])} has an OWL restriction on {self.c(prop)}"
                         + (f"; most specific subclass {self.c(cls)}" if cls != restricted[0] else ""))
        pwords = set(words(self.ont.verbalise(prop))) | set(reference_words(ref, 0))
        counting = bool(pwords & _COUNT_WORDS) and profile_datatype(self.info.data.values(ref))[0] == "xsd:integer"
        text = " ".join(words(self.ont.verbalise(prop), expand=False) + reference_words(ref, 1))
        best: tuple[float, URIRef | None, str] = (0.0, None, "")
        for cls in self.classes:
            if direct_subclasses(self.ont, cls):
                continue  # instantiate leaves; abstract parents come in via most_specific
            s = self.m.score(text, cls)
            why = f"similarity {s:.2f} of {self.c(prop)} in {ref.split('/')[-2] if '/' in ref else ref}"
            if counting and set(words(self.ont.verbalise(cls))) & _STAT_WORDS:
                s += 0.5
                why += "; count-valued property -> statistics class"
            if s > best[0]:
                best = (s, cls, why)
        return best[1], best[2]

    def datatype_rows(self) -> None:
        refs = self._leaves()
        if not refs or not self.dprops:
            return
        m = np.array([[max(self.m.score(" ".join(reference_words(r, 0)), p),
                           self.m.score(" ".join(reference_words(r, 1)), p) - 0.05)
                       * value_fit(self.ont, p, self.info.data.values(r)) for p in self.dprops] for r in refs])
        chosen = []
        for i, j in zip(*linear_sum_assignment(-m)):
            if m[i, j] < MIN_SCORE:
                continue
            ref, prop = refs[i], self.dprops[j]
            cls, why = self.class_of(prop, ref)
            if cls is None:
                continue
            self.entity(cls, f"{self.c(prop)} at {ref}")
            chosen.append((ref, prop, cls, why, float(m[i, j])))
        for ref, _, cls, _, _ in chosen:  # every row of a class gets the same key
            if cls not in self.suffix and (rep := self.repeat_key(ref)) is not None:
                why = self._per_occurrence(cls, rep[0])
                if why:
                    self.suffix[cls] = (rep[0], f"{rep[1]}; {why}")
        for ref, prop, cls, why, score in chosen:
            ranges = sorted(self.ont.datatype_ranges(prop))
            if ranges:
                dt, dev = self.c(ranges[0]), f"datatype from rdfs:range of {self.c(prop)}"
            else:
                dt, dev = profile_datatype(self.info.data.values(ref))
                dev = f"datatype by profiling: {dev}"
            self.rows.append(MappingRow(
                data_reference=self.abs(ref), source_file=self.info.name, ontology_property=self.c(prop),
                entity_class=self.c(cls), subject_template=self.template(cls), datatype=dt,
                confidence=round(min(1.0, score), 3),
                evidence=[f"{ref!r} ~ {self.c(prop)} similarity {score:.2f} ({self.m.mode})",
                          f"class {self.c(cls)}: {why}", dev, self._subject_ev(cls)]))

    def run(self) -> list[MappingRow]:
        """All rows for the source: datatype, value-map, then relation rows."""
        self.datatype_rows()
        self.value_map_rows()
        self.relation_rows()
        log.info("document XML %s: %d entities, %d rows", self.info.name, len(self.entities), len(self.rows))
        return self.rows
