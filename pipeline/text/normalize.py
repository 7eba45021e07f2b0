"""Normalization of extracted and gold triples (the published rules of Text2KGBench-LettrIA).

Text2KGBench-LettrIA (Plu et al., "Text2KGBench-LettrIA: A Refined Benchmark for Text2Graph
Systems", CEUR-WS Vol-4041, 2025) revises the DBpedia-WebNLG part of Text2KGBench; its files are
not public, so we apply its published normalization rules ourselves, identically to gold triples
and to every system's output:

1. entity names: underscores become spaces, runs of white space collapse (``AWH_Engineering_College``
   -> ``AWH Engineering College``);
2. superfluous quotes around values are removed (``"\\"Kuttikkattoor\\""`` -> ``Kuttikkattoor``);
3. numbers are typed: thousands separators removed, a trailing ``.0`` dropped, and a unit in
   parentheses (``162164091.8388 (kilometres)``) left out of the value, when the relation's range
   is ``number`` (or unknown) and the whole value is one number;
4. dates (range ``Date``/``Year``) are written in ISO 8601 (``July 10, 1989`` -> ``1989-07-10``;
   a year alone stays ``1989``) - the paper's "literal normalisation (ISO 8601)";
5. ``subType``/``objType`` come from the ontology: the relation's domain, and its range (a class,
   or the XSD datatype of a datatype property's range, see :data:`DATATYPES`).

:func:`triple_key` is the comparison key of Text2KGBench's evaluation script
(``normalize_triple``: lower case, spaces and underscores removed) applied after these rules.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from datetime import date

__all__ = ["DATATYPES", "MONTHS", "OPEN_RANGE_CLASS", "LiteralForms", "value_type", "clean_name", "fold_accents", "number_value", "date_value",
           "normalize_value", "key", "triple_key", "year_keys"]

#: Range names of Text2KGBench's JSON ontologies that are datatypes, and their XSD datatype.
DATATYPES = {"number": "decimal", "string": "string", "date": "date", "Date": "date", "Year": "gYear"}

MONTHS = {m: i + 1 for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july",
                                          "august", "september", "october", "november", "december"])}
_MONTH_ABBR = {m[:3]: i for m, i in MONTHS.items()}
_NUM = re.compile(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
_UNIT = re.compile(r"^(.*?)\s*\(([A-Za-z ]+)\)$")
_QUOTES = "\"'\u201c\u201d\u2018\u2019"


def clean_name(text: str) -> str:
    """Rules 1 and 2: underscores -> spaces, white space collapsed, enclosing quotes removed."""
    text = str(text).replace("_", " ")
    text = re.sub(r"\s+", " ", text).strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def number_value(text: str) -> str | None:
    """Rule 3: the canonical form of a value that is one number (``'1,121.0'`` -> ``'1121'``,
    ``'4.56 (kilometrePerSeconds)'`` -> ``'4.56'``), else ``None``."""
    text = clean_name(text)
    m = _UNIT.match(text)
    if m:
        text = m.group(1)
    if not _NUM.match(text):
        return None
    text = text.replace(",", "").lstrip("+")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def date_value(text: str) -> str | None:
    """Rule 4: ISO 8601 form of a date (``YYYY-MM-DD``; ``YYYY`` for a year alone), else ``None``.

    Accepts ``1989-07-10``, ``July 10, 1989``, ``July 10th 1989``, ``10 July 1989``,
    ``10th of July, 1989`` and ``7/10/1989`` (month first, as in the WebNLG sentences).
    """
    t = clean_name(text).lower().replace(",", " ")
    t = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", t)
    t = re.sub(r"\b([a-z]{3})[a-z]*\.?(?= )", lambda m: m.group(0) if m.group(0) in MONTHS or m.group(1)
               not in _MONTH_ABBR else [k for k, v in MONTHS.items() if v == _MONTH_ABBR[m.group(1)]][0], t)
    t = re.sub(r"\s+", " ", t).strip()
    if re.fullmatch(r"\d{4}", t):
        return t
    m = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", t)
    if m:
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    else:
        m = re.fullmatch(r"([a-z]+) (\d{1,2}) (\d{4})", t) or None
        if m and m.group(1) in MONTHS:
            mo, d, y = MONTHS[m.group(1)], int(m.group(2)), int(m.group(3))
        else:
            m = re.fullmatch(r"(\d{1,2}) (?:of )?([a-z]+) (\d{4})", t)
            if m and m.group(2) in MONTHS:
                d, mo, y = int(m.group(1)), MONTHS[m.group(2)], int(m.group(3))
            else:
                m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", t)
                if not m:
                    return None
                mo, d, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
    try:
        return date(y, mo, d).isoformat()
    except ValueError:
        return None


def normalize_value(value: str, range_name: str | None = None) -> str:
    """Rules 1-4 for one subject or object, given the relation's range name (``None``: unknown).

    Numbers are typed when the range is ``number`` or unknown; dates when it is ``Date``,
    ``date`` or ``Year`` (or unknown and the value is an ISO date); everything else is cleaned only.
    """
    text = clean_name(value)
    if range_name in ("Date", "date", "Year") or range_name is None:
        d = date_value(text)
        if d is not None and (range_name is not None or "-" in text):
            return d
    if range_name in ("number", None):
        n = number_value(text)
        if n is not None:
            return n
    return text


def year_keys(value: str) -> set[str]:
    """The year of a date value, as a comparison key (``{'2010'}`` for ``01 January 2010`` or
    Wikidata's month- or year-precision ``00 June 1962``, ``00  1913``), else none."""
    text = clean_name(value)
    d = date_value(text)
    if d is not None:
        return {d[:4]}
    m = re.fullmatch(r"0?0\s+(?:[A-Za-z]+\s+)?(\d{4})", text)
    return {m.group(1)} if m else set()


#: ``objType`` of a name that is the object of a relation without a declared range (``owl:Thing``).
OPEN_RANGE_CLASS = "Thing"


def value_type(value: str) -> str:
    """The type of an object of a relation without a declared range, by what the value is: ``Date``
    (a date or a year alone), ``number``, else a name (:data:`OPEN_RANGE_CLASS`)."""
    text = clean_name(value)
    if date_value(text) is not None:
        return "Date"
    if number_value(text) is not None:
        return "number"
    return OPEN_RANGE_CLASS


@functools.lru_cache(maxsize=1 << 18)
def key(value: str) -> str:
    """Comparison key of a name: Text2KGBench's ``normalize_triple`` (spaces and underscores
    removed, lower case) after :func:`clean_name`, and abbreviation periods removed too
    (``St._Louis`` = ``St Louis``, ``1._FC_Magdeburg`` = ``1 FC Magdeburg``). Cached: a pure
    function of the string, asked for every candidate pair's names in every stacking round."""
    return re.sub(r"(_|\s+|\.(?!\d))", "", clean_name(value)).lower()


def triple_key(sub: str, rel: str, obj: str, range_name: str | None = None) -> tuple[str, str, str]:
    """``(sub, rel, obj)`` comparison key after rules 1-4 (``range_name``: the relation's range)."""
    return key(normalize_value(sub, None if range_name is None else "")), key(rel), \
        key(normalize_value(obj, range_name))


#: a number and an optional unit: a lower-case word ("1.8 g") or words in parentheses ("(inches)")
_NUM_FORM = re.compile(r"^([-+]?\d[\d,]*(?:\.\d+)?)(\s*(?:\([A-Za-z][A-Za-z ]*\)|[a-z]+))?$")


#: words after a number that are no unit
_NOT_UNITS = {"", "a", "an", "and", "as", "at", "in", "is", "it", "its", "of", "on", "or", "million", "billion"}


class LiteralForms:
    """The lexical form of a relation's literal objects, learned from the training triples where
    the declared range does not give it (the gold's lexical form, rules 3-4 above).

    WebNLG's ontologies declare a class as the range of some literal-valued relations
    (``periapsis`` -> ``Periapsis``: ``3997100000000.0``; ``discovered`` -> ``Person``:
    ``1929-06-11``), a number range for dates (``epoch``: ``2015-06-27``), and their values keep a
    unit outside parentheses, which rule 3 does not remove (``protein``: ``1.8 g``), and codes
    in a number range (``isbnNumber``: ``0-670-03380-4``). For such a relation,
    :meth:`effective_range` says which mentions it takes (``number``: a number; ``Date``: a date;
    ``string``: a code) and :meth:`write` writes a number in the relation's form (a float's ``.0``,
    a unit suffix). A relation qualifies when at least ``min_count`` training objects and more than
    half of them have that form.
    """

    def __init__(self, min_count: int = 2) -> None:
        self.min_count = min_count
        #: relation -> ``number`` or ``Date`` (the kind of mention its objects are)
        self.ranges: dict[str, str] = {}
        #: relation -> (float style: an integer is written ``N.0``, unit suffix ``" g"``, ``" (inches)"``)
        self.forms: dict[str, tuple[bool, str]] = {}
        #: relation -> its forms with a unit, most frequent first (the sentence's unit word picks one)
        self.units: dict[str, list[tuple[bool, str]]] = {}
        #: relation -> strftime-like format of its full dates (:data:`_DATE_FORMATS`)
        self.date_formats: dict[str, str] = {}
        #: relation -> how a year alone is written (``{Y}``: the year; ``01 January {Y}``)
        self.year_forms: dict[str, str] = {}

    def fit(self, triples: list[tuple[str, str | None, str]]) -> "LiteralForms":
        """Learn from ``(relation, declared range, object)`` training triples."""
        counts: dict[str, dict[object, int]] = {}
        for rel, rng, obj in triples:
            bucket = counts.setdefault(rel, {})
            form = self._form(clean_name(obj), rng)
            bucket[form] = bucket.get(form, 0) + 1
        for rel, bucket in sorted(counts.items()):
            n = sum(bucket.values())
            best = min(bucket, key=lambda f: (-bucket[f], str(f)))
            if best is None or bucket[best] < self.min_count or bucket[best] * 2 <= n:
                continue
            if best in ("Date", "string"):
                self.ranges[rel] = best
            elif best != "number":
                self.ranges[rel] = "number"
                self.forms[rel] = best
                self.units[rel] = sorted((f for f in bucket if isinstance(f, tuple) and f[1]),
                                         key=lambda f: (-bucket[f], f))
            else:
                self.ranges[rel] = "number"
        return self

    @staticmethod
    def _form(obj: str, rng: str | None) -> object:
        """``None`` (the declared range gives it, or text), ``'Date'``, ``'number'`` (a number the
        extractor writes as it is) or ``(float style, suffix)``."""
        if rng == "number" and re.fullmatch(r"\d+(?:-\d+){2,}", obj) and not date_value(obj):
            return "string"  # a code of digit groups (an ISBN) in a number range: taken as written
        m = _NUM_FORM.match(obj)
        if m:
            if rng in DATATYPES and rng != "number":  # a Year, a string: the mention shapes it takes
                return None
            plain = normalize_value(number_value(m.group(1)) or "", rng)
            if key(plain) == key(normalize_value(obj, rng)):
                return "number" if rng != "number" else None
            return "." in m.group(1), m.group(2) or ""
        d = date_value(obj)
        if d and "-" in d and rng not in ("Date", "date"):
            return "Date"
        return None

    @classmethod
    def learn(cls, training: dict) -> "LiteralForms":
        """:meth:`fit` and :meth:`fit_dates` on ``{ontology name: (TextOntology, training sentences)}``."""
        forms = cls().fit([(t["rel"], getattr(onto.relations.get(t["rel"]), "range", None), t["obj"])
                           for _, (onto, sents) in sorted(training.items()) for s in sents for t in s.triples])
        return forms.fit_dates([(t["rel"], t["obj"], s.text) for _, (onto, sents) in sorted(training.items())
                                for s in sents for t in s.triples
                                if forms.effective_range(t["rel"], getattr(onto.relations.get(t["rel"]), "range", None))
                                in ("Date", "date")])

    def fit_dates(self, triples: list[tuple[str, str, str]]) -> "LiteralForms":
        """Learn, from ``(relation, date object, sentence)`` training triples, each relation's
        format of full dates and its form of a date the sentence gives as a year alone (at least
        ``min_count`` objects, a majority).

        Without a majority form of a year alone, the form written for the most distinct years is
        learned when it is written for at least ``min_count`` of them and is not the year alone:
        Wikidata writes a year-precision date ``01 January 1987`` and a release date it knows to
        the day ``24 September 1996``, which a sentence giving ``1996`` cannot tell, so the year
        alone is never the gold's form and the most frequent form is the likeliest one (music's
        publication dates: 16 of 59 year-only training objects, 16 distinct years). Distinct
        years, not objects: one fact stated in several sentences (``1876-05-02`` thrice) is no
        form of the relation."""
        full: dict[str, dict[str, int]] = {}
        year: dict[str, dict[str, int]] = {}
        year_values: dict[str, dict[str, set[str]]] = {}
        for rel, obj, sent in triples:
            text = re.sub(r"\s+", " ", clean_name(obj))
            fmt = next((f for f, rx in _DATE_FORMATS.items() if re.fullmatch(rx, text)), None)
            y = re.search(r"\b(\d{4})\b", text)
            if fmt is not None:
                full.setdefault(rel, {}).setdefault(fmt, 0)
                full[rel][fmt] += 1
            if y and re.search(rf"(?<!\d){y.group(1)}(?!\d)", sent) and not _full_date_in(sent, y.group(1)):
                form = text.replace(y.group(1), "{Y}")
                year.setdefault(rel, {}).setdefault(form, 0)
                year[rel][form] += 1
                year_values.setdefault(rel, {}).setdefault(form, set()).add(y.group(1))
        for counts, target in ((full, self.date_formats), (year, self.year_forms)):
            for rel, bucket in sorted(counts.items()):
                best = min(bucket, key=lambda f: (-bucket[f], f))
                if bucket[best] >= self.min_count and bucket[best] * 2 > sum(bucket.values()):
                    target[rel] = best
        for rel, forms in sorted(year_values.items()):
            if rel in self.year_forms:
                continue
            best = min(forms, key=lambda f: (-len(forms[f]), f))
            if best != "{Y}" and len(forms[best]) >= self.min_count:
                self.year_forms[rel] = best
        return self

    def write_date(self, rel: str, value: str) -> str:
        """``value`` (an ISO date, or a year alone) in ``rel``'s learned form (unchanged without one)."""
        if re.fullmatch(r"\d{4}", value):
            return self.year_forms.get(rel, "{Y}").replace("{Y}", value)
        d = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", value)
        fmt = self.date_formats.get(rel)
        if not d or fmt is None or fmt == "iso":
            return value
        y, m, day = d.group(1), int(d.group(2)), int(d.group(3))
        month = [k for k, v in MONTHS.items() if v == m][0].capitalize()
        return {"dmy": f"{day:02d} {month} {y}", "dmy1": f"{day} {month} {y}", "mdy": f"{month} {day}, {y}"}[fmt]

    def relation(self, rel):
        """``rel`` (a :class:`.data.Relation`) with its effective range (:meth:`effective_range`)."""
        return dataclasses.replace(rel, range=self.ranges[rel.name]) if rel.name in self.ranges else rel

    def restore(self, triples: list[dict[str, str]], ontology, sentence: str = "") -> list[dict[str, str]]:
        """Output triples of relations with an effective range get the declared range back as
        ``objType`` (none declared: the learned one, which the relation's training objects give
        by majority - a staff size ``2900`` is a number, not the year its shape alone suggests)
        and their object in the learned form (:meth:`write`, the unit word after the number in
        ``sentence``); ``triples`` is changed."""
        for t in triples:
            if t["rel"] in self.ranges and t["rel"] in ontology.relations:
                m = re.search(rf"(?<![\d.]){re.escape(t['obj'])}(?:\.0+)?\s*\(?([A-Za-z]+)", sentence)
                t["obj"] = self.write(t["rel"], t["obj"], m.group(1) if m else "")
                if self.ranges[t["rel"]] == "Date":
                    t["obj"] = self.write_date(t["rel"], t["obj"])
                t["objType"] = ontology.relations[t["rel"]].range or self.ranges[t["rel"]]
            elif t["rel"] in self.date_formats or t["rel"] in self.year_forms:
                t["obj"] = self.write_date(t["rel"], t["obj"])
        return triples

    def effective_range(self, rel: str, declared: str | None) -> str | None:
        """The range whose mentions ``rel`` takes: the learned one, else ``declared``."""
        return self.ranges.get(rel, declared)

    def write(self, rel: str, value: str, unit: str = "") -> str:
        """``value`` (a normalized number) in ``rel``'s learned form (``18`` -> ``18.0 g``); a form
        whose unit starts like the sentence's ``unit`` word (``km`` for ``(kilometres)``, ``inch``
        for ``(inches)``) is preferred."""
        form = self.forms.get(rel)
        if form is None or number_value(value) is None:
            return value
        for f in self.units.get(rel, []) if unit.lower() not in _NOT_UNITS else []:
            if f[1].strip(" ()")[:1].lower() == unit[:1].lower():
                form = f
                break
        float_style, suffix = form
        if float_style and "." not in value:
            value += ".0"
        return value + suffix


#: Formats of full dates in training objects: ISO 8601, ``01 July 1994`` (two-digit day),
#: ``1 July 1994``, ``July 1, 1994``.
_DATE_FORMATS = {"iso": r"\d{4}-\d{2}-\d{2}", "dmy": r"\d{2} [A-Z][a-z]+ \d{4}", "dmy1": r"\d [A-Z][a-z]+ \d{4}",
                 "mdy": r"[A-Z][a-z]+ \d{1,2}, \d{4}"}


def _full_date_in(sentence: str, year: str) -> bool:
    """Does ``sentence`` write a full date (day and month) of ``year``?"""
    months = "|".join(m.capitalize() for m in MONTHS) + "|" + "|".join(m[:3].capitalize() for m in MONTHS)
    return bool(re.search(rf"(?:\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{months})\.?,? {year}|(?:{months})\.? "
                          rf"\d{{1,2}}(?:st|nd|rd|th)?,? {year}|{year}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/{year})",
                          sentence))


#: letters without a combining accent that English sentences spell with Latin ones ("Lars Lokke", "AEthelwald")
_FOLD = str.maketrans({"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss", "đ": "d",
                       "Đ": "D", "ł": "l", "Ł": "L", "ı": "i", "ð": "d", "þ": "th"})


@functools.lru_cache(maxsize=1 << 18)
def fold_accents(text: str) -> str:
    """``text`` without accents (``Agremiação Bjørklund`` -> ``Agremiacao Bjorklund``): combining
    accents dropped, and the letters of :data:`_FOLD` written as English sentences write them."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).translate(_FOLD)
