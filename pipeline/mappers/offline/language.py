"""Language tags for the offline mapper: from a language column, a file name, or detection.

Detection is lingua's, restricted to :data:`CANDIDATE_LANGUAGES` (:func:`detect_language`); a
file-name suffix (``city_es.csv``, :func:`language_hint`) is separate evidence that outweighs
detection on short values.

A column whose name ends with a language code (``labelEN``, :func:`column_language`) is in that language,
before any other evidence. Order of evidence for the tag of another text column whose property ranges over
``rdf:langString`` (or whose file name carries a language):

1. a *language column* of the same record (:func:`language_column`): every value
   a well-formed BCP 47 tag (RFC 5646, section 2.1) whose primary subtag is an
   ISO 639-1 code, and the column is named like a language (``lang``,
   ``language``, ``locale``) or holds at least two distinct such codes in lower
   case and is not named as a country or region (ISO 3166 codes overlap). The tag
   is then data-driven: the Language Tag cell holds ``{column}`` (compiled to an
   ``rml:languageMap`` with an ``rml:reference``), one tag per record;
2. the file name (``city_es.csv``; a language code in the names of files of one kind,
   :func:`file_languages`);
3. lingua on the column's text, when it is confident (>= 0.5) for the whole
   column and no value alone is placed in another language; a column whose values
   lingua places in several languages gets no constant tag (a finding says so: one
   tag per value needs a language column);
4. when the column itself does not decide (short values, proper names such as
   "London"): the language of the *other free-text columns of the same records*
   (titles, descriptions: at least half their values three words or longer), when
   every such column was confidently detected in one and the same language. The
   rule: the text of one record is in one language unless its own column says
   otherwise;
5. when the property's range *requires* a tag (``rdf:langString``: a plain literal
   would be ill-typed against the ontology, and the KG would fail its SHACL range
   check) and the property's own labels/comments are written in exactly one
   language (:func:`vocabulary_language`): that language, with a warning finding
   naming it, so the engineer can check it. The tag is the ontology's statement of
   its own language for that property, never a fixed ``en``; an ontology
   annotated in several languages, or not at all, gives none;
6. else no tag, with a warning finding.

A column whose values are confidently in *several* languages never gets a constant
tag (step 3), whatever the ontology says.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder
from rdflib import Literal
from rdflib.namespace import RDF, RDFS, SKOS

from pipeline.validation.terms import check_langtag
from pipeline.mappers.offline.identity import id_like
from pipeline.mappers.offline.names import words
from pipeline.mappers.offline.nested import parent
from pipeline.mappers.offline.profile import memoised

__all__ = ["language_column", "own_language", "language_members", "takes_tagged_string", "LANGUAGE_ATTRIBUTES", "language_names", "choose_language", "vocabulary_language", "record_language", "code_list",
           "language_hint", "file_languages", "column_language", "language_variants", "detect_language", "ISO_639_1", "CANDIDATE_LANGUAGES", "MIN_CONFIDENCE", "FREE_TEXT_WORDS"]

#: ISO 639-1 codes the detector chooses among (BLINKG data: English and Spanish, plus neighbours).
CANDIDATE_LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "ca")

#: ISO 639-1 codes lingua knows (used to recognise a column of language codes).
ISO_639_1 = frozenset(
    "af ar az be bg bn bs ca cs cy da de el en eo es et eu fa fi fr ga gu he hi hr hu hy id is it ja ka kk ko la "
    "lg lt lv mi mk mn mr ms nb nl nn pa pl pt ro ru sk sl sn so sq sr st sv sw ta te th tl tn tr ts uk ur vi xh "
    "yo zh zu no".split())
_LANG_WORDS = {"lang", "language", "locale", "languages"}
_PLACE_WORDS = {"country", "region", "nation", "state", "territory"}
#: lingua confidence at or above which a column's language is taken (joined text of its values).
MIN_CONFIDENCE = 0.5
#: Words a value needs to count as free text (a title or a sentence, not a name).
FREE_TEXT_WORDS = 3
_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")


def language_hint(file_name: str) -> str | None:
    """Language code from a file-name suffix (``city_es.csv`` -> ``es``), if one of the candidates."""
    m = re.search(r"[_\-.]([a-z]{2})(?:\.[a-z]+)?$", file_name.lower())
    return m.group(1) if m and m.group(1) in CANDIDATE_LANGUAGES else None


def _tokens(file_name: str) -> list[str]:
    return re.split(r"[_\-. ]", file_name.lower())


def file_languages(sources: Sequence[tuple[str, Sequence[str]]]) -> dict[str, str]:
    """File name -> language code, for files of one kind that differ in their names by a language code alone.

    Data published in several languages is often one file per language with the language in the name
    (``thesaurus-en-hierarchy.csv``, ``thesaurus-fr-hierarchy.csv``, ``thesaurus-nl-hierarchy.csv``): the
    same columns, names equal but for one token, and that token an ISO 639-1 code (:data:`ISO_639_1`) that
    differs from file to file. Each file's texts are then in its token's language. Two such files at least:
    one name alone with a two-letter token (``stops-it.csv``, ``codes-no.csv``) could mean anything.

    Args:
        sources: ``(file name, references)`` of every source.
    Returns:
        the files of such groups with their codes (``{}`` when there is none).
    """
    groups: dict[tuple, dict[str, str]] = {}
    for name, refs in sources:
        toks = _tokens(name)
        for i, t in enumerate(toks):
            if t in ISO_639_1:
                groups.setdefault((tuple(toks[:i]), tuple(toks[i + 1:]), frozenset(refs)), {})[name] = t
    out: dict[str, str] = {}
    for found in groups.values():
        if len(found) >= 2 and len(set(found.values())) == len(found):
            out.update(found)
    return out


def _code_forms(ref: str) -> list[tuple[tuple[str, str, tuple[str, ...]], str]]:
    """The ways ``ref``'s name carries an ISO 639-1 code: ``((parent, "suffix" | "prefix", other words),
    code)`` for a last (``label_fr``) or first (``fr_label``) word of :data:`ISO_639_1` beside at least one
    other word; none for a name read as an identifier (``name_id``, ``no_order``: ``id`` and ``no`` are
    ISO 639-1 codes too)."""
    ws = words(re.split(r"[/.]", ref)[-1].lstrip("@"), expand=False)
    if len(ws) < 2 or id_like(ref):
        return []
    out = []
    if ws[-1] in ISO_639_1:
        out.append(((parent(ref), "suffix", tuple(ws[:-1])), ws[-1]))
    if ws[0] in ISO_639_1:
        out.append(((parent(ref), "prefix", tuple(ws[1:])), ws[0]))
    return out


def language_variants(reference: str, refs: Sequence[str]) -> dict[str, str]:
    """The columns that hold ``reference``'s text in other languages, ``reference`` first, each with its
    code; ``{}`` when there is none.

    A variant lies in the same object and its name differs from ``reference``'s by an ISO 639-1 code
    alone, as last word (``labelEN``, ``labelFR``, ``labelNL``) or first (``en_title``, ``fr_title``),
    with another code: the same text published once per language, the way a SKOS thesaurus writes one
    ``skos:prefLabel`` per language. Two columns at least: one name alone with a two-letter word
    (``stop_it``) could mean anything.

    Args:
        reference: one of ``refs``. refs: the source's references.
    Returns:
        reference -> code (``{"labelEN": "en", "labelFR": "fr"}``), ``reference`` first, the others in
        the order of ``refs``.
    """
    for form, code in _code_forms(reference):
        found = {r: c for r in refs if r != reference for f, c in _code_forms(r) if f == form and c != code}
        if found and len(set(found.values())) == len(found):
            return {reference: code, **found}
    return {}


def column_language(reference: str, refs: Sequence[str]) -> str | None:
    """The language a text column's name states (``labelEN``, ``name_fr``, ``titel_nl``, ``fr_title``),
    else ``None``.

    The name has :func:`language_variants` (``labelEN`` beside ``labelFR``: the same text in several
    languages), or its last word is an ISO 639-1 code (:data:`ISO_639_1`) and the other words name a
    name, title or label (``labelEN`` alone: a label in English). A column named as an identifier
    (``name_id``, ``name_no``) is none."""
    variants = language_variants(reference, refs)
    if variants:
        return variants[reference]
    for (_, where, stem), code in _code_forms(reference):
        if where == "suffix" and set(stem) & {"name", "title", "label"}:
            return code
    return None


@lru_cache(maxsize=1)
def _detector() -> LanguageDetector:
    codes = [getattr(IsoCode639_1, c.upper()) for c in CANDIDATE_LANGUAGES]
    return LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()


def detect_language(values: Sequence[str]) -> tuple[str | None, float]:
    """Language of text values with lingua, restricted to :data:`CANDIDATE_LANGUAGES`.

    Args:
        values: the column's values (numbers and empties are skipped; at most 50 used).
    Returns:
        ``(code, confidence)``: ISO 639-1 code and lingua's confidence in [0, 1]
        for the joined text; ``(None, 0.0)`` when there is no text.
    """
    text = " . ".join(v for v in values[:50] if v and not re.fullmatch(r"[\d\s.,:+\-/]*", v))
    if not text:
        return None, 0.0
    conf = _detector().compute_language_confidence_values(text)
    if not conf:
        return None, 0.0
    best = conf[0]
    return best.language.iso_code_639_1.name.lower(), float(best.value)


def _is_code(value: str) -> bool:
    return bool(_TAG.match(value)) and not check_langtag(value) and value.split("-")[0].lower() in ISO_639_1


#: Attribute names that state the language of their element's text: XML's own (``xml:lang``, XML 1.0
#: section 2.12) and those of common XML standards (UBL/eForms ``languageID``, ``lang``, ``locale`` ...).
LANGUAGE_ATTRIBUTES = ("@xml:lang", "@languageID", "@lang", "@language", "@languageCode", "@locale")


def own_language(data, refs: Sequence[str], reference: str) -> str | None:
    """The attribute of the element ``reference`` reads that holds the language of its text
    (``cbc:Description/@languageID``), when every value of it is a language code; else ``None``.

    The attribute qualifies its own element: a record with a title in English and a description in
    French has one language attribute per text, and each tags its own text."""
    for name in LANGUAGE_ATTRIBUTES:
        ref = f"{reference}/{name}"
        if ref in refs and language_column(data, [ref]) is not None:
            return ref
    return None


def language_members(refs: Sequence[str], reference: str) -> dict[str, str]:
    """The members of a language map that ``reference`` is one of, each with its tag, else ``{}``.

    A language map is an object whose members are named by language tags and hold the same text in
    those languages (``"name": {"en": "Central Station", "de": "Hauptbahnhof"}``: JSON-LD 1.1 section
    4.2.4, Wikidata labels, DCAT-AP ``title_translated``). It is one when every member of the object
    ``reference`` lies in (over all records: every reference of ``refs`` under it) is a leaf named by a
    lower-case BCP 47 tag whose primary subtag is an ISO 639-1 code (:func:`language_column`'s test),
    and none is named as an identifier (:func:`.identity.id_like`: ``license.id`` is the license's
    identifier, as the mapper reads it everywhere, not a text in Indonesian).

    Args:
        refs: the source's references. reference: one of them (``name.en``).
    Returns:
        reference -> tag (``{"name.en": "en", "name.de": "de"}``), in the order of ``refs``.
    """
    obj = parent(reference)
    if not obj:
        return {}
    under = [r for r in refs if r.startswith(obj) and len(r) > len(obj) and r[len(obj)] in "./"]
    tags = {r: r[len(obj) + 1:] for r in under}
    if reference not in tags or not all(t.split("-")[0].islower() and _is_code(t) and not id_like(r)
                                        for r, t in tags.items()):
        return {}
    return tags


def takes_tagged_string(ontology, prop) -> bool:
    """``prop`` admits a language-tagged string: its datatype ranges are ``rdf:langString`` or
    ``rdfs:Literal`` (the class of all literals, RDF Schema 1.1 section 2.3), or it has none;
    ``xsd:string`` does not (RDF 1.1 Concepts 3.3: a tagged string's datatype is rdf:langString)."""
    return ontology.ranges(prop) <= {RDF.langString, RDFS.Literal}


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


def language_names(ref: str, values: Sequence[str]) -> dict[str, str] | None:
    """``{"English": "en", "Spanish": "es"}`` when ``ref`` is named as a language (``Language``) and
    its values are English names of languages (lingua's list) rather than codes, else ``None``.

    Such a column says each record's language, but a language tag must be a BCP 47 code (RDF 1.1,
    3.3), and the Language Tag cell can only reference a column of codes: the engineer needs to add one."""
    if not set(words(ref.split("/")[-1], expand=False)) & _LANG_WORDS:
        return None
    vals = {v.strip() for v in values if v and v.strip()}
    if not vals:
        return None
    known = {lang.name.lower(): lang.iso_code_639_1.name.lower() for lang in Language.all()}
    found = {v: known.get(v.lower()) for v in sorted(vals)}
    return found if all(found.values()) else None


def _decided(values: Sequence[str]) -> tuple[str | None, str | None, float, dict[str, tuple[str, float]]]:
    """Column-level lingua answer, kept only when it is confident (>= :data:`MIN_CONFIDENCE`) and no
    value alone (first 20) is placed in another language.

    Returns:
        ``(kept code or None, lingua's code for the column, its confidence,
        value -> (language, confidence) of each value placed elsewhere)``.
    """
    def compute() -> tuple[str | None, str | None, float, dict[str, tuple[str, float]]]:
        detected, conf = detect_language(values)
        texts = [v for v in values if v and v.strip()][:20]
        other = {v: found for v in texts if (found := detect_language([v]))[0] and found[0] != detected}
        return (detected if detected and conf >= MIN_CONFIDENCE and not other else None), detected, conf, other

    # kept in the column's memo: every unsure text column of a source reads its siblings (step 4)
    return memoised(values, "language_decided", compute)


def _sure(other: dict[str, tuple[str, float]]) -> dict[str, str]:
    """The values of ``other`` lingua is confident of on their own (a real second language, not noise)."""
    return {v: c for v, (c, vc) in other.items() if vc >= MIN_CONFIDENCE}


def _free_text(values: Sequence[str]) -> bool:
    """Sentences or titles, not names or codes: at least half the non-empty values have
    :data:`FREE_TEXT_WORDS` or more words of letters."""
    vals = [v for v in values if v and v.strip()]
    long = sum(1 for v in vals if len(re.findall(r"[^\W\d_]+", v)) >= FREE_TEXT_WORDS)
    return bool(vals) and 2 * long >= len(vals)


def code_list(found: dict[str, str | tuple[str, float]], n: int = 3) -> str:
    """``'Toledo': pt, ...`` for a finding (first ``n`` values)."""
    return ", ".join(f"{v!r}: {c if isinstance(c, str) else c[0]}" for v, c in list(found.items())[:n])


def record_language(data, others: Sequence[str]) -> tuple[str | None, str]:
    """The language the other free-text columns of the same records are written in.

    Rule (documented in the module docstring, step 4): the text of one record is in one language
    unless its own column says otherwise. So a column lingua cannot decide (proper names: "London",
    "Madrid") takes the language in which every free-text column of its records (:func:`_free_text`)
    was confidently detected, value by value. Columns that disagree, or a confident column whose
    values are in several languages, decide nothing.

    Args:
        data: the loaded source. others: its other references (keys and the column itself left out).
    Returns:
        ``(code or None, evidence)``; evidence names the columns read.
    """
    found: dict[str, list[str]] = {}
    mixed: list[str] = []
    for ref in others:
        values = data.values(ref)
        if not _free_text(values):
            continue
        code, _, conf, other = _decided(values)
        if code:
            found.setdefault(code, []).append(f"{ref!r} ({conf:.2f})")
        elif _sure(other) and conf >= MIN_CONFIDENCE:
            mixed.append(ref)
    if len(found) == 1 and not mixed:
        code, cols = next(iter(found.items()))
        return code, f"the free-text column(s) {', '.join(cols)} of the same records are {code!r}"
    if found or mixed:
        langs = ", ".join(f"{c}: {', '.join(cols)}" for c, cols in sorted(found.items()))
        return None, ("the free-text columns of the same records disagree ("
                      + "; ".join(x for x in (langs, f"mixed: {', '.join(map(repr, mixed))}" if mixed else "") if x)
                      + ")")
    return None, "no other free-text column of the same records"


def vocabulary_language(ontology, prop) -> str | None:
    """The one language tag of ``prop``'s ``rdfs:label``/``rdfs:comment``/``skos:prefLabel``/``skos:definition``.

    Args:
        ontology: a loaded ontology (``.graph`` an rdflib Graph); prop: the property IRI.
    Returns:
        the tag in lower case when all tagged annotations share one, else ``None``.
    """
    langs = {lit.language.lower() for pred in (RDFS.label, RDFS.comment, SKOS.prefLabel, SKOS.definition)
             for lit in ontology.graph.objects(prop, pred) if isinstance(lit, Literal) and lit.language}
    return langs.pop() if len(langs) == 1 else None


def choose_language(data, reference: str, file_name: str, lang_col: tuple[str, str] | None,
                    others: Sequence[str] = (), required_lang: str | None = None,
                    file_lang: str | None = None) -> tuple[str | None, str, bool]:
    """Language Tag cell for the text column ``reference`` (steps 1-6 of the module docstring).

    Args:
        data: the loaded source; reference: the text column.
        file_name: the source's file name (``city_es.csv``).
        lang_col: :func:`language_column` of the source, or ``None``.
        others: the source's other references that may carry text (keys left out), for step 4.
        required_lang: :func:`vocabulary_language` of the property when its range requires a tag
            (``rdf:langString``), for step 5; ``None`` otherwise.
        file_lang: the language :func:`file_languages` gives the file (step 2, beside :func:`language_hint`).
    Returns:
        ``(cell, evidence, unsure)``: ``"{lang_code}"`` (a column reference) or a constant tag with
        ``unsure=False``; the ontology's language (step 5) or ``None``
        with ``unsure=True`` when nothing in the data decides (never a fixed ``en``).
    """
    values = data.values(reference)
    if lang_col is not None and lang_col[0] != reference:
        return "{" + lang_col[0] + "}", f"language tag per record from {lang_col[1]}", False
    hint = language_hint(file_name) or file_lang
    if hint:
        detected, conf = detect_language(values)
        return hint, f"language {hint!r} from the file name; lingua says {detected} ({conf:.2f})", False
    code, detected, conf, other = _decided(values)
    if code:
        return code, f"language {code!r} detected by lingua ({conf:.2f}), every value agrees", False
    sure = _sure(other)
    if sure and conf >= MIN_CONFIDENCE:  # its own column says otherwise: the record rule does not apply
        return None, (f"the values are in several languages ({code_list(sure)}); one tag per value needs a "
                      "language column; no language tag written"), True
    why = (f"lingua is not sure (the column {detected} {conf:.2f}"
           + (f"; alone {code_list(other)}" if other else "") + ")")
    rec, rwhy = record_language(data, [r for r in others if r != reference])
    if rec:
        return rec, f"{why}; {rwhy}: the text of one record is in one language", False
    if required_lang:
        return required_lang, (f"{why}; {rwhy}; the range requires a language tag: tagged {required_lang!r}, "
                               "the one language of the property's own label/comment"), True
    return None, f"{why}; {rwhy}; no language tag written", True
