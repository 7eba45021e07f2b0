"""Name similarity between source references and ontology terms (lexical + embeddings).

Source names (file names, CSV headers, JSON keys, XML element paths) and
ontology terms (local names, ``rdfs:label``, ``skos:prefLabel``, comments) are
split into lower-case words (camelCase, snake_case, digits, namespace
prefixes dropped) with a few common abbreviations expanded (``fname`` ->
``first name``). Similarity in [0, 1] combines:

* lexical: the best, over the names of the term, of the mean of rapidfuzz
  ``token_set_ratio`` between the word sets and ``ratio`` between the joined
  words (normalised Indel similarity; rapidfuzz docs); comment words add a
  weaker overlap;
* semantic: cosine of all-MiniLM-L6-v2 sentence embeddings
  (:mod:`pipeline.embeddings`) of the reference words and the term's
  verbalisation (label: comment), when embeddings are available.

The combined score is ``0.6 * lexical + 0.4 * max(cosine, 0)`` with
embeddings, else the lexical score alone; :attr:`NameMatcher.mode` says which.
"""
from __future__ import annotations

import logging
import re
import unicodedata
from typing import Iterable, Sequence

import numpy as np
from rapidfuzz import fuzz
from rdflib import URIRef

from pipeline import embeddings
from pipeline.ontology import Ontology

__all__ = ["words", "reference_words", "reference_steps", "singular", "own_words", "term_names", "NameMatcher", "ABBREVIATIONS", "NAME_PART_SYNONYMS",
           "abbreviates", "abbreviation_score", "is_code_name", "SPANISH"]

log = logging.getLogger(__name__)

#: Abbreviations common in column names, expanded before matching.
ABBREVIATIONS: dict[str, str] = {
    "fname": "first name", "lname": "last name", "desc": "description", "lat": "latitude",
    "lon": "longitude", "lng": "longitude", "long": "longitude", "num": "number", "no": "number",
    "qty": "quantity", "amt": "amount", "addr": "address", "tel": "telephone", "dob": "date of birth",
    "url": "url", "dept": "department", "emp": "employee", "seq": "sequence", "dist": "distance",
    "lang": "language", "tz": "timezone", "org": "organisation",
}

_STOP = {"the", "of", "a", "an", "and", "or", "to", "in", "for", "by", "with", "each", "that", "is", "its"}

#: Common Spanish words of column and file names (data dictionaries, open-data portals), read as
#: their English equivalent before matching: the embeddings model is English-only and lexical
#: similarity does not bridge ``fecha`` and ``date``. Cognates need no entry (:func:`_cognate`).
SPANISH: dict[str, str] = {
    "fecha": "date", "hora": "time", "ano": "year", "anio": "year", "mes": "month", "dia": "day",
    "nombre": "name", "apellido": "surname", "apellidos": "surname", "pila": "given", "titulo": "title",
    "codigo": "code", "cod": "code", "numero": "number", "num": "number", "clave": "key", "ident": "identifier",
    "precio": "price", "importe": "amount", "cantidad": "quantity", "tarifa": "fare", "coste": "cost",
    "costo": "cost", "valor": "value", "tipo": "type", "clase": "class", "estado": "status", "nota": "note",
    "ciudad": "city", "pais": "country", "calle": "street", "direccion": "address", "poblacion": "town",
    "municipio": "municipality", "provincia": "province", "sede": "seat", "correo": "email", "telefono": "telephone",
    "idioma": "language", "lengua": "language", "autor": "author", "escritor": "writer", "libro": "book",
    "editorial": "publisher", "pagina": "page", "paginas": "pages", "tamano": "size", "alto": "height",
    "altura": "height", "ancho": "width", "anchura": "width", "largo": "length", "peso": "weight",
    "inicio": "start", "fin": "end", "llegada": "arrival", "salida": "departure", "parada": "stop",
    "paradas": "stops", "viaje": "trip", "viajes": "trips", "linea": "line", "ruta": "route", "plazas": "seats",
    "asientos": "seats", "empresa": "company", "fabricante": "manufacturer", "planta": "plant", "fabrica": "factory",
    "obra": "work", "obras": "works", "pieza": "piece", "artista": "artist", "coleccion": "collection",
    "museo": "museum", "sala": "room", "medicamento": "medicine", "medicamentos": "medicines",
    "principio": "substance", "activo": "active", "dosis": "dose", "envase": "pack", "aviso": "warning",
    "advertencia": "warning", "seguridad": "safety", "registro": "registration", "fundacion": "founding",
    "descripcion": "description", "comentario": "comment", "observaciones": "notes", "categoria": "category",
    "genero": "genre", "marca": "brand", "modelo": "model", "cliente": "customer", "socio": "member",
    "prestamo": "loan", "usuario": "user", "persona": "person", "edad": "age", "sexo": "sex",
}
_SPANISH_STOP = {"de", "del", "la", "el", "los", "las", "y", "por", "para"}


def _cognate(word: str) -> str:
    """English cognate of a Spanish word by its regular suffix: ``-cion`` -> ``-tion``
    (``publicacion``), ``-dad`` -> ``-ty`` (``accesibilidad``), ``-encia``/``-ancia`` -> ``-ence``/``-ance``
    (``licencia``, ``distancia``); other words unchanged. English words never end in ``cion``; the
    other suffixes apply to words of six letters or more only."""
    if word.endswith("cion"):
        return word[:-4] + "tion"
    if len(word) >= 6 and word.endswith("idad"):
        return word[:-4] + "ity"
    if len(word) >= 6 and word.endswith(("encia", "ancia")):
        return word[:-2] + "e"
    return word


#: Single-word names of person-name parts, read as the common term (a whole name only, never a
#: word inside a longer name: ``family`` is a surname column, ``family_size`` is not).
NAME_PART_SYNONYMS: dict[str, str] = {
    "given": "first name", "forename": "first name", "firstname": "first name",
    "family": "surname last name", "lastname": "surname last name",
}


def words(text: str | None, expand: bool = True) -> list[str]:
    """Split a name into lower-case words.

    ``stopTimes`` -> ``["stop", "times"]``; ``agency_id`` -> ``["agency", "id"]``;
    ``cbc:AwardDate`` -> ``["award", "date"]`` (prefix dropped); ``fname`` ->
    ``["first", "name"]`` and ``orgs`` -> ``["organisation"]`` (an abbreviation's plural) when ``expand``.
    """
    if not text:
        return []
    # accents off (año -> ano, publicación -> publicacion): names are split on ASCII letters
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"^[A-Za-z][\w\-]*:(?=[A-Za-z])", "", text.strip())
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    out = []
    parts = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", text) if w]
    if expand and len(parts) == 1 and parts[0] in NAME_PART_SYNONYMS:
        return NAME_PART_SYNONYMS[parts[0]].split()
    for i, w in enumerate(w.lower() for w in re.split(r"[^A-Za-z0-9]+", text) if w):
        if expand and w in ABBREVIATIONS:
            out.extend(ABBREVIATIONS[w].split())
        elif expand and _singular(w) != w and _singular(w) in ABBREVIATIONS:
            # the plural of an abbreviation is the same abbreviation (orgs.csv holds organisations): read
            # unexpanded, its words would never meet the expanded ones of the file's own columns (org_name)
            out.extend(ABBREVIATIONS[_singular(w)].split())
        elif expand and w in SPANISH:
            out.extend(SPANISH[w].split())
        elif expand and w in _SPANISH_STOP and 0 < i < len(parts) - 1:
            continue  # between two words (fecha_de_alta); a last word may be a language code (title_de)
        else:
            out.append(_cognate(w) if expand else w)
    return out


def reference_words(reference: str, context: int = 1) -> list[str]:
    """Words of a data reference: the last path step plus ``context`` parent steps (XML/JSON).

    ``cac:TenderResult/cbc:AwardDate`` -> ``["tender", "result", "award", "date"]``
    with ``context=1``; attribute steps (``@id``) count as steps.
    """
    out: list[str] = []
    for s in reference_steps(reference)[-(context + 1):]:
        out.extend(words(s))
    return out


def reference_steps(reference: str | None) -> list[str]:
    """The path steps of a data reference, an attribute's without its ``@`` (``a/@b`` -> ``["a", "b"]``,
    ``$.a.tags`` -> ``["a", "tags"]``); ``[]`` for none."""
    return [s.lstrip("@") for s in re.split(r"[/.]", reference or "") if s and s not in ("$", "*")]


def is_code_name(reference: str) -> bool:
    """The reference's own name (last path step) holds no word of two or more letters (``X17``,
    ``d:F07``, ``contact.Q2``): a code, which says nothing about what the column means; matching
    it by name would only measure noise."""
    return not any(re.fullmatch(r"[a-z]{2,}", w) for w in reference_words(reference, 0))


def term_names(ontology: Ontology, iri: URIRef) -> list[str]:
    """Names of a term as space-joined words: local name first, then labels (deduplicated)."""
    local = re.split(r"[#/:]", str(iri).rstrip("/#"))[-1]
    names = [" ".join(words(local))] + [" ".join(words(l)) for l in ontology.labels(iri)]
    return [n for n in dict.fromkeys(names) if n]


#: Score of a name whose every word the query spells out or abbreviates (below an exact match).
ABBREVIATION_SCORE = 0.85


def abbreviates(short: str, word: str) -> bool:
    """``short`` is ``word`` or an abbreviation of it: same first letter and its letters a
    subsequence of ``word`` (truncation ``auth`` -> ``authorisation``, contraction ``dt`` -> ``date``,
    ``yr`` -> ``year``, ``qty`` -> ``quantity``), the two ways column names shorten words
    (ISO 4 abbreviation rules: truncation and contraction keep the first letter and the word's
    letters in order). Two letters at least, and a single letter never abbreviates."""
    if short == word:
        return True
    if len(short) < 2 or len(short) >= len(word) or short[0] != word[0] or short.isdigit():
        return False
    it = iter(word)
    return all(ch in it for ch in short)


def abbreviation_score(query: str, name: str) -> float:
    """:data:`ABBREVIATION_SCORE` times the share of words aligned, in order, between the query and
    the name, each query word spelling out or abbreviating (:func:`abbreviates`) one name word;
    the share is taken over the longer of the two (``auth dt`` ~ ``authorisation date`` 0.85,
    ``auth dt`` ~ ``authorisation`` 0.425). An alignment made only of exact words scores 0: the
    token ratios already judge those."""
    q, n = query.split(), name.split()
    if not q or not n:
        return 0.0
    # longest in-order alignment (LCS with the abbreviation relation), counting abbreviated pairs
    best = [[(0, 0)] * (len(n) + 1) for _ in range(len(q) + 1)]
    for i in range(len(q) - 1, -1, -1):
        for j in range(len(n) - 1, -1, -1):
            cands = [best[i + 1][j], best[i][j + 1]]
            if abbreviates(q[i], n[j]):
                m, a = best[i + 1][j + 1]
                cands.append((m + 1, a + (q[i] != n[j])))
            best[i][j] = max(cands)
    matched, abbreviated = best[0][0]
    if not abbreviated:
        return 0.0
    return ABBREVIATION_SCORE * matched / max(len(q), len(n))


def _lexical(query: str, names: Sequence[str], comment: set[str]) -> float:
    if not query:
        return 0.0
    flat = query.replace(" ", "")
    # a plural names the same thing (stops.csv holds stops: gtfs:Stop), word by word
    singular = " ".join(_singular(w) for w in query.split())
    best = 0.0
    for n in names:
        s = (fuzz.token_set_ratio(query, n) + fuzz.ratio(flat, n.replace(" ", ""))) / 200
        if singular != query:
            s = max(s, (fuzz.token_set_ratio(singular, n) + fuzz.ratio(singular.replace(" ", ""), n.replace(" ", "")))
                    / 200)
        best = max(best, s, abbreviation_score(query, n))
    q = {_singular(w) for w in query.split() if w not in _STOP}
    if q and comment:
        best = max(best, 0.7 * len(q & {_singular(w) for w in comment}) / len(q))
    return best


def _singular(word: str) -> str:
    """English plural -> singular for word overlap (``members`` ~ ``member``, ``categories`` ~
    ``category``; ``class``, ``status``, ``analysis`` kept)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


def singular(word: str) -> str:
    """The singular of an English plural noun (:func:`_singular`): how names of collections compare."""
    return _singular(word)


def own_words(reference: str, stem: str) -> str:
    """The words of a reference without those of its records' entity (the file stem): ``stop_name`` in
    ``stops.csv`` -> ``name``; the reference's words when nothing else is left (``stop_id`` in
    ``stops.csv`` -> ``id``, ``stops`` in ``stops.csv`` -> ``stops``)."""
    entity = {_singular(w) for w in words(stem)}
    ws = reference_words(reference)
    return " ".join([w for w in ws if _singular(w) not in entity] or ws)


class NameMatcher:
    """Scores (text, term) pairs; embeds every text once per matcher.

    Args:
        ontology: where labels and comments come from.
        use_embeddings: ``None``: use them when :func:`pipeline.embeddings.available`;
            ``False``: lexical only.
    Attributes:
        mode: ``"lexical+embeddings"`` or ``"lexical"`` (recorded in provenance).
        note: why embeddings are not used, if they are not.
    """

    def __init__(self, ontology: Ontology, use_embeddings: bool | None = None) -> None:
        self.ontology = ontology
        self._names: dict[URIRef, list[str]] = {}
        self._comment: dict[URIRef, set[str]] = {}
        self._vec: dict[str, np.ndarray] = {}
        self._scores: dict[tuple[str, URIRef], float] = {}
        self.note = ""
        ok = embeddings.available() if use_embeddings is None else use_embeddings
        if use_embeddings is None and not ok:
            self.note = "embeddings unavailable (torch/sentence-transformers/model missing or disabled)"
        self.mode = "lexical+embeddings" if ok else "lexical"

    def names(self, iri: URIRef) -> list[str]:
        """Cached :func:`term_names`."""
        if iri not in self._names:
            self._names[iri] = term_names(self.ontology, iri)
            self._comment[iri] = {w for w in words(self.ontology.comment(iri), expand=False) if w not in _STOP}
        return self._names[iri]

    def _text(self, iri: URIRef) -> str:
        return " ".join(words(self.ontology.verbalise(iri), expand=False)) or self.names(iri)[0]

    def prepare(self, texts: Iterable[str], terms: Iterable[URIRef]) -> None:
        """Embed all query texts and term verbalisations in one batch (no-op when lexical)."""
        if self.mode == "lexical":
            return
        todo = [t for t in dict.fromkeys([*texts, *(self._text(i) for i in terms)]) if t not in self._vec]
        if not todo:
            return
        try:
            vecs = embeddings.embed(todo)
        except embeddings.EmbeddingsUnavailableError as exc:
            self.mode, self.note = "lexical", f"embeddings failed: {exc}"
            log.warning("offline mapper falls back to lexical similarity: %s", exc)
            return
        self._vec.update(zip(todo, vecs))

    def cosine(self, text: str, iri: URIRef) -> float | None:
        """Cosine (clipped at 0) of the embeddings of ``text`` and the term's verbalisation
        (label: comment); ``None`` in lexical mode. For texts that are no names (sample values)."""
        if self.mode == "lexical":
            return None
        self.names(iri)
        if text not in self._vec or self._text(iri) not in self._vec:
            self.prepare([text], [iri])
        a, b = self._vec.get(text), self._vec.get(self._text(iri))
        return None if a is None or b is None else max(0.0, float(np.dot(a, b)))

    def named_exactly(self, reference: str, stem: str, iri: URIRef) -> bool:
        """The reference's words (without its entity's, :func:`own_words`, or all of them) are one of the
        term's names word for word, plurals aside: ``start_date`` ~ ``startDate``, ``name`` ~ ``foaf:name``
        (not ``foaf:lastName``, whose name adds a word the column does not say)."""
        mine = {" ".join(singular(w) for w in t.split()) for t in
                (own_words(reference, stem), " ".join(reference_words(reference, 0)))}
        return bool(mine & {" ".join(singular(w) for w in n.split()) for n in self.names(iri)})

    def named_literally(self, reference: str, stem: str, iri: URIRef) -> bool:
        """:meth:`named_exactly` as spelled, no abbreviation, Spanish word or cognate read: the reference's
        last step (without its entity's words, or all of them) is one of the term's names, its local name or a
        label in any language, plurals aside (``nombre`` ~ ``esequip:nombre``, labelled "nombre"@es, not
        ``schema:name``, which ``nombre`` names only once translated)."""
        steps = reference_steps(reference)
        mine = words(steps[-1] if steps else reference, expand=False)
        entity = {_singular(w) for w in words(stem, expand=False)}
        forms = {" ".join(_singular(w) for w in t) for t in (mine, [w for w in mine if _singular(w) not in entity])}
        local = re.split(r"[#/:]", str(iri).rstrip("/#"))[-1]
        return bool(forms & {" ".join(_singular(w) for w in words(n, expand=False))
                             for n in [local, *self.ontology.labels(iri)]})

    def score(self, text: str, iri: URIRef) -> float:
        """Similarity in [0, 1] of a space-joined word string and a term (computed once per pair)."""
        key = (text, iri)
        if key not in self._scores:
            self._scores[key] = self._score(text, iri)
        return self._scores[key]

    def _score(self, text: str, iri: URIRef) -> float:
        names = self.names(iri)
        lex = _lexical(text, names, self._comment[iri])
        if self.mode == "lexical":
            return lex
        a, b = self._vec.get(text), self._vec.get(self._text(iri))
        if a is None or b is None:
            self.prepare([text], [iri])
            a, b = self._vec.get(text), self._vec.get(self._text(iri))
            if a is None or b is None:
                return lex
        return 0.6 * lex + 0.4 * max(0.0, float(np.dot(a, b)))
