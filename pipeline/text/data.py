"""Text cases: the ontology (Text2KGBench JSON), sentences, gold triples and the text manifest kind.

A text manifest (YAML, ``kind: text``; paths relative to the manifest)::

    kind: text
    name: 1_university
    ontology: ontologies/1_university_ontology.json   # concepts, relations with domain/range
    sentences: test/ont_1_university_test.jsonl        # {"id", "sent"} per line
    gold: ground_truth/ont_1_university_ground_truth.jsonl   # optional: {"id", "sent", "triples"}
    train: [train/ont_1_university_train.jsonl]        # optional: training sentences with triples
    base_iri: http://example.org/kg/                   # optional
    ontology_iri: http://my.org/onto/                  # optional: namespace of classes and relations
    offline: {threshold: 0.3}                          # optional OfflineExtractor settings

Classes are ``<ontology_iri>concepts#C`` and relations ``<ontology_iri>relations#r``; the namespace
is the manifest's ``ontology_iri``, else the ontology file's own ``"iri"`` member, else
Text2KGBench's (``https://cenguix.github.io/Text2KGBench/<id>/``), so one's own ontology need
not wear the benchmark's namespace.

:func:`text2kgbench_manifests` writes one manifest per ontology of the Text2KGBench
DBpedia-WebNLG folder. The benchmark is read in place (``TEXT2KGBENCH_DIR``), never copied.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pipeline.errors import InputError, ManifestError
from pipeline.text.normalize import DATATYPES, key

__all__ = ["Relation", "TextOntology", "Sentence", "TextCase", "load_ontology", "load_sentences",
           "load_case", "benchmark_dir", "text2kgbench_manifests", "ontology_names"]

log = logging.getLogger(__name__)

_ROOT = Path(__file__).resolve().parents[2]


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


@dataclass
class TextCase:
    """A loaded text manifest."""

    name: str
    path: Path
    ontology: TextOntology
    sentences: list[Sentence]
    gold: dict[str, Sentence] | None
    train: list[Sentence]
    base_iri: str = "http://example.org/kg/"
    offline: dict[str, Any] = field(default_factory=dict)


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


def load_case(path: str | Path) -> TextCase:
    """Load a ``kind: text`` manifest (see the module docstring).

    Raises:
        ManifestError: not a mapping, wrong kind, a required key missing, or an 'offline' setting unknown or of the wrong type.
        InputError: a referenced file cannot be read, or the sentences file holds no sentence.
    """
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ManifestError(f"cannot read the manifest: {exc}", path=path) from exc
    if not isinstance(doc, dict) or doc.get("kind") != "text":
        raise ManifestError("expected a mapping with 'kind: text'", path=path)
    for k in ("ontology", "sentences"):
        if not doc.get(k):
            raise ManifestError(f"missing required key '{k}'", path=path, key=k)
    base = path.parent

    def rel(p: str) -> Path:
        return (base / os.path.expandvars(p)).resolve()

    gold = None
    if doc.get("gold"):
        gold = {s.id: s for s in load_sentences(rel(doc["gold"]))}
    train_files = doc.get("train") or []
    train_files = [train_files] if isinstance(train_files, str) else train_files
    if not isinstance(train_files, list) or not all(isinstance(p, str) for p in train_files):
        raise ManifestError("'train' must be a file or a list of files", path=path, key="train")
    train = [s for p in train_files for s in load_sentences(rel(p))]
    offline = doc.get("offline") or {}
    # the settings of OfflineExtractor (README "Text to KG", Options)
    from pipeline.text.offline import OfflineExtractor, setting_names
    allowed = setting_names()
    if not isinstance(offline, dict):
        raise ManifestError(f"'offline' must be a mapping with keys among {allowed}", path=path, key="offline")
    if set(offline) - set(allowed):
        raise ManifestError(f"'offline': unknown setting {sorted(set(offline) - set(allowed), key=str)[0]!r}; expected "
                            f"one of {allowed}", path=path, key="offline")
    try:  # the values too, before the sentences are read and long before any fit
        OfflineExtractor(**offline)
    except InputError as exc:
        raise ManifestError(f"'offline': {exc.args[0]}", path=path, key=f"offline.{exc.key}") from exc
    ontology = load_ontology(rel(doc["ontology"]), doc.get("ontology_iri"))
    sentences = load_sentences(rel(doc["sentences"]))
    if not sentences:
        raise InputError("no sentences (expected JSON Lines of {\"id\", \"sent\"})", path=rel(doc["sentences"]))
    return TextCase(str(doc.get("name") or path.stem), path, ontology, sentences, gold, train,
                    str(doc.get("base_iri") or "http://example.org/kg/"), dict(offline))


def benchmark_dir() -> Path:
    """``TEXT2KGBENCH_DIR``, else ``../shared/benchmarks/text2kgbench`` next to the project root."""
    return Path(os.environ.get("TEXT2KGBENCH_DIR") or _ROOT.parent / "shared" / "benchmarks" / "text2kgbench")


def ontology_names(bench: Path) -> list[str]:
    """The benchmark's ontology names (``1_university`` ...), in their numeric order.

    Raises:
        InputError: ``bench`` has no ``ontologies/*_ontology.json``.
    """
    names = [p.name[:-len("_ontology.json")] for p in (bench / "ontologies").glob("*_ontology.json")]
    if not names:
        raise InputError("no ontologies/*_ontology.json: not a Text2KGBench DBpedia-WebNLG folder "
                         "(set TEXT2KGBENCH_DIR)", path=bench)
    return sorted(names, key=lambda n: int(re.match(r"\d+", n).group()) if re.match(r"\d+", n) else 0)


def text2kgbench_manifests(bench: str | Path, out: str | Path) -> list[Path]:
    """Write one ``kind: text`` manifest per ontology of the benchmark into ``out``.

    The manifests point at the benchmark's files by absolute path (it is read in place).
    Returns the written paths.
    """
    bench, out = Path(bench).resolve(), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in ontology_names(bench):
        doc: dict[str, Any] = {
            "kind": "text", "name": name,
            "ontology": str(bench / "ontologies" / f"{name}_ontology.json"),
            "sentences": str(bench / "test" / f"ont_{name}_test.jsonl"),
            "gold": str(bench / "ground_truth" / f"ont_{name}_ground_truth.jsonl"),
            "train": [str(bench / "train" / f"ont_{name}_train.jsonl")],
            "base_iri": f"http://example.org/text2kgbench/{name}/"}
        p = out / f"{name}.yaml"
        p.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        paths.append(p)
    return paths
