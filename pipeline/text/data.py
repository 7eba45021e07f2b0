"""The data of text cases: the ontology (Text2KGBench JSON), sentences and their gold triples.

:func:`load_ontology` reads a Text2KGBench ontology (concepts, relations with domain and range,
optional subclass links and namespace) into a :class:`TextOntology`; :func:`load_sentences`
reads JSON Lines of sentences (``{"id", "sent"}``, with ``triples`` in training and gold files)
into :class:`Sentence` objects. The manifest that names these files is :mod:`.manifest`'s.

Classes are ``<iri>concepts#C`` and relations ``<iri>relations#r``; the namespace is the one
given to :func:`load_ontology` (a manifest's ``ontology_iri``), else the ontology file's own
``"iri"`` member, else Text2KGBench's (``https://cenguix.github.io/Text2KGBench/<id>/``), so
one's own ontology need not wear the benchmark's namespace.
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import InputError
from pipeline.text.normalize import DATATYPES, key

__all__ = ["Relation", "TextOntology", "Sentence", "load_ontology", "load_sentences"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Relation:
    """One relation of the ontology: name, domain class and range (class or datatype name)."""

    name: str
    domain: str
    range: str

    @property
    def is_datatype(self) -> bool:
        """True when the range is a datatype (``number``, ``string``, ``Date``, ``Year``)."""
        return self.range in DATATYPES


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

    @property
    def subject_group(self) -> str:
        """The sentence's smallest subject key (its id when it has no triple): WebNLG verbalises one
        set of facts in several sentences, so held-out parts and cross-fitting folds are cut by it."""
        return min([key(t["sub"]) for t in self.triples] or [self.id])

    @property
    def fold(self) -> int:
        """Cross-fitting fold (0 or 1) of the sentence: the SHA-1 of :attr:`subject_group`, mod 2."""
        return int(hashlib.sha1(self.subject_group.encode()).hexdigest(), 16) % 2


def load_ontology(path: str | Path, iri: str | None = None) -> TextOntology:
    """Read a Text2KGBench JSON ontology (``concepts``, ``relations`` with ``domain``/``range``;
    optional ``subclasses``: ``[{"sub": C, "super": D}]``; optional ``iri``: the namespace).

    Args:
        path: the JSON file. iri: namespace of its terms (overrides the file's ``iri``; default
            Text2KGBench's ``https://cenguix.github.io/Text2KGBench/<id>/``).

    Raises:
        InputError: the file is missing, not JSON, lacks ``concepts``/``relations``, or an entry
            of them (or of ``subclasses``) is not an object with a name (``key`` names the entry).
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the ontology (expected JSON): {exc}", path=path) from exc
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
    concepts = [str(c.get("label") or c.get("qid"))
                for c in entries("concepts", "an object with 'qid' or 'label'", lambda c: c.get("label") or c.get("qid"))]
    rels = {}
    for r in entries("relations", "an object with 'pid' or 'label' (and 'domain', 'range')",
                     lambda r: r.get("label") or r.get("pid")):
        name = str(r.get("label") or r.get("pid")).replace(" ", "")
        rels[name] = Relation(name, str(r.get("domain") or ""), str(r.get("range") or ""))
    parents: dict[str, set[str]] = {}
    for link in entries("subclasses", "an object with 'sub' and 'super'", lambda x: x.get("sub") and x.get("super")):
        parents.setdefault(str(link["sub"]), set()).add(str(link["super"]))
    oid = str(doc.get("id") or path.stem)
    ns = str(iri or doc.get("iri") or f"https://cenguix.github.io/Text2KGBench/{oid}/")
    return TextOntology(oid, concepts, rels, parents, ns if ns.endswith(("/", "#")) else ns + "/")


def load_sentences(path: str | Path) -> list[Sentence]:
    """Read a JSON Lines file of ``{"id", "sent", ["triples"]}``.

    Raises:
        InputError: missing file, or a line that is not such an object (with its line number): an
            ``id`` or ``sent`` missing or null, a ``sent`` that is not a string or not valid
            Unicode (a lone surrogate: a truncated emoji), ``triples`` not a list of objects with
            a string ``rel`` and a string or number ``sub`` and ``obj`` (a number becomes its text).
    """
    path = Path(path)
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read sentences: {exc}", path=path) from exc
    first_line: dict[str, int] = {}
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict) or d.get("id") is None or not isinstance(d.get("sent"), str):
                raise ValueError("'id' and a string 'sent' are required")
            d["sent"].encode("utf-8")
            triples = d.get("triples") or []
            if not isinstance(triples, list) or not all(
                    isinstance(t, dict) and isinstance(t.get("rel"), str)
                    and all(isinstance(t.get(k), (str, int, float)) and not isinstance(t.get(k), bool) for k in ("sub", "obj"))
                    for t in triples):
                raise ValueError("'triples' must be a list of objects with a string 'rel' and a string or number "
                                 "'sub' and 'obj'")
            # a number written as a JSON number is the same value as its text
            triples = [{**t, "sub": str(t["sub"]), "obj": str(t["obj"])} for t in triples]
            out.append(Sentence(str(d["id"]), d["sent"], triples))
        except (json.JSONDecodeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
            raise InputError(f"expected a JSON object with 'id' and 'sent' ({exc})", path=path, line=i) from exc
        if out[-1].id in first_line:
            # kept (nothing is lost), but a gold lookup by id then sees only the last one
            log.warning("%s:%d: sentence id %r repeats line %d", path, i, out[-1].id, first_line[out[-1].id])
        first_line.setdefault(out[-1].id, i)
    return out
