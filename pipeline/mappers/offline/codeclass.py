"""The class of an entity from a coded element: a code list that tells subclasses apart decides.

The ontology names the class of a relation's range (``usesTechnique`` -> ``TechniqueUsage``);
whether the entity of one record belongs to a subclass (``FrameworkAgreementTechniqueUsage``) is
a fact about that record, which the data may state in a coded element
(``<cbc:ContractingSystemCode listURI=".../ContractingSystemTypeCode-2.08.gc">3</...>``, "contract
based on a framework agreement"). Rule:

* the *distinguishing words* of a subclass ``C`` of the base class ``B`` are the words of ``C``'s
  label that ``B``'s label lacks (``framework``, ``agreement``);
* a coded element *speaks about* ``B``'s subclasses when its ``listURI`` names a packaged
  code-label list (:func:`pipeline.fno.crosswalk.code_labels`) in which some code's meaning holds
  every distinguishing word of one of them;
* the codes of the records then decide: the most specific subclass whose distinguishing words
  the meaning of every code holds; when they name none ("not applicable", or records that
  disagree), ``B`` itself: a subclass type the data contradicts is not asserted;
* no such element: :func:`coded_subclass` returns ``None`` and the caller keeps its own choice.
"""
from __future__ import annotations

from typing import Sequence

from rdflib import URIRef

from pipeline.fno.crosswalk import code_labels
from pipeline.ontology import Ontology
from pipeline.mappers.offline.names import words

__all__ = ["distinguishing_words", "coded_subclass"]

_LIST_ATTR = "/@listURI"


def _label_words(ontology: Ontology, cls: URIRef) -> set[str]:
    labels = ontology.labels(cls)
    return set(words(labels[0] if labels else str(cls).rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1],
                     expand=False))


def distinguishing_words(ontology: Ontology, cls: URIRef, base: URIRef) -> set[str]:
    """Words of the label of ``cls`` that the label of ``base`` lacks
    (``Framework agreement technique usage`` vs ``Technique usage`` -> ``{framework, agreement}``)."""
    return _label_words(ontology, cls) - _label_words(ontology, base)


def coded_subclass(ontology: Ontology, data, refs: Sequence[str], base: URIRef) -> tuple[URIRef, str] | None:
    """The class the records' codes give an entity whose class the ontology names as ``base``.

    Args:
        ontology: the loaded ontology. data: the loaded XML source (records of reference -> values).
        refs: its references; coded elements are those with a ``listURI`` attribute reference.
        base: the class named by the ontology (the range of a relation).
    Returns:
        ``(class, evidence)``: a subclass of ``base`` or ``base`` itself, when a coded element
        speaks about ``base``'s subclasses (module docstring); else ``None``.
    """
    lists = code_labels()
    coded = [(ref[:-len(_LIST_ATTR)], name, meanings) for ref in refs if ref.endswith(_LIST_ATTR)
             for name, meanings in lists.items() if any(name in v for v in data.values(ref) if v)]
    if not coded:  # checked first: the subclass scan below is over the whole ontology
        return None
    subs = sorted(c for c in ontology.classes if c != base and base in ontology.superclasses(c))
    marks = {c: d for c in subs if (d := distinguishing_words(ontology, c, base))}
    if not marks:
        return None
    for element, name, meanings in coded:
        said = {code: set(words(m, expand=False)) for code, m in meanings.items()}
        if not any(d <= w for d in marks.values() for w in said.values()):
            continue  # this code list says nothing about the subclasses of base
        codes = [v.strip() for rec in data.records for v in rec.get(element, []) if v and v.strip()]
        if not codes or any(c not in said for c in codes):
            continue
        named = [c for c, d in marks.items() if all(d <= said[code] for code in codes)]
        shown = ", ".join(f"{c} ({meanings[c]!r})" for c in sorted(set(codes)))
        if named:
            cls = max(named, key=lambda c: (len(ontology.superclasses(c)), str(c)))
            return cls, (f"{element} = {shown} in code list {name}: names {ontology.compact(cls)} "
                         f"({' '.join(sorted(marks[cls]))})")
        return base, (f"{element} = {shown} in code list {name}: names no subclass of "
                      f"{ontology.compact(base)}; the class the ontology names is kept")
    return None
