"""The prefixes every YARRRML document has, and prefixed names -> IRIs.

The YARRRML specification (https://rml.io/yarrrml/spec/, section 4) predefines the prefixes of
the RDFa 1.1 initial context (https://www.w3.org/2011/rdfa-context/rdfa-1.1), as yarrrml-parser
does (its ``lib/rdfa-context.json``); a document's own ``prefixes`` override them. kgc adds the two
function namespaces RML engines implement (GREL and IDLab), which YARRRML documents use for
functions and conditions. A name whose prefix is none of these is refused (a forgotten
declaration would otherwise become an IRI such as ``<ex:Person>``), but for the IRI schemes
listed in :data:`SCHEMES` (``urn:isbn:...``, ``mailto:...``).
"""
from __future__ import annotations

import re

from pipeline.table.template import SCHEMES

__all__ = ["RDFA_CONTEXT", "PREDEFINED", "MORPH_KGC_PREFIXES", "SCHEMES", "UnknownPrefix", "expand_name",
           "MORPH_KGC_RENAMED_KEYS", "unusable_prefix"]

#: The RDFa 1.1 initial context (W3C), the YARRRML specification's predefined prefixes.
RDFA_CONTEXT: dict[str, str] = {
    "as": "https://www.w3.org/ns/activitystreams#", "dqv": "http://www.w3.org/ns/dqv#",
    "duv": "https://www.w3.org/TR/vocab-duv#", "cat": "http://www.w3.org/ns/dcat#",
    "qb": "http://purl.org/linked-data/cube#", "grddl": "http://www.w3.org/2003/g/data-view#",
    "ldp": "http://www.w3.org/ns/ldp#", "oa": "http://www.w3.org/ns/oa#",
    "ma": "http://www.w3.org/ns/ma-ont#", "owl": "http://www.w3.org/2002/07/owl#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdfa": "http://www.w3.org/ns/rdfa#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#", "rif": "http://www.w3.org/2007/rif#",
    "rr": "http://www.w3.org/ns/r2rml#", "skos": "http://www.w3.org/2004/02/skos/core#",
    "skosxl": "http://www.w3.org/2008/05/skos-xl#", "wdr": "http://www.w3.org/2007/05/powder#",
    "void": "http://rdfs.org/ns/void#", "wdrs": "http://www.w3.org/2007/05/powder-s#",
    "xhv": "http://www.w3.org/1999/xhtml/vocab#", "xml": "http://www.w3.org/XML/1998/namespace",
    "xsd": "http://www.w3.org/2001/XMLSchema#", "prov": "http://www.w3.org/ns/prov#",
    "sd": "http://www.w3.org/ns/sparql-service-description#", "org": "http://www.w3.org/ns/org#",
    "gldp": "http://www.w3.org/ns/people#", "cnt": "http://www.w3.org/2008/content#",
    "dcat": "http://www.w3.org/ns/dcat#", "earl": "http://www.w3.org/ns/earl#",
    "ht": "http://www.w3.org/2006/http#", "ptr": "http://www.w3.org/2009/pointers#",
    "cc": "http://creativecommons.org/ns#", "ctag": "http://commontag.org/ns#",
    "dc": "http://purl.org/dc/terms/", "dc11": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/", "foaf": "http://xmlns.com/foaf/0.1/",
    "gr": "http://purl.org/goodrelations/v1#", "ical": "http://www.w3.org/2002/12/cal/icaltzd#",
    "og": "http://ogp.me/ns#", "rev": "http://purl.org/stuff/rev#",
    "sioc": "http://rdfs.org/sioc/ns#", "v": "http://rdf.data-vocabulary.org/#",
    "vcard": "http://www.w3.org/2006/vcard/ns#", "schema": "http://schema.org/",
    "ssn": "http://www.w3.org/ns/ssn/", "sosa": "http://www.w3.org/ns/sosa/",
    "time": "http://www.w3.org/2006/time#",
}

#: What a YARRRML document may use without declaring it: the RDFa context, and the function
#: namespaces of GREL and IDLab (as yarrrml-parser writes them into its RML).
PREDEFINED: dict[str, str] = {**RDFA_CONTEXT, "grel": "http://users.ugent.be/~bjdmeest/function/grel.ttl#",
                              "idlab-fn": "https://w3id.org/imec/idlab/function#"}


#: The prefixes Morph-KGC 2.10 sets on every YARRRML document it reads, over the document's own
#: declarations (``morph_kgc/mapping/yarrrml.py``, ``_add_default_prefixes``): a document binding
#: one of these names to another namespace gets other IRIs from Morph-KGC than from kgc and
#: yarrrml-parser, which let the document's declaration win as the specification says.
MORPH_KGC_PREFIXES: dict[str, str] = {
    "rml": "http://w3id.org/rml/", "fno": "https://w3id.org/function/ontology#",
    "xsd": "http://www.w3.org/2001/XMLSchema#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "as": "https://www.w3.org/ns/activitystreams#", "csvw": "http://www.w3.org/ns/csvw#",
    "dcat": "http://www.w3.org/ns/dcat#", "dqv": "http://www.w3.org/ns/dqv#", "duv": "https://www.w3.org/ns/duv#",
    "grddl": "http://www.w3.org/2003/g/data-view#", "jsonld": "http://www.w3.org/ns/json-ld#",
    "ldp": "http://www.w3.org/ns/ldp#", "ma": "http://www.w3.org/ns/ma-ont#", "oa": "http://www.w3.org/ns/oa#",
    "odrl": "http://www.w3.org/ns/odrl/2/", "org": "http://www.w3.org/ns/org#",
    "owl": "http://www.w3.org/2002/07/owl#", "prov": "http://www.w3.org/ns/prov#",
    "qb": "http://purl.org/linked-data/cube#", "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfa": "http://www.w3.org/ns/rdfa#", "rif": "http://www.w3.org/2007/rif#", "rr": "http://www.w3.org/ns/r2rml#",
    "sd": "http://www.w3.org/ns/sparql-service-description#", "skos": "http://www.w3.org/2004/02/skos/core#",
    "skosxl": "http://www.w3.org/2008/05/skos-xl#", "ssn": "http://www.w3.org/ns/ssn/",
    "sosa": "http://www.w3.org/ns/sosa/", "time": "http://www.w3.org/2006/time#", "void": "http://rdfs.org/ns/void#",
    "wdr": "http://www.w3.org/2007/05/powder#", "wdrs": "http://www.w3.org/2007/05/powder-s#",
    "xhv": "http://www.w3.org/1999/xhtml/vocab#", "xml": "http://www.w3.org/XML/1998/namespace",
    "cc": "http://creativecommons.org/ns#", "ctag": "http://commontag.org/ns#", "dc": "http://purl.org/dc/terms/",
    "dcterms": "http://purl.org/dc/terms/", "dc11": "http://purl.org/dc/elements/1.1/",
    "foaf": "http://xmlns.com/foaf/0.1/", "gr": "http://purl.org/goodrelations/v1#",
    "ical": "http://www.w3.org/2002/12/cal/icaltzd#", "og": "http://ogp.me/ns#", "rev": "http://purl.org/stuff/rev#",
    "sioc": "http://rdfs.org/sioc/ns#", "v": "http://rdf.data-vocabulary.org/#",
    "vcard": "http://www.w3.org/2006/vcard/ns#", "schema": "http://schema.org/",
}


#: The keys Morph-KGC 2.10 renames wherever they occur in a YARRRML document, to the specification's long
#: forms (``morph_kgc/mapping/yarrrml.py``, ``_normalize_yarrrml_key_names``), the keys under
#: ``prefixes`` too: a prefix with one of these names is gone before its names are expanded.
MORPH_KGC_RENAMED_KEYS = frozenset({"mapping", "m", "subject", "s", "predicateobject", "po", "predicate", "p",
                                    "inversepredicate", "i", "object", "o", "graph", "g", "fn", "f", "pms", "pm",
                                    "v", "author", "a"})


def unusable_prefix(prefix: str, namespace: str) -> str | None:
    """Why a YARRRML document declaring ``prefix`` for ``namespace`` is not read the same by every
    reader, or ``None`` when it is: a name a reader predefines for another namespace
    (:data:`PREDEFINED`, :data:`MORPH_KGC_PREFIXES`: Morph-KGC keeps its own, kgc and yarrrml-parser take
    the document's), or a key Morph-KGC renames (:data:`MORPH_KGC_RENAMED_KEYS`)."""
    if prefix in MORPH_KGC_RENAMED_KEYS:
        return (f"Morph-KGC 2.10 reads the key {prefix!r} anywhere in the document as a YARRRML shortcut, under "
                "'prefixes' too, so it expands none of its names")
    other = next((ns for ns in (MORPH_KGC_PREFIXES.get(prefix), PREDEFINED.get(prefix))
                  if ns is not None and ns != namespace), None)
    if other is not None:
        return f"{prefix}: is predefined as <{other}>, which Morph-KGC 2.10 keeps whatever the document declares"
    return None


_NAME = re.compile(r"^([A-Za-z_][\w.-]*)?:(.*)$", re.S)


class UnknownPrefix(ValueError):
    """A prefixed name whose prefix is not declared; ``prefix`` names it."""

    def __init__(self, prefix: str, name: str) -> None:
        super().__init__(f"prefix {prefix!r} of {name!r} is not declared (add it under 'prefixes:', or write the "
                         "full IRI)")
        self.prefix = prefix


def expand_name(text: str, prefixes: dict[str, str]) -> str:
    """A prefixed name (``schema:Person``) -> its IRI; an IRI or a text without a prefix as it is.

    ``\\:`` is a colon that separates no prefix (``$(id)\\:\\:number``). A colon followed by a
    space (``'sp: $(name)'``) or ``//`` (``http://...``) is no prefix separator either.

    Args:
        text: the name or template as written (``$(...)`` references inside are kept).
        prefixes: prefix -> namespace IRI.
    Returns:
        The expanded text, escaped colons unescaped.
    Raises:
        UnknownPrefix: the prefix is neither declared nor an IRI scheme of :data:`SCHEMES`.
    """
    hold = "\x00colon\x00"
    work = text.replace("\\:", hold)
    m = _NAME.match(work)
    if m and not m.group(2).startswith(("//", " ")) and not work.startswith("$("):
        prefix = m.group(1) or ""
        if prefix in prefixes:
            work = prefixes[prefix] + m.group(2)
        elif prefix.lower() not in SCHEMES:
            raise UnknownPrefix(prefix, text)
    return work.replace(hold, ":")
