"""Sources: load CSV, JSON and XML files, check them, and write the copies the engine reads.

* :mod:`.load` - :func:`load_source` by format;
* :mod:`.tabular` - CSV (header, separator, byte-order mark, ragged records);
* :mod:`.tree` - JSON and XML (records found by an iterator, paths relative to it);
* :mod:`.model` - :class:`SourceData`, the loaded form the mappers, the compiler and the audit query;
* :mod:`.columns` - columnar, lazily parsed CSV records;
* :mod:`.checks` - load-time checks (what makes a file impossible to map);
* :mod:`.repair` - repaired input copies and XPath namespace binding.
"""
from __future__ import annotations

from pipeline.sources.load import (KNOWN_XML_NAMESPACES, SourceData, csv_row_findings, load_source, repair_xml,
                                   require_readable, undeclared_prefixes, xml_namespaces)

__all__ = ["KNOWN_XML_NAMESPACES", "SourceData", "load_source", "require_readable", "repair_xml", "undeclared_prefixes",
           "xml_namespaces", "csv_row_findings"]
