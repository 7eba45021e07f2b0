"""RML -> YARRRML keeps every predicate of a predicate-object map (constants and predicate maps): the
YARRRML written, read back, gives the same KG in Morph-KGC."""
from __future__ import annotations

from pathlib import Path

from rdflib import Graph

from pipeline.compile.yarrrml import from_yarrrml, to_yarrrml
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml

YARRRML = """prefixes:
  ex: http://example.org/
mappings:
  battle:
    sources: [['{csv}~csv']]
    s: ex:battle/$(id)
    po:
      - [[ex:name, rdfs:label], $(name)]
      - [[ex:hasWinner, ex:hasParticipant], ex:dancer/$(winner)~iri]
      - [ex:$(role), $(name)]
"""


def _kg(rml: Graph, path: Path) -> set[str]:
    normalize_rml(rml).graph.serialize(path, format="turtle")
    return set(materialize(path).triples)


def test_every_predicate_survives_the_round_trip(tmp_path):
    (tmp_path / "b.csv").write_text("id,name,winner,role\nb1,Battle 2018,d7,title\n", encoding="utf-8")
    rml = from_yarrrml(YARRRML.format(csv=tmp_path / "b.csv"))
    text = to_yarrrml(rml)
    back = from_yarrrml(text)
    kg = _kg(rml, tmp_path / "a.ttl")
    assert len(kg) == 5  # 2 names, winner and participant, the name under the predicate the row names
    assert "<http://example.org/title>" in "".join(kg)
    assert _kg(back, tmp_path / "b.ttl") == kg
