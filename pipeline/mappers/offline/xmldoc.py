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

:class:`DocumentMapper` takes the steps for one source; the module's functions read the class
hierarchy (:func:`most_specific`, :func:`restriction_classes`) and build subject templates
(:func:`key_expression`, :func:`class_path`, :func:`standard_name`).
"""
from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import numpy as np
from rdflib import URIRef
from rdflib.namespace import OWL, RDFS, SKOS
from scipy.optimize import linear_sum_assignment

from pipeline.compile.parts import repeating_part
from pipeline.fno.crosswalk import crosswalks
from pipeline.ontology import Ontology
from pipeline.table import MappingRow
from pipeline.mappers.offline.analysis import MIN_SCORE, SourceInfo
from pipeline.mappers.offline.codeclass import coded_subclass
from pipeline.mappers.offline.confidence import evidence_line
from pipeline.mappers.offline.fit import value_fit
from pipeline.mappers.offline.identity import id_like
from pipeline.mappers.offline.names import NameMatcher, reference_words, words
from pipeline.mappers.offline.profile import profile_datatype
from pipeline.mappers.offline.skos import concept_schemes, match_value_map

__all__ = ["is_document", "DocumentMapper", "key_expression", "standard_name", "class_path", "restriction_classes",
           "direct_subclasses", "most_specific"]

log = logging.getLogger(__name__)

#: Words of count-valued properties and of the classes that hold statistics.
_COUNT_WORDS = {"quantity", "number", "count", "total", "amount", "tenders", "received"}
_STAT_WORDS = {"statistical", "statistics", "statistic"}
#: Verbs and function words dropped from an object property's label to name its range.
_VERBS = {"has", "is", "of", "to", "for", "by", "describes", "describe", "refers", "refer", "uses", "use",
          "concerns", "concern", "submissions", "the", "a", "an", "in", "into", "divided", "scope", "played"}
#: Generic URN tokens around a standard's name (OASIS ``urn:<org>:names:<status>:<std>:schema:xsd:...``).
_URN_GENERIC = {"urn", "names", "draft", "specification", "schema", "xsd", "tc", "oasis"}


def is_document(info: SourceInfo) -> bool:
    """True for an XML source whose file is one record (a notice per file) with element references
    nesting at least two levels below it outside any repeating element: single nested elements that
    describe more entities of the document (a notice's buyer address, its procurement project).

    The rows this module writes read absolute XPaths (``/entry/cac:Party/cbc:Name``, subjects keyed
    by ``$(/entry/id)``), which select the same nodes from every record of a file (XPath 1.0 section
    2: a location path starting with ``/`` starts at the root, whatever the context node): they
    describe a record only when it is the file's one record. A file of several records (objects,
    each with repeated loans) is read record by record, its repeating parts per occurrence
    (:mod:`.nested`), whatever members some occurrences hold or lack; so is a deep member inside a
    repeating element (a note in one of an object's loans): it is one more value of its occurrence.
    """
    if info.data.source.format != "xml" or len(info.data.records) != 1:
        return False
    return any(r.count("/") >= 2 and "@" not in r and repeating_part(info.data, info.data.iterator, r) is None
               for r in info.refs)


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


def standard_name(namespaces: dict[str, str]) -> str | None:
    """Name of the XML standard from OASIS-style namespace URNs (``urn:dgpe:names:draft:codice:schema:...``).

    Returns the token just before ``schema`` shared by most namespaces (``codice``), or ``None``.
    """
    counts: dict[str, int] = {}
    for uri in namespaces.values():
        parts = uri.split(":")
        if "schema" in parts:
            i = parts.index("schema")
            if i > 0:
                tok = parts[i - 1].split("-")[0].lower()
                if tok and tok not in _URN_GENERIC:
                    counts[tok] = counts.get(tok, 0) + 1
    if not counts:
        return None
    return max(sorted(counts), key=lambda t: counts[t])


def key_expression(path: str, values: list[str]) -> tuple[str, str]:
    """Template segment for a record key: ``$(replace(path,'<prefix>',''))`` or ``$(path)``.

    Args:
        path: absolute XPath of the key element (``/entry/id``).
        values: its values over the records.
    Returns:
        ``(segment, evidence)``. The prefix is the longest common prefix of all values cut after
        its last ``/`` (with one record: everything up to the last ``/`` of its URL).
    """
    vals = [v.strip() for v in values if v and v.strip()]
    if vals and all("/" in v for v in vals):
        prefix = os.path.commonprefix(vals)
        prefix = prefix[:prefix.rfind("/") + 1]
        if prefix and all(len(v) > len(prefix) for v in vals):
            return (f"$(replace({path},'{prefix}',''))",
                    f"{len(vals)} value(s) of {path} share the prefix {prefix!r}; stripped with replace()")
    return f"$({path})", f"{path} identifies the record"


def class_path(ontology: Ontology, base: str, cls: URIRef) -> tuple[str, str]:
    """Path of a class under the base IRI: ``lowerCamel(local)``, after the vocabulary prefix when the
    base IRI sits beside the vocabulary (same host and first path segment, as
    ``.../a4g/resource/`` and ``.../a4g/ontology#``).

    Returns:
        ``(path, evidence)``: ``"epo/lotAwardOutcome"`` or ``"person"``.
    """
    local = re.split(r"[#/:]", str(cls).rstrip("/#"))[-1]
    slug = local[:1].lower() + local[1:]
    b, n = urlsplit(base), urlsplit(str(cls))
    bseg, nseg = [s for s in b.path.split("/") if s], [s for s in n.path.split("/") if s]
    compact = ontology.compact(cls)
    if (b.netloc == n.netloc and bseg and nseg and bseg[0] == nseg[0] and not str(cls).startswith(base)
            and ":" in compact and not compact.startswith("http")):
        return f"{compact.split(':')[0]}/{slug}", (f"base <{base}> sits beside the vocabulary of {compact}: "
                                                   "resources grouped by vocabulary prefix")
    return slug, ""


@dataclass
class _Entity:
    cls: URIRef
    evidence: list[str] = field(default_factory=list)


class DocumentMapper:
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

    # -- 5-6: subjects, one per occurrence of a repeating element ----------------------
    def template(self, cls: URIRef) -> str:
        """Subject template of ``cls``: record key, plus ``_$(id)`` of a repeating element (step 6)."""
        path, _ = class_path(self.ont, self.base, cls)
        sep = "" if self.base.endswith(("/", "#")) else "/"
        suffix = self.suffix.get(cls)
        return f"{self.base}{sep}{path}/{self.tag}{self.key_seg}" + (f"_$({suffix[0]})" if suffix else "")

    def join(self) -> str:
        return f"{self.key_ref}=={self.key_ref}" if self.key_ref else ""

    def _subject_ev(self, cls: URIRef) -> str:
        _, ev = class_path(self.ont, self.base, cls)
        rep = self.suffix.get(cls)
        return (f"subject: record key ({self.key_ev})" + (f"; {ev}" if ev else "")
                + (f"; per occurrence: {rep[1]}" if rep else ""))

    def repeat_key(self, ref: str) -> tuple[str, str] | None:
        """Identifier of the repeating element that ``ref`` is read from, or ``None`` when ``ref``
        occurs at most once per record.

        Args:
            ref: a reference relative to the record iterator.
        Returns:
            ``(absolute XPath, evidence)``; the XPath gets a ``[@attr="value"]`` predicate when the
            identifier element carries one attribute with a single value (``schemeName="ID_LOTE"``).
        """
        counts = self._counts(ref)
        if max(counts, default=0) <= 1:
            return None
        steps = ref.split("/")
        cands = []
        for r in self.info.refs:
            if r == ref or "@" in r or not id_like(r) or self._counts(r) != counts:
                continue
            if any(len(set(rec[r])) != len(rec[r]) for rec in self.info.data.records if rec.get(r)):
                continue  # the same value in two occurrences identifies none of them
            rsteps = r.split("/")
            common = next((i for i, (a, b) in enumerate(zip(steps, rsteps)) if a != b), min(len(steps), len(rsteps)))
            if common == 0:
                continue
            cands.append((-common, len(rsteps), r))
        if not cands:
            return None
        _, _, r = min(cands)
        return self._id_path(r), (f"{ref} occurs up to {max(counts)} times per record; {r} identifies each "
                                  "occurrence (as frequent, distinct values, closest in the tree)")

    def _counts(self, ref: str) -> list[int]:
        return [len(rec.get(ref, [])) for rec in self.info.data.records]

    def _per_occurrence(self, cls: URIRef, id_path: str) -> str:
        """Why ``cls`` has one instance per occurrence of the element ``id_path`` identifies, or ``""``.

        The identifier must name a class (``ProcurementProjectLotID`` -> ``Lot``) that ``cls`` is
        (by name) or that an object property from ``cls`` ranges over (``describesLot``); else the
        entity is one per record (a notice read from a repeated date stays one notice).
        """
        idw = set(words(id_path.split("/")[-1].split("[")[0])) - {"id", "identifier"}
        named = [c for c in self.classes if (n := self.m.names(c)) and set(n[0].split()) <= idw]
        for c in named:
            if set(self.m.names(c)[0].split()) <= set(self.m.names(cls)[0].split()):
                return f"its identifier names {self.c(c)}, part of the name of {self.c(cls)}"
            for p in self.oprops:
                if self.ont.domains(p) & self.ont.superclasses(cls) and self.ont.ranges(p) & self.ont.superclasses(c):
                    return f"its identifier names {self.c(c)}, which {self.c(p)} relates {self.c(cls)} to"
        return ""

    def _id_path(self, ref: str) -> str:
        path = self.abs(ref)
        attrs = [a for a in self.info.refs if a.startswith(ref + "/@")]
        if len(attrs) == 1:
            vals = {v for v in self.info.data.values(attrs[0]) if v}
            if len(vals) == 1:
                path += f'[{attrs[0][len(ref) + 1:]}="{vals.pop()}"]'
        return path

    # -- 1-2: datatype properties and their classes ----------------------------------
    def _leaves(self) -> list[str]:
        """Element references that may carry literals: not attributes, not the key, not coded
        elements (a ``listURI`` names their code list: they map to concepts, not literals).
        Top-level elements count: the record is the whole document (:func:`is_document`), so their
        values describe the document itself (its title, dispatch date)."""
        coded = {r[:-len("/@listURI")] for r in self.info.refs if r.endswith("/@listURI")}
        return [r for r in self.info.refs if "@" not in r and r != self.key_ref
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
                evidence=[evidence_line("document", score), f"{ref!r} ~ {self.c(prop)} similarity {score:.2f} ({self.m.mode})",
                          f"class {self.c(cls)}: {why}", dev, self._subject_ev(cls)]))

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
                evidence=[evidence_line("value map", 0.5 + 0.5 * bs), f"label of {self.c(prop)} names concept scheme <{best}>", cev,
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
                confidence=0.6, evidence=[evidence_line("document", 0.6),
                                          f"{self.c(dom)} and {self.c(target)} are described by the same record",
                                          f"domain: {dwhy}", f"range: {rwhy}", self._subject_ev(dom)]))

    def run(self) -> list[MappingRow]:
        """All rows for the source: datatype, value-map, then relation rows."""
        self.datatype_rows()
        self.value_map_rows()
        self.relation_rows()
        log.info("document XML %s: %d entities, %d rows", self.info.name, len(self.entities), len(self.rows))
        return self.rows
