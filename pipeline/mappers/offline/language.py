"""Language tags for the offline mapper: from a language column, a file name, or detection.

Order of evidence for the tag of a text column whose property ranges over
``rdf:langString`` (or whose file name carries a language):

1. a *language column* of the same record (:func:`language_column`): every value
   a well-formed BCP 47 tag (RFC 5646, section 2.1) whose primary subtag is an
   ISO 639-1 code, and the column is named like a language (``lang``,
   ``language``, ``locale``) or holds at least two distinct such codes in lower
   case and is not named as a country or region (ISO 3166 codes overlap). The tag
   is then data-driven: the Language Tag cell holds ``{column}`` (compiled to an
   ``rml:languageMap`` with an ``rml:reference``), one tag per record;
2. the file name (``city_es.csv``);
3. lingua on the column's text, when it is confident (>= 0.5) for the whole
   column and agrees with a per-value check;
4. when the data does not decide (short values, proper names): the one language
   the ontology writes the property's own label and comment in (its
   ``rdfs:comment "..."@es`` says in which language the vocabulary describes
   its values), reported as a warning so a reader can check it; never a fixed
   ``en``. Without such evidence no tag is written, with a warning: a guessed
   tag would be wrong data no validator catches.
"""
from __future__ import annotations

import re
from typing import Sequence

from ...validation.terms import check_langtag
from .names import words
from .profile import detect_language, language_hint

__all__ = ["language_column", "choose_language", "vocabulary_language", "ISO_639_1"]

#: ISO 639-1 codes lingua knows (used to recognise a column of language codes).
ISO_639_1 = frozenset(
    "af ar az be bg bn bs ca cs cy da de el en eo es et eu fa fi fr ga gu he hi hr hu hy id is it ja ka kk ko la "
    "lg lt lv mi mk mn mr ms nb nl nn pa pl pt ro ru sk sl sn so sq sr st sv sw ta te th tl tn tr ts uk ur vi xh "
    "yo zh zu no".split())
_LANG_WORDS = {"lang", "language", "locale", "languages"}
_PLACE_WORDS = {"country", "region", "nation", "state", "territory"}
_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")


def _is_code(value: str) -> bool:
    return bool(_TAG.match(value)) and not check_langtag(value) and value.split("-")[0].lower() in ISO_639_1


def language_column(data, refs: Sequence[str], exclude: Sequence[str] = ()) -> tuple[str, str] | None:
    """The column of ``data`` that holds the language of its records, or ``None``.

    Returns:
        ``(reference, evidence)``.
    """
    for r in refs:
        if r in exclude:
            continue
        vals = [v.strip() for v in data.values(r) if v and v.strip()]
        if not vals or not all(_is_code(v) for v in vals):
            continue
        name = set(words(r.split("/")[-1], expand=False))
        named = bool(name & _LANG_WORDS)
        # unnamed: lower-case primary subtags (the BCP 47 convention; country codes are upper case)
        # in a column not named as a country or region (ISO 3166 and ISO 639 codes overlap)
        plausible = all(v.split("-")[0].islower() for v in vals) and not name & _PLACE_WORDS
        if named or (plausible and len(set(vals)) >= 2):
            return r, (f"column {r!r} holds language codes ({', '.join(sorted(set(vals))[:5])})"
                       + (" and is named as a language" if named else ""))
    return None


def vocabulary_language(ontology, prop) -> str | None:
    """The single language tag of the label/comment literals of ``prop``, else ``None``."""
    from rdflib import Literal
    from rdflib.namespace import RDFS, SKOS

    langs = {lit.language.lower() for pred in (RDFS.label, RDFS.comment, SKOS.prefLabel, SKOS.definition)
             for lit in ontology.graph.objects(prop, pred) if isinstance(lit, Literal) and lit.language}
    return langs.pop() if len(langs) == 1 else None


def choose_language(data, reference: str, file_name: str, lang_col: tuple[str, str] | None,
                    vocab_lang: str | None = None) -> tuple[str | None, str, bool]:
    """Language Tag cell for the text column ``reference``.

    Args:
        vocab_lang: :func:`vocabulary_language` of the property (fallback 4 of the module docstring).
    Returns:
        ``(cell, evidence, unsure)``: ``"{lang_code}"`` (a column reference) or a constant tag with
        ``unsure=False``; the vocabulary's language or ``None`` with ``unsure=True`` when the data
        does not decide.
    """
    values = data.values(reference)
    if lang_col is not None and lang_col[0] != reference:
        return "{" + lang_col[0] + "}", f"language tag per record from {lang_col[1]}", False
    detected, conf = detect_language(values)
    hint = language_hint(file_name)
    if hint:
        return hint, f"language {hint!r} from the file name; lingua says {detected} ({conf:.2f})", False
    if detected and conf >= 0.5:
        texts = [v for v in values if v and v.strip()][:20]
        per_value = {detect_language([v])[0] for v in texts}
        if per_value <= {detected, None}:
            return detected, f"language {detected!r} detected by lingua ({conf:.2f}), every value agrees", False
        why = (f"lingua says {detected} ({conf:.2f}) for the column but the values disagree "
               f"({', '.join(sorted(x for x in per_value if x))})")
    else:
        why = f"the data does not decide (lingua {detected} {conf:.2f})"
    if vocab_lang:
        return vocab_lang, f"{why}; tagged {vocab_lang!r}, the language of the property's label/comment", True
    return None, f"{why}; no language tag written", True
