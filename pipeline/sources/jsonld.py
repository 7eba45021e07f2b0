"""JSON-LD contexts of a JSON source: what each member of its records means, as its ``@context`` says.

A JSON document is JSON-LD when an object on the way to its records, or a record, holds ``@context``
(JSON-LD 1.1, https://www.w3.org/TR/json-ld11/, section 3.1). The context's term definitions (section
4.1) say what each member means: the IRI it expands to (a term's ``@id``, a compact IRI ``prefix:local``
through a prefix the context defines, ``@vocab`` + the member name), the datatype of its values (``"@type":
"xsd:float"``; ``"@id"`` or ``"@vocab"``: the values are IRIs), their language (``@language``), and
keyword aliases (``"features": "@graph"``, ``"url": "@id"``). Contexts are processed by rdflib's JSON-LD
context processor (:class:`rdflib.plugins.shared.jsonld.context.Context`): the context active at a record
is the contexts of the objects above it in document order, then the record's own and those of the objects
inside it; a term's own (property-scoped) context applies to the object it holds.

Nothing is fetched: a remote context (a URL in ``@context``) and ``@import`` are left out, and a note says
so; what they define is unknown to :func:`read_contexts` and those members mean nothing here.

:func:`read_contexts` gives a :class:`JsonLd` per source: reference (the dotted path the loader gives a
member, :func:`pipeline.sources.tree.flatten_json`) -> :class:`Definition`, and for members whose values
are IRIs (``@id``, ``@type`` and the terms coerced to ``@id``/``@vocab``) each value's expanded IRI.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from jsonpath_ng.ext import parse as jp_parse
from rdflib.plugins.shared.jsonld.context import UNDEF, Context
from rdflib.plugins.shared.jsonld.keys import CONTEXT, GRAPH, ID, IMPORT, INCLUDED, LANG, NEST, TYPE, VOCAB

__all__ = ["Definition", "JsonLd", "read_contexts", "KEYWORDS"]

#: The JSON-LD keywords a member can be, or be an alias of (JSON-LD 1.1 section 1.7).
KEYWORDS = frozenset({"@id", "@type", "@graph", "@value", "@language", "@list", "@set", "@reverse", "@index",
                      "@included", "@nest", "@json", "@direction", "@none"})


@dataclass(frozen=True)
class Definition:
    """What the active context says of one member (JSON-LD 1.1 section 4.1, term definitions).

    Attributes:
        term: the member name as the data writes it (``latitude``).
        keyword: the keyword the member is or aliases (``@id``, ``@type``, ``@graph`` ...), else ``None``.
        iri: the IRI the member expands to (``http://www.w3.org/2003/01/geo/wgs84_pos#lat``), else ``None``
            (a keyword, or a member the context does not define: JSON-LD drops it, section 4.1).
        datatype: the definition's type coercion: an IRI (``http://www.w3.org/2001/XMLSchema#float``),
            ``@id`` or ``@vocab`` (the values are IRIs), ``@json``, or ``None`` (no coercion).
        language: the language tag of its string values (the term's ``@language``, else the context's
            default); ``""`` when the term sets ``"@language": null``; ``None`` when nothing says one.
        container: the term's ``@container`` values (``{"@set"}``, ``{"@language"}``).
        reverse: the term is a reverse property (``@reverse``): its values are the subjects.
        language_member: the member is a key of a language map (``name.en`` under a term of
            ``"@container": "@language"``, section 4.6.2): ``language`` is that key.
    """

    term: str
    keyword: str | None = None
    iri: str | None = None
    datatype: str | None = None
    language: str | None = None
    container: frozenset[str] = frozenset()
    reverse: bool = False
    language_member: bool = False


@dataclass
class JsonLd:
    """The JSON-LD reading of a source's records.

    Attributes:
        definitions: reference -> :class:`Definition` of the member at that path (members the records
            define differently are left out, with a note).
        iris: reference -> {value as written -> its expanded IRI} for members whose values are IRIs
            (``@id``: compact IRIs expanded, relative ones resolved against ``@base``; ``@type`` and
            ``@vocab``-coerced terms: vocabulary-relative, terms and ``@vocab`` too, section 4.3).
        notes: what was not read (remote contexts, ``@import``) or could not be (an invalid context).
    """

    definitions: dict[str, Definition] = field(default_factory=dict)
    iris: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _local(source, notes: list[str]) -> list:
    """The parts of a ``@context`` value that are read here: its objects (without ``@import``) and ``null``;
    a remote context (a string, an IRI to fetch) is left out with a note."""
    out = []
    for part in source if isinstance(source, list) else [source]:
        if isinstance(part, str):
            notes.append(f"the remote JSON-LD context {part!r} was not read (kgc fetches nothing): the members "
                         "it defines are matched by name")
        elif isinstance(part, dict):
            if IMPORT in part:
                notes.append(f"the JSON-LD context's @import {part[IMPORT]!r} was not read (kgc fetches nothing)")
                part = {k: v for k, v in part.items() if k != IMPORT}
            out.append(part)
        elif part is None:
            out.append(None)
    return out


def _apply(ctx: Context, source, notes: list[str]) -> Context:
    """``ctx`` with the local context ``source`` processed on top of it (rdflib's context processing)."""
    parts = _local(source, notes)
    if not parts:
        return ctx
    try:
        return ctx.subcontext(parts)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # rdflib's JSONLDException is a ValueError
        notes.append(f"a JSON-LD context could not be read ({exc or type(exc).__name__}): its members are matched "
                     "by name")
        return ctx


def _definition(ctx: Context, key: str) -> Definition:
    """The definition of member ``key`` in the active context ``ctx``."""
    if key in KEYWORDS:
        return Definition(key, keyword=key)
    term = ctx.terms.get(key)
    if term is not None and term.id in KEYWORDS:
        return Definition(key, keyword=term.id)
    iri = ctx.expand(key)
    if term is None and ":" in key and "://" not in key and key.split(":", 1)[0] not in ctx.terms:
        iri = None  # a prefix the context does not define: no compact IRI of the context's
    if term is not None and term.id is None:
        iri = None  # "@id": null decouples the term from any IRI (section 4.1)
    if not iri or iri.startswith("_:"):
        return Definition(key)
    coercion = term.type if term is not None and term.type is not UNDEF else None
    if term is not None and term.language is not UNDEF:
        language = term.language or ""
    else:
        language = ctx.language if coercion is None else None
    container = frozenset(term.container) if term is not None and term.container is not UNDEF else frozenset()
    return Definition(key, iri=iri, datatype=coercion, language=language, container=container,
                      reverse=bool(term is not None and term.reverse))


def _walk(obj: dict, ctx: Context, path: str, out: JsonLd, seen: dict[str, Definition | None]) -> None:
    """Define the members of the node object ``obj`` (at the dotted ``path`` of its record) in ``out``, and
    those of the node objects its properties, ``@graph`` and ``@nest`` members hold."""
    if CONTEXT in obj:
        ctx = _apply(ctx, obj[CONTEXT], out.notes)
    for key, value in obj.items():
        if key == CONTEXT:
            continue
        ref = f"{path}.{key}" if path else str(key)
        d = _definition(ctx, str(key))
        _record(out, seen, ref, d)
        items = value if isinstance(value, list) else [value]
        if d.keyword in (ID, TYPE) or d.datatype in (ID, VOCAB):
            vocab = d.keyword == TYPE or d.datatype == VOCAB  # @type values are vocabulary-relative (4.3)
            for v in items:
                if isinstance(v, str) and (iri := ctx.expand(v, use_vocab=True) if vocab else ctx.resolve(v)):
                    out.iris.setdefault(ref, {}).setdefault(v, iri)
        objects = [v for v in items if isinstance(v, dict)]
        if LANG in d.container:  # a language map: its keys are language tags (section 4.6.2)
            for tag in (t for v in objects for t in v):
                _record(out, seen, f"{ref}.{tag}", Definition(str(tag), iri=d.iri, language=str(tag),
                                                              language_member=True))
        elif d.iri and not d.reverse:  # node objects of a property, under the term's own context (4.1.8)
            inner = ctx.get_context_for_term(ctx.terms.get(str(key)))
            for v in objects:
                _walk(v, inner, ref, out, seen)
        elif d.keyword in (GRAPH, NEST, INCLUDED):  # nodes of a graph; a node's own properties, nested
            for v in objects:
                _walk(v, ctx, ref, out, seen)
        # a member the context does not define is dropped by JSON-LD with all it holds (section 4.1)


def _record(out: JsonLd, seen: dict[str, Definition | None], ref: str, d: Definition) -> None:
    """Keep the first definition of ``ref``; another record defining it otherwise voids it, with a note."""
    if ref not in seen:
        seen[ref] = out.definitions[ref] = d
    elif seen[ref] is not None and seen[ref] != d:
        seen[ref] = None
        del out.definitions[ref]
        out.notes.append(f"the records' JSON-LD contexts define {ref!r} differently: it is matched by name")


def read_contexts(document, iterator: str) -> JsonLd | None:
    """The JSON-LD reading of the records ``iterator`` (a JSONPath) selects in the parsed JSON ``document``.

    Args:
        document: the whole parsed document (contexts above the records apply to them).
        iterator: the source's records, as the loader reads them (``$.features[*]``).
    Returns:
        ``None`` when no object on the way to a record, and no record, holds ``@context`` (no JSON-LD:
        nothing is read); else the :class:`JsonLd` of the records' members.
    Raises:
        jsonpath_ng.exceptions.JSONPathError: ``iterator`` is no JSONPath (the loader checked it).
    """
    out, seen, found = JsonLd(), {}, False
    cache: dict[tuple[int, ...], Context] = {}
    for match in jp_parse(iterator).find(document):
        above, node = [], match.context
        while node is not None:  # the objects above the record, innermost first
            if isinstance(node.value, dict) and CONTEXT in node.value:
                above.append(node.value)
            node = node.context
        record = match.value
        if not isinstance(record, dict):
            continue
        found = found or bool(above) or _holds_context(record)
        key = tuple(id(a) for a in above)
        if key not in cache:
            ctx = Context()
            for holder in reversed(above):
                ctx = _apply(ctx, holder[CONTEXT], out.notes)
            cache[key] = ctx
        _walk(record, cache[key], "", out, seen)
    if not found:
        return None
    out.notes = list(dict.fromkeys(out.notes))
    return out


def _holds_context(obj) -> bool:
    """``obj`` or an object inside it holds ``@context``."""
    if isinstance(obj, dict):
        return CONTEXT in obj or any(_holds_context(v) for v in obj.values())
    return isinstance(obj, list) and any(_holds_context(v) for v in obj)
