"""Sources: load CSV, JSON and XML files, check them, and decide which file the engine reads.

* :mod:`.load` - :func:`load_source` by format;
* :mod:`.tabular` - CSV (header, separator, byte-order mark, ragged records);
* :mod:`.tree` - JSON and XML (records found by an iterator, paths relative to it);
* :mod:`.model` - :class:`SourceData`, the loaded form the mappers, the compiler and the audit query;
* :mod:`.columns` - columnar, lazily parsed CSV records;
* :mod:`.checks` - load-time checks (what makes a file impossible to map);
* :mod:`.jsonld` - JSON-LD contexts: what each member of a JSON-LD source's records means;
* :mod:`.envelopes` - JSON fields wrapped in objects of one shape (a value beside metadata of its extraction);
* :mod:`.engine_copy` - which file the engine reads for a source: the input or a repaired copy;
* :mod:`.namespaces` - XML namespaces: undeclared and default ones, XPath bound to them.
"""
from __future__ import annotations

from pipeline.sources.load import SourceData, csv_row_findings, load_source, require_readable

__all__ = ["SourceData", "load_source", "require_readable", "csv_row_findings"]
