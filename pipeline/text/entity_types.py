"""Entity types learned from the training triples, for domain/range constraints on names.

A name's class is what the ontology says of the places it takes in training triples: the domain
of the relations it is the subject of, the range of those it is the object of (``Abilene
Regional Airport`` as subject of ``cityServed`` is an ``Airport``; ``Texas`` as object of
``state`` is a ``State``). A name never seen gets the classes of the names sharing its last word
(``... Airport``, ``... University``, ``... County``), when that word was seen often enough.

:class:`TypeGuesser` gives the class distribution of a name; the offline extractor uses it as
pair features and to rule out a relation whose domain (range) the name's known classes never
include.
"""
from __future__ import annotations

from pipeline.text.data import Sentence, TextOntology
from pipeline.text.normalize import DATATYPES, clean_name, key

__all__ = ["TypeGuesser"]


def _last_word(name: str) -> str:
    words = clean_name(name).split()
    return words[-1].lower() if words else ""


class TypeGuesser:
    """Class distribution of entity names (module docstring).

    Args:
        min_count: a name (a last word) needs this many typed occurrences to be trusted.
    """

    def __init__(self, min_count: int = 3) -> None:
        self.min_count = min_count
        self.names: dict[str, dict[str, int]] = {}
        self.words: dict[str, dict[str, int]] = {}

    def fit(self, training: list[tuple[TextOntology, Sentence]]) -> "TypeGuesser":
        """Count the classes of every name of ``training`` (``(ontology, sentence)`` pairs)."""
        for onto, s in training:
            for t in s.triples:
                r = onto.relations.get(t["rel"])
                if r is None:
                    continue
                for name, cls in ((t["sub"], r.domain), (t["obj"], r.range)):
                    if not cls or cls in DATATYPES:
                        continue
                    for table, k in ((self.names, key(name)), (self.words, _last_word(name))):
                        bucket = table.setdefault(k, {})
                        bucket[cls] = bucket.get(cls, 0) + 1
        return self

    def classes(self, name: str) -> dict[str, float]:
        """``{class: share}`` of ``name`` (its own occurrences, else its last word's), ``{}`` when
        there are fewer than ``min_count`` of either."""
        for bucket in (self.names.get(key(name)), self.words.get(_last_word(name))):
            if bucket and sum(bucket.values()) >= self.min_count:
                n = sum(bucket.values())
                return {c: v / n for c, v in bucket.items()}
        return {}

    def top(self, name: str) -> str | None:
        """The most frequent class of ``name`` (ties: alphabetical), ``None`` when unknown."""
        c = self.classes(name)
        return min(c, key=lambda x: (-c[x], x)) if c else None

    def excludes(self, name: str, cls: str, onto: TextOntology) -> bool:
        """True when ``name`` has known classes and none of them is ``cls`` or a subclass of it, nor a
        union (:attr:`TextOntology.unions`) ``cls`` is a member of: a name known as a ``Museum or
        Person`` may be a person."""
        c = self.classes(name)
        return bool(c) and not any(onto.is_a(k, cls) or (k in onto.unions and onto.is_a(cls, k)) for k in c)
