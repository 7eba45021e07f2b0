"""The text manifest kind (``kind: text``): one text case, and Text2KGBench's manifests.

A text manifest (YAML, ``kind: text``; paths relative to the manifest)::

    kind: text
    name: 1_university
    ontology: ontologies/1_university_ontology.json   # Text2KGBench JSON, or an OWL/RDFS file (any RDF syntax)
    sentences: test/ont_1_university_test.jsonl        # {"id", "sent"} per line
    gold: ground_truth/ont_1_university_ground_truth.jsonl   # optional: {"id", "sent", "triples"}
    train: [train/ont_1_university_train.jsonl]        # optional: training sentences with triples
    base_iri: http://example.org/kg/                   # optional
    ontology_iri: http://my.org/onto/                  # optional: namespace of classes and relations (no # or /: a # is added)
    offline: {threshold: 0.3}                          # optional OfflineExtractor settings

The files are read by :mod:`.data` (``ontology_iri``: see :func:`.data.load_ontology`); the
``offline`` settings are checked as :class:`.offline.OfflineExtractor` checks them, when the
manifest is loaded.

:func:`text2kgbench_manifests` writes one manifest per ontology of the Text2KGBench
DBpedia-WebNLG folder. The benchmark is read in place (``TEXT2KGBENCH_DIR``), never copied.
"""
from __future__ import annotations

import difflib
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pipeline.errors import InputError, ManifestError
from pipeline.manifest import yaml_kind
from pipeline.ontology import namespace
from pipeline.text.data import (Sentence, TextOntology, load_ontology, load_sentences, resolve_relations,
                                unknown_relations)
from pipeline.text.offline import OfflineExtractor, setting_names
from pipeline.text.owl import is_rdf_file, rdf_text_ontology

__all__ = ["TextCase", "load_case", "benchmark_dir", "tekgen_dir", "text2kgbench_manifests", "ontology_names"]

_ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger(__name__)


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


def _namespace(onto: TextOntology) -> str:
    """The namespace most of an RDF ontology's terms share (up to their last ``#`` or ``/``), where a
    class the extractor names but the ontology lacks is minted."""
    spaces = Counter(namespace(iri) for iri in onto.term_iris.values())
    return max(sorted(spaces), key=spaces.get) if spaces else "http://example.org/onto#"


def load_case(path: str | Path) -> TextCase:
    """Load a ``kind: text`` manifest (see the module docstring).

    Raises:
        ManifestError: not a mapping, wrong kind, a required key missing, or an 'offline' setting unknown or of the wrong type.
        InputError: a referenced file cannot be read, the sentences file holds no sentence, or the
            gold can score none (:func:`_check_gold_ids`).
    """
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ManifestError(f"cannot read the manifest: {exc}", path=path) from exc
    if not isinstance(doc, dict) or doc.get("kind") != "text":
        raise ManifestError("expected a mapping with 'kind: text'", path=path)
    unknown = [k for k in doc if k not in _KEYS]
    if unknown:  # a misspelt 'gold' or 'train' would silently score nothing or fit zero-shot for minutes
        close = difflib.get_close_matches(str(unknown[0]), sorted(_KEYS), n=1)
        raise ManifestError(f"unknown key {unknown[0]!r}" + (f" (closest: {close[0]})" if close else "")
                            + f"; expected one of {', '.join(sorted(_KEYS))}", path=path, line=_key_line(path, unknown[0]),
                            key=str(unknown[0]))
    for k in ("ontology", "sentences"):
        if k not in doc:
            raise ManifestError(f"missing required key '{k}'", path=path, key=k)
        if not doc[k]:
            raise ManifestError(f"'{k}' is empty: expected a file", path=path, line=_key_line(path, k), key=k)
    for k in _ONE_VALUE:  # a list here (as 'train' takes) would reach the path code as a Python error
        v = doc.get(k)
        if v is not None and not isinstance(v, str):
            what = "one file (a path)" if k in ("ontology", "sentences", "gold") else "one IRI"
            raise ManifestError(f"{k!r} must be {what}, not {yaml_kind(v)}" + (
                "; only 'train' takes a list of files" if isinstance(v, list) else ""),
                path=path, line=_key_line(path, k), key=k)
    base = path.parent

    def rel(p: str) -> Path:
        return (base / os.path.expandvars(p)).resolve()

    gold = None
    if doc.get("gold"):
        gold = {s.id: s for s in load_sentences(rel(doc["gold"]), unique_ids=True)}
    train_files = doc.get("train") or []
    train_files = [train_files] if isinstance(train_files, str) else train_files
    if not isinstance(train_files, list) or not all(isinstance(p, str) for p in train_files):
        raise ManifestError("'train' must be a file or a list of files", path=path, line=_key_line(path, "train"),
                            key="train")
    offline = doc.get("offline") or {}
    # the settings of OfflineExtractor (README "Text to KG", Options)
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
    onto_path = rel(doc["ontology"])
    if is_rdf_file(onto_path):  # the user's own OWL/RDFS file, its terms with their own IRIs
        ontology = rdf_text_ontology(onto_path, str(doc.get("name") or path.stem))
        ontology.iri = str(doc.get("ontology_iri") or _namespace(ontology))
        if doc.get("ontology_iri"):
            log.info("%s: ontology_iri names the namespace of terms the RDF ontology %s does not declare; its own "
                     "terms keep their IRIs", path, onto_path)
    else:
        ontology = load_ontology(onto_path, doc.get("ontology_iri"))
    if gold is not None:  # a gold relation the ontology lacks can never be extracted: said, counted as missed
        unknown: dict[str, int] = {}
        lines: dict[str, int] = {}
        for s in gold.values():
            for t in s.triples:
                if ontology.resolve(t["rel"]) is None:
                    unknown[t["rel"]] = unknown.get(t["rel"], 0) + 1
                    if s.line is not None:
                        lines[t["rel"]] = min(lines.get(t["rel"], s.line), s.line)
        if unknown:
            first = min(lines.values(), default=None)
            log.warning("%s%s: %d gold triple(s) name a relation that is not in ontology %s, so no extraction can "
                        "match them (scored as missed): %s", rel(doc["gold"]), f":{first}" if first else "",
                        sum(unknown.values()), ontology.name, unknown_relations(ontology, unknown, lines))
    # an ontology without relations (said when it is read) has nothing to learn
    train = _training_sentences(ontology, [rel(p) for p in train_files]) if ontology.relations else []
    sentences = load_sentences(rel(doc["sentences"]), unique_ids=True, require_text=True)
    if not sentences:
        raise InputError("no sentences (expected JSON Lines of {\"id\", \"sent\"})", path=rel(doc["sentences"]))
    if gold is not None:
        _check_gold_ids(gold, sentences, rel(doc["gold"]), rel(doc["sentences"]))
    return TextCase(str(doc.get("name") or path.stem), path, ontology, sentences, gold, train,
                    str(doc.get("base_iri") or "http://example.org/kg/"), dict(offline))


#: The keys of a text manifest (see the module docstring).
_KEYS = frozenset({"kind", "name", "ontology", "sentences", "gold", "train", "base_iri", "ontology_iri", "offline"})

#: The keys that take one string: a file path or an IRI (``train`` alone takes a list of files).
_ONE_VALUE = ("ontology", "sentences", "gold", "base_iri", "ontology_iri")


def _check_gold_ids(gold: dict[str, Sentence], sentences: list[Sentence], gold_path: Path, sents_path: Path) -> None:
    """Refuse a gold file that can score no sentence: sentences and gold are paired by id, and with
    no pair a triple F1 would be a 0.000 measured against nothing.

    Raises:
        InputError: the gold file holds no entry, or none of its ids is a sentence id (the first
            ids of both files named: two files numbered differently, ``g1`` and ``s1``).
    """
    if not gold:
        raise InputError("the gold file holds no entry (expected JSON Lines of {\"id\", \"sent\", \"triples\"} "
                         "for the sentences' ids; leave 'gold' out to extract without scores)", path=gold_path)
    if any(s.id in gold for s in sentences):
        return

    def first(ids: list[str]) -> str:
        return ", ".join(map(repr, ids[:3])) + (" ..." if len(ids) > 3 else "")
    raise InputError(f"no gold id is a sentence id of {sents_path.name}, so no sentence can be scored (gold: "
                     f"{first(list(gold))}; sentences: {first([s.id for s in sentences])}) (expected: the gold entry "
                     "of a sentence under the sentence's id)", path=gold_path)


def _key_line(path: Path, key: object) -> int | None:
    """The line of a top-level key in the manifest's text (``None`` when not found)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return next((i for i, line in enumerate(lines, 1) if re.match(rf"{re.escape(str(key))}\s*:", line)), None)


def _training_sentences(ontology: TextOntology, files: list[Path]) -> list[Sentence]:
    """The sentences of the manifest's ``train`` files, their relations as the ontology names them
    (:func:`.data.resolve_relations`).

    Raises:
        InputError: a file with no triple (naming it and the layouts expected), or training data
            whose triples name fewer than two of the ontology's relations (the offline extractor
            chooses between relations).
    """
    train: list[Sentence] = []
    for p in files:
        sents = load_sentences(p)
        if not any(s.triples for s in sents):
            raise InputError("a training file without triples: expected JSON Lines of {\"id\", \"sent\", \"triples\": "
                             "[{\"sub\", \"rel\", \"obj\"}]} or one triple per line {\"id\", \"sent\", \"sub_label\", "
                             "\"rel_label\", \"obj_label\"}", path=p)
        train.extend(resolve_relations(ontology, sents, p))
    rels = sorted({t["rel"] for s in train for t in s.triples})
    if files and len(rels) < 2:
        raise InputError(f"the training triples name {'none' if not rels else 'only one'} of the ontology's relations"
                         f"{'' if not rels else ' (' + repr(rels[0]) + ')'}: the offline extractor learns to choose "
                         "between relations and needs triples of at least two (leave 'train' out for the zero-shot "
                         "setting)", path=files[0] if len(files) == 1 else ", ".join(map(str, files)), key="train")
    return train


def benchmark_dir() -> Path:
    """``TEXT2KGBENCH_DIR``, else ``../shared/benchmarks/text2kgbench`` next to the project root."""
    return Path(os.environ.get("TEXT2KGBENCH_DIR") or _ROOT.parent / "shared" / "benchmarks" / "text2kgbench")


def tekgen_dir() -> Path:
    """``TEXT2KGBENCH_TEKGEN_DIR``, else the Wikidata-TekGen part beside :func:`benchmark_dir`
    (``text2kgbench-tekgen``)."""
    env = os.environ.get("TEXT2KGBENCH_TEKGEN_DIR")
    return Path(env) if env else benchmark_dir().parent / (benchmark_dir().name + "-tekgen")


def ontology_names(bench: Path) -> list[str]:
    """The benchmark's ontology names (``1_university`` ...), in their numeric order.

    Raises:
        InputError: ``bench`` has no ``ontologies/*_ontology.json``.
    """
    names = [p.name[:-len("_ontology.json")] for p in (bench / "ontologies").glob("*_ontology.json")]
    if not names:
        raise InputError("no ontologies/*_ontology.json: not a Text2KGBench folder (DBpedia-WebNLG or "
                         "Wikidata-TekGen; set TEXT2KGBENCH_DIR)", path=bench)
    return sorted(names, key=lambda n: int(re.match(r"\d+", n).group()) if re.match(r"\d+", n) else 0)


def text2kgbench_manifests(bench: str | Path, out: str | Path) -> list[Path]:
    """Write one ``kind: text`` manifest per ontology of a Text2KGBench part (DBpedia-WebNLG or
    Wikidata-TekGen: both name their files alike) into ``out``.

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
