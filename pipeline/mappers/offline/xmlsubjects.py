"""Subject IRIs of document-like XML records (steps 5 and 6 of :mod:`.xmldoc`).

The record key as a template segment (with the URL prefix its values share stripped through
``replace()``), the class path under the base IRI, the standard's tag read from the XML
namespaces, and the identifier of a repeating element that gives each occurrence its own IRI.
Datatype rows are in :mod:`.xmldoc`, value maps and relations in :mod:`.xmlrelations`.
"""
from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from rdflib import URIRef

from pipeline.ontology import Ontology
from pipeline.mappers.offline.keys import id_like
from pipeline.mappers.offline.names import words

__all__ = ["SubjectsMixin", "key_expression", "standard_name", "class_path"]

#: Generic URN tokens around a standard's name (OASIS ``urn:<org>:names:<status>:<std>:schema:xsd:...``).
_URN_GENERIC = {"urn", "names", "draft", "specification", "schema", "xsd", "tc", "oasis"}


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


class SubjectsMixin:
    """Methods of :class:`.xmldoc.DocumentMapper` that build subject templates (steps 5-6).

    Relies on the document mapper's ``info``, ``ont``, ``m``, ``base``, ``classes``, ``oprops``,
    ``tag``, ``key_seg``, ``key_ev``, ``key_ref``, ``suffix``, ``abs`` and ``c``.
    """

    def template(self, cls: URIRef) -> str:
        """Subject template of ``cls``: record key, plus ``_$(id)`` of a repeating element (step 6)."""
        path, _ = class_path(self.ont, self.base, cls)
        sep = "" if self.base.endswith(("/", "#")) else "/"
        suffix = self.suffix.get(cls)
        return f"{self.base}{sep}{path}/{self.tag}{self.key_seg}" + (f"_$({suffix[0]})" if suffix else "")

    # -- 6: repeating elements -------------------------------------------------------
    def _counts(self, ref: str) -> list[int]:
        return [len(rec.get(ref, [])) for rec in self.info.data.records]

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

    def join(self) -> str:
        return f"{self.key_ref}=={self.key_ref}" if self.key_ref else ""

    def _subject_ev(self, cls: URIRef) -> str:
        _, ev = class_path(self.ont, self.base, cls)
        rep = self.suffix.get(cls)
        return (f"subject: record key ({self.key_ev})" + (f"; {ev}" if ev else "")
                + (f"; per occurrence: {rep[1]}" if rep else ""))
