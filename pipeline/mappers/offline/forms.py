"""Forms of text values a property's name promises: e-mail addresses, telephone numbers, web addresses.

A text range (``xsd:string``, no range) admits any text, but a property named ``email`` (``E-Mail``,
``foaf:mbox``) holds e-mail addresses, one named ``telephone`` telephone numbers, one named ``homepage``
web addresses, whatever its range. The data shows the form: an e-mail address has an ``@`` and a
domain (RFC 5322's addr-spec, simplified), a telephone number is digits with the separators people
write (RFC 3966's visual separators: space, ``-``, ``.``, ``(``, ``)``, ``/``) and perhaps a leading
``+``, a web address starts with ``http(s)://`` or ``www.``. A column none of whose values has the
form the name promises (prices, ``€ 5,50``) is no such column, however few text properties are left.

:func:`value_form` reads a column's form, :func:`named_form` a property's; assignment by elimination
(:mod:`.elimination`) pairs a property naming a form only with a column of that form.
"""
from __future__ import annotations

import re
from typing import Iterable

from rdflib import URIRef

from pipeline.ontology import Ontology
from pipeline.mappers.offline.names import term_names

__all__ = ["FORMS", "value_form", "named_form"]

#: form -> (words of a property name that promise it, pattern of one value of that form)
_FORMS = {
    "e-mail": ({"email", "mbox", "mail", "mailbox"}, re.compile(r"^(mailto:)?[^@\s]+@[^@\s]+\.[^@\s]+$", re.I)),
    "phone": ({"phone", "telephone", "telefon", "telefono", "fax", "tel"},
              re.compile(r"^(tel:)?\+?(?=(?:[^\d]*\d){6})[\d\s().\-/]+$", re.I)),
    "web address": ({"url", "homepage", "website", "webpage", "weblog", "blog"}, re.compile(r"^(https?://|www\.)\S+$", re.I)),
}
#: The forms, in the order they are tested.
FORMS = tuple(_FORMS)


def value_form(values: Iterable[str]) -> str | None:
    """The form (one of :data:`FORMS`) more than half of the non-empty ``values`` have, else ``None``."""
    vals = [v.strip() for v in values if v and v.strip()]
    for form, (_, pattern) in _FORMS.items():
        if vals and sum(1 for v in vals if pattern.match(v)) > 0.5 * len(vals):
            return form
    return None


def named_form(ontology: Ontology, prop: URIRef) -> str | None:
    """The form (one of :data:`FORMS`) a word of the property's local name or of one of its labels promises
    (``contactEmail``, ``E-Mail``, ``foaf:phone``), else ``None``; the first form when names promise several."""
    said = {w for name in term_names(ontology, prop) for w in name.split()}
    return next((form for form, (names, _) in _FORMS.items() if names & said), None)
