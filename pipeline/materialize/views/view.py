"""RML logical views (kg-construct RML-LV draft, https://w3id.org/rml/lv/spec): definition and evaluation.

A logical view is a flat, format-agnostic view on a logical source (or on another view):
*fields* name data of each iteration, *iterable fields* iterate nested data (a JSON array in a
record, CSV text in a JSON member, ...) and multiply the iteration, *joins* extend each iteration
with fields of another view. Evaluating a view gives its *logical view iteration sequence*: one
``dict`` per iteration, from key to :class:`~pipeline.materialize.views.records.Value` or
``None`` (null), with the keys

* ``#``: the index of the underlying iteration of the source (or parent view);
* per expression field, its absolute name (``item.type``: names of the ancestors and the field,
  joined with ``.``) and ``<name>.#``, the position of the value in the field's evaluation result;
* per iterable field, ``<name>.#`` only (its records are not referenceable).

Sibling fields combine as an n-ary Cartesian product (an expression that yields nothing, or an
iterable field with no records, contributes one null, so the iteration is kept); a left join
keeps an iteration without match (join fields null), an inner join drops it. A join field's
index is the position of its value among the values it takes over all matching parent
iterations. The natural datatype of an index is ``xsd:integer``, of an expression record that of
its reference formulation (JSON numbers and booleans).

The API serves any caller with nested data, not only RML documents::

    view = LogicalView(Source(Path("people.json"), "JSONPath", "$.people[*]"), [
        ExpressionField("name", reference="$.name"),
        IterableField("item", iterator="$.items[*]", fields=[ExpressionField("type", reference="$.type")])])
    for row in view.iterations():      # {"#": Value("0"), "name": Value("alice"), "item.#": ..., "item.type": ...}
        ...

:func:`read_view` builds a :class:`LogicalView` from an RML document's ``rml:LogicalView``.
Errors (a cycle, a name collision, a reference to no referenceable key) raise
:class:`ViewError` naming the view and the field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import product
from typing import Any, Union

from pipeline.errors import InputError
from pipeline.materialize.views.records import Iteration, Source, Value, iterate, read_document

__all__ = ["ViewError", "Expression", "ExpressionField", "IterableField", "ViewJoin", "LogicalView",
           "ViewIteration", "expand_template", "template_references", "escape", "unescape", "PLACEHOLDER", "INDEX"]

_XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
#: The root index key of every logical view iteration.
INDEX = "#"
#: A template's placeholder (RML-Core: ``\\{``, ``\\}`` and ``\\\\`` are the text's own characters).
PLACEHOLDER = re.compile(r"(?<!\\)\{((?:\\.|[^{}\\])*)\}")


#: Iterations one record of a logical view may give: past it the cross product of its fields' values is
#: refused (a view reading a dozen repeated parts of one record multiplies their counts: millions of
#: iterations for three records, a run that does not end).
MAX_ITERATIONS = 100_000


class ViewError(InputError):
    """A logical view that cannot be evaluated (message names the view and the cause)."""


@dataclass
class Expression:
    """An expression map: exactly one of ``reference``, ``template``, ``constant``."""

    reference: str | None = None
    template: str | None = None
    constant: str | None = None

    def evaluate(self, it: Iteration) -> list[Value]:
        """The expression's evaluation result in one iteration (strings of templates and constants)."""
        if self.reference is not None:
            return it.values(self.reference)
        if self.template is not None:
            return [Value(s) for s in expand_template(self.template, it.values)]
        if self.constant is not None:
            return [Value(self.constant)]
        return []

    def references(self) -> list[str]:
        if self.reference is not None:
            return [self.reference]
        if self.template is not None:
            return template_references(self.template)
        return []


def unescape(text: str) -> str:
    """A template's text or reference with its escapes resolved (``\\{`` -> ``{``)."""
    return re.sub(r"\\(.)", r"\1", text)


def escape(text: str) -> str:
    """``text`` as a template writes it, the inverse of :func:`unescape` (``a{b`` -> ``a\\{b``)."""
    return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")


def template_references(template: str) -> list[str]:
    """The references of an RML template, in order, escapes resolved (``{a\\}b}`` -> ``a}b``)."""
    return [unescape(m.group(1)) for m in PLACEHOLDER.finditer(template)]


def expand_template(template: str, values) -> list[str]:
    """The strings of a template (RML-Core: the n-ary Cartesian product of its references' values,
    in order; no value for one reference, no string). ``values(reference) -> list[Value]``."""
    parts = PLACEHOLDER.split(template)
    constants = [unescape(p) for p in parts[0::2]]
    refs = [unescape(p) for p in parts[1::2]]
    choices = [[v.lexical for v in values(r)] for r in refs]
    out = []
    for combo in product(*choices):
        s = constants[0]
        for value, const in zip(combo, constants[1:]):
            s += value + const
        out.append(s)
    return out


@dataclass
class ExpressionField:
    """A field whose records are the values of an expression; its nested fields (iterable fields
    with their own reference formulation) iterate each value."""

    name: str
    reference: str | None = None
    template: str | None = None
    constant: str | None = None
    fields: list["Field"] = field(default_factory=list)

    @property
    def expression(self) -> Expression:
        return Expression(self.reference, self.template, self.constant)


@dataclass
class IterableField:
    """A field whose records are the iterations of ``iterator`` on the parent record, read with
    ``formulation`` (default: the parent's)."""

    name: str
    iterator: str | None = None
    formulation: str | None = None
    namespaces: dict[str, str] = field(default_factory=dict)
    fields: list["Field"] = field(default_factory=list)


Field = Union[ExpressionField, IterableField]


@dataclass
class ViewJoin:
    """A join of a view with a parent view: ``conditions`` pair a child expression (on the view's
    iteration) with a parent expression (on the parent's); ``fields`` are evaluated on the parent."""

    parent: "LogicalView"
    conditions: list[tuple[Expression, Expression]]
    fields: list[ExpressionField]
    inner: bool = False


class ViewIteration(Iteration):
    """A logical view iteration as an iteration: a reference names a referenceable key."""

    formulation = "view"

    def __init__(self, row: dict[str, Value | None], view: "LogicalView") -> None:
        self.row, self.view = row, view

    def values(self, reference: str) -> list[Value]:
        if reference not in self.row:
            hidden = reference in self.view.record_keys()
            raise ViewError(f"logical view {self.view.label()}: {reference!r} is "
                            + ("the record key of an iterable record, which cannot be referenced"
                               if hidden else f"no key of the view (keys: {', '.join(self.view.keys())})"))
        v = self.row[reference]
        return [] if v is None else [v]

    def document(self) -> Any:
        return self.row


@dataclass
class LogicalView:
    """A logical view on a :class:`Source` or another view.

    Attributes:
        on: the abstract logical source. fields: its fields. joins: left and inner joins.
        name: how messages name the view (its IRI in the mapping).
    """

    on: Union[Source, "LogicalView"]
    fields: list[Field]
    joins: list[ViewJoin] = field(default_factory=list)
    name: str = ""

    def label(self) -> str:
        return f"<{self.name}>" if self.name else "(unnamed)"

    def _walk(self, fields: list[Field], prefix: str):
        for f in fields:
            name = prefix + f.name
            yield f, name
            yield from self._walk(f.fields, name + ".")

    def keys(self) -> list[str]:
        """The referenceable keys, in order (``#``, field names and their indexes, join fields).

        Raises:
            ViewError: two fields with the same absolute name, or a join field named like a key.
        """
        keys = [INDEX]
        for f, name in self._walk(self.fields, ""):
            new = [name, name + ".#"] if isinstance(f, ExpressionField) else [name + ".#"]
            for k in new:
                if k in keys:
                    raise ViewError(f"logical view {self.label()}: two fields are named {name!r} "
                                    "(fields with the same parent must have different names)")
            keys += new
        for j in self.joins:
            for f in j.fields:
                if f.name in keys or f.name + ".#" in keys:
                    raise ViewError(f"logical view {self.label()}: the join field {f.name!r} (from parent view "
                                    f"{j.parent.label()}) has the name of another field of the view")
                keys += [f.name, f.name + ".#"]
        return keys

    def record_keys(self) -> set[str]:
        """Keys of iterable records, which exist but cannot be referenced (``<it>`` and iterable fields)."""
        return {"<it>"} | {name for f, name in self._walk(self.fields, "") if isinstance(f, IterableField)}

    def iterations(self, _active: tuple = ()) -> list[dict[str, Value | None]]:
        """The logical view iteration sequence (see the module docstring).

        Raises:
            ViewError: a cycle (the view is, through ``viewOn`` or joins, its own source), a name
                collision, a reference to no referenceable key.
            InputError: the source cannot be read.
        """
        if any(v is self for v in _active):
            raise ViewError(f"logical view {self.label()} is defined in terms of itself (a cycle through "
                            "rml:viewOn or a join's rml:parentLogicalView)")
        active = (*_active, self)
        keys = self.keys()
        if isinstance(self.on, LogicalView):
            base = [ViewIteration(r, self.on) for r in self.on.iterations(active)]
            formulation = "view"
        else:
            src = self.on
            base = iterate(src.formulation, read_document(src), src.iterator, namespaces=src.namespaces,
                           nulls=src.nulls, where=src.label())
            formulation = src.formulation
        rows: list[dict[str, Value | None]] = []
        for index, it in enumerate(base):
            partial: list[dict[str, Value | None]] = [{INDEX: Value(str(index), _XSD_INTEGER)}]
            factors: list[tuple[str, int]] = []
            for f in self.fields:
                options = self._expand(f, it, formulation, "", (index, factors))
                partial = self._product(partial, options, f.name, (index, factors))
            rows.extend(partial)
        for j in self.joins:
            rows = self._join(rows, j, active)
        for r in rows:  # every key in every iteration (null where a field had no record)
            for k in keys:
                r.setdefault(k, None)
        return rows

    def _product(self, left: list[dict], right: list[dict], name: str, record: tuple[int, list]) -> list[dict]:
        """Every combination of ``left`` and ``right`` (RML-LV: a record's field values are combined as a
        cross product), refused past :data:`MAX_ITERATIONS` per record with the fields that multiply.

        Raises:
            ViewError: the record would give more than :data:`MAX_ITERATIONS` iterations.
        """
        index, factors = record
        if len(right) > 1:
            factors.append((name, len(right)))
        if len(left) * len(right) > MAX_ITERATIONS:
            many = sorted(factors, key=lambda f: -f[1])
            raise ViewError(
                f"logical view {self.label()}: record {index} gives more than {MAX_ITERATIONS:,} iterations: the values "
                "of its fields are combined as a cross product (RML-LV), here "
                + " x ".join(f"{n!r} {k}" for n, k in many[:8]) + (" x ..." if len(many) > 8 else "")
                + "; fields with several values each that no term reads together belong to views (or TriplesMaps) "
                "of their own")
        return [{**o, **c} for o in left for c in right]

    def _expand(self, f: Field, it: Iteration, formulation: str, prefix: str,
                record: tuple[int, list] = (0, [])) -> list[dict[str, Value | None]]:
        """The alternatives one field (with its nested fields) contributes to an iteration (``record``:
        the record's index and the factors of its product so far, for :meth:`_product`)."""
        name = prefix + f.name
        if isinstance(f, ExpressionField):
            values = f.expression.evaluate(it)
            if not values:
                return [{name: None, name + ".#": None}]
            out = []
            for i, v in enumerate(values):
                base = {name: v, name + ".#": Value(str(i), _XSD_INTEGER)}
                options = [base]
                for sub in f.fields:
                    if not isinstance(sub, IterableField) or not sub.formulation:
                        raise ViewError(f"logical view {self.label()}: the field {prefix + sub.name!r} nested in the "
                                        f"expression field {name!r} must be an iterable field with a reference "
                                        "formulation")
                    child = _Nested(v)
                    options = self._product(options, self._expand(sub, child, sub.formulation, name + ".", record),
                                            name + "." + sub.name, record)
                out.extend(options)
            return out
        fm = f.formulation or formulation
        if fm == "view":
            raise ViewError(f"logical view {self.label()}: the iterable field {name!r} needs a reference formulation")
        records = iterate(fm, it.document(), f.iterator, namespaces=f.namespaces or getattr(it, "namespaces", None),
                          nulls=getattr(it, "nulls", frozenset()), where=f"field {name!r} of {self.label()}")
        if not records:
            return [{name + ".#": None, **{k: None for k in self._nested_keys(f, name)}}]
        out = []
        for i, rec in enumerate(records):
            options: list[dict[str, Value | None]] = [{name + ".#": Value(str(i), _XSD_INTEGER)}]
            for sub in f.fields:
                options = self._product(options, self._expand(sub, rec, fm, name + ".", record), name + "." + sub.name,
                                        record)
            out.extend(options)
        return out

    def _nested_keys(self, f: Field, name: str) -> list[str]:
        out = []
        for sub, sub_name in self._walk(f.fields, name + "."):
            out += [sub_name, sub_name + ".#"] if isinstance(sub, ExpressionField) else [sub_name + ".#"]
        return out

    def _join(self, rows: list[dict], j: ViewJoin, active: tuple) -> list[dict]:
        parent_rows = j.parent.iterations(active)
        parents = [ViewIteration(r, j.parent) for r in parent_rows]
        # parent iterations by the values of their join expressions (a hash join)
        index: dict[tuple, list[int]] = {}
        for i, p in enumerate(parents):
            for key in product(*[[v.lexical for v in pe.evaluate(p)] for _, pe in j.conditions]):
                index.setdefault(key, []).append(i)
        out = []
        for r in rows:
            child = ViewIteration(r, self)
            matches: list[int] = []
            for key in product(*[[v.lexical for v in ce.evaluate(child)] for ce, _ in j.conditions]):
                matches += [i for i in index.get(key, []) if i not in matches]
            if not matches:
                if not j.inner:
                    out.append({**r, **{k: None for f in j.fields for k in (f.name, f.name + ".#")}})
                continue
            counters = {f.name: 0 for f in j.fields}
            for i in sorted(matches):
                options: list[dict] = [{}]
                for f in j.fields:
                    values = f.expression.evaluate(parents[i])
                    alts = []
                    for v in values or [None]:
                        if v is None:
                            alts.append({f.name: None, f.name + ".#": None})
                        else:
                            alts.append({f.name: v, f.name + ".#": Value(str(counters[f.name]), _XSD_INTEGER)})
                            counters[f.name] += 1
                    options = [{**o, **a} for o in options for a in alts]
                out.extend({**r, **o} for o in options)
        return out


class _Nested(Iteration):
    """An expression record as the document of a nested iterable field."""

    def __init__(self, value: Value) -> None:
        self.value = value

    def values(self, reference: str) -> list[Value]:  # pragma: no cover - nested fields iterate, not reference
        raise ViewError(f"{reference!r}: an expression record cannot be referenced directly")

    def document(self) -> Any:
        return self.value.raw if self.value.raw is not None else self.value.lexical
