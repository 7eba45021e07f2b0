"""Logical views and derived sources: what the engine cannot read as it is, computed beside it.

:mod:`.records` reads a logical source's iterations and evaluates references (JSONPath, XPath,
CSV, SPARQL results); :mod:`.view` defines and evaluates RML logical views (fields, nested
iteration, joins) and is the API for any caller with nested data; :mod:`.derive` is the
normalisation pass that writes a derived source for each logical source the engine cannot read
and points the TriplesMaps at it.
"""
