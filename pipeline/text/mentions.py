"""Candidate mentions of a sentence: names, numbers, dates, quoted values and lexicon matches.

A mention is a span of the sentence with a *value* (the normalized name or literal the KG gets)
and a *shape* (``CAP`` capitalised name, ``LEX`` a known entity name, ``CAPHEAD`` the subject of
an opening copula, :func:`copular_subject`, ``NUM``, ``YEAR``, ``DATE``,
``QUOTE``, ``CODE`` digit groups joined by hyphens, an ISBN). Candidates overlap on purpose (``Alba Iulia`` and ``Alba Iulia, Alba``); the
extractor's classifier picks among them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.text.names import Disambiguator, article_and_tail_variants
from pipeline.text.normalize import MONTHS, clean_name, date_value, fold_accents, key, number_value

__all__ = ["Mention", "Lexicon", "find_mentions", "tokens", "fronted_phrases", "copular_subject", "fold_accents"]  # fold_accents: from normalize

# an en dash joins the parts of a name like a hyphen ("Madrid–Barajas")
# a runway-like code "14L/32R" is one token
_TOKEN = re.compile(r"\d+[A-Z]+/\d+[A-Z]+\b|\w+(?:[-'\u2019.\u2013]\w+)*\.?|[^\w\s]")
#: Lower-case words allowed inside a capitalised name ("University of Texas", "Ciudad de Mexico").
_JOINERS = {"of", "de", "del", "da", "di", "du", "la", "le", "von", "van", "der", "den", "the", "y", "al",
            "el", "des", "&", "-", "for", "on", "upon", "in"}
#: Capitalised words that start a sentence or clause rather than a name.
_STOP_CAPS = {"the", "a", "an", "it", "its", "he", "his", "she", "her", "they", "their", "this", "these",
              "there", "in", "on", "at", "as", "by", "with", "from", "and", "but", "of", "to", "for", "one",
              "both", "also", "after", "before", "while", "which", "who", "whose", "where", "when", "is",
              "was", "born", "some", "many", "located", "known"}
#: Function words and frequent verbs that end a lower-case phrase.
_FUNCTION = {"the", "and", "was", "were", "has", "had", "have", "for", "from", "with", "which", "who", "whose",
             "that", "this", "its", "his", "her", "their", "are", "also", "been", "being", "into", "where", "when",
             "there", "than", "not", "but", "about", "known", "called", "located", "born", "died", "named", "well",
             "includes", "include", "including", "used", "uses", "part", "one", "two", "three", "other", "some",
             "many", "made", "served", "found", "can", "will", "would", "as", "is", "by", "of", "in", "on", "at",
             "to", "an", "it", "he", "she", "they", "them", "all", "both", "after", "before", "while", "during"}
_MONTH_RE = "|".join([*MONTHS, *(m[:3] + r"\.?" for m in MONTHS)])
_DATE_RES = [re.compile(p, re.I) for p in (
    rf"\b(?:{_MONTH_RE})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,\s*|\s+)\d{{4}}\b",
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_RE}),?\s+\d{{4}}\b",
    r"\b\d{4}-\d{2}-\d{2}\b", r"\b\d{1,2}/\d{1,2}/\d{4}\b", r"\b\d{1,2}-\d{1,2}-\d{4}\b")]
#: a code of digit groups joined by hyphens (an ISBN "0-670-03380-4"): one value, not four numbers
_CODE_RE = re.compile(r"(?<![\w.-])\d+(?:-\d+){2,}(?![\w-])")
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d.,]\d|\d)")
_QUOTE_RE = re.compile(r"[\"\u201c]([^\"\u201d]{1,80})[\"\u201d]")


@dataclass(frozen=True)
class Mention:
    """A candidate mention: ``[start, end)`` character span, surface text, value and shape."""

    start: int
    end: int
    text: str
    value: str
    shape: str

    @property
    def is_variant(self) -> bool:
        """A DBpedia-name variant of another mention's span (shapes ``DIS*``: ``Alan Martin
        (footballer)``), written instead of the plain name after the pair is chosen."""
        return self.shape.startswith("DIS")


class Lexicon:
    """Known entity names (from training triples) and their surface aliases.

    An alias is the name with underscores as spaces, without a parenthesised disambiguation
    (``Ed_Lee_(politician)`` -> ``Ed Lee``), without a trailing ``, region`` part and without a
    trailing ``language`` (``English_language`` -> ``English``). A mention whose text equals an
    alias takes the known name as value (WebNLG names entities after DBpedia resources).
    """

    def __init__(self, names: list[str], learned: dict[str, str] | None = None) -> None:
        counts: dict[str, dict[str, int]] = {}
        for name in names:
            for alias in self.aliases(name):
                bucket = counts.setdefault(alias.lower(), {})
                bucket[clean_name(name)] = bucket.get(clean_name(name), 0) + 1
        self.alias_to_name = {a: max(b, key=b.get) for a, b in counts.items() if len(a) > 2}
        self.alias_to_name.update(learned or {})
        words = sorted(self.alias_to_name, key=len, reverse=True)
        self._re = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I) if words else None
        self.disambiguator = Disambiguator(names)
        #: lower-case last words of multi-word names (``V8_engine``, ``Italy_national_football_team``)
        #: seen in at least 3 distinct names: a capitalised name followed by one may be that longer name
        #: Capitalised last words too (``Airport``, ``Monument``), which sentences often write in lower
        #: case ("the Adolfo Suarez Madrid-Barajas airport"): kept as written in the names
        tails: dict[str, set[str]] = {}
        for name in {clean_name(n) for n in names}:
            ws = re.sub(r"\s*\([^)]*\)$", "", name).split()
            if len(ws) >= 2 and _is_cap(ws[0]) and re.fullmatch(r"[A-Za-z][a-z]+", ws[-1]):
                tails.setdefault(ws[-1], set()).add(name)
        self.tails = {w for w, ns in tails.items() if len(ns) >= 3}

    @staticmethod
    def aliases(name: str) -> set[str]:
        """Surface forms of a known name (see the class docstring)."""
        base = clean_name(name)
        out = {base}
        plain = re.sub(r"\s*\([^)]*\)$", "", base).strip()
        out.add(plain)
        if "," in plain:  # "Albany" and "Albany Georgia" for "Albany, Georgia"
            out.add(plain.split(",")[0].strip())
            out.add(re.sub(r"\s*,\s*", " ", plain))
        m = re.fullmatch(r"(.+\s[IVX]+)\s+of\s+[A-Z][\w ]+", plain)
        if m:  # a regnal name without its realm ("Juan Carlos I" for "Juan Carlos I of Spain")
            out.add(m.group(1))
        if " & " in plain:  # "George Allen and Unwin" for "George Allen & Unwin"
            out.add(plain.replace(" & ", " and "))
        if plain.endswith(" language"):
            out.add(plain[: -len(" language")])
        out |= {a.replace(".", "") for a in out}
        # hyphen, en dash and space spell the same name ("Abdul-Zahra", "Madrid–Barajas")
        out |= {a.replace("\u2013", "-") for a in out} | {re.sub(r"[-\u2013]", " ", a) for a in out}
        # sentences often spell a name without its accents ("Estadio" for "Estádio")
        out |= {fold_accents(a) for a in out}
        return {a for a in out if a and not number_value(a) and not date_value(a)}

    @classmethod
    def cross_fitted(cls, sentences: list, folds: list[int] | None = None) -> tuple["Lexicon", list["Lexicon"]]:
        """The lexicon of training sentences (:class:`.data.Sentence`) and, per cross-fitting fold
        (``folds``, 0/1 per sentence; default :attr:`.data.Sentence.fold`), the lexicon of the other
        fold's sentences: a training sentence then sees the names known without it, as a test
        sentence sees the training split's."""
        examples = [(s.text, [x for t in s.triples for x in (t["sub"], t["obj"])]) for s in sentences]
        folds = [s.fold for s in sentences] if folds is None else list(folds)
        full = cls.learn(examples)
        per_fold = [cls.learn([e for e, f in zip(examples, folds) if f != k]) for k in (0, 1)]
        for lex in per_fold:
            # the disambiguation suffixes stay those of the whole split: the training sentences
            # only measure how often a spelled-out suffix is the gold's (the variant rate), and a
            # suffix that one topic alone carries ("comicsCharacter") would otherwise never fire on
            # the sentences of that topic, so its rate would never be learned
            lex.disambiguator = full.disambiguator
        return full, per_fold

    @classmethod
    def learn(cls, examples: list[tuple[str, list[str]]], min_count: int = 3) -> "Lexicon":
        """A lexicon of the names in ``examples`` (``(sentence, entity names of its triples)``), plus
        aliases learned from data evidence: a capitalised mention that never matches a name of its
        sentence but co-occurs at least ``min_count`` times, and in most of its sentences, with one
        name that the sentence does not spell out (``U.S.``, ``American`` -> ``United States``)."""
        base = cls([n for _, names in examples for n in names])
        pair: dict[tuple[str, str], int] = {}
        seen: dict[str, int] = {}
        for sent, names in examples:
            ms = find_mentions(sent, base)
            keys = {key(m.value) for m in ms}
            missing = {clean_name(n) for n in names if key(n) not in keys and not number_value(n)
                       and not date_value(n)}
            gold = {key(n) for n in names}
            for text in sorted({m.text.lower() for m in ms if m.shape.startswith("CAP") and key(m.value) not in gold}):
                seen[text] = seen.get(text, 0) + 1
                for n in sorted(missing):
                    pair[(text, n)] = pair.get((text, n), 0) + 1
        # (a known name's own alias is never relearned: "Colombia" stays Colombia, not "Colombian cuisine")
        learned = {t: n for (t, n), c in sorted(pair.items(), key=lambda x: -x[1])
                   if c >= min_count and c * 2 > seen[t] and len(t) > 1 and t not in base.alias_to_name}
        return cls([n for _, names in examples for n in names], learned)

    def matches(self, sentence: str) -> list[tuple[int, int, str]]:
        """``(start, end, known name)`` of every alias found in ``sentence`` (case-insensitive)."""
        if self._re is None:
            return []
        found = [(m.start(), m.end(), self.alias_to_name.get(m.group(0).lower())) for m in self._re.finditer(sentence)]
        return [(s, e, n) for s, e, n in found if n]

    def canonical(self, text: str) -> str | None:
        """The known name ``text`` is an alias of, else ``None``."""
        return self.alias_to_name.get(clean_name(text).lower())


def tokens(sentence: str) -> list[tuple[int, int, str]]:
    """``(start, end, text)`` word and punctuation tokens."""
    out = []
    for m in _TOKEN.finditer(sentence):
        text = m.group(0)
        end = m.end()
        # a final period belongs to the word only for abbreviations and initials (St., M.A., J.)
        # (a number's period ends the sentence when nothing follows: "on Apollo 8.")
        if text.endswith(".") and len(text) > 1 and (not re.fullmatch(r"(?:[A-Z][a-z]?\.|(?:\w\.)+)", text)
                                                     or (text[:-1].isdigit() and not sentence[end:].strip())):
            out.append((m.start(), end - 1, text[:-1]))
            out.append((end - 1, end, "."))
            continue
        out.append((m.start(), end, text))
    return out


#: Words that open a sentence-initial adverbial phrase ("In 2001, ...", "With 250 staff, ...").
_FRONT_OPENERS = {"in", "on", "at", "with", "from", "after", "before", "since", "as", "although", "though",
                  "while", "whilst", "when", "despite", "unlike", "near", "during", "among", "under", "by"}
#: Prepositions after a participle that opens such a phrase ("Born in", "Located in", "Playing for").
_FRONT_PREPS = {"in", "on", "at", "by", "for", "with", "from", "to", "as", "of", "near", "into", "under"}


def fronted_phrases(sentence: str, toks: list[tuple[int, int, str]] | None = None) -> list[tuple[int, int]]:
    """Character spans ``(start, comma)`` of the sentence-initial adverbial phrases of
    ``sentence``: a sentence (or a sentence after ``. ! ? ;``) that opens with a preposition or
    subordinator (``In``, ``With``, ``Although``) or with a participle before a preposition
    (``Born in``, ``Located in``, ``Playing for``) is fronted up to its first comma - "Born in
    Canada, Aaron Boogaard plays ..." has the subject after the comma, not inside. When the
    name after that comma is itself followed by a comma, the phrase ends at the second comma
    ("Born in Auburn, Alabama, John ...": a ``Name, Region``), and so on along names in a row
    whose last one is followed by no comma; not when a clause follows the second comma ("In 2001,
    Delta University, located in Lyon, was ..."). English syntax, not data:
    a fronted modifier is set off by a comma before the main clause's subject.
    """
    toks = tokens(sentence) if toks is None else toks
    out = []
    for i, t in enumerate(toks):
        if i and toks[i - 1][2] not in (".", "!", "?", ";"):
            continue
        w = t[2].lower()
        nxt = toks[i + 1][2].lower() if i + 1 < len(toks) else ""
        participle = w == "born" or (len(w) > 4 and (w.endswith("ed") or w.endswith("ing")))
        if not t[2][:1].isupper() or not (w in _FRONT_OPENERS or (participle and nxt in _FRONT_PREPS)):
            continue
        end = None
        for k in range(i + 1, len(toks)):
            if toks[k][2] in (".", "!", "?", ";"):
                break
            if toks[k][2] == "," and not (re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?", toks[k - 1][2])
                                         and k + 1 < len(toks) and re.fullmatch(r"\d{4}", toks[k + 1][2])):
                end = k  # (not the comma of a date: "October 17th, 1933")
                break
        if end is None:
            continue
        # names in a row after a name: the last one opens the main clause ("Born in Auburn,
        # Alabama, John Smith plays"; "Located in Nice, Paris, Lyon, Eta University was ...");
        # not a name followed by a clause ("In 2001, Delta University, located in Lyon, was ...")
        while _is_cap(toks[end - 1][2]):
            k = end + 1
            while k < len(toks) and _is_cap(toks[k][2]) and toks[k][0] - toks[k - 1][1] <= 1:
                k += 1
            if not (end + 1 < k < len(toks) - 1 and toks[k][2] == "," and toks[k][0] == toks[k - 1][1]
                    and _is_cap(toks[k + 1][2]) and not _stop_cap(toks[k + 1][2])):
                break
            end = k
        out.append((t[0], toks[end][0]))
    return out


#: The copula whose subject :func:`copular_subject` reads.
_COPULA = {"is", "was", "are", "were"}
#: Words English title case writes in lower case (articles, conjunctions, short prepositions; the
#: Chicago Manual of Style's rule), the joiners of foreign names and the pieces of tokenized
#: contractions ("Do n't Waste Your Time", "Let 's Join Joanie").
_TITLE_LOWER = _JOINERS | {"a", "an", "and", "but", "or", "nor", "as", "at", "by", "into", "onto", "over", "to",
                           "up", "with", "from", "via", "vs", "vs.", "s", "n't", "'s", "n", "los", "las"}
#: Longest subject, in tokens, :func:`copular_subject` takes (a title; longer openings are clauses).
_HEAD_TOKENS = 12


def copular_subject(sentence: str, toks: list[tuple[int, int, str]] | None = None
                    ) -> tuple[int, int, str] | None:
    """The character span ``(start, end, article)`` of the subject of a sentence that opens with it and
    its copula, "X is ..." / "X was ..." (English syntax: the noun phrase before the copula is its
    subject), else ``None``. A title is often such a subject and is no capitalised run: it has
    lower-case words ("Got to Be There is ...", "Step into Liquid (2003) is ..."), so it is one
    candidate as a whole.

    Taken only when the opening is a name: it starts with a capital or a digit, has 1 to
    :data:`_HEAD_TOKENS` tokens, no comma (a fronted phrase or an apposition: "Released in 1999,
    the album was ..."), no sentence-final punctuation, no lower-case word but those English
    title case writes in lower case (:data:`_TITLE_LOWER`: "Pavel Babaylov became a member ..."
    is a clause; a title in another language is not taken), does not open with a preposition,
    pronoun or quantifier (``In 1990 Smith was``, ``It was``, ``Both films were``); an article
    opens it only before a capitalised word ("The Old Lady and the Pigeons is", not "The film
    was"); the span is then the name after it, and ``article`` the article as written (else
    ``""``): Wikidata's labels drop an entity's article and keep a title's ("The Old Lady and the
    Pigeons"), which the extractor's learned variant rate decides. A parenthesis just before the
    copula (a year, a translation) is left out.
    """
    toks = tokens(sentence) if toks is None else toks
    end = next((k for k, t in enumerate(toks) if t[2] in _COPULA), None)
    if not end or end > _HEAD_TOKENS + 8:
        return None
    last = end - 1
    if toks[last][2] == ")":  # "Step into Liquid (2003) is": the parenthesis is no part of it
        depth, k = 0, last
        while k >= 0:
            depth += {")": 1, "(": -1}.get(toks[k][2], 0)
            if depth == 0:
                break
            k -= 1
        last = k - 1
    head = toks[:last + 1]
    if not head or len(head) > _HEAD_TOKENS or not _is_cap(head[0][2]) \
            or any(t[2] in (",", ";", ".", "!", "?", "(", ")", '"') for t in head):
        return None
    first, article = head[0][2].lower(), ""
    if first in ("the", "a", "an"):
        article, head = head[0][2], head[1:]  # the name is the span after it ("The Altair 8800 is")
        if not head or not _is_cap(head[0][2]):
            return None  # "The film was": a description, no name
    elif _stop_cap(head[0][2]) or first in _FRONT_OPENERS:
        return None
    # a title's lower-case words are those English title case leaves in lower case; another one
    # makes the opening a clause ("Pavel Babaylov became a member of ...", "Crumpler graduated ...")
    if any(t[2][:1].islower() and t[2].lower() not in _TITLE_LOWER for t in head):
        return None
    return head[0][0], head[-1][1], article


def _stop_cap(text: str) -> bool:
    """A capitalised function word that starts a clause, not a name (``The``, ``It``); an
    all-capitals word is an acronym (``AS Livorno``, ``IT``)."""
    return text.lower() in _STOP_CAPS and not (len(text) > 1 and text.isupper())


def _is_cap(text: str) -> bool:
    return text[:1].isupper() or (text[:1].isdigit() and any(c.isupper() for c in text))


def find_mentions(sentence: str, lexicon: Lexicon | None = None) -> list[Mention]:
    """All candidate mentions of ``sentence`` (deduplicated by span and value), in text order."""
    found: dict[tuple[int, int, str], Mention] = {}
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, value: str, shape: str) -> None:
        m = re.search(r"['\u2019]s?$", sentence[start:end])
        if m and shape in ("CAP", "CAPCOMMA", "LOW"):  # a possessive is not part of the name
            end -= len(m.group(0))
            value = clean_name(sentence[start:end])
        text = sentence[start:end]
        if value and (start, end, value) not in found:
            found[(start, end, value)] = Mention(start, end, text, value, shape)

    for rx in _DATE_RES:
        for m in rx.finditer(sentence):
            text = m.group(0)
            if re.fullmatch(r"\d{1,2}-\d{1,2}-\d{4}", text):
                text = text.replace("-", "/")
            d = date_value(text)
            if d:
                add(m.start(), m.end(), d, "DATE")
                taken.append((m.start(), m.end()))
                # a relation with a Year range takes the date's year ("born on 22 September 1856")
                add(m.start(), m.end(), d[:4], "YEAR")
            if "/" in text:  # 6/9/2006 is day first in some sentences: both readings
                a, b, y = text.split("/")
                d2 = date_value(f"{b}/{a}/{y}")
                if d2:
                    add(m.start(), m.end(), d2, "DATE")
                    taken.append((m.start(), m.end()))
    for m in _QUOTE_RE.finditer(sentence):
        add(m.start(1), m.end(1), clean_name(m.group(1)), "QUOTE")
    for m in _CODE_RE.finditer(sentence):
        if not any(s <= m.start() < e for s, e in taken):
            add(m.start(), m.end(), m.group(0), "CODE")
            taken.append((m.start(), m.end()))
    for m in _NUMBER_RE.finditer(sentence):
        if any(s <= m.start() < e for s, e in taken):
            continue
        n = number_value(m.group(0))
        if n is not None:
            add(m.start(), m.end(), n, "YEAR" if re.fullmatch(r"1\d{3}|20\d{2}", n) else "NUM")
    all_toks = tokens(sentence)
    fronted_ends = {e for _, e in fronted_phrases(sentence, all_toks)}
    toks = [t for t in all_toks if not any(s <= t[0] < e for s, e in taken)]
    runs: list[tuple[int, int]] = []  # token index ranges of the capitalised runs
    i = 0
    while i < len(toks):
        if not _is_cap(toks[i][2]) or _stop_cap(toks[i][2]):
            i += 1
            continue
        j = i
        cuts = []  # run positions after an abbreviation period ("U.S. Lansing", "S.p.A. Their")
        colons = []  # positions of a subtitle's colon
        # extend over capitalised words, digits and joiners followed by a capitalised word
        while j + 1 < len(toks) and toks[j + 1][0] - toks[j][1] <= 1:
            nxt = toks[j + 1][2]
            # a possessive may end the name ("James Craig Watson's Alma mater"; not "People's Party")
            if re.search(r"\w['\u2019]s$", toks[j][2]):
                cuts.append(-(j + 1))
            if toks[j][2].endswith(".") and len(toks[j][2]) > 2 and _is_cap(nxt):
                if _stop_cap(nxt):  # "... S.p.A. Their ground": a new sentence
                    break
                cuts.append(j + 1)
            # a title with a subtitle: "Bootleg Series Volume 1: The Quine Tapes" (both parts too)
            if nxt == ":" and toks[j + 1][0] == toks[j][1] and j + 2 < len(toks) and _is_cap(toks[j + 2][2]) \
                    and toks[j + 2][0] - toks[j + 1][1] == 1:
                colons.append(j + 1)
                j += 2
                continue
            # a plural possessive inside a name: "Spanish Socialist Workers' Party"
            if nxt in ("'", "\u2019") and toks[j][2].endswith("s") and toks[j + 1][0] == toks[j][1] \
                    and j + 2 < len(toks) and _is_cap(toks[j + 2][2]) and toks[j + 2][0] - toks[j + 1][1] == 1:
                j += 2
                continue
            if _is_cap(nxt) or nxt.isdigit() or nxt in ("'s",) or re.fullmatch(r"\d+['\u2019]s", nxt):
                j += 1
            elif nxt.lower() in _JOINERS and j + 2 < len(toks) and _is_cap(toks[j + 2][2]) \
                    and toks[j + 2][2].lower() not in _STOP_CAPS:
                j += 2
            # two joiners in a row: "McVeagh of the South Seas", "San Sebastián de los Reyes"
            elif nxt.lower() in _JOINERS and j + 3 < len(toks) and toks[j + 2][2].lower() in _JOINERS | {"los", "las"} \
                    and _is_cap(toks[j + 3][2]) and toks[j + 3][2].lower() not in _STOP_CAPS \
                    and toks[j + 3][0] - toks[j + 2][1] <= 1 and toks[j + 2][0] - toks[j + 1][1] <= 1:
                j += 3
            else:
                break
        # names that start with a number: "(19255) 1994 VK8", "1 Decembrie 1918 University"
        b = i
        while b > 0 and toks[b - 1][2] in (")", "(") or (b > 0 and re.fullmatch(r"\d+(?:st|nd|rd|th)?", toks[b - 1][2])):
            if toks[b][0] - toks[b - 1][1] > 1:
                break
            b -= 1
        while b < i and toks[b][2] == ")":
            b += 1
        if b < i and toks[b][2] == "(" and not any(t[2] == ")" for t in toks[b:i]):
            b += 1
        run = toks[b:j + 1]
        # an abbreviation period may end a sentence inside the run: both sides are candidates too
        pieces = [run]
        for c in colons:
            pieces += [toks[b:c], toks[c + 2 if _stop_cap(toks[c + 1][2]) else c + 1:j + 1]]
        for c in cuts:
            left, right = toks[b:abs(c)], toks[abs(c):j + 1]
            if left and right:
                pieces += [left, right] if c > 0 else [left]
        for piece in (p for p in pieces if p):  # a colon at a run's edge leaves an empty side
            add(piece[0][0], piece[-1][1], clean_name(sentence[piece[0][0]:piece[-1][1]]), "CAP")
            # the parts between joiners too ("Tom Sizemore and Michael Rooker" is never one run,
            # but "Universal Music Group of X" may name two things)
            # (a known name is one thing: its parts only when they are known names too,
            # "Acharya Institute of Technology" has no part "Technology")
            whole = lexicon.canonical(sentence[piece[0][0]:piece[-1][1]]) if lexicon is not None else None
            start = 0
            for k, t in enumerate(piece + [(piece[-1][1], piece[-1][1], "of")]):
                # "&" joins one name ("George Allen & Unwin", "Simon & Schuster"), never two
                if (t[2].lower() in _JOINERS and t[2] != "&") or t[2] == ":":
                    part = piece[start:k]
                    if part and _is_cap(part[0][2]) and (whole is None or part == piece
                                                         or lexicon.canonical(sentence[part[0][0]:part[-1][1]])):
                        add(part[0][0], part[-1][1], clean_name(sentence[part[0][0]:part[-1][1]]), "CAP")
                    start = k + 1  # two joiners in a row: "Texas in the United States" -> "United States"
        # a clause-initial capital may be an ordinary word ("Director Ray Griggs"): the rest too
        if len(run) >= 2 and (run[0][0] == 0 or re.search(r"[.;:!?]\s*$", sentence[:run[0][0]])) \
                and _is_cap(run[1][2]):
            add(run[1][0], run[-1][1], clean_name(sentence[run[1][0]:run[-1][1]]), "CAP")
        # "Potter County, Texas": a name followed by ", Name" is also one candidate
        if j + 2 < len(toks) and toks[j + 1][2] == "," and _is_cap(toks[j + 2][2]) \
                and toks[j + 1][0] not in fronted_ends:  # "Born in Canada, Aaron Boogaard plays"
            k = j + 2
            while k + 1 < len(toks) and _is_cap(toks[k + 1][2]) and toks[k + 1][0] - toks[k][1] <= 1:
                k += 1
            add(run[0][0], toks[k][1], clean_name(sentence[run[0][0]:toks[k][1]]), "CAPCOMMA")
        runs.append((b, j))
        i = j + 1
    # two capitalised names joined by "and" may be one name ("Trinidad and Tobago", "Faber and Faber")
    for (b1, j1), (b2, j2) in zip(runs, runs[1:]):
        if b2 == j1 + 2 and toks[j1 + 1][2] == "and":
            add(toks[b1][0], toks[j2][1], clean_name(sentence[toks[b1][0]:toks[j2][1]]), "CAPCOMMA")
    # a capitalised name may go on in lower case ("Barny cakes", "Arros negre is a dish"): the
    # run with the one or two lower-case words after it, before a function word or punctuation
    for b1, j1 in runs:
        k = j1
        while k + 1 < len(toks) and k - j1 < 2 and toks[k + 1][0] - toks[k][1] == 1 \
                and re.fullmatch(r"[a-z]{3,}", toks[k + 1][2]) and toks[k + 1][2] not in _FUNCTION:
            k += 1
        # (not before a name or a number: "Turin welcomes Gamma University" has a verb)
        if k > j1 and (k + 1 == len(toks) or not re.match(r"[A-Za-z0-9]", toks[k + 1][2])
                       or toks[k + 1][2] in _FUNCTION):
            add(toks[b1][0], toks[k][1], clean_name(sentence[toks[b1][0]:toks[k][1]]), "CAPCOMMA")
    head = copular_subject(sentence, all_toks)
    if head is not None:
        start, end, article = head
        add(start, end, clean_name(sentence[start:end]), "CAPHEAD")
        if article:  # with its article, a variant chosen by its learned rate as a capitalised run's
            add(start, end, clean_name(f"{article.capitalize()} {sentence[start:end]}"),
                "DISA0" if article.lower() in ("a", "an") else "DISTHE0")
    # lower-case phrases between function words ("general relativity", "unitary state") can be
    # objects (classes like Genre or Field are often written in lower case)
    run: list[tuple[int, int, str]] = []
    for t in toks + [(len(sentence), len(sentence), ".")]:
        w = t[2]
        if w.isalpha() and w.islower() and w not in _FUNCTION and len(w) > 2 and \
                (not run or t[0] - run[-1][1] <= 1):
            run.append(t)
            continue
        if run and len(run) <= 3:
            add(run[0][0], run[-1][1], sentence[run[0][0]:run[-1][1]], "LOW")
        if run and len(run) >= 2:
            add(run[-2][0], run[-1][1], sentence[run[-2][0]:run[-1][1]], "LOW")
        run = [t] if (w.isalpha() and w.islower() and w not in _FUNCTION and len(w) > 2) else []
    if lexicon is not None:
        names = [m for m in found.values() if m.shape == "CAP"]
        for s, e, name in lexicon.matches(sentence):
            # a known name inside a longer capitalised name is part of that name ("College")
            if not any(m.start <= s and e <= m.end and (m.start, m.end) != (s, e) for m in names):
                add(s, e, name, "LEX")
        for k, m in list(found.items()):
            if m.shape.startswith("CAP"):
                name = lexicon.canonical(m.text)
                if name and fold_accents(key(name)) == fold_accents(key(m.value)) and name != m.value:
                    # a known name spelled without its accents is that name ("Ahmet Davutoglu")
                    del found[k]
                    add(m.start, m.end, name, m.shape)
                elif name and key(name) != key(m.value):
                    add(m.start, m.end, name, "LEX")
        article_and_tail_variants(sentence, all_toks, found, lexicon.tails, _FUNCTION, add)
        # a variant that is a known name takes its spelling ("Madrid-Barajas airport" -> "Madrid–Barajas Airport")
        for k, m in list(found.items()):
            name = lexicon.canonical(m.value) if m.is_variant else None
            if name and name != m.value:
                del found[k]
                add(m.start, m.end, name, m.shape)
        # a lower-case phrase ending in a disambiguation's head: "the fantasy genre" -> "fantasy (genre)"
        for m in [m for m in found.values() if m.shape == "LOW" and " " in m.value]:
            rest, head = m.value.rsplit(" ", 1)
            spelled = lexicon.disambiguator.head_spelling(head)
            if spelled:
                add(m.start, m.end, f"{rest} ({spelled})", "DISPOST")
        # DBpedia names with a disambiguation the sentence spells otherwise ("the Train song Mermaid")
        spans = [(m.start, m.end, m.value, m.shape) for m in found.values()]
        for m in [m for m in found.values() if m.shape in ("CAP", "LEX")]:
            for v, shape in lexicon.disambiguator.variants(sentence, all_toks, m.start, m.end, m.value, spans):
                add(m.start, m.end, v, shape)
    return sorted(found.values(), key=lambda m: (m.start, -m.end, m.value))

