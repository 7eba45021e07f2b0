"""The primary class of a source (step 4 of :mod:`.analysis`): name fit and property fit combined.

The fit measures it builds on (a property's domain against a class, the kinds of a column's values
against a property's range) are in :mod:`.fit`.
"""
from __future__ import annotations

import numpy as np
from rdflib import URIRef
from scipy.optimize import linear_sum_assignment

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.fit import domain_fits, range_kinds, value_kind
from pipeline.mappers.offline.names import NameMatcher, is_code_name, reference_words, words

__all__ = ["choose_class"]


def choose_class(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, classes: list[URIRef],
                 props: list[URIRef]) -> None:
    """Set the primary class of a (non-link) source from its name and its references."""
    names = [" ".join(words(info.stem))]
    it = (info.data.iterator or "").rstrip("]*[").split("/")[-1].split(".")[-1]
    if it and it not in ("$", ""):
        names.append(" ".join(words(it)))
    # code names (X17) say nothing about the class: the file name and the kinds of their values decide
    refs = [r for r in info.refs if r not in info.fks and r != info.lang_col and not is_code_name(r)]
    coded = [r for r in info.refs if r not in info.fks and r != info.lang_col and is_code_name(r)]
    coded_kinds = [value_kind(info.data.values(r)) for r in coded]
    best: tuple[float, URIRef | None, str] = (-1.0, None, "")
    for cls in classes:
        name_fit = max(matcher.score(n, cls) for n in names)
        fits = [p for p in props if domain_fits(ontology, p, cls) == 1.0]
        prop_fit = 0.0
        if refs and fits:
            prop_fit = float(np.mean([max(matcher.score(" ".join(reference_words(r)), p) for p in fits) for r in refs]))
        if not refs and coded:
            prop_fit = _kind_fit(ontology, fits, coded_kinds)
        score = 0.5 * name_fit + 0.5 * prop_fit if refs or coded else name_fit
        if score > best[0]:
            best = (score, cls, f"name fit {name_fit:.2f} ({names[0]!r}), property fit {prop_fit:.2f} "
                                f"over {len(refs)} reference(s)")
    info.cls_score, info.cls, info.cls_evidence = best


def _kind_fit(ontology: Ontology, props: list[URIRef], kinds: list[str | None]) -> float:
    """Share of columns and properties that pair up by value kind (maximum bipartite matching of
    column kinds to the kinds the properties' ranges admit, over the larger of the two counts): a
    source of dates, prices and counts fits a class whose properties range over those, not a class
    of names only."""
    if not props or not kinds:
        return 0.0
    m = np.array([[1.0 if k in range_kinds(ontology, p) else 0.0 for p in props] for k in kinds])
    rows, cols = linear_sum_assignment(-m)
    return float(m[rows, cols].sum()) / max(len(kinds), len(props))
