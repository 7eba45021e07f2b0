"""What a KG holds, for a reader without a gold KG: sizes, classes, properties, sample entities.

Read from the KG file in two streaming passes of pyoxigraph's parser (counts and the sample
entities first, then the sample entities' statements), so a large KG costs two linear reads
and memory for the counts only.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyoxigraph

__all__ = ["kg_summary", "split_iri"]

_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_FORMATS = {".nt": "application/n-triples", ".nq": "application/n-quads"}


def split_iri(iri: str) -> tuple[str, str]:
    """``(namespace, local name)`` of an IRI, split after its last ``#``, ``/`` or ``:``."""
    cut = max(iri.rfind("#"), iri.rfind("/"), iri.rfind(":"))
    if cut == len(iri) - 1:  # a namespace IRI itself: its last segment is the name
        cut = max(iri.rfind("#", 0, cut), iri.rfind("/", 0, cut))
    return iri[:cut + 1], iri[cut + 1:]


def _text(term: Any) -> str:
    return str(term)


def kg_summary(path: str | Path, top: int = 15, samples: int = 3, per_sample: int = 8) -> dict[str, Any] | None:
    """Sizes, classes and properties with their counts, and a few sample entities of an N-Triples
    or N-Quads KG.

    Args:
        path: the KG file (``.nt`` or ``.nq``; another syntax gives ``None``).
        top: classes and properties listed (the most frequent; the rest are counted).
        samples: sample entities: the first subject (in file order) of each of the most frequent
            classes. per_sample: statements shown per sample entity.
    Returns:
        ``{"triples", "subjects", "n_classes", "n_properties", "classes": [{"iri", "namespace",
        "name", "count"}], "properties": [...], "more_classes", "more_properties", "untyped_subjects",
        "samples": [{"entity", "class", "statements": [N-Triples lines], "n_statements"}]}``, or
        ``None`` when the file is missing, in another syntax or does not parse.
    """
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None or not path.is_file():
        return None
    classes: Counter = Counter()
    properties: Counter = Counter()
    subjects: set[str] = set()
    typed: set[str] = set()
    first_of: dict[str, str] = {}
    n = 0
    try:
        with path.open("rb") as fh:
            for q in pyoxigraph.parse(fh, fmt):
                n += 1
                s, p = _text(q.subject), q.predicate.value
                subjects.add(s)
                properties[p] += 1
                if p == _TYPE:
                    c = _text(q.object)
                    c = c[1:-1] if c.startswith("<") else c
                    classes[c] += 1
                    typed.add(s)
                    first_of.setdefault(c, s)
        picked = [(first_of[c], c) for c, _ in classes.most_common(samples)]
        wanted = {s: [] for s, _ in picked}
        counts = Counter()
        if wanted:
            with path.open("rb") as fh:
                for q in pyoxigraph.parse(fh, fmt):
                    s = _text(q.subject)
                    if s in wanted:
                        counts[s] += 1
                        if len(wanted[s]) < per_sample:
                            wanted[s].append(f"{q.subject} {q.predicate} {q.object} .")
    except (SyntaxError, OSError, ValueError):
        return None

    def listing(counter: Counter) -> list[dict[str, Any]]:
        out = []
        for iri, count in counter.most_common(top):
            ns, name = split_iri(iri)
            out.append({"iri": iri, "namespace": ns, "name": name, "count": count})
        return out

    return {"triples": n, "subjects": len(subjects), "n_classes": len(classes), "n_properties": len(properties),
            "classes": listing(classes), "properties": listing(properties),
            "more_classes": max(0, len(classes) - top), "more_properties": max(0, len(properties) - top),
            "untyped_subjects": len(subjects - typed),
            "samples": [{"entity": s.strip("<>"), "class": c, "statements": wanted[s], "n_statements": counts[s]}
                        for s, c in picked]}
