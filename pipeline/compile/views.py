"""Logical views of the TriplesMaps: each group of term maps reads a view with only the fields it reads,
and the repeating parts it reads together are nested as the data nest them (RML-LV nested iterable
fields, https://w3id.org/rml/lv/spec).

RML-LV combines the values of a view's fields as a cross product: one view iteration per combination
of one value of each field. A view shared by every TriplesMap of a part, holding every field they
read, multiplies members that no term map reads together: an attack pattern with 10 related
weaknesses, 9 consequence scopes and 8 execution steps gives 720 iterations for one pattern, and a
catalogue read as one record millions. The triples are the same with fewer fields (a term map's
values in an iteration depend only on the fields it reads, and an expression without values still
gives one iteration), so this pass, run once the TriplesMaps are planned:

1. finds the parts each term map needs iterated, reading it together with the subject map: the
   deepest part shared by each pair of its references (``{p/@ID}_{p/c/c/Impact}_{p/c/c/Note}``:
   ``p`` and ``p/c/c``, so each impact is read beside its own note and pattern), the part of each
   position it reads (``p/s/#``), and, for the subject, the part of its first reference in one (one
   subject per occurrence), plus the part the plan asked for (:mod:`.nesting`, :mod:`.elements`);
2. keeps with the TriplesMap the predicate-object maps that need no other part and read no member
   with several values per iteration; every other group of predicate-object maps (same extra parts,
   same members with several values) moves to a TriplesMap of its own with the same subjects and no
   class, so two repeated members read by different term maps are never combined;
3. gives each TriplesMap a view whose iterable fields are the parts it needs, each nested in the
   deepest other one enclosing it (its iterator relative to that occurrence, its index ``#`` the
   position within it), with an expression field per reference at the deepest part holding it; views
   with the same fields are shared.

The plan's terms stay written in the records' references; :func:`bind_key` names the view key of a
reference (``Attack_Pattern.Consequence.Impact``, ``Attack_Pattern.Skill.#``).
"""
from __future__ import annotations

import os
import re

from pipeline.compile.model import PredicateObject, TriplesMapPlan, ViewNode, ViewPlan, term_references
from pipeline.compile.parts import (POSITION, encloses, is_position, member_of, part_iterator, part_separator,
                                    parts_of, values_reference)
from pipeline.sources.load import SourceData

__all__ = ["layout_views", "bind_key", "pom_references", "values_per_iteration", "field_name", "last_step"]


def pom_references(pom: PredicateObject) -> list[str]:
    """The references a predicate-object map reads: its objects' terms and language maps, and the
    child side of its join conditions."""
    out: list[str] = []
    for o in pom.objects:
        if o.term is not None:
            out += term_references(o.term)
            out += [o.term.language_ref] if o.term.language_ref else []
        out += [child for child, _ in o.joins]
    return list(dict.fromkeys(out))


def layout_views(tms: list[TriplesMapPlan]) -> list[TriplesMapPlan]:
    """The TriplesMaps to write: each of ``tms`` with its view laid out, followed by the TriplesMaps
    its predicate-object maps moved to (see the module docstring).

    Args:
        tms: the planned TriplesMaps (their ``view``, when set, names the part they must iterate).
    Returns:
        The TriplesMaps in order; one with no predicate-object map left, no class and no relation to it
        is dropped.
    """
    parent_refs: dict[str, list[str]] = {}
    for tm in tms:
        for pom in tm.poms:
            for o in pom.objects:
                if o.parent:
                    parent_refs.setdefault(o.parent, []).extend(p for _, p in o.joins)
    taken = {tm.id for tm in tms}
    shared: dict[tuple, ViewPlan] = {}
    out: list[TriplesMapPlan] = []
    for tm in tms:
        out += _split(tm, parent_refs.get(tm.id, []), shared, taken)
    return out


def _split(tm: TriplesMapPlan, parent_refs: list[str], shared: dict[tuple, ViewPlan],
           taken: set[str]) -> list[TriplesMapPlan]:
    src, it = tm.source, tm.iterator
    if src.source.format not in ("json", "xml") or tm.source_path:  # a join twin reads its own spelling of the file
        return [tm]
    subject = term_references(tm.subject)
    base = _needed(src, it, subject, first_part=True) | ({tm.view.part} if tm.view is not None else set())
    main: list[PredicateObject] = []
    groups: dict[tuple[frozenset, frozenset], list[PredicateObject]] = {}
    for pom in tm.poms:
        refs = pom_references(pom)
        need = base | _needed(src, it, subject + refs)
        several = frozenset(r for r in refs if r not in subject and _several(src, it, r, need)) if need else frozenset()
        extra = frozenset(need - base)
        if extra or several:
            groups.setdefault((extra, several), []).append(pom)
        else:
            main.append(pom)
    requested = tm.view
    tm.view = None
    if base:
        refs = subject + [r for p in main for r in pom_references(p)] + parent_refs
        tm.view = _view(src, it, base, refs, shared, requested)
    out = [tm]
    moved = {p.line for poms in groups.values() for p in poms}
    tm.poms, tm.lines = main, [line for line in tm.lines if line not in moved]
    for (extra, several), poms in groups.items():
        parts = base | extra
        refs = subject + [r for p in poms for r in pom_references(p)]
        view = _view(src, it, parts, refs, shared, requested)
        hint = max(extra, key=len) if extra else sorted(several)[0]
        tm_id = _unique(f"{tm.id}_{field_name(last_step(src, hint))}"[:100], taken)
        taken.add(tm_id)
        out.append(TriplesMapPlan(tm_id, src, it, tm.subject, tm.template, [], poms, [p.line for p in poms],
                                  tm.source_path, tm.owner or tm.id, view))
    if not tm.poms and not tm.classes and not parent_refs and len(out) > 1:
        out.pop(0)  # its term maps all moved: a TriplesMap with nothing to state
    return out


def _needed(src: SourceData, iterator: str | None, refs: list[str], first_part: bool = False) -> set[str]:
    """The parts to iterate so that ``refs`` (the references of one term map and its subject) are read
    per occurrence where they share one: the deepest part each pair shares, the part of each position,
    and (``first_part``: a subject) the innermost part of the first reference lying in one."""
    chains = {r: parts_of(src, iterator, r) for r in dict.fromkeys(refs)}
    out: set[str] = set()
    for r, chain in chains.items():
        if chain and is_position(src, r, iterator):
            out.add(chain[-1])
    if first_part:
        out.update(next(([c[-1]] for c in chains.values() if c), []))
    items = list(chains.values())
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            n = len(os.path.commonprefix([a, b]))  # the parts both lie in (lists: part by part)
            if n:
                out.add(a[n - 1])
    return out


def _several(src: SourceData, iterator: str | None, ref: str, parts: set[str]) -> bool:
    """Whether ``ref`` may have several values in one iteration of a view iterating ``parts``: it lies
    in a repeating part deeper than the deepest of ``parts`` holding it, or (JSON) names an array."""
    if is_position(src, ref, iterator):
        return False
    chain = parts_of(src, iterator, ref)
    holder = max((p for p in parts if member_of(src, p, ref) is not None), key=len, default=None)
    if any(q not in parts and (holder is None or encloses(src, holder, q)) for q in chain):
        return True
    return src.source.format == "json" and values_reference(src, iterator, ref).endswith("[*]")


def _view(src: SourceData, iterator: str | None, parts: set[str], refs: list[str], shared: dict[tuple, ViewPlan],
          requested: ViewPlan | None) -> ViewPlan:
    """The view on ``src`` iterating ``parts`` (nested by enclosure) with a field per reference of
    ``refs``; an equal view made before is returned instead."""
    roots: list[ViewNode] = []
    made: list[ViewNode] = []
    for part in sorted(parts, key=lambda p: (len(p), p)):
        parent = max((n for n in made if encloses(src, n.part, part)), key=lambda n: len(n.part), default=None)
        siblings = parent.children if parent is not None else roots
        name = _unique(field_name(last_step(src, part)), {n.name for n in siblings})
        node = ViewNode(part, name, part_iterator(src, iterator, part, parent.part if parent is not None else None))
        siblings.append(node)
        made.append(node)
    main = requested.part if requested is not None and requested.part in parts else \
        max(parts, key=lambda p: (len(p), p))
    node = next(n for n in made if n.part == main)
    view = ViewPlan("", src, iterator, main, node.name, part_iterator(src, iterator, main), nodes=roots)
    for r in dict.fromkeys(refs):
        bind_key(view, r)
    key = (id(src), iterator, _signature(view))
    if key in shared:
        return shared[key]
    slug = re.sub(r"\W+", "_", f"{src.source.stem}_{node.name}").strip("_")
    view.id = f"view{len(shared) + 1}_{slug}"[:100]
    shared[key] = view
    return view


def _signature(view: ViewPlan) -> tuple:
    def node(n: ViewNode) -> tuple:
        return n.part, n.name, n.iterator, tuple(sorted(n.fields.items())), tuple(node(c) for c in n.children)
    return tuple(sorted(view.fields.items())), tuple(node(n) for n in view.nodes)


def bind_key(view: ViewPlan, ref: str) -> str:
    """The view key holding the value of ``ref`` (a reference relative to the records), the field made
    on first use: ``<field>.<field>.<member>`` for a member of an iterated part, ``<field>.#`` for the
    position of an occurrence, else a record-level field."""
    src = view.source
    path: list[str] = []
    node: ViewNode | None = None
    children = view.nodes
    while True:
        inner = next((c for c in children if member_of(src, c.part, ref) is not None), None)
        if inner is None:
            break
        node, children = inner, inner.children
        path.append(inner.name)
        if member_of(src, inner.part, ref) == POSITION:
            return ".".join(path + [POSITION])
    if node is None:
        name = view.fields.get(ref)
        if name is None:
            name = _unique(field_name(ref), set(view.fields.values()) | {n.name for n in view.nodes})
            view.fields[ref] = name
        return name
    member = member_of(src, node.part, ref)
    name = node.fields.get(member)
    if name is None:
        name = _unique(field_name(member), set(node.fields.values()) | {c.name for c in node.children})
        node.fields[member] = name
    return ".".join(path + [name])


def values_per_iteration(tm: TriplesMapPlan, ref: str) -> int:
    """Largest number of values ``ref`` has in one iteration of ``tm`` (XML, from the data; 1 for a
    position or an occurrence's own text; 0 when the expression cannot be evaluated)."""
    base = (tm.iterator or "").rstrip("/")
    view, node = tm.view, None
    children = view.nodes if view is not None else []
    while True:
        inner = next((c for c in children if member_of(tm.source, c.part, ref) is not None), None)
        if inner is None:
            break
        node, children = inner, inner.children
    if node is None:
        return tm.source.max_per_record(ref, tm.iterator)
    member = member_of(tm.source, node.part, ref)
    if member in (".", POSITION):
        return 1
    return tm.source.max_per_record(member, f"{base}/{node.part}")


def last_step(src: SourceData, path: str) -> str:
    """The last step of a part's path, without its namespace prefix (``cat:Consequences/cat:Consequence``
    -> ``Consequence``; ``sections.tracks`` -> ``tracks``)."""
    sep = part_separator(src)
    return path.split(sep)[-1].split(":")[-1] if sep == "/" else path.split(sep)[-1]


def field_name(ref: str) -> str:
    """A field name for a reference: its words joined by ``_`` (``@xml:lang`` -> ``xml_lang``,
    ``publisher.name`` -> ``publisher_name``); ``value`` for the element's own text."""
    ref = re.sub(r"^\$\.?", "", ref).replace("[*]", "")
    return re.sub(r"\W+", "_", ref).strip("_") or "value"


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    return out
