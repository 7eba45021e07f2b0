"""Column mechanics of the guard (:meth:`pipeline.materialize.guard.Guard.frame`): the screen of a column's
distinct terms, constant columns, and the statement text of dropped rows.

The screen decides which terms need a check at all. Most terms an engine writes are ASCII IRIs
without anything to check or string literals with nothing to escape; one regular-expression match
over the distinct terms joined by line breaks consumes those in C, and only the few others go
through the guard's checks (SV2's RFC 3987, XSD and BCP 47 checks). :data:`FAST_IRI_TOKEN` also
decides which IRI templates need no check at all (:func:`pipeline.materialize.engine.trusted_template`).
"""
from __future__ import annotations

import re

from pipeline.materialize.rml.normalize import BNODE_NS, REF_NS
from pipeline.materialize.output import row_count

__all__ = ["BAD_PERCENT", "FAST_IRI_TOKEN", "column_rows", "is_constant", "screen", "statement_texts"]

# a whole column of distinct terms is screened by one scan over its lines: the terms these match
# need a check; every other term is an ASCII IRI that the guard's plain-IRI pattern accepts, without
# brackets or a private namespace, or a string literal with nothing to escape: canonical as it is. (Plain
# character classes: '%' is allowed in the scan and a '%' without two upper-case hex digits is
# found by a second scan, which is several times faster than one pattern with both.)
_IRI_ASCII = r"[A-Za-z0-9\-._~:/?@!$&'()*+,;=%]"
FAST_IRI_TOKEN = (rf"<(?!{re.escape(BNODE_NS)}|{re.escape(REF_NS)})[a-z][a-z0-9+.\-]*:(?!//[^/?#\n]*:)"
                  rf"{_IRI_ASCII}*(?:#{_IRI_ASCII}*)?>")
_NEEDS_CHECK = {False: re.compile(rf"^(?!{FAST_IRI_TOKEN}$).*$", re.MULTILINE),
                True: re.compile(rf'^(?!(?:{FAST_IRI_TOKEN}|"[^"\\\n\r]*")$).*$', re.MULTILINE)}
# the same screen run the other way: one possessive match consumes a block of lines that need no
# check (no backtracking state per line), about twice as fast as the scan above on IRI columns
_CANONICAL_LINES = {False: re.compile(rf"(?:{FAST_IRI_TOKEN}\n)*+"),
                    True: re.compile(rf'(?:(?:{FAST_IRI_TOKEN}|"[^"\\\n\r]*")\n)*+')}
#: flagged lines after which the rest of a column is screened by _NEEDS_CHECK (a line each is cheaper there)
_MANY_FLAGGED = 64
BAD_PERCENT = re.compile(r"%(?![0-9A-F]{2})")


def screen(text: str, literals: bool) -> set[str]:
    """The lines of ``text`` (terms joined by line breaks) that the screen flags: those that are
    not a plain ASCII IRI (nor, with ``literals``, a string literal with nothing to escape)."""
    text += "\n"
    canonical, flagged, pos, end = _CANONICAL_LINES[literals], set(), 0, len(text)
    while pos < end:
        pos = canonical.match(text, pos).end()
        if pos >= end:
            break
        if len(flagged) >= _MANY_FLAGGED:  # many terms to check: one scan finds the rest
            flagged.update(m.group(0) for m in _NEEDS_CHECK[literals].finditer(text, pos, end - 1))
            break
        stop = text.index("\n", pos)
        flagged.add(text[pos:stop])
        pos = stop + 1
    return flagged


def is_constant(col) -> bool:
    """Whether an array holds one term on every row (the first and last rows decide most cases at once)."""
    return col[0] == col[-1] and bool((col == col[0]).all())


def statement_texts(columns: list) -> list[str]:
    """``"s p o g"`` per row of four term arrays (or ``str``), without the space before an empty graph;
    joined in C and split again (row by row when a term holds a line break)."""
    import numpy as np

    n = row_count(columns)
    s, p, o, g = columns
    pieces = np.empty(6 * n, dtype=object)
    pieces[0::6], pieces[1::6], pieces[2::6], pieces[3::6], pieces[4::6] = s, " ", p, " ", o
    pieces[5::6] = (" " + g if g else "") if isinstance(g, str) else np.where(g == "", "", " " + g)
    pieces = pieces.tolist()
    pieces[5::6] = [t + "\n" for t in pieces[5::6]]
    text = "".join(pieces)
    if text.count("\n") == n:
        return text.split("\n")[:-1]
    return [f"{a} {b} {c} {d}".rstrip(" ") for a, b, c, d in zip(*(np.broadcast_to(np.asarray(t, dtype=object), (n,))
                                                                   .tolist() for t in columns))]


def column_rows(col, mask):
    """The rows a boolean ``mask`` selects of a column given as an array or as one ``str`` (every row)."""
    import numpy as np

    return np.full(int(np.count_nonzero(mask)), col, dtype=object) if isinstance(col, str) else col[mask]
