"""Subject Generation cells scored by what the template identifies.

BLINKG (section 3.3) judges every cell by string similarity ``sim >= tau``.
For a subject IRI template that is not enough: ``edition/{title}`` and
``edition/{isbn}`` are 0.8-similar strings but mint different entities (and
IRIs with spaces, and joins that never meet). A subject template identifies
entities by two things, and this module checks both:

* its **references** (the columns, JSON paths or XPath expressions inside
  ``{...}`` / ``$(...)``, :func:`pipeline.table.template.parse_template`): the two
  cells must reference the same set of values, compared by
  :func:`same_reference` (case-insensitive; an absolute and a relative path
  to the same element agree, ``/entry/id`` ~ ``id``, since the iterator decides
  where a relative path starts); the order of references is ignored
  (``{fname}_{lname}`` and ``{lname}_{fname}`` key the same persons);
* its **IRI pattern** (the constant text around the references): judged, as
  BLINKG defines it, by the cell similarity of the two cells (caller's
  ``sim``), so that ``ex:person/{ID}`` and ``http://example.org/person/{ID}``
  stay alike exactly when they did before.

A pair is a true positive when the references agree *and* ``sim >= tau``.
Cells that cannot be parsed as templates, or where neither template has a
reference (a constant IRI), keep the plain BLINKG similarity: there is no
identity to compare. One cell with references and the other without is
wrong (a constant IRI merges every record into one entity).
Every other task keeps BLINKG's similarity unchanged.
"""
from __future__ import annotations

import re

from pipeline.table.template import TemplateError, parse_template

__all__ = ["template_references", "same_reference", "references_agree"]


def template_references(template: str) -> list[str] | None:
    """References read by a subject template, in order of appearance.

    Args:
        template: a Subject Generation cell, e.g. ``http://ex.org/p/{ID}_{seq}``.
    Returns:
        The referenced columns/paths (``["ID", "seq"]``), ``[]`` for a constant
        IRI, ``None`` when the cell is no parsable template.
    """
    try:
        segments = parse_template(template)
    except TemplateError:
        return None
    return [ref for seg in segments for ref in seg.references()]


def _norm(ref: str) -> str:
    ref = ref.strip().strip("'\"").casefold()
    ref = re.sub(r"\s+", "", ref)
    ref = re.sub(r"^\$\.?", "", ref)  # JSONPath root
    return ref.lstrip("./").replace("\\\"", "\"").replace("'", "\"")


def _same_step(x: str, y: str) -> bool:
    # a prefix is a document-local name for a namespace: an unprefixed step (default namespace)
    # and the same step under the prefix a tool bound to that namespace (``d:title``) agree
    if x == y:
        return True
    if (":" in x) == (":" in y):
        return False
    return x.rsplit(":", 1)[-1] == y.rsplit(":", 1)[-1]


def same_reference(a: str, b: str) -> bool:
    """True when two references name the same column or path.

    Equal after normalisation (case, whitespace, quotes, a leading ``$.``,
    ``/`` or ``./``), or one is a trailing ``/``- or ``.``-separated suffix of the
    other (an absolute and a relative path to the same element). Step by step, a
    prefixed XML step equals the same unprefixed step (``d:title`` ~ ``title``: a
    default namespace bound to a prefix); two different prefixes never do.
    """
    na, nb = _norm(a), _norm(b)
    if not na or not nb:
        return False
    if na == nb:
        return True
    short, long_ = sorted((na, nb), key=len)
    if long_.endswith(short) and long_[-len(short) - 1] in "/.":
        return True
    sa, sb = na.split("/"), nb.split("/")
    n = min(len(sa), len(sb))
    return all(_same_step(x, y) for x, y in zip(sa[-n:], sb[-n:]))


def references_agree(predicted: str, gold: str) -> tuple[bool | None, str]:
    """Compare the references of a predicted and a gold subject template.

    Args:
        predicted: predicted Subject Generation cell.
        gold: gold Subject Generation cell.
    Returns:
        ``(agree, why)``: ``agree`` is ``True``/``False``, or ``None`` when
        references do not decide (a cell is no parsable template, or both are
        constant IRIs); ``why`` explains a ``False``.
    """
    pr, gr = template_references(predicted), template_references(gold)
    if pr is None or gr is None or (not pr and not gr):
        return None, ""
    if not pr or not gr:
        return False, "one template is a constant IRI, the other references values"
    unmatched_p = [p for p in pr if not any(same_reference(p, g) for g in gr)]
    unmatched_g = [g for g in gr if not any(same_reference(p, g) for p in pr)]
    if unmatched_p or unmatched_g:
        return False, (f"references {sorted(set(pr))} identify other entities than gold's {sorted(set(gr))}")
    return True, ""
