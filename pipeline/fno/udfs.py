# Our FnO functions, loaded by Morph-KGC through its `udfs` option.
# Morph-KGC execs this file after defining the `udf` decorator, so it imports
# nothing from our package: each function is self-contained. The function and
# parameter IRIs are listed in pipeline/fno/__init__.py (FUNCTIONS).
import csv as _csv
import json as _json
import re as _re
import unicodedata as _unicodedata
import uuid as _uuid
from datetime import date as _date
from urllib.parse import quote as _quote

_FN = "https://w3id.org/kgc-pipeline/function#"

try:
    udf  # noqa: B018 - defined by Morph-KGC before it runs this file
except NameError:  # imported as a module (the offline mapper and the derived sources call the functions)
    #: function IRI -> (function, {argument name: parameter IRI}), as the engine registers them
    REGISTRY = {}

    def udf(fun_id, **params):
        def register(funct):
            REGISTRY[fun_id] = (funct, params)
            return funct
        return register


@udf(fun_id=_FN + "valueMap", value=_FN + "value", table=_FN + "map")
def value_map(value, table):
    """Look ``value`` up in the JSON object ``table`` (code -> IRI); None when absent."""
    if value is None:
        return None
    return _json.loads(table).get(str(value).strip())


@udf(fun_id=_FN + "percentEncode", value=_FN + "value")
def percent_encode(value):
    """Percent-encode a value for use inside an IRI (RFC 3986 unreserved kept), as R2RML templates do."""
    if value is None:
        return None
    return _quote(str(value), safe="-._~")


#: A time of day after a date (``T05:30``, `` 05:30:00.5``): hours, minutes, seconds, fraction.
_TIME_OF_DAY = _re.compile(r"[T\s]\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?")


@udf(fun_id=_FN + "normalizeDate", value=_FN + "value", order=_FN + "order")
def normalize_date(value, order=None):
    """Normalise a date to xsd:date (YYYY-MM-DD); None when it is no date.

    Year-first forms are read as they are: ISO (``2024-03-04``), ``2024/03/04``, compact
    ``20240304``. A timezone written after the date (``2024-03-04Z``, ``2024-03-04+09:00``) is
    kept, in xsd:date's ``Z``/``±hh:mm`` form: XSD 1.1 Part 2, 3.3.9 makes it part of the value
    (``2024-03-04+09:00`` and ``2024-03-04`` are not equal), as :func:`normalize_datetime` keeps a
    date-time's. A date-time is read only at midnight
    (``2024-03-04T00:00:00``, ``2024-03-04 00:00+09:00``, its zone kept): a time of day (``2024-03-04T05:30:00``) is
    information xsd:date cannot hold, and two observation times of one day would become the same
    literal, so such a value gives None (counted and named as a dropped value; ``toDateTime()``
    keeps it). Day/month forms (``03/04/2024``, ``-`` or ``.`` too)
    follow ``order``: ``DMY`` day-first, ``MDY`` month-first, ``YMD`` none (such values give
    None: the compiler passes it for a column whose order nothing decides, see
    pipeline/fno/dates.py). Without ``order`` (a quick parse check) day-first is tried first.
    A month written as a word (``29 April 2003``, ``April 29, 2003``, ``29 de abril de 2003``,
    ``1 mars 2024``, ``1. März 2024``: English, Spanish, French, German, Dutch, Italian, Portuguese)
    needs no order. A weekday written before the date, as the Unicode CLDR's full date formats write
    it (``lundi 4 mars 2024``, ``Monday, 4 March 2024``, ``Montag, 4. März 2024``, ``Mon 04/03/2024``;
    :data:`_WEEKDAYS`), is read when it is the date's weekday; a value whose weekday is another
    day's contradicts itself and gives None.
    """
    if value is None:
        return None
    v = str(value).strip()
    m = _re.fullmatch(r"(\d{4})(\d{2})(\d{2})", v) or _re.match(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)", v)
    if m:
        clock = _TIME_OF_DAY.match(v, m.end())
        if clock and any(int(part or 0) for part in clock.groups()):
            return None  # a time of day: truncating it would lose it silently
        day = _iso_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        written = _ZONE.fullmatch(v[clock.end() if clock else m.end():].strip())
        if day is None or written is None:
            return day
        zone = _zone(written.group(0))
        return day + zone if zone else None  # +15:00 is no zone: no value rather than a wrong one
    named = _named_month_date(v)
    if named:
        return named
    weekday = _WEEKDAY.fullmatch(v)
    if weekday and weekday.group(1).lower() in _WEEKDAYS:
        day = normalize_date(weekday.group(2), order)
        # the weekday must be the date's: a value that contradicts itself is no date
        return day if day and _date.fromisoformat(day[:10]).weekday() == _WEEKDAYS[weekday.group(1).lower()] else None
    m = _re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})", v)
    if not m:
        return None
    a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if order == "DMY":
        return _iso_date(year, b, a)
    if order == "MDY":
        return _iso_date(year, a, b)
    if order is None:
        return _iso_date(year, b, a) or _iso_date(year, a, b)
    return None


#: Month names -> month number: English, Spanish, French, German, Dutch, Italian, Portuguese, full and
#: abbreviated as the Unicode CLDR's Gregorian "format" month names write them (with the accent-less
#: spellings people type: fevrier, aout, maerz, marco). No two languages give one word two months.
_MONTHS = {name: i + 1 for i, names in enumerate((
    "january jan enero ene janvier janv januar jänner januari gennaio gen janeiro",
    "february feb febrero février févr fevrier fevr februar februari febbraio fevereiro fev",
    "march mar marzo mars märz mär maerz maart mrt março marco",
    "april apr abril abr avril avr aprile",
    "may mayo mai mei maggio mag maio",
    "june jun junio juin juni giugno giu junho",
    "july jul julio juillet juil juli luglio lug julho",
    "august aug agosto ago août aout augustus",
    "september sep sept septiembre setiembre set septembre settembre setembro",
    "october oct octubre octobre oktober okt ottobre ott outubro out",
    "november nov noviembre novembre novembro",
    "december dec diciembre dic décembre déc decembre dezember dez dicembre dezembro")) for name in names.split()}


#: Weekday names -> ISO weekday index (Monday 0), in the languages of :data:`_MONTHS`, full and abbreviated as the
#: Unicode CLDR's Gregorian "format" day names write them (with the accent-less spellings people type).
#: No two languages give one word two days.
_WEEKDAYS = {name: i for i, names in enumerate((
    "monday mon lunes lun lundi montag mo maandag ma lunedì lunedi segunda-feira segunda seg",
    "tuesday tue tues martes mar mardi dienstag di dinsdag martedì martedi terça-feira terca-feira terça terca ter",
    "wednesday wed miércoles miercoles mié mie mercredi mer mittwoch mi woensdag wo mercoledì mercoledi "
    "quarta-feira quarta qua",
    "thursday thu thur thurs jueves jue jeudi jeu donnerstag do donderdag giovedì giovedi gio quinta-feira quinta qui",
    "friday fri viernes vie vendredi ven freitag fr vrijdag vr venerdì venerdi sexta-feira sexta sex",
    "saturday sat sábado sabado sáb sab samedi sam samstag sonnabend sa zaterdag za",
    "sunday sun domingo dom dimanche dim sonntag so zondag zo domenica")) for name in names.split()}
#: A word, perhaps abbreviated with a point and followed by a comma, before the rest of a date.
_WEEKDAY = _re.compile(r"([A-Za-zÀ-ÿ]+(?:-[A-Za-z]+)?)\.?,?\s+(\S.*)")


def _named_month_date(v):
    """``29 April 2003``, ``April 29, 2003``, ``29-Apr-2003``, ``29 de abril de 2003``, ``29 avril 2003``,
    ``1er mars 2003``, ``29. April 2003`` -> ``2003-04-29``: a month written as a word (:data:`_MONTHS`)
    names itself, so no day/month order is involved; None otherwise."""
    day = r"(\d{1,2})(?:st|nd|rd|th|º|er|\.)?"
    month = r"([A-Za-zÀ-ÿ]+)\.?"
    m = _re.fullmatch(day + r"[\s/-]+(?:de\s+)?" + month + r"[\s/,-]+(?:de(?:l)?\s+)?(\d{4})", v, _re.IGNORECASE)
    if m:
        d, name, year = m.group(1), m.group(2), m.group(3)
    else:
        m = _re.fullmatch(month + r"\s+" + day + r",?\s+(\d{4})", v, _re.IGNORECASE)
        if not m:
            return None
        name, d, year = m.group(1), m.group(2), m.group(3)
    month_no = _MONTHS.get(name.lower())
    return _iso_date(int(year), month_no, int(d)) if month_no else None


def _iso_date(year, month, day):
    """``YYYY-MM-DD`` when the date exists (no 2024-02-30), else None."""
    try:
        return _date(year, month, day).isoformat()
    except ValueError:
        return None


@udf(fun_id=_FN + "concat", first=_FN + "first", second=_FN + "second")
def concat(first, second):
    """Concatenate two strings; None when either is None (RML null semantics)."""
    if first is None or second is None:
        return None
    return f"{first}{second}"


@udf(fun_id=_FN + "resolveIri", value=_FN + "value", base=_FN + "base")
def resolve_iri(value, base):
    """An IRI term's value made absolute as RML-Core makes a reference's: kept when it has a scheme,
    else the base IRI prepended (concatenation, not RFC 3986 resolution); None stays None. The
    normalisation wraps a function-valued IRI term map in it, since the engine applies no base there."""
    if value is None:
        return None
    text = str(value)
    return text if _SCHEME.match(text) else f"{base}{text}"


_SCHEME = _re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
#: An e-mail address (RFC 5322 addr-spec, simplified as the mapper reads one): a local part and a domain
#: with a dot, one ``@``, no white space.
_ADDRESS = _re.compile(r"^([^@\s]+)@([^@\s]+\.[^@\s]+)$")
#: What separates the addresses of a cell that holds several: RFC 6068's ``,`` (section 2, ``to``), a mail
#: program's ``;``.
_ADDRESS_LIST = _re.compile(r"[,;]")
#: Characters RFC 6068 (section 2, ``qchar`` without ``?``, ``&``, ``=``: unreserved and some-delims) and
#: RFC 3987 (``ucschar``: any non-ASCII letter) let a mailto: address part hold as they are.
_MAILTO_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*+,;:")


def _mailto_part(text):
    """``text`` with every character RFC 6068 does not let an address part hold percent-encoded (UTF-8)."""
    return "".join(c if c in _MAILTO_SAFE or ord(c) > 127 else _quote(c, safe="") for c in text)


@udf(fun_id=_FN + "mailto", value=_FN + "value")
def mailto(value):
    """An e-mail address as its ``mailto:`` IRI (RFC 6068): ``ana@example.org`` -> ``mailto:ana@example.org``.

    The ``@`` stays (an R2RML template would write ``%40``: its values are IRI-safe escaped, R2RML 7.3,
    so the IRI would never equal the one other data use); a character RFC 6068 does not allow in an
    address (``%``, ``/``, ``?``, ``#``, ``&``, ``=``, ``"`` ...) is percent-encoded, non-ASCII letters are
    kept (an IRI, RFC 3987). A value already written ``mailto:...`` is read without it. None for a value
    that is no address (no ``@``, no domain with a dot, white space inside): it names no mailbox.

    A cell of several addresses (``bob@x.org, bob@y.org``; ``,`` as RFC 6068 section 2 separates them,
    or ``;`` as mail programs do) names several mailboxes: the list of their IRIs, one each (RFC 6068
    would write one IRI for a message to both, ``mailto:bob@x.org,bob@y.org``, which names no one
    mailbox), which Morph-KGC writes as one object each (RML-FNML: the outer function's list output
    is exploded). None when any part is no address.
    """
    if value is None:
        return None
    text = str(value).strip()
    if text[:7].lower() == "mailto:":
        text = text[7:]
    parts = [p.strip() for p in _ADDRESS_LIST.split(text)]
    found = [_ADDRESS.match(p) for p in parts]
    if not parts or None in found:
        return None
    iris = list(dict.fromkeys(f"mailto:{_mailto_part(m.group(1))}@{_mailto_part(m.group(2))}" for m in found))
    return iris[0] if len(iris) == 1 else iris


#: The visual separators people write in telephone numbers (RFC 3966 section 5.1.1: ``-``, ``.``, ``(``,
#: ``)``), with white space and ``/``: none carries meaning, and an IRI holds no white space.
_PHONE_SEPARATORS = _re.compile(r"[\s\-.()/]")


#: An extension after a telephone number as people write it (``ext. 89``, ``ext 89``, ``x89``, ``extension 89``,
#: RFC 3966's own ``;ext=89``): its digits.
_EXTENSION = _re.compile(r"\s*(?:;\s*ext=|,?\s*(?:ext\.?|extension|x)\s*)(\d{1,10})\s*$", _re.I)


@udf(fun_id=_FN + "tel", value=_FN + "value")
def tel(value):
    """A telephone number as its ``tel:`` IRI (RFC 3966): ``+34 91 123 4567`` -> ``tel:+34911234567``.

    Only a global number (``+`` and the country code, RFC 3966 section 5.1.4) is written: its visual
    separators are removed, so two spellings of one number give one IRI (section 3: separators have no
    meaning), and so is a trunk prefix written ``(0)`` after the country code (``+49 (0)89 ...``), which
    is not dialled from abroad. A local number (``91 123 4567``) needs the ``phone-context`` of the place it is dialled
    from (section 5.1.5), which the value does not give: None, as for a value that is no number
    (letters). An extension written after the number (``ext. 89``, ``ext 89``, ``x89``, ``extension
    89``; :data:`_EXTENSION`) is the IRI's ``;ext=`` parameter (section 5.1, ``extension``):
    ``+1-555-123-4567 ext. 89`` -> ``tel:+15551234567;ext=89``. A value already written ``tel:...`` is
    read without it.
    """
    if value is None:
        return None
    text = str(value).strip()
    if text[:4].lower() == "tel:":
        text = text[4:]
    extension = _EXTENSION.search(text)
    if extension:
        text = text[:extension.start()]
    # "+49 (0)89 ...": the trunk prefix in parentheses is dialled within the country only, never after the code
    digits = _PHONE_SEPARATORS.sub("", text.replace("(0)", ""))
    if not _re.fullmatch(r"\+\d{3,15}", digits):  # ITU-T E.164: at most 15 digits
        return None
    return f"tel:{digits}" + (f";ext={extension.group(1)}" if extension else "")


#: yes/no and true/false in English, Spanish, French, German, Dutch, Italian and Portuguese (the
#: languages whose month names normalize_date reads), 1/0, on/off
_TRUE = {"1", "true", "t", "yes", "y", "si", "sí", "s", "on", "oui", "vrai", "ja", "wahr", "waar", "sì", "vero",
         "sim", "verdadero", "verdadeiro"}
_FALSE = {"0", "false", "f", "no", "n", "off", "non", "faux", "nein", "falsch", "nee", "onwaar", "não", "nao",
          "falso"}


@udf(fun_id=_FN + "normalizeBoolean", value=_FN + "value")
def normalize_boolean(value):
    """Normalise yes/no, 1/0, true/false (any case; also oui/non, ja/nein, sí/no, sim/não, vrai/faux ...:
    :data:`_TRUE`, :data:`_FALSE`) to xsd:boolean's ``true``/``false``; None otherwise."""
    if value is None:
        return None
    v = str(value).strip().lower()
    return "true" if v in _TRUE else "false" if v in _FALSE else None


_CLOCK = _re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")


@udf(fun_id=_FN + "normalizeTime", value=_FN + "value")
def normalize_time(value):
    """Normalise a clock time to xsd:time's lexical form ``hh:mm:ss`` (XSD 1.1 Part 2, 3.3.8): ``20:00``
    -> ``20:00:00``, ``8:05`` -> ``08:05:00``; fractions and a zone are kept. None for anything else
    (``24:00``, ``25:00``, ``8pm``): no value, no triple."""
    if value is None:
        return None
    m = _CLOCK.match(str(value).strip())
    if not m:
        return None
    h, mi, sec = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if h > 23 or mi > 59 or sec > 59:
        return None
    return f"{h:02d}:{mi:02d}:{sec:02d}{m.group(4) or ''}{m.group(5) or ''}"


#: A timezone as ISO 8601 writes it after a date or a time: ``Z``, ``+09:00``, ``+0900``, ``+09``.
_ZONE = _re.compile(r"Z|[+-]\d{2}(?::?\d{2})?")


def _zone(written):
    """A zone in the ``Z``/``±hh:mm`` form of XSD 1.1 Part 2 (3.3.7, 3.3.9): ``+0100`` and ``+01`` ->
    ``+01:00``; None when it is out of range (more than 14 hours, more than 59 minutes)."""
    if written == "Z":
        return written
    digits = written[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    if hours > 14 or minutes > 59 or (hours == 14 and minutes):
        return None
    return f"{written[0]}{hours:02d}:{minutes:02d}"


_DATETIME = _re.compile(r"^(\d{4}-\d{1,2}-\d{1,2}|\d{4}[/.]\d{1,2}[/.]\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{4})"
                        r"[T ]\s*(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$")


@udf(fun_id=_FN + "normalizeDateTime", value=_FN + "value", order=_FN + "order")
def normalize_datetime(value, order=None):
    """A date-time as databases and spreadsheets write it, in xsd:dateTime's lexical form (XSD 1.1
    Part 2, 3.3.7): a space for the ``T`` (``2024-03-01 10:00:00`` -> ``2024-03-01T10:00:00``), no
    seconds (``10:00`` -> ``10:00:00``), a one-digit hour (``9:05`` -> ``09:05:00``), a zone offset
    without its colon or minutes (``+0100``, ``+01`` -> ``+01:00``). A zone is kept, never invented.
    The date part is read by :func:`normalize_date` with the same ``order``, so day/month dates
    (``31/12/2024 14:05``) follow the column's order as ``toDate`` does (the compiler decides it
    per column, pipeline/fno/dates.py; ``YMD``: such values give None). Without ``order`` only
    year-first dates are read: the offline mapper's quick checks call it so, and a column whose
    day/month values would be read day-first there would be taken for date-times before any order
    is decided. None for anything else (impossible dates or times): no value, no triple."""
    if value is None:
        return None
    m = _DATETIME.match(str(value).strip())
    if not m:
        return None
    written, h, mi, sec, frac, zone = m.groups()
    day = normalize_date(written, order or "YMD")
    if day is None:
        return None
    if int(h) > 23 or int(mi) > 59 or int(sec or 0) > 59:
        return None
    if zone:
        zone = _zone(zone)
        if zone is None:
            return None
    return f"{day}T{int(h):02d}:{mi}:{sec or '00'}{frac or ''}{zone or ''}"


#: Cells that say "no value" (pandas ``read_csv``'s default ``na_values`` and a lone dash).
MISSING_VALUES = frozenset({"#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                      "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null", "-"})


@udf(fun_id=_FN + "skipMissing", value=_FN + "value")
def skip_missing(value):
    """The value as it is, None for a cell that says "no value" (``NA``, ``N/A``, ``null``, ``NaN``,
    ``-``: pandas' default ``na_values``): no value, no triple, instead of an ill-typed literal."""
    if value is None or str(value).strip() in MISSING_VALUES:
        return None
    return value


#: Characters that group thousands in every locale that uses them and never mark decimals: a space
#: (French, Swedish, SI: ``1 250,00``), no-break and narrow/thin spaces, an apostrophe (Swiss ``1'234.50``).
_GROUPING_ONLY = " \u00a0\u202f\u2009'\u2019"


def _decimal_reading(text, mark):
    """``text`` in xsd:decimal's lexical form (XSD 1.1 Part 2, 3.3.3: digits, one optional point, no
    grouping) when it is a number whose decimal mark is ``mark`` (``,`` or ``.``), the other of the
    two grouping thousands (so do :data:`_GROUPING_ONLY`); None otherwise. Grouping is by threes,
    one character throughout the number, only in the integer part, whose first group does not
    start with 0 (``1,234.5``, ``1.234.567``; ``0,500`` is no grouped number)."""
    group = "." if mark == "," else ","
    m = _re.fullmatch(r"([+-]?)(\d*)(?:" + _re.escape(mark) + r"(\d*))?", text)
    if m is None:
        # grouped integer part: 1-3 digits, then groups of three behind one grouping character
        chars = _re.escape(group + _GROUPING_ONLY)
        m = _re.fullmatch(r"([+-]?)([1-9]\d{0,2}(?P<g>[" + chars + r"])\d{3}(?:(?P=g)\d{3})*)(?:"
                          + _re.escape(mark) + r"(\d*))?", text)
        if m is None:
            return None
        sign, whole, fraction = m.group(1), _re.sub(r"\D", "", m.group(2)), m.group(4)
    else:
        sign, whole, fraction = m.groups()
    if not whole and not fraction:
        return None  # a sign or a mark alone
    if fraction is None:
        return sign + whole
    return f"{sign}{whole or '0'}.{fraction or '0'}"


#: ``mark`` of :func:`normalize_decimal` when no mark is decided: only values whose form shows it are read.
UNDECIDED_MARK = "undecided"


#: a unit symbol written after a number (SI Brochure, 9th ed., 5.4.3: the unit follows the number, which
#: keeps its own value): letters (``kg``, ``km``, ``mAh``; Greek ``µ``, ``Ω``) or a degree sign (``°C``,
#: ``°``), a power after a symbol (``km²``, ``m2``, ``m^3``), symbols joined by ``/``, ``·`` or ``*``
#: (``km/h``, ``mg/l``, ``kW·h``)
_SYMBOL = r"(?:°[A-Za-z]?|[A-Za-zµμΩ]+(?:\^?-?[0-9]|[²³¹])?)"
_PHYSICAL = _SYMBOL + r"(?:[/·*]" + _SYMBOL + r")*"

#: a number with a unit written before or after it: a currency sign (``€``, ``US$``, ``R$``), an ISO 4217
#: code (three capitals: ``EUR``, ``USD``) or a percent sign (after it), a sign in front of either; after
#: the number also a unit symbol (:data:`_PHYSICAL`: ``km²``, ``kg``, ``°C``)
_WITH_UNIT = _re.compile(r"(?P<sign>[+-]?)\s*(?:(?P<pre>[A-Z]{3}(?![A-Za-z])|[A-Z]{0,2}[^\w\s.,'+-])\s*)?"
                         r"(?P<num>[+-]?[\d.,][\d.,'\u2019 \u00a0\u202f\u2009]*?)"
                         r"\s*(?P<post>(?<![A-Za-z])[A-Z]{3}|[^\w\s.,'+-]|%|(?<![A-Za-z])" + _PHYSICAL + r")?")
#: an exponent of a number in scientific notation (``1e3``, ``2.5E-4``): no unit
_EXPONENT = _re.compile(r"[eE][+-]?\d+")


#: Currency signs that name one ISO 4217 currency, and the code they stand for (``$``, ``¥``, ``kr`` name
#: several and stay signs): ``12 €`` and ``EUR 5`` are amounts in one currency.
SIGN_CODES = {"€": "EUR", "£": "GBP", "₹": "INR", "₽": "RUB", "₩": "KRW", "₺": "TRY", "₴": "UAH", "₪": "ILS",
              "₫": "VND", "฿": "THB", "₱": "PHP", "₦": "NGN", "US$": "USD", "A$": "AUD", "C$": "CAD",
              "NZ$": "NZD", "HK$": "HKD", "R$": "BRL"}


#: An amount in parentheses, a unit perhaps outside them (``(12.00)``, ``$ (1,250.00)``, ``(12,00) €``).
_PARENTHESES = _re.compile(r"([^()\d]*)\(\s*([^()]*\d[^()]*?)\s*\)([^()\d]*)")


def accounting_negative(text):
    """The amount of an accounting negative without its parentheses (``(12.00)`` -> ``12.00``,
    ``$ (1,250.00)`` -> ``$ 1,250.00``), else None. Accounting writes a negative amount in parentheses
    (the spreadsheet "Accounting" and "Currency" formats' negative section, ``#,##0.00_);(#,##0.00)``);
    the caller reads the amount and negates it."""
    m = _PARENTHESES.fullmatch(str(text).strip())
    if m is None:
        return None
    return (m.group(1) + m.group(2) + m.group(3)).strip()


def same_unit(unit):
    """The currency a unit names, as its ISO 4217 code where a sign names one (:data:`SIGN_CODES`), else the
    unit itself with a power written as a plain digit: ``€`` and ``EUR`` -> ``EUR``; ``$`` -> ``$``;
    ``km²`` and ``km2`` -> ``km2`` (UCUM's form of the symbol)."""
    if unit is None:
        return None
    return SIGN_CODES.get(unit, unit.translate(_POWERS).replace("^", ""))


_POWERS = str.maketrans("¹²³", "123")


def value_unit(value):
    """``(unit, number)`` of a value written with one unit: a currency sign (a character of Unicode's
    Currency_Symbol category, ``Sc``, alone or after up to two capitals as in ``US$``), an ISO 4217
    code (three capitals) before or after the number, ``%`` after it, or a unit symbol after it
    (letters, a degree sign, a power, ``/``: ``310,7 km²``, ``0,2 kg``, ``21.5 °C``, ``50 km/h``; the
    SI's order, SI Brochure 9th ed. 5.4.3): ``€1,250.00`` -> ``("€", "1,250.00")``, ``-12,50 EUR`` ->
    ``("EUR", "-12,50")``, ``12.5%`` -> ``("%", "12.5")``, ``12 kg`` -> ``("kg", "12")``.
    ``(None, value)`` for a value with no unit, two of them, another mark before the number (``#12``)
    or an exponent (``1e3`` is a number in scientific notation, not 1 of a unit ``e3``)."""
    text = str(value).strip()
    m = _WITH_UNIT.fullmatch(text)
    if m is None or not any(c.isdigit() for c in m.group("num")) or bool(m.group("pre")) == bool(m.group("post")):
        return None, text
    unit = m.group("pre") or m.group("post")
    if unit == "%" and m.group("post") is None:
        return None, text
    if m.group("pre") or len(unit) == 1 and not unit.isalpha() and unit not in "°µμΩ%":
        symbol = unit.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # a sign before the number, or one after it
        if symbol and _unicodedata.category(symbol) != "Sc":
            return None, text
    elif _EXPONENT.fullmatch(unit):
        return None, text
    number = m.group("num").strip()
    if m.group("sign"):
        if number[:1] in "+-":
            return None, text
        number = m.group("sign") + number
    return unit, number


@udf(fun_id=_FN + "normalizeDecimalComma", value=_FN + "value", mark=_FN + "mark", unit=_FN + "unit")
def normalize_decimal(value, mark=None, unit=None):
    """A number as a locale writes it, in xsd:decimal's lexical form (XSD 1.1 Part 2, 3.3.3).

    ``mark`` is the decimal mark the compiler decided for the column (pipeline/fno/decimals.py):
    ``,`` reads ``8,99`` -> ``8.99`` and ``1.234,56`` -> ``1234.56`` (point groups thousands),
    ``.`` reads ``1,234.50`` -> ``1234.50`` and ``15,000`` -> ``15000``. Spaces and apostrophes
    group thousands under either mark (``1 250,00``, ``1'234.50``). A value that is no number with
    that mark (``12.99`` under ``,``) gives None. Without a mark (:data:`UNDECIDED_MARK`, or a
    mapping that passes none) a value is read only when its form decides the mark itself:
    ``8,99``, ``12.99``, ``1,234.50``, ``1 250`` are read, ``15,000`` and ``1.250`` (a thousand
    times more under one mark than under the other) give None rather than a guessed magnitude.
    None for anything else (``abc``, ``1,2,3``): the materialize stage counts and reports such
    values.

    ``unit`` is the one currency sign, ISO 4217 code or ``%`` the compiler found on the column's
    values (:func:`value_unit`; pipeline/fno/decimals.py): it is left out of the number
    (``€1,250.00`` -> ``1250.00``; ``12.5%`` -> ``12.5``, the number as written, ``%`` being its
    unit as in QUDT's ``unit:PERCENT``, not 0.125); a value with another unit (``$8`` under ``€``)
    gives None, as does any value with a unit when no ``unit`` is passed: amounts in two currencies
    are not one quantity. A sign and the code of its one currency are one unit (``12 €`` under ``EUR``:
    :func:`same_unit`).

    An amount in parentheses is negative, as accounting writes losses (``(12.00)`` -> ``-12.00``,
    ``$ (1,250.00)`` -> ``-1250.00``: :func:`accounting_negative`); one with a sign of its own inside
    (``(-12)``) gives None.
    """
    if value is None:
        return None
    text = str(value).strip()
    inner = accounting_negative(text)
    if inner is not None:
        amount = normalize_decimal(inner, mark, unit)
        return None if amount is None or amount[:1] in "+-" else "-" + amount
    if unit:
        found, number = value_unit(text)
        if found is not None:
            if same_unit(found) != same_unit(unit):
                return None
            text = number
    if mark in (",", "."):
        return _decimal_reading(text, mark)
    readings = {_decimal_reading(text, ","), _decimal_reading(text, ".")} - {None}
    return readings.pop() if len(readings) == 1 else None


# ---------------------------------------------------------------------------------------------
# The IDLab function library (https://w3id.org/imec/idlab/function#), as described by its FnO
# descriptions (FnOio/idlab-functions-java, src/main/resources/fno/functions_idlab.ttl, MIT) and
# implemented here after their documented behaviour: the functions RML mappings written for
# RMLMapper use. Parameters are keyed by their fno:predicate (idlab-fn:str), as the engine keys
# its built-ins; mappings naming the parameter resources (idlab-fn:_str) are renamed by
# pipeline/materialize/rml/check.py. Not provided: those that keep state between runs
# (generateUniqueIRI, implicit/explicit create/update/delete), call a web service
# (dbpediaSpotlight) or read files named in the data (readFile).
_IDLAB = "https://w3id.org/imec/idlab/function#"
_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"
#: The namespace RMLMapper and YARRRML documents used before the current one; the condition
#: functions yarrrml-parser writes for `condition` are registered under both.
_IDLAB_OLD = "http://example.com/idlab/function/"


def _is_true(value):
    return value is True or str(value).strip().lower() == "true"


@udf(fun_id=_IDLAB + "equal", value=_GREL + "valueParameter", other=_GREL + "valueParameter2")
@udf(fun_id=_IDLAB_OLD + "equal", value=_GREL + "valueParameter", other=_GREL + "valueParameter2")
def idlab_equal(value, other):
    """True when the two values are equal strings."""
    return value is not None and other is not None and str(value) == str(other)


@udf(fun_id=_IDLAB + "notEqual", value=_GREL + "valueParameter", other=_GREL + "valueParameter2")
@udf(fun_id=_IDLAB_OLD + "notEqual", value=_GREL + "valueParameter", other=_GREL + "valueParameter2")
def idlab_not_equal(value, other):
    """True when the two values are not equal strings."""
    return not idlab_equal(value, other)


@udf(fun_id=_IDLAB + "stringContainsOtherString", text=_IDLAB + "str", other=_IDLAB + "otherStr",
     delimiter=_IDLAB + "delimiter")
@udf(fun_id=_IDLAB_OLD + "stringContainsOtherString", text=_IDLAB_OLD + "str", other=_IDLAB_OLD + "otherStr",
     delimiter=_IDLAB_OLD + "delimiter")
def idlab_string_contains_other_string(text, other, delimiter):
    """True when ``other`` is one of the parts of ``text`` split at ``delimiter`` (a regular expression, as in Java)."""
    if text is None or other is None or delimiter is None:
        return False
    return str(other) in _re.split(str(delimiter), str(text))


@udf(fun_id=_IDLAB + "listContainsElement", items=_IDLAB + "list", text=_IDLAB + "str")
def idlab_list_contains_element(items, text):
    """True when the list holds the string."""
    if items is None:
        return False
    return str(text) in [str(i) for i in (items if isinstance(items, list) else [items])]


@udf(fun_id=_IDLAB + "decide", text=_IDLAB + "str", expected=_IDLAB + "expectedStr", result=_IDLAB + "result")
def idlab_decide(text, expected, result):
    """``result`` when ``text`` equals ``expected``, else no value."""
    return result if text is not None and str(text) == str(expected) else None


@udf(fun_id=_IDLAB + "isNull", text=_IDLAB + "str")
@udf(fun_id=_IDLAB_OLD + "isNull", text=_IDLAB_OLD + "str")
def idlab_is_null(text=None):
    """True when the value is missing."""
    return text is None


@udf(fun_id=_IDLAB + "trueCondition", condition=_IDLAB + "strBoolean", text=_IDLAB + "str")
@udf(fun_id=_IDLAB_OLD + "trueCondition", condition=_IDLAB_OLD + "strBoolean", text=_IDLAB_OLD + "str")
def idlab_true_condition(condition, text):
    """The value when the condition is true (``true``, any case), else no value."""
    return text if condition is not None and _is_true(condition) else None


@udf(fun_id=_IDLAB + "random")
def idlab_random():
    """A random UUID (version 4)."""
    return str(_uuid.uuid4())


@udf(fun_id=_IDLAB + "inRange", test=_IDLAB + "p_test", low=_IDLAB + "p_from", high=_IDLAB + "p_to")
def idlab_in_range(test, low=None, high=None):
    """True when ``low <= test < high`` (a missing bound is no constraint; a missing test is false)."""
    try:
        t = float(test)
    except (TypeError, ValueError):
        return False
    lo = float(low) if low not in (None, "") else None
    hi = float(high) if high not in (None, "") else None
    return (lo is None or t >= lo) and (hi is None or t < hi)


@udf(fun_id=_IDLAB + "slugify", text=_IDLAB + "str")
def idlab_slugify(text):
    """The string as a slug: accents removed, lower case, runs of other characters as one ``-``."""
    if text is None:
        return None
    ascii_text = _unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    return _re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@udf(fun_id=_IDLAB + "toUpperCaseURL", text=_IDLAB + "str")
def idlab_to_upper_case_url(text):
    """The value in upper case, with ``http://`` in front when it does not start with a http scheme
    (the scheme added in lower case, as RFC 3986 section 3.1 asks producers to write schemes)."""
    if text is None:
        return None
    upper = str(text).upper()
    return upper if upper.startswith("HTTP://") else "http://" + upper


@udf(fun_id=_IDLAB + "concat", text=_IDLAB + "str", other=_IDLAB + "otherStr", delimiter=_IDLAB + "delimiter")
def idlab_concat(text, other, delimiter=None):
    """``text``, the delimiter (if any), ``other``."""
    if text is None or other is None:
        return None
    return f"{text}{delimiter or ''}{other}"


_MIME = {"csv": "text/csv", "json": "application/json", "xml": "application/xml", "html": "text/html",
         "htm": "text/html", "txt": "text/plain", "pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg",
         "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml", "ttl": "text/turtle",
         "nt": "application/n-triples", "nq": "application/n-quads", "rdf": "application/rdf+xml",
         "jsonld": "application/ld+json", "zip": "application/zip", "gz": "application/gzip", "mp3": "audio/mpeg",
         "mp4": "video/mp4", "doc": "application/msword", "xls": "application/vnd.ms-excel"}


@udf(fun_id=_IDLAB + "getMIMEType", text=_IDLAB + "str")
def idlab_get_mime_type(text):
    """The MIME type of a file name by its extension (no value for an unknown one)."""
    if text is None:
        return None
    name = str(text)
    return _MIME.get(name.rsplit(".", 1)[-1].lower() if "." in name else "")


@udf(fun_id=_IDLAB + "lookup", text=_IDLAB + "str", path=_IDLAB + "inputFile", source=_IDLAB + "fromColumn",
     target=_IDLAB + "toColumn")
def idlab_lookup(text, path, source, target):
    """The ``target`` column (0-based) of the first row of the CSV file ``path`` whose ``source``
    column equals ``text``; no value when none does."""
    return idlab_lookup_with_delimiter(text, path, source, target, ",")


@udf(fun_id=_IDLAB + "lookupWithDelimiter", text=_IDLAB + "str", path=_IDLAB + "inputFile",
     source=_IDLAB + "fromColumn", target=_IDLAB + "toColumn", delimiter=_IDLAB + "delimiter")
def idlab_lookup_with_delimiter(text, path, source, target, delimiter):
    """As ``lookup``, with a CSV delimiter."""
    if text is None or path is None:
        return None
    with open(str(path), encoding="utf-8", newline="") as fh:
        for row in _csv.reader(fh, delimiter=str(delimiter or ",")):
            if len(row) > max(int(source), int(target)) and row[int(source)] == str(text):
                return row[int(target)]
    return None


@udf(fun_id=_IDLAB + "alwaysReturnsABC")
def idlab_always_returns_abc():
    """``ABC`` (the function without parameters of the RML-FNML test cases)."""
    return "ABC"


# ---------------------------------------------------------------------------------------------
# GREL functions whose engine built-in differs from the GREL implementation (FnOio/grel-functions-java,
# io.fno.grel.StringFunctions): defined here under the same IRI, they replace the built-in for the
# engine run (pipeline/materialize/engine.py).


@udf(fun_id=_GREL + "string_substring", string=_GREL + "valueParameter", start=_GREL + "param_int_i_from",
     end=_GREL + "param_int_i_opt_to")
def grel_substring(string, start, end=None):
    """The characters of ``string`` from index ``start`` up to ``end`` (default: its end); a
    negative index counts from the end. An index out of the string (``substring("Venus", 1000)``)
    is no value, as Java's ``String.substring`` raises there; ``substring("Venus", 5)`` is ``""``."""
    if string is None or start in (None, ""):
        return None
    text = str(string)
    n = len(text)
    try:
        a = int(start)
        b = int(end) if end not in (None, "") else n
    except ValueError:
        return None
    a, b = (a + n if a < 0 else a), (b + n if b < 0 else b)
    if not 0 <= a <= b <= n:
        return None
    return text[a:b]
