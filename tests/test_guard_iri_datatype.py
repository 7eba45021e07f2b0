"""An IRI term map with a datatype never reaches an output file as ``<iri>^^<datatype>``.

The normalisation refuses such a mapping (golden case
``tests/cases/iri-term-map-with-datatype-writes-invalid-ntriples``); these tests run an engine copy
that has one anyway (the normalisation bypassed) and check the guard's backstop, on both engine
paths, and that ``kgc materialize``'s Turtle writer leaves out a statement that is not N-Triples
instead of a parser's traceback.
"""
from __future__ import annotations

from pathlib import Path

import pyoxigraph
import pytest

from pipeline.commands.materialize import _copy_out
from pipeline.materialize.guard import NOT_NT, Guard
from pipeline.materialize.materializer import materialize

_ENGINE_COPY = """@prefix rml: <http://w3id.org/rml/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://example.com/#STOPS> a rml:TriplesMap;
  rml:logicalSource [ rml:source "{src}"; rml:referenceFormulation rml:CSV ];
  rml:subjectMap [ rml:template "http://example.com/stops/{{stop_id}}" ];
  rml:predicateObjectMap [ rml:predicate <http://example.com/locationType>;
    rml:objectMap [ rml:template "http://example.com/LocationType/{{location_type}}"; rml:termType rml:IRI;
                    rml:datatype xsd:anyURI ] ];
  rml:predicateObjectMap [ rml:predicate <http://example.com/name>; rml:objectMap [ rml:reference "name" ] ].
"""


def test_guard_drops_iri_with_datatype() -> None:
    v = Guard().term("<http://example.com/a>^^<http://www.w3.org/2001/XMLSchema#anyURI>", 2)
    assert (v.text, v.reason) == (None, NOT_NT)


@pytest.mark.parametrize("columnar", [True, False])
def test_engine_copy_with_iri_datatype_writes_valid_ntriples(tmp_path: Path, columnar: bool) -> None:
    (tmp_path / "stops.csv").write_text("stop_id,location_type,name\nS1,2,Sol\nS2,0,Opera\n", encoding="utf-8")
    engine = tmp_path / "m.morph-kgc.ttl"
    engine.write_text(_ENGINE_COPY.format(src=tmp_path / "stops.csv"), encoding="utf-8")
    out = tmp_path / "kg.nt"
    result = materialize(engine, output=out, fmt="nt", columnar=columnar)
    text = out.read_text(encoding="utf-8")
    assert "^^" not in text
    assert len(list(pyoxigraph.parse(str(out), "application/n-triples"))) == 2  # the two names
    assert [(f.severity, f.message) for f in result.findings if "dropped" in f.message] == [
        ("error", "2 triple(s) dropped: not a valid N-Triples statement")]


def test_copy_out_turtle_leaves_out_a_line_that_is_not_ntriples(tmp_path: Path) -> None:
    src = tmp_path / "kg.nt.tmp"
    src.write_text("<http://example.com/s> <http://example.com/p> \"ok\" .\n"
                   "<http://example.com/s> <http://example.com/q> <http://example.com/o>^^<http://example.com/d> .\n",
                   encoding="utf-8")
    dropped, first = _copy_out(src, tmp_path / "kg.ttl", "ttl", 2)
    assert (dropped, first) == (1, "line 2: <http://example.com/s> <http://example.com/q> "
                                   "<http://example.com/o>^^<http://example.com/d> .")
    g = [str(q.object) for q in pyoxigraph.parse(str(tmp_path / "kg.ttl"), "text/turtle")]
    assert g == ['"ok"']


def test_a_dropped_reference_iri_with_a_scheme_is_shown_without_the_base():
    """Case iri-value-with-space-drop-shows-base-joined: RML-Core prefixes the base IRI only to a
    value that is no IRI of its own; the message shows the value as the data hold it."""
    from urllib.parse import quote

    from pipeline.materialize.guard import shown
    from pipeline.materialize.rml.vocabulary import REF_NS
    base = quote("http://example.org/", safe="")
    assert shown(f"<s> <p> <{REF_NS}{base}/{quote('http://example.org/a b', safe='')}> .") == \
        "<s> <p> <http://example.org/a b> ."
    assert shown(f"<s> <p> <{REF_NS}{base}/{quote('a b', safe='')}> .") == "<s> <p> <http://example.org/a b> ."
