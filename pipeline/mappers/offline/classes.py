"""The primary class of a source (step 4 of :mod:`.analysis`): name fit and property fit combined.

The fit measures it builds on (a property's domain against a class, the kinds of a column's values
against a property's range) are in :mod:`.fit`.
"""
from __future__ import annotations

import re

import numpy as np
from rdflib import URIRef
from scipy.optimize import linear_sum_assignment

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, SourceInfo
from pipeline.sources.columns import ColumnRecords
from pipeline.sources.model import SourceData
from pipeline.mappers.offline.jsonld import defines_other, type_iris
from pipeline.mappers.offline.fit import MOSTLY_FITS, DomainIndex, domain_fits, range_kinds, value_kind
from pipeline.mappers.offline.names import NameMatcher, is_code_name, own_words, singular, words
from pipeline.mappers.offline.nested import parent
from pipeline.mappers.offline.profile import MISSING_MARKERS

__all__ = ["choose_class", "part_members", "type_column", "classes_of_few", "held_share", "class_from_references", "TYPE_MEMBERS", "GENERIC_FILE_WORDS"]


#: Member names that state a record's class: JSON-LD's keyword (JSON-LD 1.1, section 4.3: "@type" sets
#: the type of a node) and the plain words data sets use for it; a member counts only when every one of
#: its values names a class of the vocabularies (:func:`type_column`).
TYPE_MEMBERS = frozenset({"@type", "type", "rdf:type", "class"})


def type_column(info: SourceInfo, ontology: Ontology) -> tuple[str, URIRef] | None:
    """The reference whose values state the class of the records, with that class, else ``None``.

    A member named as a type (:data:`TYPE_MEMBERS`: ``properties.@type``) whose values, as IRIs or as
    prefixed names the vocabularies bind, all name one and the same class of the vocabularies
    (``http://schema.org/ParkingFacility``). Data evidence that outranks any name similarity: the
    data says what its records are. Values naming no class (GeoJSON's ``"type": "Feature"``) or
    several classes decide nothing. In a JSON-LD source the context decides what a member is: its
    ``@type`` member or an alias of it (``"kind": "@type"``), whose values are expanded by the context
    (:func:`.jsonld.type_iris`: ``"ParkingFacility"`` under ``"@vocab": "http://schema.org/"``), is one, and a
    member the context defines as a property (``"type": "dct:type"``) is none."""
    for r in info.refs:
        found = type_iris(info.data, r)
        if found is None:
            if re.split(r"[/.]", r)[-1] not in TYPE_MEMBERS or defines_other(info.data, r):
                continue
            found = {ontology.expand(v.strip()) for v in set(info.data.values(r)) if v and v.strip()}
        if len(found) == 1 and (cls := next(iter(found))) is not None and cls in ontology.classes:
            return r, cls
    return None


def part_members(refs: list[str], matcher: NameMatcher, classes: list[URIRef]) -> set[str]:
    """The references of ``refs`` that lie in a nested object (:func:`.nested.parent`) whose own name is a
    name of a class of the vocabularies at a name match's level (:data:`SUBCLASS_EVIDENCE`): ``city.name``
    and ``city.code`` under ``city`` ~ ``ex:City``. Such an object is a part of the record holding an entity of
    that class, so its members describe that entity, not the record's (an object named for no class, GeoJSON's
    ``properties``, holds the record's own members). Empty when no object is so named."""
    out: set[str] = set()
    named: dict[str, bool] = {}
    for r in refs:
        obj = parent(r)
        if not obj:
            continue
        if obj not in named:
            text = " ".join(words(re.split(r"[/.]", obj)[-1]))
            named[obj] = bool(text) and any(matcher.score(text, c) >= SUBCLASS_EVIDENCE for c in classes)
        if named[obj]:
            out.add(r)
    return out


def classes_of_few(info: SourceInfo, matcher: NameMatcher, classes: list[URIRef]) -> set[URIRef]:
    """Classes that a type member of the records names, word for word, for at most half of them.

    A member named as a type (:data:`TYPE_MEMBERS`) whose values are words, not IRIs, still says what each
    record is: a CycloneDX component of ``"type": "operating-system"`` is an operating system, and the 119
    of ``"type": "library"`` are not. A class one of those values names (its words are one of the class's
    names: ``operating-system`` ~ ``dpv:OperatingSystem``) for no more than half of the records is the class
    of those records, not of the source's: it is no candidate for the source's class (the few records'
    own members still open their entity). Values naming no class decide nothing."""
    out: set[URIRef] = set()
    records = info.data.records
    if not records:
        return out
    by_words = {}
    for cls in classes:
        for n in matcher.names(cls):
            by_words.setdefault(n, set()).add(cls)
    for r in info.refs:
        if re.split(r"[/.]", r)[-1] not in TYPE_MEMBERS:
            continue
        named: dict[URIRef, int] = {}
        for rec in records:
            for cls in {c for v in rec.get(r, ()) if v and ":" not in v
                        for c in by_words.get(" ".join(words(v, expand=False)), ())}:
                named[cls] = named.get(cls, 0) + 1
        out |= {cls for cls, n in named.items() if n <= 0.5 * len(records)}
    return out


#: Words of file names that say a file holds data, not what the data is about (English and Spanish, the
#: languages of the mapper's word lists): ``data.csv``, ``datos.csv``, ``export.json`` name no class.
GENERIC_FILE_WORDS = frozenset({"data", "dataset", "datasets", "datos", "dato", "export", "exports", "dump", "file",
                                "files", "fichero", "archivo", "table", "tabla", "records", "record", "registros",
                                "output", "input", "sample", "samples", "list", "listado", "info", "all", "full",
                                "latest", "new", "old", "final", "raw", "clean", "test", "example", "examples"})


def choose_class(info: SourceInfo, ontology: Ontology, matcher: NameMatcher, classes: list[URIRef],
                 props: list[URIRef], object_props: list[URIRef] = ()) -> None:
    """Set the primary class of a (non-link) source: the class its records state (:attr:`SourceInfo.typed`),
    else the best of name fit and property fit. The columns' names are matched with ``props`` (datatype
    properties) and ``object_props`` (a column named for a relation of the class is evidence of it too);
    code-named columns by the kinds of their values with the datatype properties only. When no name of the source,
    the file's nor a column's, fits anything at a name match's level (:func:`_names_match_nothing`), every column is
    judged as a code-named one: the class is the one the kinds of the values fit best, when some value is of a kind
    other than text (a text fits every text range and tells no class from another)."""
    data_props = set(props)
    props = [*props, *(p for p in object_props if p not in data_props)]
    if info.typed is not None:
        ref, cls = info.typed
        info.cls_score, info.cls = 1.0, cls
        info.cls_evidence = f"every record states its class: {ref!r} is {ontology.compact(cls)}" + (
            " (its JSON-LD @type)" if type_iris(info.data, ref) is not None else "")
        return
    # a file name made of generic words (datos.csv) names no class: the columns decide alone; so does the
    # member or element the records lie in when it is such a word (an API answer's `data`, `records`)
    it = (info.data.iterator or "").rstrip("]*[").split("/")[-1].split(".")[-1]
    # unless the element or member is named as a class of the vocabularies, word for word: each record is a
    # <dataset> element, and under DCAT's dcat:Dataset the name says what it is. A file name keeps the rule
    # (a file is a data set, an export, whatever its records are). A single letter (a.xml, b.xml) or a number
    # is no word: its similarity to a class's name is noise, and the class would flip with it
    named = {singular(n) for c in classes for n in matcher.names(c) if " " not in n}
    names = [n for n in (" ".join(w for w in words(text, expand=False)
                                  if (w not in GENERIC_FILE_WORDS or (element and singular(w) in named))
                                  and len(w) > 1 and not w.isdigit())
                         for text, element in ((info.stem, False), (it if it != "$" else "", True))) if n]
    names = [" ".join(words(n)) for n in names]
    # code names (X17) say nothing about the class: the file name and the kinds of their values decide
    refs = [r for r in info.refs if r not in info.fks and r != info.lang_col and not is_code_name(r)]
    # the members of a nested object named as a class (`city.name`, `city.code` in a museum's record)
    # describe that object's entity, a second one of the record (:mod:`.properties` opens it): no evidence
    # of the record's own class, when the record has members of its own that decide it (one names a property
    # of a declared domain at a name match's level: `visitors` ~ ex:visitors, domain ex:Museum)
    parts = part_members(refs, matcher, classes)
    if parts and not any(ontology.domains(p) and matcher.score(own_words(r, info.stem), p) >= SUBCLASS_EVIDENCE
                         for r in refs if r not in parts for p in props):
        parts = set()
    refs = [r for r in refs if r not in parts]
    coded = [r for r in info.refs if r not in info.fks and r != info.lang_col and is_code_name(r)]
    coded_kinds = [value_kind(info.data.values(r)) for r in coded]
    # a column named after the records' own entity (stop_name, stop_lat in stops.csv) names a property
    # of that entity by its other words: the shared word would favour a class of "stop ..." properties
    texts = [own_words(r, info.stem) for r in refs]
    # a foreign key refers to another entity: it is no value of a datatype property (its name would take the
    # referenced class's own, `sensor` ~ `installedOn`), but a name of the relation (`sensor` ~
    # `sosa:madeBySensor`, domain sosa:Observation) is evidence of the records' class (rdfs:domain, RDF 1.1
    # Semantics rdfs2); it counts when it names an object property at a name match's level
    rels = [j for j, p in enumerate(props) if p not in data_props]
    keyed = []
    for r in (r for r in info.refs if r in info.fks and r != info.lang_col and not is_code_name(r)):
        if rels and max(matcher.score(own_words(r, info.stem), props[j]) for j in rels) >= SUBCLASS_EVIDENCE:
            keyed.append(r)
    # every (column, property) pair scored once; a class then takes the best of the properties usable
    # on it: its own (domain fit 1.0) and those of no domain (0.8)
    sims = np.array([[matcher.score(t, p) for p in props] for t in texts]
                    + [[matcher.score(own_words(r, info.stem), p) if p not in data_props else 0.0 for p in props]
                       for r in keyed]) if (texts or keyed) and props else None
    refs = [*refs, *keyed]
    # a column speaks for the records that hold a value in it: a member of one record in 120 (the
    # operating-system component among the libraries of a software bill of materials) describes that record,
    # not what the records are
    held = np.array([held_share(info.data, r) for r in refs]) if refs else None
    if held is not None and not held.any():  # references no record dict holds (read by XPath): count alike
        held = None
    index = DomainIndex(ontology, props)
    best: tuple[float, URIRef | None, str] = (-1.0, None, "")
    best_own = -1.0
    fits: dict[URIRef, tuple[float, np.ndarray]] = {}
    scored: dict[URIRef, tuple[float, str]] = {}
    minority = classes_of_few(info, matcher, classes)
    # names that match nothing are no evidence, as a code name is none: when neither the file name nor any column
    # name fits a class or a property at a name match's level (MIN_SCORE), their similarities are noise (German
    # columns against English labels: `gemeinden` ~ ex:BudgetLine 0.33, `Gemeinde` ~ ex:municipalityName 0.28), and
    # the class is the one whose properties' ranges the kinds of the column values fit, as for code names
    # the kinds decide only when some value is of a kind other than text (a number, date, year, truth value, time):
    # a text fits every text range, so columns of text alone make every class with as many text properties fit
    # alike (kbr's country-code-mapping-iso-marc.csv of three text columns: prov:KeyEntityPair 0.33, prov:Removal
    # 0.33), a count of text properties, no evidence of what the records are
    unnamed = _names_match_nothing(ontology, matcher, names, classes, sims)
    kinds = [value_kind(info.data.values(r)) for r in refs] if unnamed else []
    unnamed = unnamed and any(k not in (None, "text") for k in [*kinds, *coded_kinds])
    if unnamed:
        coded_kinds = coded_kinds + kinds
    for cls in classes:
        if cls in minority:
            continue
        # equivalent classes are one class (OWL 2: the same instances): a name matching either is the class's;
        # between equivalents of one score, the one whose own name fits best (own_fit) is taken
        own_fit = max((matcher.score(n, cls) for n in names), default=0.0)
        name_fit = max((matcher.score(n, e) for n in names for e in ontology.equivalents(cls)), default=0.0)
        # a property of another vocabulary is usable on the class, but no evidence of it: counted, every
        # class of a small vocabulary (org:Organization) would take the main vocabulary's properties
        weights = index.weights(cls, foreign=False)
        fits[cls] = (name_fit, weights)
        prop_fit = 0.0
        if sims is not None and weights.any():
            prop_fit = float(np.average((sims * weights).max(axis=1), weights=held))
        if (not refs and coded) or unnamed:
            prop_fit = _kind_fit(ontology, [p for p, w in zip(props, weights) if w == 1.0 and p in data_props],
                                 coded_kinds)
        if not names or unnamed:
            score = prop_fit
        else:
            score = 0.5 * name_fit + 0.5 * prop_fit if refs or coded else name_fit
        # the name that fits: the file's, or the member or element the records lie in
        fitting = max(names, key=lambda n: max(matcher.score(n, e) for e in ontology.equivalents(cls))) \
            if names else None
        named = f"name fit {name_fit:.2f} ({fitting!r})" if names else f"the file name {info.stem!r} names no class"
        scored[cls] = (score, f"{named}, property fit {prop_fit:.2f} over {len(refs)} reference(s)" if not unnamed
                       else f"no file or column name fits a class or property at {MIN_SCORE} ({named}): the kinds of "
                            f"the values fit its properties' ranges {prop_fit:.2f} over {len(coded_kinds)} reference(s)")
        if score > best[0] or (score == best[0] and own_fit > best_own):
            best, best_own = (score, cls, scored[cls][1]), own_fit
    info.cls_score, info.cls, info.cls_evidence = best
    if info.cls is not None and parts:
        objects = ", ".join(repr(o) for o in sorted({parent(r) for r in parts}))
        info.cls_evidence += f" (the members of {objects}, named as a class, describe an entity of their own)"
    if info.cls is not None:
        info.cls_name_fit = fits[info.cls][0]
        # the runner-up, so that a reader sees how close the choice was
        runner = max(((v[0], str(c), c) for c, v in scored.items() if c != info.cls), default=None)
        if runner is not None:
            info.cls_evidence += f"; next {ontology.compact(runner[2])} {runner[0]:.2f}"
    if info.cls is not None and sims is not None:
        entailed = _entailed_by_attributes(ontology, info, refs, props, sims, fits, info.cls)
        if entailed is not None:
            cls = entailed[0]
            info.cls_score, info.cls = scored[cls][0], cls
            info.cls_evidence = (f"{scored[cls][1]}; {entailed[1]}, and no column names a property whose domain "
                                 f"is {ontology.compact(best[1])} (its name alone suggested it, {best[0]:.2f})")
    if info.cls is not None and sims is not None:
        general = _most_general_fit(ontology, info.cls, fits, sims, [r for r in refs])
        if general != info.cls:
            # the figures so far are the subclass's: name it
            info.cls_evidence = f"as {ontology.compact(info.cls)}, {info.cls_evidence}"
            info.cls_evidence += (f"; read as {ontology.compact(general)}: no column names a property of "
                                  f"{ontology.compact(info.cls)} that {ontology.compact(general)} lacks, nor does "
                                  "the file name prefer it")
            info.cls = general
            info.cls_name_fit = fits[general][0]
    if info.cls is not None and sims is not None:
        info.cls_evidence += _vocabulary_note(ontology, info.cls, props, sims, fits[info.cls][1])


def _vocabulary_note(ontology: Ontology, cls: URIRef, props: list[URIRef], sims: np.ndarray,
                     weights: np.ndarray) -> str:
    """The evidence clause naming the properties of no domain that counted for ``cls`` as the one class of
    their vocabulary (:meth:`pipeline.ontology.Ontology.vocabulary_class`): each the best match of a column
    at :data:`SUBCLASS_EVIDENCE` or more; ``""`` when none did."""
    sup = ontology.superclasses(cls)
    best = (sims * weights).argmax(axis=1)
    named = sorted({props[j] for i, j in enumerate(best) if sims[i, j] >= SUBCLASS_EVIDENCE
                    and not ontology.domains(props[j]) and ontology.vocabulary_class(props[j]) in sup}, key=str)
    if not named:
        return ""
    owner = ontology.vocabulary_class(named[0])
    return (f"; {', '.join(ontology.compact(p) for p in named)} declare no domain and count as "
            f"{ontology.compact(owner)}'s, the one class of their vocabulary")


#: Kinds of value that are attributes of the record's own entity (a date, a number, a truth value): unlike
#: a text, which may name another entity (a city, an artist), they never identify one.
ATTRIBUTE_KINDS = frozenset({"date", "dateTime", "year", "integer", "decimal", "boolean", "time"})
#: Values of a column read to tell its kind.
ATTRIBUTE_SAMPLE = 200


def held_share(data: SourceData, ref: str) -> float:
    """Share of the records of ``data`` holding a non-empty value of ``ref``, in (0, 1] for a reference with a
    value (a CSV held as its sample: the sample's share); 1.0 for a source of no record."""
    if isinstance(data.records, ColumnRecords):
        col = data.records.column(ref) or []
        return sum(1 for v in col if v and v.strip()) / len(col) if col else 1.0
    if not data.records:
        return 1.0
    return sum(1 for r in data.records if any(v and v.strip() for v in r.get(ref, ()))) / len(data.records)


def _attribute(info: SourceInfo, ref: str) -> bool:
    """True when most of the first :data:`ATTRIBUTE_SAMPLE` non-empty values of ``ref`` are of an attribute
    kind, each read alone (``2019-06-14`` and ``2009``: dates and years; the majority says what a column
    holds, as :data:`MOSTLY_FITS` for a range); cells that say "no value" (``N/A``) are none."""
    values = [v for v in info.data.head_values(ref, ATTRIBUTE_SAMPLE) if v and v.strip()
              and v.strip() not in MISSING_MARKERS]
    return bool(values) and sum(value_kind([v]) in ATTRIBUTE_KINDS for v in values) > MOSTLY_FITS * len(values)


def _entailed_by_attributes(ontology: Ontology, info: SourceInfo, refs: list[str], props: list[URIRef],
                            sims: np.ndarray, fits: dict[URIRef, tuple[float, np.ndarray]],
                            chosen: URIRef) -> tuple[URIRef, str] | None:
    """The class the records' attribute columns entail when the class their name suggests has no support.

    ``rdfs:domain`` entails the class of a subject (RDF 1.1 Semantics, rule rdfs2): a record holding an
    ``album_release_date`` that names ``spo:releaseDate`` (domain ``mo:Record``) at :data:`SUBCLASS_EVIDENCE`
    is a ``mo:Record``. A date, a number or a truth value (:data:`ATTRIBUTE_KINDS`) is an attribute of the
    record's own entity, never the key of another, so that class is the record's, not a second entity keyed
    by the date. It replaces the chosen class only when the name fits it no better than a word of its comment
    does (at most that level: ``albums`` ~ ``mo:ReleaseType``, 0.59; ``SectionOfLine`` names
    ``era:SectionOfLine`` and stays) and no column names a
    property of the chosen class's own domain at that level (nothing in the data supports it),
    and the attribute columns' domains have one most general class in common. ``None`` otherwise.
    """
    def own(cls: URIRef, i: int) -> list[int]:
        weights = fits[cls][1]
        return [j for j in range(len(props)) if weights[j] == 1.0 and sims[i, j] >= SUBCLASS_EVIDENCE]

    # the lexical name fit of a word in a class's comment is at most 0.7 (names.NameMatcher): above it the
    # file or element name is the class's name, which stands; so does a column naming one of its properties
    if fits[chosen][0] > SUBCLASS_EVIDENCE or any(own(chosen, i) for i in range(len(refs))):
        return None
    attributes = [i for i, r in enumerate(refs) if r not in info.fks and sims[i].max() >= SUBCLASS_EVIDENCE
                  and _attribute(info, r)]
    if not attributes:
        return None
    # each attribute column names its best property; its domain (with superclasses) is entailed, the
    # declared one only: a vocabulary's one class (Ontology.vocabulary_class) is how it was written, no rdfs2
    common: set[URIRef] | None = None
    shown = []
    for i in attributes:
        j = int(sims[i].argmax())
        declared = ontology.domains(props[j])
        domains = {c for c in fits if declared & ontology.superclasses(c)}
        if not domains:
            continue
        shown.append(f"{refs[i]!r} names {ontology.compact(props[j])} ({sims[i, j]:.2f})")
        common = domains if common is None else common & domains
    if not common:
        return None
    # the classes holding every such property are their domains and the domains' subclasses; what the
    # domains entail is the most general of them (a subclass is not entailed: claim no more than that)
    top = sorted(c for c in common if not any(o != c and o in ontology.superclasses(c) for o in common))
    if len(top) != 1 or top[0] == chosen:
        return None
    return top[0], (f"{', '.join(shown)}: its domain makes every record a {ontology.compact(top[0])} "
                    "(rdfs:domain, RDF 1.1 Semantics rdfs2)")


#: Least similarity of a column to a property of a subclass, not of its superclass, for the column to
#: say that its records belong to the subclass (:data:`.properties.SECONDARY_SCORE`'s level: a name match).
SUBCLASS_EVIDENCE = 0.7
#: Lead of a subclass's name fit over its superclass's for the file name to prefer it.
SUBCLASS_NAME_LEAD = 0.05
#: Least name fit of the file name to a subclass for the name to prefer it to a superclass the columns fit
#: as well: a name match (:data:`.analysis.MIN_SCORE`, the least a column's name match needs). Below it the
#: similarity of a word that names no class of the vocabularies (``listing`` ~ ``s:Festival`` 0.32, ``big``
#: 0.21) is noise, and a lead of 0.05 in noise would type every record with a subclass nothing supports.
SUBCLASS_NAME_MATCH = MIN_SCORE


def _most_general_fit(ontology: Ontology, cls: URIRef, fits: dict[URIRef, tuple[float, np.ndarray]],
                      sims: np.ndarray, refs: list[str]) -> URIRef:
    """The most general superclass of ``cls`` that the data fits as well: a subclass holds every
    property of its superclasses, so it scores at least as high on the columns, and by chance higher
    (``fileFormat`` ~ ``videoFormat`` makes events ``schema:BroadcastEvent``). It is kept only when the
    data names it: a column whose best property is usable on the subclass and not on the superclass,
    with at least :data:`SUBCLASS_EVIDENCE`, or a file name that names it (a fit of at least
    :data:`SUBCLASS_NAME_MATCH`) better by :data:`SUBCLASS_NAME_LEAD`. Occam's choice: claim no more
    than the data shows."""
    name_fit, weights = fits[cls]
    best = (sims * weights).argmax(axis=1)
    scores = (sims * weights).max(axis=1)
    depth = len(ontology.superclasses(cls))
    # most general first; of equivalent classes (schema:Event, dcmitype:Event) the one the vocabularies
    # describe most, then by IRI: the choice never depends on set order
    for sup in sorted(ontology.superclasses(cls) - {cls}, key=lambda c: (
            len(ontology.superclasses(c)), -len(list(ontology.graph.predicate_objects(c))), str(c))):
        if sup not in fits or len(ontology.superclasses(sup)) >= depth:
            continue
        sup_name, sup_weights = fits[sup]
        own = any(sup_weights[j] == 0 and v >= SUBCLASS_EVIDENCE for j, v in zip(best, scores))
        if not own and (name_fit < SUBCLASS_NAME_MATCH or name_fit < sup_name + SUBCLASS_NAME_LEAD):
            return sup
    return cls


def _names_match_nothing(ontology: Ontology, matcher: NameMatcher, names: list[str], classes: list[URIRef],
                         sims: np.ndarray | None) -> bool:
    """True when some column has a name (``sims``, the columns' similarities to the properties, has a row) and neither
    a column's name fits a property nor one of ``names`` (the file's, the records' element) fits a class at
    :data:`.analysis.MIN_SCORE`, the least a name match needs: every name similarity of the source is then below
    what any match would take, and says nothing of its class."""
    if sims is None or not sims.size or float(sims.max()) >= MIN_SCORE:
        return False
    return all(matcher.score(n, e) < MIN_SCORE for n in names for c in classes for e in ontology.equivalents(c))


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


def class_from_references(infos: list[SourceInfo], ontology: Ontology, matcher: NameMatcher,
                          classes: list[URIRef], props: list[URIRef], object_props: list[URIRef]) -> None:
    """Retype a source whose name fits no class by the range of the relation that refers to it.

    ``rdfs:range`` entails the class of a property's objects (RDF 1.1 Semantics, rule rdfs3): when a
    foreign key of another source (``datasets.publisher`` into ``publishers.code``) names an object
    property usable on that source's class at a name match's level (:data:`SUBCLASS_EVIDENCE`:
    ``publisher`` ~ ``dct:publisher``, range ``foaf:Agent``), every referenced record is an entity of
    that range. The referenced source takes it (or the subclass of it its columns fit best,
    :func:`choose_class` over that class and its subclasses) when its own class rests on no name
    match (its file name fits it below :data:`SUBCLASS_EVIDENCE`: a choice among classes its columns
    fit alike, ``publishers`` as ``dcat:Dataset`` or ``foaf:Document``) and is no subclass of the
    range already. A property of several ranges entails each of them (DCAT 3 and Dublin Core both
    state one for ``dct:publisher``): the records take the one, or a subclass of one, their columns fit
    best. Referring sources that disagree decide nothing. Runs after every source's class is chosen,
    before their properties."""
    by_name = {i.name: i for i in infos}
    ranges: dict[str, dict[frozenset[URIRef], list[str]]] = {}
    for s in infos:
        if s.cls is None:
            continue
        for ref, fk in s.fks.items():
            t = by_name.get(fk.target)
            if t is None or t is s or t.cls is None or t.typed is not None or t.link:
                continue
            text = own_words(ref, s.stem)
            named = [p for p in object_props if domain_fits(ontology, p, s.cls) > 0
                     and matcher.score(text, p) >= SUBCLASS_EVIDENCE]
            if not named:
                continue
            p = max(named, key=lambda q: (matcher.score(text, q), str(q)))
            rng = frozenset(c for c in ontology.ranges(p) if c in classes)
            if rng:
                ranges.setdefault(t.name, {}).setdefault(rng, []).append(
                    f"{s.name}.{ref} ~ {ontology.compact(p)} ({matcher.score(text, p):.2f})")
    for name, found in ranges.items():
        t = by_name[name]
        if len(found) != 1 or t.cls_name_fit >= SUBCLASS_EVIDENCE:
            continue
        rng, why = next(iter(found.items()))
        if rng & ontology.superclasses(t.cls):
            continue
        was = t.cls
        # several ranges are each entailed (rdfs3 holds for every one): the records take the one, or the
        # subclass of one, their columns fit best
        choose_class(t, ontology, matcher, [c for c in classes if rng & ontology.superclasses(c)], props,
                     object_props)
        named = " and ".join(sorted(ontology.compact(r) for r in rng))
        t.cls_evidence = (f"{', '.join(why)}, whose range {named} makes every referenced record one (rdfs:range, "
                          f"RDF 1.1 Semantics rdfs3); its name fitted no class ({ontology.compact(was)} was a choice "
                          "among classes its columns fit alike); " + t.cls_evidence)
