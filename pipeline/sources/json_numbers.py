"""JSON numbers kept as written: parsing and writing JSON without losing a number's digits.

A JSON number is decimal text of any length (RFC 8259, section 6), and ``xsd:decimal`` has
arbitrary precision (XSD 1.1 Part 2, section 3.3.3). Python's :mod:`json` parses a number with a
fraction or exponent into a binary ``float``, which keeps about 17 significant digits:
``12345678901234567.89`` reads as ``1.2345678901234568e16``. Here such a number is parsed into a
:class:`JsonNumber`: a ``float`` (so every test of ``isinstance(v, float)`` and every arithmetic use
is unchanged) that remembers its text. Numbers a ``float`` holds exactly (``50.85``, ``1e-7``, all
but a few in practice) stay plain ``float``, so their rendering is the one they always had.
"""
from __future__ import annotations

import json
import re
import uuid
from decimal import Decimal
from typing import IO, Any

__all__ = ["JsonNumber", "parse_float", "loads", "load", "decoder", "dumps", "number_text"]


class JsonNumber(float):
    """A JSON number whose digits a binary float cannot hold, with the text it was written as.

    ``str()`` gives the number in positional decimal form (``12345678901234567.89``; an exponent
    is written out: ``1.00000000000000000001e5`` -> ``100000.000000000000001``), the lexical form
    both ``xsd:decimal`` and ``xsd:double`` accept; ``text`` is the number as the file wrote it.
    """

    text: str

    def __new__(cls, text: str) -> JsonNumber:
        obj = super().__new__(cls, text)
        obj.text = text
        return obj

    def __str__(self) -> str:
        return number_text(self.text)

    def __repr__(self) -> str:
        return self.__str__()

    def __reduce__(self) -> tuple:  # pickled (a process pool) with its text
        return JsonNumber, (self.text,)


def number_text(text: str) -> str:
    """The JSON number ``text`` in positional decimal form, every digit kept (``1.5E+3`` -> ``1500``,
    ``2.50`` -> ``2.50``)."""
    if "e" not in text and "E" not in text:
        return text
    return format(Decimal(text), "f")


def parse_float(text: str) -> float:
    """``json``'s ``parse_float``: a ``float`` when it holds the number exactly as written (the same
    decimal value: ``50.85``, ``1.50``, ``1e2``), else a :class:`JsonNumber` keeping the digits."""
    value = float(text)
    if repr(value) == text or Decimal(repr(value)) == Decimal(text) or value != value or value in (
            float("inf"), float("-inf")):
        return value
    return JsonNumber(text)


def loads(text: str) -> Any:
    """``json.loads`` with numbers kept as written (:func:`parse_float`).

    Raises:
        json.JSONDecodeError: ``text`` is not JSON; RecursionError: nested beyond the decoder's limit.
    """
    return json.loads(text, parse_float=parse_float)


def load(fh: IO[str]) -> Any:
    """``json.load`` with numbers kept as written (:func:`parse_float`). Raises as :func:`loads`."""
    return json.load(fh, parse_float=parse_float)


def decoder() -> json.JSONDecoder:
    """A ``json.JSONDecoder`` with numbers kept as written (for ``raw_decode`` of JSON Lines)."""
    return json.JSONDecoder(parse_float=parse_float)


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` writing each :class:`JsonNumber` with its digits as written (``json`` writes a
    float subclass with ``float.__repr__``, which would round it). ``kwargs`` go to ``json.dumps``.

    The numbers go in as strings marked with a random token that no data holds, and the quoted,
    marked strings are replaced by the numbers' text in the output.
    """
    token = uuid.uuid4().hex
    found = [False]

    def mark(value: Any) -> Any:
        if isinstance(value, JsonNumber):
            found[0] = True
            return f"{token}{value.text}{token}"
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value

    marked = mark(obj)
    out = json.dumps(marked, **kwargs)
    if not found[0]:
        return out
    return re.sub(f'"{token}([-+0-9.eE]+){token}"', lambda m: m.group(1), out)
