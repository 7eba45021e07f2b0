"""What of the source data did not reach the KG, and whether that makes the KG *lossy*.

A KG can pass every check (SV2, CS2, SHACL) and still lack much of what its sources hold; its
verdict weighs that beside the checks, which it leaves as they are. Three losses are counted from
a run's facts (``run.json`` ``counts`` and ``coverage``, the materialize findings):

* **values dropped** at materialize: terms the guards found invalid (``N triple(s) dropped``),
  child join keys no parent record has (:data:`~pipeline.materialize.materializer.JOIN_REASON`:
  their links are lost), functions that gave no value for values that are there
  (:data:`~pipeline.materialize.materializer.NO_VALUE_REASON`), and values a row demands a language
  tag for that have none (the compile audit counts them, :data:`UNTAGGED_CODE`: RML generates no
  literal when the language map yields no value);
* **unmapped columns**: columns (JSON/XML paths) with values that no TriplesMap reads, over every
  source of the case (a source no TriplesMap reads counts with all its columns);
* **records without a subject**: records of a mapped source for which no subject map has every
  value it references (R2RML section 7: no subject, no triple);
* **unread arrays of records**: arrays of records beside the one a JSON source's iterator reads
  (``{"stations": [...], "regions": [...]}`` listed once reads the stations): the loader's finding
  (code :data:`pipeline.findings.UNREAD_RECORDS`) names them; said in the reasons like unmapped columns, not judged;
* **records merged**: records one subject is made of whose values the subject cannot give back (two
  records of one key with another name and another date: which date goes with which name is gone;
  the compiler counts them, :data:`MERGED_CODE`, :mod:`pipeline.compile.subject_keys`).

Any dropped value, and any merged record, makes the KG lossy: the mapping asked for that data. Records without a subject
make it lossy when they are a large share (:data:`LARGE_SHARE`) of the mapped records: the mapping
reads those records and most of them vanish. Unmapped columns are said in the reasons, never
judged: which columns a KG should hold is the mapping's choice (BLINKG's own gold mapping of
CODICE reads 4 of 88 XML paths), and the mapping layer's scores weigh that choice against a gold
table; the verdict is about what the mapping asked for and did not get. This module reads plain dicts (and findings as objects or dicts) and imports
nothing heavy, so the report and the console line read it alike.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pipeline.findings import UNREAD_RECORDS
from pipeline.materialize.materializer import JOIN_REASON, NO_VALUE_REASON

__all__ = ["LARGE_SHARE", "UNTAGGED_CODE", "MERGED_CODE", "CoverageLoss", "coverage_loss"]

#: Share of a case's mapped records without a subject at or above which the KG is lossy: half of
#: them, "most of the records". Below it the loss is said, not judged.
LARGE_SHARE = 0.5

#: ``code`` of the compile audit's finding that counts a row's values without a language tag
#: (``N value(s) of 'ref' ... get no literal``).
UNTAGGED_CODE = "values-without-language"
_UNTAGGED = re.compile(r"(\d+) value\(s\) of ")

#: ``code`` of the compiler's finding on a subject template that merges records whose values it cannot
#: give back (``... (N record(s) become M subject(s))``).
MERGED_CODE = "records-merged"
_MERGED = re.compile(r"\((\d+) record\(s\) become (\d+) subject\(s\)\)")

#: the message of the loader's finding on arrays of records a JSON source does not read (code
#: :data:`pipeline.findings.UNREAD_RECORDS`; :func:`pipeline.sources.tree.load_json`)
_UNREAD = re.compile(r"holds (\d+) more array\(s\) of records \((.*?)\), which are not read")

_DROPPED = re.compile(r"^(\d+) (value|triple)\(s\) dropped: (.*)$", re.S)


@dataclass
class CoverageLoss:
    """What of a case's sources is not in its KG.

    Attributes:
        dropped: values dropped at materialize, all kinds (``counts["triples_dropped_by_guards"]``).
        join: child join keys without a parent record (part of ``dropped``).
        function: values a function gave no value for (part of ``dropped``).
        untagged: values a row demands a language tag for that have none (not in the KG; counted at
            compile, not part of ``dropped``).
        columns, unmapped: source columns with a value, and ``{source: [names]}`` of those no
            TriplesMap reads.
        records, without_subject: records of the mapped sources, and how many get no subject.
        merged, merged_into: records merged into subjects that cannot give their values back, and
            the number of those subjects.
        unread: ``{file: [array names]}`` of the arrays of records its JSON sources do not read.
    """

    dropped: int = 0
    join: int = 0
    function: int = 0
    untagged: int = 0
    columns: int = 0
    unmapped: dict[str, list[str]] = field(default_factory=dict)
    records: int = 0
    without_subject: int = 0
    merged: int = 0
    merged_into: int = 0
    unread: dict[str, list[str]] = field(default_factory=dict)

    @property
    def guard(self) -> int:
        """Triples the guards dropped as invalid terms (``dropped`` less the join and function losses)."""
        return max(self.dropped - self.join - self.function, 0)

    @property
    def n_unmapped(self) -> int:
        return sum(len(v) for v in self.unmapped.values())

    @property
    def unmapped_share(self) -> float:
        return self.n_unmapped / self.columns if self.columns else 0.0

    @property
    def subject_share(self) -> float:
        return self.without_subject / self.records if self.records else 0.0

    @property
    def lossy(self) -> bool:
        """Values were dropped, or a large share of the mapped records got no subject (module docstring)."""
        return bool(self.dropped or self.untagged or self.merged) or self.subject_share >= LARGE_SHARE

    def summary(self) -> str:
        """The losses in a few words (``4 value(s) dropped; 3 of 4 source columns not mapped``), ``""`` without any."""
        parts = [f"{self.dropped} value(s) dropped"] if self.dropped else []
        if self.untagged:
            parts.append(f"{self.untagged} value(s) without a language tag")
        if self.merged:
            parts.append(f"{self.merged} records merged into {self.merged_into} subject(s)")
        if self.n_unmapped:
            parts.append(f"{self.n_unmapped} of {self.columns} source columns not mapped ({self.unmapped_share:.0%})")
        if self.without_subject:
            parts.append(f"{self.without_subject} of {self.records} records without a subject "
                         f"({self.subject_share:.0%})")
        return "; ".join(parts)

    def reasons(self) -> list[str]:
        """One line per loss, for the report's verdict."""
        out = []
        if self.dropped and (self.join or self.function):  # the total the case line and run.json give, then its kinds
            out.append(f"{self.dropped} value(s) dropped at materialize (the case line's triples-dropped, run.json's "
                       "counts.triples_dropped_by_guards), of which:")
        if self.guard:
            out.append(f"{self.guard} triple(s) dropped by the guards (invalid terms; see the audit)")
        if self.join:
            out.append(f"{self.join} join key(s) without a parent record: their links are not in the KG "
                       "(see the audit)")
        if self.function:
            out.append(f"{self.function} value(s) a function gave no value for are not in the KG (see the audit)")
        if self.untagged:
            out.append(f"{self.untagged} value(s) the table reads a language tag for have none: no literal is made "
                       "of them (see the audit)")
        if self.merged:
            out.append(f"{self.merged} records that differ become {self.merged_into} subject(s): a subject template "
                       "does not identify them, and which of their values came together is not in the KG (see the audit)")
        if self.n_unmapped:
            names = "; ".join(f"{src}: {', '.join(cols[:5])}{' ...' if len(cols) > 5 else ''}"
                              for src, cols in self.unmapped.items() if cols)
            out.append(f"{self.n_unmapped} of {self.columns} source columns with values are not mapped "
                       f"({self.unmapped_share:.0%}): {names}")
        if self.without_subject:
            out.append(f"{self.without_subject} of {self.records} records get no subject ({self.subject_share:.0%}; "
                       "a value their subject IRI needs is missing): nothing of them is in the KG")
        for src, arrays in self.unread.items():
            out.append(f"{src}: arrays of records not read ({', '.join(arrays)}): nothing of them is in the KG; "
                       "list the file once per array in the manifest (see the audit)")
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CoverageLoss":
        """The loss a :meth:`to_dict` gave (its derived keys ignored)."""
        return cls(**{k: d[k] for k in ("dropped", "join", "function", "untagged", "columns", "unmapped", "records",
                                        "without_subject", "merged", "merged_into", "unread") if k in d})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with ``lossy`` and ``summary``."""
        return {"dropped": self.dropped, "guard": self.guard, "join": self.join, "function": self.function,
                "untagged": self.untagged,
                "columns": self.columns, "unmapped": self.unmapped, "records": self.records,
                "without_subject": self.without_subject, "merged": self.merged, "merged_into": self.merged_into,
                "unread": self.unread, "lossy": self.lossy, "summary": self.summary()}


def _get(f: Any, key: str) -> Any:
    return f.get(key) if isinstance(f, Mapping) else getattr(f, key, None)


def coverage_loss(counts: Mapping[str, Any] | None, coverage: Mapping[str, Any] | None = None,
                  findings: Iterable[Any] = ()) -> CoverageLoss:
    """The losses of one run.

    Args:
        counts: ``run.json`` ``counts`` (``triples_dropped_by_guards``).
        coverage: ``run.json`` ``coverage``: per source ``columns``, ``unmapped_columns``, ``records``,
            ``records_with_subject``, ``triples_maps`` (:func:`pipeline.compile.coverage.source_coverage`).
        findings: the run's findings (:class:`~pipeline.findings.Finding` or their dicts); the
            materialize stage's ``N value(s) dropped: <reason>`` ones tell join and function losses apart.
    Returns:
        A :class:`CoverageLoss`.
    """
    loss = CoverageLoss(dropped=int((counts or {}).get("triples_dropped_by_guards") or 0))
    for f in findings:
        if _get(f, "stage") == "audit" and _get(f, "code") == UNTAGGED_CODE:
            if m := _UNTAGGED.search(str(_get(f, "message") or "")):
                loss.untagged += int(m.group(1))
            continue
        if _get(f, "code") == UNREAD_RECORDS:
            if m := _UNREAD.search(str(_get(f, "message") or "")):
                name = str(_get(f, "file") or "").replace("\\", "/").rsplit("/", 1)[-1]
                shown = [a.strip("'") for a in m.group(2).split(", ") if a != "..."]
                shown += [f"{int(m.group(1)) - len(shown)} more"] if int(m.group(1)) > len(shown) else []
                loss.unread.setdefault(name, []).extend(a for a in shown if a not in loss.unread.get(name, []))
            continue
        if _get(f, "code") == MERGED_CODE:
            if m := _MERGED.search(str(_get(f, "message") or "")):
                loss.merged += int(m.group(1))
                loss.merged_into += int(m.group(2))
            continue
        if _get(f, "stage") != "materialize":
            continue
        m = _DROPPED.match(str(_get(f, "message") or ""))
        if m and m.group(2) == "value":
            if m.group(3).startswith(JOIN_REASON):
                loss.join += int(m.group(1))
            elif m.group(3).startswith(NO_VALUE_REASON):
                loss.function += int(m.group(1))
    for src, cov in (coverage or {}).items():
        if not isinstance(cov, Mapping):
            continue
        loss.columns += int(cov.get("columns") or 0)
        if cov.get("unmapped_columns"):
            loss.unmapped[str(src)] = [str(c) for c in cov["unmapped_columns"]]
        if cov.get("triples_maps"):
            loss.records += int(cov.get("records") or 0)
            loss.without_subject += max(int(cov.get("records") or 0) - int(cov.get("records_with_subject") or 0), 0)
    return loss
