"""The class of an entity from a coded element (:mod:`pipeline.mappers.offline.codeclass`), on a
hand-made XML feed and ontology (not BLINKG): a code list that tells subclasses apart decides, a
code that names none keeps the class the ontology names, and the rule stays silent otherwise."""
from __future__ import annotations

import pytest
from rdflib import URIRef

from pipeline.manifest import Source
from pipeline.mappers.offline.codeclass import coded_subclass, distinguishing_words
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source

EX = "http://example.org/tender#"
_LIST = "https://contrataciondelestado.es/codice/cl/2.08/ContractingSystemTypeCode-2.08.gc"

_ONTOLOGY = """@prefix ex: <http://example.org/tender#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Tender a owl:Class ; rdfs:label "Tender"@en .
ex:Method a owl:Class ; rdfs:label "Purchasing method"@en .
ex:FrameworkMethod a owl:Class ; rdfs:subClassOf ex:Method ;
    rdfs:label "Framework agreement purchasing method"@en .
ex:DynamicMethod a owl:Class ; rdfs:subClassOf ex:Method ;
    rdfs:label "Dynamic purchasing system method"@en .
ex:Auction a owl:Class ; rdfs:label "Auction"@en .
ex:ReverseAuction a owl:Class ; rdfs:subClassOf ex:Auction ; rdfs:label "Reverse auction"@en .
"""


def _feed(tmp_path, codes):
    items = "".join(f"<tender><ref>T{i}</ref><terms><system listURI=\"{_LIST}\">{c}</system>"
                    f"<title>Tender {i}</title></terms></tender>" for i, c in enumerate(codes, 1))
    path = tmp_path / "tenders.xml"
    path.write_text(f"<tenders>{items}</tenders>", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(_ONTOLOGY)
    data = load_source(Source(path=path, format="xml"), tmp_path)
    return load_ontology([tmp_path / "o.ttl"]), data


def test_distinguishing_words_are_the_label_words_the_parent_lacks(tmp_path):
    ont, _ = _feed(tmp_path, ["0"])
    assert distinguishing_words(ont, URIRef(EX + "FrameworkMethod"), URIRef(EX + "Method")) == {"framework",
                                                                                                 "agreement"}


@pytest.mark.parametrize("codes,expected,says", [
    (["4", "2"], "DynamicMethod", "names ex:DynamicMethod"),  # both codes mean a dynamic purchasing system
    (["3"], "FrameworkMethod", "'contract based on a framework agreement'"),
    (["0", "0"], "Method", "names no subclass of ex:Method"),  # not applicable: the named class is kept
    (["1", "4"], "Method", "names no subclass"),  # records disagree: no subclass for all of them
])
def test_codes_decide_the_subclass(tmp_path, codes, expected, says):
    ont, data = _feed(tmp_path, codes)
    cls, why = coded_subclass(ont, data, data.references, URIRef(EX + "Method"))
    assert cls == URIRef(EX + expected)
    assert says in why and "terms/system" in why


def test_silent_when_no_code_list_speaks_about_the_subclasses(tmp_path):
    ont, data = _feed(tmp_path, ["3"])
    # the contracting-system list says nothing about auctions; a class without subclasses has nothing to decide
    assert coded_subclass(ont, data, data.references, URIRef(EX + "Auction")) is None
    assert coded_subclass(ont, data, data.references, URIRef(EX + "Tender")) is None
    # no coded element at all
    plain = [r for r in data.references if not r.endswith("@listURI")]
    assert coded_subclass(ont, data, plain, URIRef(EX + "Method")) is None


def test_an_unknown_code_decides_nothing(tmp_path):
    ont, data = _feed(tmp_path, ["3", "99"])
    assert coded_subclass(ont, data, data.references, URIRef(EX + "Method")) is None


_DOC_ONTOLOGY = _ONTOLOGY + """ex:tenderTitle a owl:DatatypeProperty ; rdfs:domain ex:Tender ; rdfs:label "tender title"@en .
ex:usesMethod a owl:ObjectProperty ; rdfs:domain ex:Tender ; rdfs:label "uses method"@en .
"""


@pytest.mark.parametrize("code,expected", [("4", "ex:DynamicMethod"), ("0", "ex:Method")])
def test_offline_mapper_types_the_related_entity_by_the_code(tmp_path, code, expected):
    from pipeline.manifest import load_manifest
    from pipeline.mappers import get_mapper, map_case

    (tmp_path / "tender.xml").write_text(
        f"<tender><ref>https://tenders.example.org/t/17</ref><process><terms><system listURI=\"{_LIST}\">{code}"
        "</system><tenderTitle>Road resurfacing works</tenderTitle></terms></process></tender>", encoding="utf-8")
    (tmp_path / "o.ttl").write_text(_DOC_ONTOLOGY)
    (tmp_path / "case.yaml").write_text("name: t\nbase_iri: http://example.org/\nsources:\n- path: tender.xml\n"
                                        "  format: xml\nontologies:\n- o.ttl\n")
    rows = list(map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False).table)
    rel = [(r.ontology_property, r.entity_class, r.related_entity_class) for r in rows if r.related_entity_class]
    assert rel == [("ex:usesMethod", "ex:Tender", expected)]
