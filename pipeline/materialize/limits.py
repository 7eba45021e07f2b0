"""What the engine (Morph-KGC 2.10) can read: checks the audit runs on every reference.

A reference the engine cannot evaluate either stops the run with an error that names no mapping
rule or silently yields nothing. The audit uses these checks to refuse such a row with a finding
that names it, before the engine runs. Each check replays the engine's own reading of a
reference (file and function named in its docstring).
"""
from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from jsonpath_ng.ext import parse

__all__ = ["ENGINE_CANNOT", "xml_reference_issue", "json_reference_issue"]


#: Marks findings on references the engine cannot evaluate (a relation row's subject template
#: with one stays an error: the compiler uses that template).
ENGINE_CANNOT = "the engine cannot evaluate it"


def xml_reference_issue(ref: str, namespaces: dict[str, str]) -> str | None:
    """Why Morph-KGC 2.10 cannot read the XML reference ``ref`` (a well-formed XPath), else ``None``.

    The engine evaluates only the iterator as XPath; a reference is cut at ``@`` into an
    ElementTree path and an attribute name (``data_source/data_file.py``, ``_read_xml``), so a
    predicate on an attribute (``cbc:ID[@schemeName="ID_LOTE"]``) or an XPath function
    (``local-name()``, ``text()``) ends the run with ``TypeError``/``SyntaxError`` and names no
    rule. The check replays that reading: one ``@`` at most, a plain attribute name after it, and
    an element path ElementTree compiles.
    """
    text = ref.replace("/@", "@").lstrip("/")
    element, _, attribute = text.partition("@")
    if attribute and not re.fullmatch(r"[A-Za-z_][\w.\-]*(:[A-Za-z_][\w.\-]*)?", attribute):
        return (f"{ENGINE_CANNOT}: Morph-KGC reads a reference as an ElementTree path plus one attribute after "
                "'@', so a predicate on an attribute or a second '@' breaks the run")
    if element:
        try:
            ET.Element("r").findall(element, namespaces=namespaces)
        except (SyntaxError, KeyError) as exc:
            return (f"{ENGINE_CANNOT}: Morph-KGC reads references as ElementTree paths, which have no "
                    f"{'XPath functions' if '(' in element else 'such step'} ({exc})")
    return None


def json_reference_issue(ref: str, path: Path, iterator: str | None) -> str | None:
    """Why Morph-KGC 2.10 cannot read the JSON reference ``ref`` of the file at ``path``, else ``None``.

    The engine projects each record on the reference's first step (``ref.split('.')[0]``)
    before it flattens nested objects, so a key containing ``.`` (``"tags.code"``) is read as
    the nested path ``tags`` -> ``code`` and yields nothing (morph-kgc#138). JSONPath bracket
    notation (``$['tags.code']``) is cut at the same ``.``. Keys with spaces, and nested keys
    (``n.x`` for ``{"n": {"x": ..}}``), are read.
    """
    if "." not in ref:
        return None
    raw = Path(path).read_bytes()  # the content is the key: a copy rewritten in one clock tick keeps its mtime
    if ref.split(".")[0] in _json_top_keys(hashlib.sha256(raw).hexdigest(), iterator, raw):
        return None
    return (f"names a JSON key that contains '.', and {ENGINE_CANNOT}: Morph-KGC 2.10 reads every '.' of a "
            "reference as a step into a nested object (morph-kgc#138), so it would write nothing for it")


#: (SHA-256 of a JSON file's bytes, iterator) -> the keys of its records; the last few files read.
_TOP_KEYS: dict[tuple[str, str | None], frozenset[str]] = {}


def _json_top_keys(digest: str, iterator: str | None, raw: bytes) -> frozenset[str]:
    """Keys of the records a JSON iterator selects in the document ``raw`` (``digest``: its
    SHA-256, the cache key): the first step of a reference must be one of them for Morph-KGC 2.10,
    which projects each record on ``reference.split('.')[0]`` before it flattens nested objects
    (``data_source/data_file.py``, ``_read_json``)."""
    key = (digest, iterator)
    if key not in _TOP_KEYS:
        data = json.loads(raw.decode("utf-8"))
        records = [m.value for m in parse(iterator or "$").find(data)]
        if len(_TOP_KEYS) >= 32:
            _TOP_KEYS.pop(next(iter(_TOP_KEYS)))
        _TOP_KEYS[key] = frozenset(k for r in records if isinstance(r, dict) for k in r)
    return _TOP_KEYS[key]
