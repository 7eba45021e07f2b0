"""A reference that no record of a source holds: a misspelt name, or a field these data lack.

A mapping written for a whole catalogue reads optional fields (``Extended_Description``); run on a
subset, or on a release without one of them, such a reference selects nothing in any record, and
RML gives no term for a record without a value: the other engines write the rest. A misspelt name
(``Names`` where records hold ``Name``, ``customer.ident`` where they hold ``customer.id``) gives
nothing too, and only a person can tell. The records decide which it is: a reference whose name is
close to a name the records do hold, or whose last step the records hold at another path, is
refused as misspelt (:func:`misspelling`); any other is said as a warning and the run goes on.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["misspelling", "CLOSE"]

#: Similarity (difflib's ratio, 2 * matching characters / total characters) from which a name the
#: records hold is taken for the one the reference meant: ``Names``/``Name`` 0.89,
#: ``customer.ident``/``customer.id`` 0.88; ``Extended_Description``/``Description`` 0.71 is not.
CLOSE = 0.8


def misspelling(reference: str, paths: Iterable[str], sep: str) -> str | None:
    """What makes ``reference`` look misspelt against the ``paths`` the records hold, or ``None``.

    Args:
        reference: the reference as written, steps joined by ``sep`` (``address/@type``, ``customer.id``).
        paths: every path (from the record) of an element, attribute or key the records hold, in the
            same notation.
        sep: the step separator (``/`` for XPath, ``.`` for JSON).
    Returns:
        A clause for the message (``"the records hold 'Name'"``), or ``None`` when nothing in the
        records is close to it (a field these data lack).
    """
    paths = sorted(set(paths))
    folded = {p.casefold(): p for p in paths}
    if reference.casefold() in folded:
        return f"the records hold {folded[reference.casefold()]!r} (another case)"
    close = difflib.get_close_matches(reference, paths, n=1, cutoff=CLOSE)
    if close:
        return f"the records hold {close[0]!r}"
    last = reference.rsplit(sep, 1)[-1]
    elsewhere = [p for p in paths if p.rsplit(sep, 1)[-1].casefold() == last.casefold()]
    if elsewhere and sep in reference + elsewhere[0]:
        return f"the records hold {elsewhere[0]!r}"
    return None
