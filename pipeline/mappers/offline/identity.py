"""Identity evidence for the offline mapper: which references can key a source's records.

A key must tell apart the records it keys (the definition of a key: no two
distinct entities share its value):

* a reference's name says what it may hold: an identifier (:func:`id_like`: ``stop_id``,
  ``id_author``, ``cod_parada``) or a name (:func:`name_like`: ``first_name``);
* within one file, :func:`.profile.is_key` (unique, never empty);
* across the files of one *source kind* (same format, same record iterator /
  header): a reference whose value is the same in every file (a schema or
  version number) identifies nothing, and when every file holds a single record
  (one notice per file) the key must differ from file to file, otherwise all
  files' entities merge into one IRI (:func:`non_distinguishing`);
* a member of a nested object named as the class of that object (:func:`designation_like`:
  ``vulnerabilities.cve`` of a ``cve:CVE``) whose values are codes no two occurrences share names it;
* a numeric column is a key candidate when its values look like codes, not
  quantities (:func:`code_like`: whole numbers of one fixed width of at least
  five digits, or with leading zeros: ISBN, EAN, member numbers), which years,
  counts and measurements (varying width, decimals) are not;
* an ontology's identifier properties (:func:`identifier_properties`):
  ``owl:hasKey`` members, ``owl:InverseFunctionalProperty`` (OWL 2: a value
  identifies its subject), properties named or commented as identifiers, and
  properties whose label the class comment names after "identified by"
  (``Edition``: "identified by its ISBN" -> ``isbn13``).
"""
from __future__ import annotations

import re
from typing import Iterable

from rdflib import URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF

from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.names import NameMatcher, abbreviates, is_code_name, reference_steps, singular, words
from pipeline.mappers.offline.profile import distinct_records, distinct_values, is_key, nonblank_count

__all__ = ["id_like", "iri_like", "designation_like", "name_like", "name_words", "code_like", "source_kinds",
           "non_distinguishing",
           "identifier_properties", "names_another_scheme", "prefer_identifier_key", "ID_WORDS", "GENERIC_ID_WORDS",
           "IDENTIFIER_COVERAGE"]

#: Words that name an identifier (in a column name or an ontology term's label/comment); ``ref`` is
#: the usual short form of "reference (number)" (``order_ref``, ``customer_ref``). The names of
#: identifier schemes count too: ISBN, ISSN, DOI, and the product codes EAN, GTIN, UPC, SKU and MPN
#: (GS1 numbers and a seller's or maker's part number; schema.org declares ``schema:sku``,
#: ``schema:gtin`` and ``schema:mpn`` sub-properties of ``schema:identifier``).
ID_WORDS = {"id", "identifier", "code", "key", "uuid", "guid", "number", "no", "nr", "num", "ref", "isbn", "issn", "ean",
            "doi", "gtin", "upc", "sku", "mpn"}

#: Least share of records (more than half: "most") that must hold a value of a column mapped to an
#: ontology identifier for it to key the records when a few lack it. The ontology says the property
#: identifies the class, so the records holding it are told apart by it; a record without it has no
#: identity the ontology accepts and gets no subject (counted, reported). A key made of other columns
#: (a title, every column joined) would instead give all records subjects the ontology does not
#: define, and merge or split entities by chance.
IDENTIFIER_COVERAGE = 0.5

_YEAR = re.compile(r"^(1[5-9]|20)\d\d$")

#: Identifier words that head a name in head-first word order (``id_author``; Spanish/French
#: ``cod_parada``, ``codigo_postal``, ``code_client``).
_ID_HEADS = {"id", "cod", "codigo", "code", "ident"}


def id_like(ref: str) -> bool:
    """A reference named like an identifier (``stop_id``, ``id_author``, ``cod_parada``)."""
    w = words(ref.split("/")[-1].lstrip("@"), expand=False)
    return bool(w) and (w[-1] in ID_WORDS or w[0] in _ID_HEADS)


#: The words that name a member as an IRI (``cpe23Uri``, ``htmlUrl``, ``iri``).
IRI_WORDS = {"uri", "url", "iri"}
#: An absolute IRI (RFC 3987 / RFC 3986 section 3: a scheme, a colon, then no character an IRI excludes).
_ABSOLUTE_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")


def iri_like(ref: str, values: Iterable[str]) -> bool:
    """A reference named as an IRI (its last word ``uri``, ``url`` or ``iri``: ``cpe23Uri``) whose every
    non-empty value is an absolute IRI (``cpe:2.3:a:apple:safari:*:...``, ``https://...``), and at least one.

    An IRI identifies one resource (RDF 1.1 Concepts section 1.2): such a member names the thing its object
    describes as an identifier member does (:func:`id_like`), though no identifier word says so."""
    w = words(ref.split("/")[-1].lstrip("@"), expand=False)
    if not w or w[-1] not in IRI_WORDS:
        return False
    seen = [str(v).strip() for v in values if str(v).strip()]
    return bool(seen) and all(_ABSOLUTE_IRI.match(v) for v in seen)


#: A code: one token of letters and digits, with at least one of each, the separators codes use between them
#: (``CVE-2023-0052``, ``ICSA-23-010-01``, ``3fa85f64-5717-4562-b3fc-2c963f66afa6``, ``EYK220F001``).
_CODE = re.compile(r"^(?=[^\s]*[A-Za-z])(?=[^\s]*\d)[A-Za-z0-9]+(?:[-_.:/][A-Za-z0-9]+)*$")


def designation_like(ref: str, class_names: Iterable[str], values: Iterable[str]) -> bool:
    """A member named as the class of the object it lies in (its last step's words are a name of the class
    word for word, plurals aside: ``vulnerabilities.cve`` of a ``cve:CVE``) whose values are codes (one token
    of letters and digits, at least one of each: ``CVE-2023-0052``), each value once over all its
    occurrences and files, and at least one.

    The member names the thing by the name of its kind, as ``event_id`` of an event's record does, and the
    data show what an identifier is: codes, no two occurrences sharing one (a key's definition). A name
    (``Black Box KVM``), a number (an ordinal repeats from one owner to the next) or a value two occurrences
    share (a category) is no designation."""
    w = " ".join(singular(x) for s in reference_steps(ref)[-1:] for x in words(s, expand=False))
    if not w or w not in {" ".join(singular(x) for x in n.split()) for n in class_names}:
        return False
    seen = [str(v).strip() for v in values]
    return bool(seen) and all(_CODE.match(v) for v in seen) and len(set(seen)) == len(seen)


def name_words(ref: str) -> list[str]:
    """Words of a reference's last step other than identifier words (``shape_id`` -> ``["shape"]``)."""
    return [w for w in words(ref.split("/")[-1], expand=False) if w not in ID_WORDS]


def name_like(ref: str) -> bool:
    """A reference whose last step has the word ``name`` (``first_name``, ``@name``)."""
    return "name" in words(ref.split("/")[-1].lstrip("@"))


def code_like(values: Iterable[str]) -> bool:
    """True when every non-empty value is a whole-number code: one fixed width of at least five
    digits, or a leading zero somewhere (a quantity never has one); four-digit years are not codes."""
    values = values if isinstance(values, list) else list(values)
    vals = distinct_values(values)  # each distinct value tested once (a column of 1M rows has few)
    if nonblank_count(values) < 2 or not all(re.fullmatch(r"\d+", v) for v in vals):
        return False
    if any(len(v) > 1 and v.startswith("0") for v in vals):
        return True
    return len({len(v) for v in vals}) == 1 and len(next(iter(vals))) >= 5 and not all(_YEAR.match(v) for v in vals)


def source_kinds(datas: list) -> list[list[int]]:
    """Indexes of sources grouped by kind: same format and same iterator (XML/JSON) or same
    header (CSV). Groups of one source are included."""
    groups: dict[tuple, list[int]] = {}
    for i, d in enumerate(datas):
        fmt = d.source.format
        sig = (fmt, d.iterator) if fmt != "csv" else (fmt, tuple(sorted(d.references)))
        groups.setdefault(sig, []).append(i)
    return list(groups.values())


def non_distinguishing(datas: list, refs: Iterable[str]) -> dict[str, str]:
    """References that cannot key the records of the sources ``datas`` (one kind, two or more files).

    Returns:
        reference -> reason: one value in every file (``VersionID`` "2.3" in every notice), or,
        when every file holds at most one record, a value that two files share.
    """
    if len(datas) < 2:
        return {}
    single = all(len(d.records) <= 1 for d in datas)
    out: dict[str, str] = {}
    for r in refs:
        per_file = [tuple(v for rec in d.records for v in rec.get(r, [])) for d in datas]
        values = {v for vs in per_file for v in vs}
        if len(values) == 1:
            out[r] = f"{r!r} holds the same value {next(iter(values))!r} in all {len(datas)} files of this kind"
        elif single and len(set(per_file)) < len(per_file):
            out[r] = f"{r!r} repeats a value across the {len(datas)} single-record files of this kind"
    return out


def _has_key_members(ontology: Ontology, cls: URIRef) -> set[URIRef]:
    out: set[URIRef] = set()
    for c in ontology.superclasses(cls):
        for lst in ontology.graph.objects(c, OWL.hasKey):
            out.update(m for m in Collection(ontology.graph, lst) if isinstance(m, URIRef))
    return out


#: Words that say "identifier" without naming a scheme (``isbn``, ``orcid``, ``doi`` name one).
GENERIC_ID_WORDS = {"id", "identifier", "code", "key", "uuid", "guid", "number", "no", "nr", "num", "ref"}


def names_another_scheme(matcher: NameMatcher, ref: str, prop: URIRef, cls: URIRef, stem: str = "") -> bool:
    """``prop`` names an identifier scheme (``ORCID identifier``, ``ISBN``) that the identifier-named
    column ``ref`` does not (``author_id``: the data set's own key of its authors).

    A column named as an identifier says what it holds: ``author_id`` is the author's key in this
    data, and writing it as an ORCID would state a false identity in another scheme. Words of the
    class and of the file name are no scheme (``stop_code`` for "stop code" of a Stop). A column
    not named as an identifier, or code-named (``F07``), says nothing here: ``False``. Each label of the
    property (in any language) is read alone, the local name when it has none: a label that names no
    other scheme (``dct:identifier``, labelled ``Identifier`` and, in Spanish, ``identificador``) makes the
    property a generic identifier, whose other labels are translations, not a scheme; a local name that
    abbreviates its label (``mo:uuid``, "universally unique identifier") is no name of its own."""
    if is_code_name(ref) or not id_like(ref):
        return False
    name = ref.split("/")[-1].lstrip("@")
    col = set(words(name, expand=False)) | set(words(name))
    own = set(words(" ".join(matcher.names(cls)), expand=False)) | set(words(stem, expand=False))
    names = matcher.ontology.labels(prop) or matcher.names(prop)[:1]
    schemes = [set(words(n, expand=False)) - GENERIC_ID_WORDS - own for n in names]
    # a column word may abbreviate the scheme's word (inv_no: inventory number)
    return bool(schemes) and all(any(not any(abbreviates(c, w) for c in col) for w in scheme) for scheme in schemes)


def identifier_properties(ontology: Ontology, matcher: NameMatcher, cls: URIRef,
                          props: Iterable[URIRef]) -> dict[URIRef, str]:
    """Properties among ``props`` that identify instances of ``cls``, with the reason.

    ``owl:hasKey`` of ``cls`` or a superclass; ``owl:InverseFunctionalProperty``; a label or local
    name holding an identifier word (:data:`ID_WORDS`); a label that the class comment names after
    "identified by" / "identifier".
    """
    keys = _has_key_members(ontology, cls)
    comment = ontology.comment(cls).lower()
    after = set()
    for m in re.finditer(r"identif\w*\s+(?:by|with|through)?\s*(?:its|their|the|a|an)?\s*([\w\- ]{2,40})", comment):
        after |= set(words(m.group(1), expand=False)[:3])
    out: dict[URIRef, str] = {}
    for p in props:
        names = matcher.names(p)
        label = set(words(" ".join(names), expand=False))
        if p in keys:
            out[p] = f"owl:hasKey of {ontology.compact(cls)}"
        elif (p, RDF.type, OWL.InverseFunctionalProperty) in ontology.graph:
            out[p] = "owl:InverseFunctionalProperty"
        elif label & ID_WORDS:
            out[p] = f"its name says identifier ({sorted(label & ID_WORDS)[0]!r})"
        elif after and label & after - {"name", "title"}:
            out[p] = f"the comment of {ontology.compact(cls)} says it is identified by {sorted(label & after)[0]!r}"
    return out


def prefer_identifier_key(info: SourceInfo, ontology: Ontology, matcher: NameMatcher) -> None:
    """Key the primary entity of ``info`` by the column mapped to an identifier property of its class,
    when that column is a key of the records and the current key is not a single identifier-named
    column (a title or a name identifies an edition or a person only by chance).

    A column missing in a few records still keys the others when more than
    :data:`IDENTIFIER_COVERAGE` of the records hold it and no two share a value; the records without
    it get no subject, and :attr:`SourceInfo.key_notes` says how many. An identifier column that
    cannot key the records (repeated values, too few values) is named in ``key_notes`` with the reason
    when the key stays made of every column.
    """
    if info.cls is None or info.node_iri is not None or (len(info.key) == 1 and id_like(info.key[0])):
        return  # the records' own IRIs (a JSON-LD @id) identify them as the data says
    mine = [a for a in info.assignments if a.cls == info.cls]
    ids = identifier_properties(ontology, matcher, info.cls, [a.prop for a in mine])
    records = distinct_records(info.data.records)
    why_not: list[str] = []
    for a in mine:
        if a.prop not in ids or (a.reference,) == tuple(info.key):
            continue
        what = f"maps to {ontology.compact(a.prop)}, an identifier of {ontology.compact(info.cls)} ({ids[a.prop]})"
        if is_key(records, (a.reference,)):
            info.key = info.keys[info.cls] = (a.reference,)
            info.key_evidence = f"{a.reference!r} is unique over {len(records)} distinct records and {what}"
            return
        have = [r for r in records if any(r.get(a.reference, ()))]
        if len(have) > IDENTIFIER_COVERAGE * len(records) and is_key(have, (a.reference,)):
            # a record with no value at all (a spreadsheet's blank line, ';;;;') is no record lacking a key
            filled = [r for r in info.data.records if any(v.strip() for vs in r.values() for v in vs)]
            lacking = sum(1 for r in filled if not any(v.strip() for v in r.get(a.reference, ())))
            info.key = info.keys[info.cls] = (a.reference,)
            info.key_evidence = (f"{a.reference!r} is unique over the {len(have)} of {len(records)} distinct records "
                                 f"that hold it and {what}")
            if not lacking:  # only blank records lack it: nothing is lost
                return
            info.key_notes.append(f"{lacking} of {len(filled)} records of {info.name} have no "
                                  f"{a.reference!r}, the identifier of {ontology.compact(info.cls)}: they get no "
                                  "subject (no triples)")
            return
        why_not.append(f"{a.reference!r} {what}, but " + (
            f"has values in only {len(have)} of {len(records)} distinct records"
            if len(have) <= IDENTIFIER_COVERAGE * len(records) else _repeated(have, a.reference)))
    if why_not and info.key_evidence.startswith("no key found"):
        info.key_notes.append(f"the subject key of {info.name} joins every column {list(info.key)}: the ontology's "
                              f"identifier was not taken: " + "; ".join(why_not))
    elif why_not:  # a key the data happens to have (a title) stands in for the one the ontology defines
        info.key_notes.append(f"the subject key of {info.name} is {list(info.key)}, not the ontology's identifier: "
                              + "; ".join(why_not))


def _repeated(records: list, ref: str) -> str:
    """``"repeats a value ('978...' in 2 records)"``: the first value of ``ref`` that several records share."""
    seen: dict[tuple, int] = {}
    for r in records:
        v = tuple(r.get(ref, ()))
        seen[v] = seen.get(v, 0) + 1
    dup = next(((v, n) for v, n in seen.items() if n > 1), None)
    if dup is None:
        return "repeats a value"
    return f"repeats a value ({'; '.join(dup[0])!r} in {dup[1]} records)"
