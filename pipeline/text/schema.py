"""The JSON Schema of one sentence's output and the structural-validity check.

Output of one sentence: a JSON list of ``{"sub", "rel", "obj", "subType", "objType"}`` objects
(non-empty strings, no other keys). LLMs answer with ``{"triples": [...]}`` because OpenAI's
structured outputs need an object at the top level (:data:`RESPONSE_SCHEMA`); both forms parse.
"""
from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["TRIPLES_SCHEMA", "RESPONSE_SCHEMA", "parse_output", "validate_triples"]

_FIELD = {"type": "string", "minLength": 1}
#: JSON Schema (2020-12) of one sentence's output.
TRIPLES_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "array",
    "items": {"type": "object", "additionalProperties": False,
              "required": ["sub", "rel", "obj", "subType", "objType"],
              "properties": {k: _FIELD for k in ("sub", "rel", "obj", "subType", "objType")}}}
#: The same wrapped in an object, for an LLM's ``response_format``.
RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["triples"],
    "properties": {"triples": {k: v for k, v in TRIPLES_SCHEMA.items() if k != "$schema"}}}


def validate_triples(value: Any) -> list[str]:
    """Schema errors of a parsed output (``[]``: valid), each ``"<json path>: <message>"``."""
    v = Draft202012Validator(TRIPLES_SCHEMA)
    return [f"{e.json_path}: {e.message}" for e in sorted(v.iter_errors(value), key=lambda e: list(e.path))]


def parse_output(text: str) -> tuple[list[dict[str, str]], list[str]]:
    """Parse an output text (a JSON list, or ``{"triples": list}``, optionally in a Markdown
    code fence) into triples and schema errors.

    Returns:
        ``(triples, errors)``: ``errors == []`` when the text is structurally valid; otherwise the
        triples are those items that are themselves valid (possibly none).
    """
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[body.find("\n") + 1:] if "\n" in body else body
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        return [], [f"$: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"]
    if isinstance(value, dict) and set(value) == {"triples"}:
        value = value["triples"]
    errors = validate_triples(value)
    if not errors:
        return value, []
    items = value if isinstance(value, list) else []
    return [t for t in items if not validate_triples([t])], errors
