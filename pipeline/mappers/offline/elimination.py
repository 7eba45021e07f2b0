"""Columns whose names say nothing: assignment by the kind of their values (elimination).

Column names may be codes (``F07``), abbreviations no rule expands (``pvp``) or words of
another vocabulary (``brand`` for a trade name). Then the data and the ontology still say
something: a property's ``rdfs:range`` fixes the lexical kind of its values (a date, a whole
number, a decimal, a year, a boolean, text: :func:`.fit.value_kind`, :func:`.fit.range_kinds`), and the record key identifies the entity, which
an identifier property (``owl:hasKey``, a functional property named as an identifier) states.

:func:`assign_by_elimination` pairs, within the primary class of a source, a column left
unassigned with a property of the class left unassigned when the property is the column's only
candidate by value kind and no other column has that property as its only candidate, repeating until nothing changes (taking a
decimal property for the decimal column can leave one whole-number property for the
whole-number column). Text columns compete for text properties; when several remain, none is
guessed; a text property whose name promises e-mail addresses, telephone numbers or web
addresses takes only a column of that form (:mod:`.forms`), and a property a leftover column names but
whose range its values do not fit goes to no other column. Every pair carries the evidence and a low confidence (0.5): it is a reading of the
data, not of the names.
"""
from __future__ import annotations

import numpy as np
from rdflib import URIRef
from scipy.optimize import linear_sum_assignment

from pipeline.compile.parts import repeating_part
from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_fits, range_kinds, value_kind
from pipeline.mappers.offline.forms import FORMS, named_form, value_form
from pipeline.mappers.offline.identity import identifier_properties, names_another_scheme
from pipeline.mappers.offline.names import NameMatcher, is_code_name, reference_words
from pipeline.mappers.offline.profile import distinct_records, is_key
from pipeline.mappers.offline.skos import match_members, match_value_map

__all__ = ["assign_by_elimination", "ELIMINATION_SCORE"]

#: Confidence of a pair found by elimination (below name evidence; above nothing).
ELIMINATION_SCORE = 0.5
#: Least evidence, and least lead over the column's next candidate, for a mutual-best pair.
MUTUAL_SCORE = 0.2
MUTUAL_MARGIN = 0.05
#: Least similarity of a coded column's sample values to a property's label and comment (cosine of
#: sentence embeddings of lists of values run low: ``Cork; Turin`` ~ "city where ... seat" 0.20).
MUTUAL_VALUE_SCORE = 0.12


def _names_range_members(ontology: Ontology, cls: URIRef, ref: str, values: list[str]) -> bool:
    """The values of ``ref`` name the declared members of a class (:func:`.skos.match_members`) that is the
    range of a property usable on ``cls``: a coded column the value maps take (:meth:`.rows.RowBuilder.skos_rows`)."""
    vm = match_members(ontology, ref, values)
    return vm is not None and any(vm.scheme in ontology.ranges(p) and domain_fits(ontology, p, cls) > 0
                                  for p in ontology.properties)


def assign_by_elimination(info: SourceInfo, ontology: Ontology, matcher: NameMatcher,
                          datatype_props: list[URIRef]) -> list[Assignment]:
    """Pair leftover columns with leftover properties of ``info.cls`` by value kind (module docstring).

    Considered: columns with values, not assigned, no foreign key, not the language column, not a
    coded column of a SKOS scheme or of the declared members of a class, not in a repeating part read as
    entities (:mod:`.occurrences`); properties whose domain is the class (or a superclass), not yet
    assigned. The single-column record key goes to the class's single unassigned identifier
    property first. Returns the new assignments (also appended to ``info.assignments``).
    """
    if info.cls is None or info.link:
        return []
    done = {a.reference for a in info.assignments}
    used = {a.prop for a in info.assignments}
    # a member of a repeating part whose occurrences are entities (occurrences.py) is no value of the record
    parts = {repeating_part(info.data, info.data.iterator, a.reference) for a in info.assignments
             if a.cls != info.cls} - {None}
    cols = [r for r in info.refs if r not in done and r not in info.fks and r != info.lang_col
            and match_value_map(ontology, r, info.data.values(r)) is None
            and not (parts and repeating_part(info.data, info.data.iterator, r) in parts)
            and not _names_range_members(ontology, info.cls, r, info.data.values(r))]
    props = [p for p in datatype_props if p not in used and domain_fits(ontology, p, info.cls) == 1.0]
    new: list[Assignment] = []

    def take(r: str, p: URIRef, why: str, basis: str = "values", review: str | None = None) -> None:
        a = Assignment(r, p, info.cls, ELIMINATION_SCORE, [why, f"domain of {ontology.compact(p)} is "
                                                           f"{ontology.compact(info.cls)}"], basis, review)
        info.assignments.append(a)
        new.append(a)
        cols.remove(r)
        props.remove(p)

    ids = list(identifier_properties(ontology, matcher, info.cls, props))
    if len(info.key) == 1 and info.key[0] in cols and len(ids) == 1 \
            and is_key(distinct_records(info.data.records), info.key) \
            and not names_another_scheme(matcher, info.key[0], ids[0], info.cls, info.stem):
        take(info.key[0], ids[0], f"{info.key[0]!r} is the record key and {ontology.compact(ids[0])} the "
                                  f"only unassigned identifier property of {ontology.compact(info.cls)}")
    kinds = {r: value_kind(info.data.values(r)) for r in cols}
    admits = {p: range_kinds(ontology, p) for p in props}
    _refine_text_forms(info, ontology, kinds, admits)
    for p in _claimed_by_name(matcher, cols, props, kinds, admits):
        props.remove(p)
    ids_left = set(ids)
    while _unique_pairs(info, ontology, cols, props, kinds, admits, ids_left, take) + \
            _mutual_best(info, ontology, matcher, cols, [p for p in props if p not in ids_left], kinds, admits, take):
        pass
    return new


def _claimed_by_name(matcher: NameMatcher, cols: list[str], props: list[URIRef], kinds: dict,
                     admits: dict) -> list[URIRef]:
    """The properties a leftover column names (similarity :data:`.analysis.MIN_SCORE` or more) whose range
    does not admit that column's values (``Preis`` ~ ``ex:preis``, but its prices are written ``ab 5 Euro``):
    the name says the property is that column's, the values that the column is faulty; neither says
    another column's values are the property's, so elimination does not hand it to one (a row number is no
    price)."""
    return [p for p in props
            if any(kinds[c] is not None and kinds[c] not in admits[p] and not is_code_name(c)
                   and matcher.score(" ".join(reference_words(c)), p) >= MIN_SCORE for c in cols)]


def _refine_text_forms(info: SourceInfo, ontology: Ontology, kinds: dict, admits: dict) -> None:
    """Split the text kind by the forms of :mod:`.forms` (changed in place): a text column of e-mail
    addresses (telephone numbers, web addresses) is of that form, a text property whose name promises a
    form admits only columns of it (a price is no e-mail address), and any other text property admits
    every form (an e-mail address is text)."""
    for r, k in kinds.items():
        if k == "text":
            kinds[r] = value_form(info.data.values(r)) or "text"
    for p, ks in admits.items():
        if "text" in ks:
            form = named_form(ontology, p)
            admits[p] = (ks - {"text"}) | {form} if form else ks | set(FORMS)


def _unique_pairs(info: SourceInfo, ontology: Ontology, cols: list[str], props: list[URIRef], kinds: dict,
                  admits: dict, ids_left: set, take) -> int:
    """Take every pair whose property is the column's only candidate by value kind (and no other
    column's only candidate); returns how many were taken."""
    count, changed = 0, True
    while changed:
        changed = False
        for r in list(cols):
            fit = [p for p in props if kinds[r] in admits[p] and p not in ids_left]
            if len(fit) != 1:
                continue
            p = fit[0]
            # another column with no other choice than p makes the pair ambiguous
            if any(c != r and [q for q in props if kinds[c] in admits[q] and q not in ids_left] == [p]
                   for c in cols):
                continue
            # the record key names the entity (its IRI holds it): that a leftover property admits its kind of
            # values says nothing of what the key means (an observation id is no unit), so the pair is shown
            keyed = None if r not in info.key else (
                f"{r!r} is the record key, and {ontology.compact(p)} no identifier property: paired only because "
                "its range admits the key's values; confirm or delete the row")
            take(r, p, f"by elimination: {r!r} holds {kinds[r]} values and {ontology.compact(p)} is the only "
                       f"unassigned property of {ontology.compact(info.cls)} whose range admits them "
                       f"(no other column depends on it)", review=keyed)
            changed = True
            count += 1
    return count


def _sample_text(values: list[str], n: int = 8) -> str:
    """Up to ``n`` distinct non-empty values joined by ``; `` (what the column holds, for embeddings)."""
    return "; ".join(list(dict.fromkeys(v.strip() for v in values if v and v.strip()))[:n])


def _mutual_best(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, cols: list[str],
                 props: list[URIRef], kinds: dict, admits: dict, take) -> int:
    """Several columns compete for several properties of one value kind: pair them by the best
    joint assignment of the evidence (the name similarity, or the similarity of a sample of the
    column's values to the property's label and comment: ``Cork; Turin`` reads as "city where the
    publisher has its seat"); a pair is taken at :data:`MUTUAL_SCORE` or more. A code name
    (``X17``: no word of letters) is no evidence: such a column is judged by its values alone, at
    least :data:`MUTUAL_VALUE_SCORE`, and its pair must raise the assignment's total by
    :data:`MUTUAL_MARGIN` over the best assignment without it (first names and surnames read
    alike). Returns how many pairs were taken."""
    if cols and props:
        sc: dict[tuple[str, URIRef], float] = {}
        floor: dict[str, float] = {}
        for r in cols:
            sample = _sample_text(info.data.values(r))
            text = " ".join(reference_words(r))
            coded = is_code_name(r)
            floor[r] = MUTUAL_VALUE_SCORE if coded else MUTUAL_SCORE
            for p in props:
                if kinds[r] in admits[p]:
                    cos = (matcher.cosine(sample, p) if kinds[r] in ("text", *FORMS) and sample else None) or 0.0
                    sc[(r, p)] = cos if coded else max(matcher.score(text, p), cos)
        if not sc:
            return 0
        # the best joint assignment (Hungarian algorithm), not the greedy best pair: a name that
        # resembles a property by letters only (location ~ collection) must not take the property
        # another column fits better while its own fits the other one better still
        rows = sorted({r for r, _ in sc})
        cols_p = sorted({p for _, p in sc}, key=str)
        m = np.array([[sc.get((r, p), -1.0) for p in cols_p] for r in rows])
        taken = 0
        # more candidate properties than columns (a large vocabulary's many text properties): the weak
        # similarities chose which properties pair at all; as many or fewer: every property left is
        # taken, the pairing is forced up to the order, like a unique kind
        basis = "joint assignment" if len(cols_p) > len(rows) else "values"
        best_rows, best_cols = linear_sum_assignment(-m)
        total = float(m[best_rows, best_cols].sum())
        for i, j in zip(best_rows, best_cols):
            r, p, v = rows[i], cols_p[j], float(m[i, j])
            others = sorted((w for (c, q), w in sc.items() if c == r and q != p), reverse=True)
            if v < floor[r]:
                continue
            if is_code_name(r) and others:
                # values alone are weak evidence: the pair must lead the best assignment without it
                alt = m.copy()
                alt[i, j] = -1.0
                ar, ac = linear_sum_assignment(-alt)
                if total - float(alt[ar, ac].sum()) < MUTUAL_MARGIN:
                    continue
            # a named column whose evidence stays below the least similarity a name match needs is no match
            # the mapper makes on its own name evidence: the pairing is shown for review, not asserted. A
            # pairing chosen among more properties (`joint assignment`) is marked by its calibration
            # (.confidence); a forced one (`values`: every leftover property taken) would be asserted
            weak = None if is_code_name(r) or v >= MIN_SCORE or basis != "values" else (
                f"{r!r} ~ {ontology.compact(p)} only {v:.2f}, below the {MIN_SCORE} a name match needs: paired "
                "because both were left over; confirm or delete the row")
            take(r, p, f"{r!r} ~ {ontology.compact(p)} in the best joint assignment of the unassigned "
                       f"{kinds[r]} columns and properties of {ontology.compact(info.cls)} by name or sample "
                       f"values ({v:.2f}" + (f"; its next candidate {others[0]:.2f})" if others else ")"),
                 basis, weak)
            taken += 1
        return taken
    return 0

