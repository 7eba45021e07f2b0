"""The decimal mark of a ``toDecimal()`` column (pipeline/fno/decimals.py) and the function that
reads a number with it (pipeline/fno/udfs.py, ``normalize_decimal``)."""
from __future__ import annotations

import pytest

from pipeline.fno import udfs
from pipeline.fno.decimals import (COMMA, POINT, UNDECIDED, ColumnUnit, DecimalMark, decide_decimal_mark, decide_unit,
                                   stated_decimal_mark)


@pytest.mark.parametrize("value, comma, point", [
    ("1,234.50", None, "1234.50"),       # both separators: the last one marks decimals
    ("15,000", "15.000", "15000"),       # one separator before three digits: either reading
    ("1.250", "1250", "1.250"),
    ("12.99", None, "12.99"),            # a point before two digits groups nothing
    ("8,99", "8.99", None),
    ("1.234,56", "1234.56", None),
    ("1 250,00", "1250.00", None),       # a space groups thousands under either mark
    ("1\u202f250.5", None, "1250.5"),
    ("1'234.50", None, "1234.50"),       # Swiss apostrophe
    ("1,234,567", None, "1234567"),      # a repeated separator groups
    ("1.234.567", "1234567", None),
    ("0,500", "0.500", None),            # a group does not start with 0
    ("-3,5", "-3.5", None),
    ("+1,000.5", None, "+1000.5"),
    (".5", None, "0.5"),
    ("5.", None, "5.0"),
    ("7", "7", "7"),
    ("1,2,3", None, None),
    ("1,23,456.00", None, None),         # Indian grouping (2-digit groups) is not read
    ("1 2345", None, None),
    ("abc", None, None),
    ("", None, None),
    ("-", None, None),
])
def test_a_number_under_each_mark(value, comma, point):
    assert udfs.normalize_decimal(value, COMMA) == comma
    assert udfs.normalize_decimal(value, POINT) == point
    # without a mark: the one reading there is, none when the two readings differ
    readings = {comma, point} - {None}
    assert udfs.normalize_decimal(value) == (readings.pop() if len(readings) == 1 else None)
    assert udfs.normalize_decimal(value, UNDECIDED) == udfs.normalize_decimal(value)


def test_a_column_decides_its_mark_by_values_that_read_under_one_mark_only():
    assert decide_decimal_mark(["1,234.50", "15,000", "12.99", "2,750.00", ""]) == \
        DecimalMark(POINT, "decided", ["1,234.50", "12.99", "2,750.00"], ["15,000"], [])
    assert decide_decimal_mark(["8,99", "1.250", "12", "NA"]) == DecimalMark(COMMA, "decided", ["8,99"], ["1.250"], [])


def test_a_column_that_nothing_decides_or_that_points_both_ways_gets_no_mark():
    assert decide_decimal_mark(["1,000", "500", "2,500"]) == \
        DecimalMark(UNDECIDED, "ambiguous", ["1,000", "2,500"], ["1,000", "2,500"], [])
    assert decide_decimal_mark(["8,99", "3.5", "15,000"]) == \
        DecimalMark(UNDECIDED, "conflict", ["8,99", "3.5"], ["15,000"], [])
    assert decide_decimal_mark(["12", "1 250", "22 °C", "1,2,3"]) == \
        DecimalMark(UNDECIDED, "plain", [], [], ["1,2,3", "22 °C"])


def test_a_stated_mark_wins_and_values_against_it_are_listed():
    assert decide_decimal_mark(["12,5", "1.5", "1.000"], COMMA) == DecimalMark(COMMA, "stated", [], ["1.000"], ["1.5"])


@pytest.mark.parametrize("cell, mark", [
    ("#,##0.00", POINT), ("0.00", POINT), ("#.##0,00", COMMA), ("# ##0,00", COMMA), ("0,00", COMMA),
    ("format #,##0.00 (USD)", POINT), ("#,##0", None), ("", None), (None, None),
    ("decimal comma read as a point (8,99 -> 8.99)", None), ("10,00", None),
])
def test_a_cell_states_a_mark_by_a_number_format_code(cell, mark):
    assert stated_decimal_mark(cell) == mark


@pytest.mark.parametrize("value, unit, number", [
    ("€1,250.00", "€", "1,250.00"),
    ("1 250,00 €", "€", "1 250,00"),
    ("-€5", "€", "-5"),
    ("€-5", "€", "-5"),
    ("USD 12", "USD", "12"),
    ("12 EUR", "EUR", "12"),
    ("US$3", "US$", "3"),
    ("R$ 4,50", "R$", "4,50"),
    ("CHF 1'234.50", "CHF", "1'234.50"),
    ("12.5%", "%", "12.5"),
    ("12.5 %", "%", "12.5"),
    ("%12", None, "%12"),                # a percent sign before the number is no unit
    ("#12", None, "#12"),                # no currency symbol (Unicode Sc)
    ("12 kg", "kg", "12"),               # a unit symbol after the number (SI Brochure 5.4.3)
    ("310,7 km²", "km²", "310,7"),
    ("5kg", "kg", "5"),
    ("21.5 °C", "°C", "21.5"),
    ("50 km/h", "km/h", "50"),
    ("1e3", None, "1e3"),                # an exponent, no unit
    ("2.5E-4", None, "2.5E-4"),
    ("kg 12", None, "kg 12"),            # a unit symbol before the number: no unit (only currencies go there)
    ("12 kg m", None, "12 kg m"),
    ("EURO 12", None, "EURO 12"),
    ("€12 EUR", None, "€12 EUR"),        # two units
    ("€", None, "€"),
    ("12", None, "12"),
])
def test_value_unit(value, unit, number):
    assert udfs.value_unit(value) == (unit, number)


@pytest.mark.parametrize("value, mark, unit, expected", [
    ("€1,250.00", POINT, "€", "1250.00"),
    ("€8", POINT, "€", "8"),
    ("8", POINT, "€", "8"),              # a value without the unit is read as it is
    ("$8", POINT, "€", None),            # another currency: no value
    ("€8", POINT, None, None),           # no unit passed: a value with one is no number
    ("1 250,00 €", COMMA, "€", "1250.00"),
    ("12.5%", UNDECIDED, "%", "12.5"),   # the number as written, % its unit (not 0.125)
    ("-12,50 EUR", COMMA, "EUR", "-12.50"),
    # accounting negatives: the amount in parentheses, a unit inside or outside them
    ("(12.00)", POINT, None, "-12.00"),
    ("(12.00)", UNDECIDED, None, "-12.00"),
    ("(1.234,56)", COMMA, None, "-1234.56"),
    ("$ (1,250.00)", POINT, "$", "-1250.00"),
    ("($1,250.00)", POINT, "$", "-1250.00"),
    ("(12,00) €", COMMA, "EUR", "-12.00"),
    ("(-12)", POINT, None, None),          # a sign inside too: no value
    ("(abc)", POINT, None, None),
    ("(12)(3)", POINT, None, None),
])
def test_normalize_decimal_unit(value, mark, unit, expected):
    assert udfs.normalize_decimal(value, mark, unit) == expected


def test_decide_unit():
    assert decide_unit(["€1,250.00", "€15.50", "€8", "", "n/a"]) == ColumnUnit("EUR", "shared", ["€1,250.00", "€15.50", "€8"])
    # a sign and the ISO 4217 code of its one currency are one unit; `$` names several currencies
    assert decide_unit(["12 €", "EUR 5"]) == ColumnUnit("EUR", "shared", ["12 €", "EUR 5"])
    assert decide_unit(["$12", "USD 5"]) == ColumnUnit(None, "mixed", ["$12", "USD 5"])
    assert udfs.normalize_decimal("12 €", COMMA, "EUR") == "12"
    assert udfs.normalize_decimal("£12", COMMA, "EUR") is None
    assert decide_unit(["€12.00", "$15.50", "£8", "€3"]) == ColumnUnit(None, "mixed", ["$15.50", "£8", "€12.00", "€3"])
    assert decide_unit(["12", "8,50"]) == ColumnUnit(None, "none")
    # an accounting negative carries its unit inside or outside its parentheses
    assert decide_unit(["$12.00", "($3.50)", "$ (1.00)"]) == ColumnUnit("$", "shared", ["$ (1.00)", "$12.00", "($3.50)"])
    assert decide_decimal_mark(["(12.00)", "3"]) == DecimalMark(POINT, "decided", ["(12.00)"])
    # one value with a sign among plain numbers: a faulty cell, no unit for the column
    assert decide_unit(["1.234,56", "89,90", "€ 5,50"]) == ColumnUnit(None, "partial", ["€ 5,50"])
    # the mark is decided on the numbers without their unit
    assert decide_decimal_mark(["€1,250.00", "€8"], unit="€").mark == POINT
    assert decide_decimal_mark(["1.250,00 €", "8 €"], unit="€").mark == COMMA
    assert decide_decimal_mark(["€1,250.00", "€8"]).invalid == ["€1,250.00", "€8"]


def test_an_integer_datatype_admits_no_reading_with_a_fraction():
    # populations of a German export: only the thousands-dot reading of '523.026' is an integer
    from pipeline.fno.decimals import COMMA, UNDECIDED, decide_decimal_mark

    values = ["523.026", "301.033", "153.094"]
    assert decide_decimal_mark(values).status == "ambiguous"
    got = decide_decimal_mark(values, integer=True)
    assert (got.mark, got.status, got.evidence, got.ambiguous) == (COMMA, "decided", ["153.094", "301.033", "523.026"], [])
    both = decide_decimal_mark(["1.000", "2.000"], integer=True)  # 1 or 1000: both integers, nothing decides
    assert (both.mark, both.status, both.ambiguous) == (UNDECIDED, "ambiguous", ["1.000", "2.000"])


def test_a_unit_symbol_shared_by_a_column_is_its_unit():
    # km² and km2 are one unit (UCUM writes the power as a digit); km and m are two, as are € and $
    assert decide_unit(["310,7 km²", "405,02 km2", "891,1 km²"]) == ColumnUnit("km2", "shared", ["310,7 km²", "405,02 km2", "891,1 km²"])
    assert decide_unit(["5 km", "300 m"]) == ColumnUnit(None, "mixed", ["300 m", "5 km"])
    assert decide_unit(["0,2 kg", "1,5"]) == ColumnUnit(None, "partial", ["0,2 kg"])
    assert udfs.normalize_decimal("310,7 km²", COMMA, "km2") == "310.7"
    assert udfs.normalize_decimal("1.250 kg", COMMA, "kg") == "1250"
    assert udfs.normalize_decimal("5 m", POINT, "km") is None          # another unit: no value
    assert udfs.normalize_decimal("5 m", POINT, None) is None          # a unit no column decided: no value


def test_column_reader_reads_as_the_compiler_decides():
    from pipeline.fno.decimals import column_reader

    german = ["1.512.491", "1.084.831", "629.047"]
    assert [column_reader(german, integer=True)(v) for v in german] == ["1512491", "1084831", "629047"]
    english = ["1,512,491", "629,047"]
    assert [column_reader(english, integer=True)(v) for v in english] == ["1512491", "629047"]
    # into an integer datatype a reading with a point is no value (xsd:integer has none)
    assert [column_reader(["12,5", "1.512.491"], integer=True)(v) for v in ("12,5", "1.512.491")] == [None, "1512491"]
    assert [column_reader(["12,5", "1.512.491"])(v) for v in ("12,5", "1.512.491")] == ["12.5", "1512491"]
    # 629.047 alone: a decimal under one mark, an integer under the other; into xsd:decimal nothing decides
    assert column_reader(["629.047"], integer=True)("629.047") == "629047"
    assert column_reader(["629.047"])("629.047") is None
