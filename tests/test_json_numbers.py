"""JSON numbers kept as written (pipeline.sources.json_numbers)."""
from __future__ import annotations

import json

from pipeline.sources import json_numbers
from pipeline.sources.json_numbers import JsonNumber


def test_numbers_a_float_holds_stay_plain_floats():
    data = json_numbers.loads('[50.85, 1.50, 1e2, 2.5E3, -0.0, 3]')
    assert [type(v) for v in data] == [float, float, float, float, float, int]
    assert data == [50.85, 1.5, 100.0, 2500.0, -0.0, 3]


def test_digits_a_float_loses_are_kept():
    data = json_numbers.loads('{"a": 12345678901234567.89, "b": 0.10000000000000000001, "c": 1.00000000000000000001e5}')
    assert all(isinstance(v, JsonNumber) and isinstance(v, float) for v in data.values())
    assert [str(v) for v in data.values()] == ["12345678901234567.89", "0.10000000000000000001",
                                               "100000.000000000000001"]
    assert data["a"].text == "12345678901234567.89"
    assert data["a"] == 12345678901234567.89  # still the float for arithmetic and comparisons


def test_dumps_writes_the_digits_as_written():
    text = '{"a": [12345678901234567.89, 1.5, "12345678901234567.89"], "b": {"c": 1.00000000000000000001e5}}'
    out = json_numbers.dumps(json_numbers.loads(text), ensure_ascii=False)
    assert out == '{"a": [12345678901234567.89, 1.5, "12345678901234567.89"], "b": {"c": 1.00000000000000000001e5}}'
    assert json.loads(out, parse_float=str)["a"][0] == "12345678901234567.89"


def test_json_lines_decoder_keeps_digits():
    value, end = json_numbers.decoder().raw_decode('{"x": 3.141592653589793238462}')
    assert str(value["x"]) == "3.141592653589793238462" and end == 30
