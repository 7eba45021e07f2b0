"""The data of text cases: the ontology (Text2KGBench JSON), sentences and their gold triples.

:func:`load_ontology` reads a Text2KGBench ontology (concepts, relations with domain and range,
optional subclass links and namespace) into a :class:`TextOntology`; :func:`load_sentences`
reads JSON Lines of sentences into :class:`Sentence` objects. The manifest that names these
files is :mod:`.manifest`'s.

Both layouts of Text2KGBench are read:

* DBpedia-WebNLG: relations named by camel-case identifiers (``pid`` = ``label`` =
  ``birthPlace``), classes by name; sentences ``{"id", "sent"}`` with a ``triples`` list in
  training and gold files;
* Wikidata-TekGen: concepts ``{"qid": "Q5", "label": "human"}`` and relations ``{"pid": "P19",
  "label": "place of birth", "domain": "Q5", "range": "Q515"}`` whose domain and range are QIDs
  (resolved to the concepts' labels; a QID no concept has stays the class's name, said at info
  level; an empty range takes its type from each value, see :attr:`Relation.open_range`);
  training and validation files have one line per (sentence, triple) with ``sub_label``,
  ``rel_label``, ``obj_label`` (grouped here into one :class:`Sentence` per sentence text).

A relation is named by its label as the ontology writes it (``place of birth``); triples may
write it with underscores, another case or its ``pid`` (:meth:`TextOntology.resolve`).

Classes are ``<iri>concepts#C`` and relations ``<iri>relations#r``; the namespace is the one
given to :func:`load_ontology` (a manifest's ``ontology_iri``), else the ontology file's own
``"iri"`` member, else Text2KGBench's (``https://cenguix.github.io/Text2KGBench/<id>/``), so
one's own ontology need not wear the benchmark's namespace. A namespace ending in ``#`` holds
both (``<iri>C``, ``<iri>r``); one ending in neither ``#`` nor ``/`` (an ``owl:Ontology`` IRI as
usually written) gets a ``#``, with a warning naming the IRIs minted.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz.distance import OSA

from pipeline.errors import InputError
from pipeline.sources.checks import read_error
from pipeline.text.normalize import DATATYPES, key

__all__ = ["Relation", "TextOntology", "Sentence", "load_ontology", "misspelt_concept", "load_sentences", "relation_key", "triple_layout",
           "resolve_relations", "unknown_relations"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Relation:
    """One relation of the ontology: name, domain class and range (class or datatype name; ``""``:
    none declared), and ``id``: the local name of its IRI (Wikidata's ``P19``; default the name)."""

    name: str
    domain: str
    range: str
    id: str = ""
    #: the XSD datatype IRI an RDF ontology declares as the range (``xsd:integer``), written on the
    #: literals instead of the range name's default (``number`` -> ``xsd:decimal``); ``""``: none
    datatype: str = ""
    #: declared ``owl:SymmetricProperty``: ``r(a, b)`` entails ``r(b, a)``, so a sentence may
    #: give both directions
    symmetric: bool = False

    @property
    def is_datatype(self) -> bool:
        """True when the range is a datatype (``number``, ``string``, ``Date``, ``Year``)."""
        return self.range in DATATYPES

    @property
    def open_range(self) -> bool:
        """No range declared (21% of Wikidata-TekGen's gold triples: ``publication date``,
        ``performer``): each value is typed by what it is (a date, a number, a name)."""
        return not self.range


def relation_key(name: str) -> str:
    """Text2KGBench's comparison key of a relation name (``run_eval.py``'s ``normalize_triple``):
    spaces and underscores removed, lower case (``member_of_political_party`` =
    ``member of political party``)."""
    return re.sub(r"(_|\s+)", "", str(name)).lower()


@dataclass
class TextOntology:
    """Concepts, relations and ``rdfs:subClassOf`` links of one domain ontology.

    Attributes:
        name: ontology id (``ont_1_university``).
        concepts: class names.
        relations: name -> :class:`Relation`.
        parents: class -> direct superclasses (empty in Text2KGBench's ontologies).
        iri: namespace of the ontology's terms (classes ``<iri>concepts#C``, relations ``<iri>relations#r``).
    """

    name: str
    concepts: list[str]
    relations: dict[str, Relation]
    parents: dict[str, set[str]] = field(default_factory=dict)
    iri: str = ""
    #: class name -> the local name of its IRI (Wikidata's ``Q5`` for ``human``; default the name)
    concept_ids: dict[str, str] = field(default_factory=dict)
    #: ``("class", name)`` / ``("relation", name)`` -> the term's own IRI, for an ontology read from RDF
    #: (:mod:`.owl`); terms not in it are minted in :attr:`iri`
    term_iris: dict[tuple[str, str], str] = field(default_factory=dict)
    #: the RDF files the ontology was read from (:mod:`.owl`): the KG is validated against them as written
    rdf_files: list[str] = field(default_factory=list)
    #: a union class a domain or range is (:mod:`.owl`; ``Museum or Person``) -> its members' names,
    #: each of which has it among its :attr:`parents`; the KG types nothing by it (it has no IRI,
    #: and which member a name is, a sentence does not say)
    unions: dict[str, list[str]] = field(default_factory=dict)

    def resolve(self, rel: object) -> str | None:
        """The name of the ontology's relation that ``rel`` writes (its name, its ``id``, or either
        with other spaces, underscores or case: ``Member_of``, ``member of``, ``P463``), else ``None``."""
        if not isinstance(rel, str):
            return None
        if rel in self.relations:
            return rel
        k = relation_key(rel)
        for n, r in self.relations.items():  # an ontology has a few dozen relations at most
            if relation_key(n) == k or (r.id and relation_key(r.id) == k):
                return n
        return None

    def ancestors(self, cls: str) -> set[str]:
        """``cls`` and all its superclasses (reflexive, transitive)."""
        seen, todo = {cls}, [cls]
        while todo:
            for p in self.parents.get(todo.pop(), ()):
                if p not in seen:
                    seen.add(p)
                    todo.append(p)
        return seen

    def is_a(self, cls: str | None, target: str) -> bool:
        """Hierarchy-aware type check: ``cls`` equals ``target`` or is one of its subclasses."""
        return cls is not None and target in self.ancestors(cls)


@dataclass
class Sentence:
    """One sentence with its gold triples (``[]`` when unknown); triples are ``{sub, rel, obj}`` dicts."""

    id: str
    text: str
    triples: list[dict[str, str]] = field(default_factory=list)
    #: the 1-based line of its file where the sentence is (its first line in the one-triple-per-line
    #: layout); None when it was not read from a file. Findings name it; equality ignores it.
    line: int | None = field(default=None, compare=False)

    @property
    def subject_group(self) -> str:
        """The sentence's smallest subject key (its id when it has no triple): WebNLG verbalises one
        set of facts in several sentences, so held-out parts and cross-fitting folds are cut by it."""
        return min([key(t["sub"]) for t in self.triples] or [self.id])

    @property
    def fold(self) -> int:
        """Cross-fitting fold (0 or 1) of the sentence: :func:`fold_of` its :attr:`subject_group`."""
        return fold_of(self.subject_group)


def fold_of(group: str, seed: int = 0) -> int:
    """Cross-fitting fold (0 or 1) of a subject group: the SHA-1 of ``group`` mod 2 (seed 0), else
    of ``"<seed>:<group>"``: another seed cuts the training sentences into two other halves, still
    by subject group and independent of the order or the process (no Python ``hash``)."""
    text = group if not seed else f"{seed}:{group}"
    return int(hashlib.sha1(text.encode()).hexdigest(), 16) % 2


#: A Wikidata item id (``Q5``): the benchmark names classes no concept lists by them; a QID has no
#: spelling to get wrong, so it is never taken for a misspelt concept name.
_QID = re.compile(r"Q\d+")


def misspelt_concept(ref: str, names: list[str], own_names: tuple[str, ...] = ()) -> str | None:
    """The concept name ``ref`` (a domain or range that names no concept) is likely a misspelling of.

    A name is taken for a misspelling when its optimal-string-alignment distance (Levenshtein plus
    the transposition of two neighbours; rapidfuzz's ``OSA``), ignoring case, from a concept's name
    or id is at most 1 for names of up to 5 characters and at most 2 for longer ones: ``Paintng``
    for ``Painting``, ``Persn`` for ``Person``, ``person`` for ``Person`` (another IRI). Not taken:
    a QID (``Q47461344``; nothing to misspell), and a name equal, ignoring case, spaces and
    underscores, to the relation's own name or id (``ethnicGroup`` as the range of ``ethnicGroup``:
    DBpedia-WebNLG's way of leaving a range untyped). On Text2KGBench's 29 ontologies the closest
    concept of any other undeclared name is 3 edits away or more (``Place``/``State``), so the
    thresholds flag none of them.

    Args:
        ref: the undeclared name as written.
        names: the concepts' names and non-QID ids.
        own_names: the relation's name and id.
    Returns:
        The closest concept name or id within the distance, else ``None``.
    """
    if _QID.fullmatch(ref) or relation_key(ref) in {relation_key(n) for n in own_names}:
        return None
    limit = 1 if len(ref) <= 5 else 2
    near = [(OSA.distance(ref.lower(), n.lower()), OSA.distance(ref, n), n) for n in dict.fromkeys(names)]
    best = min((x for x in near if x[0] <= limit), default=None)  # ties: the spelling closest with case
    return best[2] if best else None


def load_ontology(path: str | Path, iri: str | None = None, own: bool = True) -> TextOntology:
    """Read a Text2KGBench JSON ontology (``concepts``, ``relations`` with ``domain``/``range``;
    optional ``subclasses``: ``[{"sub": C, "super": D}]``; optional ``iri``: the namespace).

    Domains, ranges and subclass links written as a concept's ``qid`` become its label; a name no
    concept has stays the class's name: a warning when it is within a typo's reach of a concept
    (:func:`misspelt_concept`, with the closest concept), else said at info level (the benchmark's
    own ontologies name such classes: Wikidata QIDs, DBpedia's ``Person``). A relation listed twice is kept once (warning
    when the two differ). An ontology without relations is read, with a warning (no triple can
    be extracted).

    Args:
        path: the JSON file. iri: namespace of its terms (overrides the file's ``iri``; default
            Text2KGBench's ``https://cenguix.github.io/Text2KGBench/<id>/``).
        own: the user's ontology (its undeclared classes are warnings); ``False`` for an ontology
            read only as training data (the benchmark's, in the zero-shot setting: logged at debug
            level, they are nothing the user can fix).

    Raises:
        InputError: the file is missing, not JSON, lacks ``concepts``/``relations``, or an entry
            of them (or of ``subclasses``) is not an object with a name (``key`` names the entry).
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the ontology (expected Text2KGBench JSON, or an OWL/RDFS file in an RDF "
                         f"syntax): {exc}", path=path) from exc
    if not isinstance(doc, dict) or "relations" not in doc or "concepts" not in doc:
        raise InputError("expected a JSON object with 'concepts' and 'relations'", path=path)

    def entries(field: str, expected: str, ok) -> list[dict]:
        items = doc.get(field) or []
        if not isinstance(items, list):
            raise InputError(f"'{field}' must be a list of {expected}", path=path, key=field)
        for i, x in enumerate(items):
            if not isinstance(x, dict) or not ok(x):
                raise InputError(f"'{field}' entry {i}: expected {expected}, got {x!r}", path=path, key=f"{field}[{i}]")
        return items
    concept_list = entries("concepts", "an object with 'qid' or 'label'", lambda c: c.get("label") or c.get("qid"))
    # Wikidata-TekGen names classes by QID in domains and ranges: the concept's label is the name
    labels = {str(c["qid"]): str(c.get("label") or c["qid"]).strip() for c in concept_list if c.get("qid")}
    concepts = list(dict.fromkeys(str(c.get("label") or c.get("qid")).strip() for c in concept_list))
    concept_ids = {labels[q]: q for q in labels if labels[q] != q}

    names = [*concepts, *(q for q in labels if not _QID.fullmatch(q))]  # how a domain may name a concept

    def cls(ref: object, what: str, rel: str, pid: str, i: int) -> str:
        ref = str(ref or "").strip()
        if ref in labels:
            return labels[ref]
        if ref and ref not in concepts and ref not in DATATYPES:
            # hand-written ontologies name classes they do not list (DBpedia-WebNLG's ranges Person, Place;
            # Wikidata-TekGen's QIDs): kept as classes. One within a typo's reach of a concept (Persn for
            # Person) is said as a warning before it types the KG; the others at info level
            close = misspelt_concept(ref, names, (rel, pid))
            log.log(logging.DEBUG if not own else logging.WARNING if close else logging.INFO,
                    "%s: relations[%d] %r: %s %r is no concept of the ontology%s; kept as a class named %s",
                    path, i, rel, what, ref, f" (closest concept: {close!r})" if close else "", ref)
        return ref
    rels: dict[str, Relation] = {}
    for i, r in enumerate(entries("relations", "an object with 'pid' or 'label' (and 'domain', 'range')",
                                  lambda r: r.get("label") or r.get("pid"))):
        name = re.sub(r"\s+", " ", str(r.get("label") or r.get("pid"))).strip()
        pid = str(r.get("pid") or name).strip()
        rel = Relation(name, cls(r.get("domain"), "domain", name, pid, i), cls(r.get("range"), "range", name, pid, i),
                       pid)
        same = next((n for n in rels if relation_key(n) == relation_key(name)), None)
        if same is not None:
            if rels[same] != rel:  # the same relation listed twice is harmless; two meanings are not
                log.log(logging.WARNING if own else logging.DEBUG,
                        "%s: relations[%d] %r repeats relation %r with another domain or range; the first is kept",
                        path, i, name, same)
            continue
        rels[name] = rel
    if not rels:
        log.warning("%s: the ontology has no relations: no triple can be extracted", path)
    parents: dict[str, set[str]] = {}
    for link in entries("subclasses", "an object with 'sub' and 'super'", lambda x: x.get("sub") and x.get("super")):
        parents.setdefault(labels.get(str(link["sub"]), str(link["sub"])), set()).add(
            labels.get(str(link["super"]), str(link["super"])))
    oid = str(doc.get("id") or path.stem)
    ns = str(iri or doc.get("iri") or f"https://cenguix.github.io/Text2KGBench/{oid}/")
    local = lambda name: re.sub(r"\s+", "_", name.strip())  # noqa: E731 - as pipeline.text.rdf names terms
    if not ns.endswith(("/", "#")):
        # an owl:Ontology IRI written as usual (http://my.org/onto): its terms are <onto#Book>, the OWL
        # convention, which joins with the user's own OWL file; said, since the IRIs are not as written
        ns += "#"
        examples = [f"<{ns}{local(concept_ids.get(c, c))}>" for c in list(concepts)[:1]] + \
            [f"<{ns}{local(r.id or r.name)}>" for r in list(rels.values())[:1]]
        log.warning("%s %r ends in neither '#' nor '/': classes and relations are minted in %s%s (end it in "
                    "'/' for Text2KGBench's concepts#/relations#)", "ontology_iri" if iri else f"{path}: 'iri'",
                    ns[:-1], ns,
                    f" ({', '.join(examples)})" if examples else "")
    if ns.endswith("#"):  # one namespace for classes and relations (pipeline.text.rdf): no name may be both
        both = {local(concept_ids.get(c, c)) for c in concepts} & {local(r.id or r.name) for r in rels.values()}
        if both:
            raise InputError(f"the namespace {ns!r} ends in '#', so classes and relations share it, and "
                             f"{sorted(both)[0]!r} names both a concept and a relation (expected: a namespace "
                             "ending in '/', which keeps them apart as concepts# and relations#)", path=path,
                             key="ontology_iri")
    return TextOntology(oid, concepts, rels, parents, ns, concept_ids)


#: The fields of a Wikidata-TekGen line: one (sentence, triple) per line.
_TRIPLE_LINE = ("sub_label", "rel_label", "obj_label")


def triple_layout(d: dict) -> bool:
    """True when a sentence line has the Wikidata-TekGen layout (one triple per line, in
    ``sub_label``, ``rel_label``, ``obj_label``), False for ``{"id", "sent", "triples"}``."""
    return "triples" not in d and any(k in d for k in _TRIPLE_LINE)


def _scalar(v: object) -> bool:
    return isinstance(v, (str, int, float)) and not isinstance(v, bool)


def load_sentences(path: str | Path, unique_ids: bool = False, require_text: bool = False) -> list[Sentence]:
    """Read a JSON Lines file of sentences: ``{"id", "sent", ["triples"]}`` per line, or one
    (sentence, triple) per line (Wikidata-TekGen's training and validation files: ``{"id", "sent",
    "sub_label", "rel_label", "obj_label"}``; the lines of one sentence text become one
    :class:`Sentence` with their triples, under the first line's id). A file has one layout.

    Raises:
        InputError: missing file, or a line that is not such an object (with its line number): an
            ``id`` or ``sent`` missing or null, a ``sent`` that is not a string or not valid
            Unicode (a lone surrogate: a truncated emoji), ``triples`` not a list of objects with
            a string ``rel`` and a string or number ``sub`` and ``obj`` (a number becomes its text),
            a per-triple line without a string ``rel_label`` and a string or number ``sub_label``
            and ``obj_label``, or a line of the other layout than the file's first line; with
            ``unique_ids`` (a case's sentences and gold, which are paired by id), an id that an
            earlier line has (without it: a warning, the sentences kept); with ``require_text`` (a
            case's sentences, which are extracted from), a ``sent`` that is empty or only white space.
    """
    path = Path(path)
    out: list[Sentence] = []
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:  # the sources' wording: line, column, bytes and the fix
        found = read_error(path, "JSON Lines", exc)
        raise InputError(f"cannot read sentences: {found.message} (expected: {found.expected})", path=path,
                         line=found.line) from exc
    first_line: dict[str, int] = {}
    by_text: dict[str, Sentence] = {}  # per-triple layout: the sentence of each text
    layout: tuple[bool, int] | None = None
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict) or d.get("id") is None or not isinstance(d.get("sent"), str):
                raise ValueError("'id' and a string 'sent' are required")
            d["sent"].encode("utf-8")
            if require_text and not d["sent"].strip():  # an empty paragraph of an export: nothing to extract
                raise InputError(f"sentence id {str(d['id'])!r} is blank (expected: the text to extract triples "
                                 "from; leave empty paragraphs out)", path=path, line=i)
            per_triple = triple_layout(d)
            if layout is None:
                layout = (per_triple, i)
            elif layout[0] != per_triple:
                raise ValueError(f"line {layout[1]} has {'one triple per line' if layout[0] else 'a triples list'}"
                                 f"; this line has {'one triple per line' if per_triple else 'a triples list'}")
            if per_triple:
                if not (isinstance(d.get("rel_label"), str) and d["rel_label"].strip()
                        and _scalar(d.get("sub_label")) and _scalar(d.get("obj_label"))):
                    raise ValueError("a line with one triple (Wikidata-TekGen layout) needs a string 'rel_label' "
                                     "and a string or number 'sub_label' and 'obj_label'")
                triple = {"sub": str(d["sub_label"]), "rel": d["rel_label"], "obj": str(d["obj_label"])}
                if d["sent"] in by_text:
                    by_text[d["sent"]].triples.append(triple)
                    continue
                out.append(Sentence(str(d["id"]), d["sent"], [triple], line=i))
                by_text[d["sent"]] = out[-1]
            else:
                triples = d.get("triples") or []
                if not isinstance(triples, list) or not all(
                        isinstance(t, dict) and isinstance(t.get("rel"), str)
                        and all(_scalar(t.get(k)) for k in ("sub", "obj")) for t in triples):
                    raise ValueError("'triples' must be a list of objects with a string 'rel' and a string or "
                                     "number 'sub' and 'obj'")
                # a number written as a JSON number is the same value as its text
                triples = [{**t, "sub": str(t["sub"]), "obj": str(t["obj"])} for t in triples]
                out.append(Sentence(str(d["id"]), d["sent"], triples, line=i))
        except (json.JSONDecodeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
            raise InputError(f"expected a JSON object with 'id' and 'sent' ({exc})", path=path, line=i) from exc
        if out[-1].id in first_line and unique_ids:  # sentences and gold are paired by id: a score would be wrong
            raise InputError(f"sentence id {out[-1].id!r} repeats line {first_line[out[-1].id]} (expected: one id "
                             "per sentence)", path=path, line=i)
        if out[-1].id in first_line:
            # kept (nothing is lost), but a gold lookup by id then sees only the last one
            log.warning("%s:%d: sentence id %r repeats line %d", path, i, out[-1].id, first_line[out[-1].id])
        first_line.setdefault(out[-1].id, i)
    return out


def resolve_relations(ontology: TextOntology, sentences: list[Sentence], source: object = None,
                      own: bool = True) -> list[Sentence]:
    """``sentences`` with each triple's relation written as the ontology names it
    (:meth:`TextOntology.resolve`: ``cast member``, ``cast_member`` and ``P161`` are one relation);
    triples of relations the ontology lacks are left out, with one warning naming ``source`` (the
    file) and the line of the first such triple, how many and which. Triples of which neither entity
    is written in their sentence are kept but said (one warning, with the first line): they teach
    the extractor no mention of either end. Both warnings are at debug level when not ``own`` (the
    benchmark's training data of another ontology, nothing the user can fix). Sentences already in
    the ontology's names are returned as they are."""
    out, unknown, lines = [], {}, {}
    unwritten: list[Sentence] = []
    for s in sentences:
        triples = []
        for t in s.triples:
            name = ontology.resolve(t["rel"])
            if name is None:
                unknown[t["rel"]] = unknown.get(t["rel"], 0) + 1
                if s.line is not None:
                    lines.setdefault(t["rel"], s.line)
            else:
                triples.append(t if name == t["rel"] else {**t, "rel": name})
                if not (_written(t["sub"], s.text) or _written(t["obj"], s.text)):
                    unwritten.append(s)
        out.append(s if len(triples) == len(s.triples) and all(a is b for a, b in zip(triples, s.triples))
                   else Sentence(s.id, s.text, triples, s.line))
    level = logging.WARNING if own else logging.DEBUG
    where = str(source or "training")
    if unknown:
        first = min(lines.values(), default=None)
        log.log(level, "%s%s: %d training triple(s) left out, their relation is not in ontology %s: %s", where,
                f":{first}" if first else "", sum(unknown.values()), ontology.name,
                unknown_relations(ontology, unknown, lines))
    if unwritten:
        first = unwritten[0]
        log.log(level, "%s%s: %d training triple(s) name neither entity as their sentence writes it (first: "
                "sentence %r); they are kept, but teach no mention of either end", where,
                f":{first.line}" if first.line else "", len(unwritten), first.id)
    return out


def _written(label: str, text: str) -> bool:
    """Whether the entity ``label`` (``Jane_Austen``, ``Jane Austen``) is written in ``text``,
    ignoring case and the underscores that stand for spaces in DBpedia/Wikidata labels."""
    words = str(label).replace("_", " ").strip().casefold()
    return bool(words) and words in text.casefold()


def unknown_relations(ontology: TextOntology, unknown: dict[str, int],
                      lines: dict[str, int] | None = None) -> str:
    """``unknown`` (relation name as written -> triples) as one line: the 8 most frequent, each with
    its count, its first line when ``lines`` (relation -> line) has it, and the closest relation of
    ``ontology`` when one is close (a typo, an old name)."""
    names = list(ontology.relations)
    lines = lines or {}

    def one(rel: str, n: int) -> str:
        close = difflib.get_close_matches(rel, names, 1, 0.6)
        at = f", line {lines[rel]}" if rel in lines else ""
        return f"{rel!r} ({n}{at}{', closest: ' + repr(close[0]) if close else ''})"
    return ", ".join(one(r, n) for r, n in sorted(unknown.items(), key=lambda x: -x[1])[:8])
