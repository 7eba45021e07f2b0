"""The one lxml parser configuration with which kgc reads XML sources, so that the mapper's
profile, the load checks, the compiler's audits and the in-process views see the document the
engine (Morph-KGC 2.10, Python's ``xml.etree`` on expat) materializes.

What the engine's parser does and lxml does not by default:

* it applies the attribute defaults of the internal DTD subset: XML 1.0 section 3.3.2 (the
  processor "must behave as though the attribute were present with the declared default value")
  and section 5.1 (non-validating processors too must process the internal subset's ATTLIST
  declarations). ``<!ATTLIST livre langue CDATA "fr">`` gives every ``<livre>`` without the
  attribute ``langue="fr"``;
* it never reads an external DTD (expat loads no external subset), so defaults declared there
  are not applied. libxml2's attribute-default option would load the external subset from disk;
  :class:`_NoExternalSubset` serves it as empty, so nothing outside the document is read (no
  XXE, no network) and only the internal subset's defaults apply.
"""
from __future__ import annotations

from pathlib import Path

from lxml import etree

__all__ = ["xml_parser", "parse_file"]


class _NoExternalSubset(etree.Resolver):
    """Serve every external resource the parser asks for (an external DTD subset) as empty text."""

    def resolve(self, url, pubid, context):  # noqa: D102 - lxml's Resolver protocol
        return self.resolve_string("", context)


def xml_parser(resolve_entities: bool | str = False) -> etree.XMLParser:
    """A parser reading XML as the engine does: internal-subset attribute defaults applied,
    nothing external loaded (no network, external DTD served empty), documents of any size.

    Args:
        resolve_entities: lxml's option: ``False`` keeps entity references as nodes, ``"internal"``
            expands the internal subset's entities (external ones are never resolved).
    Returns:
        A fresh :class:`lxml.etree.XMLParser` (parsers are not shared between threads).
    """
    parser = etree.XMLParser(resolve_entities=resolve_entities, no_network=True, load_dtd=False,
                             attribute_defaults=True, huge_tree=True)
    parser.resolvers.add(_NoExternalSubset())
    return parser


def parse_file(path: Path | str, resolve_entities: bool | str = False) -> etree._ElementTree:
    """Parse the XML file at ``path`` with :func:`xml_parser`. The file is handed to lxml opened,
    so the resolver is asked only for what the document refers to, never for the document itself;
    the tree's URL and error messages still name ``path``.

    Raises:
        lxml.etree.XMLSyntaxError: not well-formed. OSError: the file cannot be opened.
    """
    with open(path, "rb") as fh:
        return etree.parse(fh, xml_parser(resolve_entities))
