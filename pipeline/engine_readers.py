"""Morph-KGC 2.10's file readers as :func:`pipeline.engine.engine_run` corrects them.

* XML: a record is handed to the reader with attributes where a missing one reads as absent
  (:class:`ElementPath`), not ``KeyError``, which aborted the whole run; a prefixed attribute
  (``@xml:lang``, ``@xml:id``, ``@xlink:href``) reads the namespaced attribute, which the reader's
  ``get("xml:lang")`` never found (ElementTree names it ``{http://www.w3.org/XML/1998/namespace}lang``).
* JSON: :func:`read_json` flattens records as the engine does, without dropping a record for a
  null in a member no rule reads, and keeps JSON numbers as written (see the engine module).
"""
from __future__ import annotations

from typing import Any, Iterator

__all__ = ["ElementPath", "read_json"]


#: The namespace the ``xml`` prefix is bound to in every document (Namespaces in XML 1.0, 3).
_XML_NS = "http://www.w3.org/XML/1998/namespace"


def _clark(name: str, namespaces: dict[str, str]) -> str:
    """``xml:lang`` -> ``{http://www.w3.org/XML/1998/namespace}lang`` (ElementTree's name of a
    namespaced attribute); a name without a known prefix is returned as it is."""
    prefix, sep, local = name.partition(":")
    uri = _XML_NS if prefix == "xml" else namespaces.get(prefix)
    return f"{{{uri}}}{local}" if sep and uri else name


class _AttribOrNone(dict):
    """An element's attributes in which a missing one reads as ``None`` (absent), not ``KeyError``,
    and a prefixed name (``xml:lang``, ``xlink:href``) reads the namespaced attribute."""

    def __init__(self, attrib: Any, namespaces: dict[str, str]) -> None:
        super().__init__(attrib)
        self._namespaces = namespaces

    def __missing__(self, key: str) -> Any:
        clark = _clark(key, self._namespaces)
        return self.get(clark) if clark != key else None


class _Element:
    """An element as Morph-KGC's reader sees it: attributes by prefixed name, and the elements its
    ``findall`` returns wrapped alike (the reader reads ``cat:title/@xml:lang`` with ``get``)."""

    __slots__ = ("_element", "_namespaces")

    def __init__(self, element: Any, namespaces: dict[str, str]) -> None:
        self._element, self._namespaces = element, namespaces

    @property
    def attrib(self) -> _AttribOrNone:
        return _AttribOrNone(self._element.attrib, self._namespaces)

    def get(self, key: str, default: Any = None) -> Any:
        return self._element.get(_clark(key, self._namespaces), default)

    def findall(self, path: str, namespaces: dict[str, str] | None = None) -> list:
        ns = {**self._namespaces, **(namespaces or {})}
        return [_Element(e, ns) for e in self._element.findall(path, namespaces=namespaces)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._element, name)


class ElementPath:
    """The ``elementpath`` module as Morph-KGC's XML reader uses it, records wrapped in :class:`_Element`."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)

    def iter_select(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        namespaces = dict(kwargs.get("namespaces") or {})
        for item in self._module.iter_select(*args, **kwargs):
            yield _Element(item, namespaces) if hasattr(item, "attrib") else item


def _as_text(value: Any) -> Any:
    """JSON scalars as the engine writes them (``str``: ``686``, ``87.25``, ``True``), ``None`` kept,
    dicts and lists walked."""
    if isinstance(value, dict):
        return {k: _as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    return value if value is None or isinstance(value, str) else str(value)


def read_json(rml_rule: Any, references: list) -> Any:
    """Morph-KGC's JSON reader (``data_file._read_json``) without its record drops.

    Same records and columns: the iterator's objects restricted to the top-level keys of the
    ``references``, nested members flattened with dotted names (arrays expand to one record per
    element, Morph-KGC's ``normalize_hierarchical_data``), a column of nulls for a reference the
    data lacks. It drops nothing: the caller leaves a record out for exactly the references
    that are null in it (and counts them), not for a null in a member no rule reads.

    Raises:
        OSError, json.JSONDecodeError: the file cannot be read (the caller reports it).
    """
    import json

    import pandas as pd
    from morph_kgc.data_source.data_file import JSONPath  # the engine's own JSONPath dialect
    from morph_kgc.utils import normalize_hierarchical_data

    with open(rml_rule["logical_source_value"], encoding="utf-8") as f:
        data = json.load(f)
    tops = dict.fromkeys(r.split(".")[0] for r in references)
    found = JSONPath(rml_rule["iterator"] + ".(" + ",".join(tops) + ")").parse(data)
    # values as text before the frame is built: a number column with a null in it would become
    # float (686 -> "686.0"); the engine's reader kept it integer by dropping such records first
    df = pd.json_normalize([_as_text(r) for r in normalize_hierarchical_data(found)])
    for ref in references:
        if ref not in df.columns:
            df[ref] = None
    return df
