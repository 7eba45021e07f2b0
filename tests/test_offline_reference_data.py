"""Reference data (thesauri, code lists, taxonomies in CSV): the class and relation a self-reference entails
(:mod:`pipeline.mappers.offline.hierarchy`), the preferred label of a class's vocabulary
(:func:`pipeline.mappers.offline.labels.class_label`), and languages stated by file names and column names
(:func:`pipeline.mappers.offline.language.file_languages`, :func:`~pipeline.mappers.offline.language.column_language`).

Inputs are small real files: an excerpt of SKOS with its published statements and a shop vocabulary
(``tests/cases/thesaurus-hierarchy-languages``), CSV files written here; the matcher is lexical (no model).
"""
from __future__ import annotations

from pathlib import Path

from rdflib import URIRef
from rdflib.namespace import RDFS, SKOS

from pipeline.manifest import Source
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.hierarchy import class_from_hierarchy, hierarchy_class, hierarchy_relations
from pipeline.mappers.offline.keys import self_reference_columns
from pipeline.mappers.offline.labels import class_label, naming_properties, translations
from pipeline.mappers.offline.language import column_language, file_languages, language_variants
from pipeline.mappers.offline.names import NameMatcher
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source

from helpers import case_folder

EX = "http://shop.example.org/onto#"
CASE = case_folder("thesaurus-hierarchy-languages")


def _ontology():
    return load_ontology([CASE / "skos-excerpt.ttl", CASE / "shop.ttl"])


def _info(tmp_path: Path, name: str, text: str, key: str, cls: str, name_fit: float) -> SourceInfo:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    data = load_source(Source(path=path, format="csv"), tmp_path)
    info = SourceInfo(data, name, path.stem, list(data.references))
    info.key, info.cls, info.cls_name_fit = (key,), URIRef(cls), name_fit
    return info


_TAXONOMY = "id,name,parent\nT1,Animals,\nT2,Birds,T1\nT3,Owls,T2\n"


def test_the_class_both_ends_of_a_relation_must_be_comes_from_its_super_properties():
    onto = _ontology()
    # skos:broader states no domain nor range: skos:semanticRelation, two levels up, does
    assert hierarchy_class(onto, SKOS.broader) == SKOS.Concept
    assert hierarchy_class(onto, SKOS.related) == SKOS.Concept
    # a domain and no range relates an ex:Influence to anything: no one class for both ends
    assert hierarchy_class(onto, URIRef(EX + "influencer")) is None
    # domain ex:Product, range ex:Packaging: two classes, no hierarchy
    assert hierarchy_class(onto, URIRef(EX + "packedIn")) is None


def test_a_relation_of_no_domain_gives_its_range_alone(tmp_path):
    """Case mapper-hierarchy-relation-of-range-only: an excerpt of SKOS without skos:semanticRelation states
    skos:broader's range alone; the parents are records of the file, so its one kind of record is of the range."""
    f = tmp_path / "o.ttl"
    f.write_text("""@prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix ex: <http://ex.org/> .
skos:Concept a owl:Class . ex:Sub rdfs:subClassOf skos:Concept . ex:Other a owl:Class .
skos:broader a owl:ObjectProperty ; rdfs:range skos:Concept .
ex:under a owl:ObjectProperty ; rdfs:range skos:Concept , ex:Sub .
ex:apart a owl:ObjectProperty ; rdfs:range [ owl:unionOf ( ex:Sub ex:Other ) ] .
ex:nothing a owl:ObjectProperty .
""", encoding="utf-8")
    onto = load_ontology([f])
    assert hierarchy_class(onto, SKOS.broader) == SKOS.Concept
    assert hierarchy_class(onto, URIRef("http://ex.org/under")) == URIRef("http://ex.org/Sub")
    # a union range is no one class; no range at all relates things of any kind
    assert hierarchy_class(onto, URIRef("http://ex.org/apart")) is None
    assert hierarchy_class(onto, URIRef("http://ex.org/nothing")) is None


def test_the_parent_column_names_broader_by_the_vocabulary_s_comment():
    onto = _ontology()
    matcher = NameMatcher(onto, use_embeddings=False)
    props = sorted(p for p in onto.object_properties)
    found = hierarchy_relations(onto, matcher, "parentID", props)
    # "Broader concepts are typically rendered as parents": 0.7 of the words of 'parent' in the comment; 'related'
    # is spelt like 'parent' (0.49), a name match's least, far below
    assert [(round(s, 2), p, c) for s, p, c in found] == [(0.7, SKOS.broader, SKOS.Concept),
                                                          (0.49, SKOS.related, SKOS.Concept)]
    assert [p for _, p, _ in hierarchy_relations(onto, matcher, "children", props)] == [SKOS.narrower]
    assert hierarchy_relations(onto, matcher, "supplier", props) == []


def test_a_self_reference_retypes_records_whose_class_was_a_guess(tmp_path):
    onto = _ontology()
    matcher = NameMatcher(onto, use_embeddings=False)
    info = _info(tmp_path, "taxonomy.csv", _TAXONOMY, "id", EX + "Influence", 0.3)
    assert self_reference_columns(info) == ["parent"]
    class_from_hierarchy([info], onto, matcher, sorted(onto.object_properties))
    assert info.cls == SKOS.Concept
    assert info.self_relations == {"parent": SKOS.broader}
    assert (info.fks["parent"].target, info.fks["parent"].target_ref) == ("taxonomy.csv", "id")
    assert info.cls_evidence.startswith("'parent' names other records of taxonomy.csv by their 'id', and "
                                        "skos:broader (0.70) relates a skos:Concept to a skos:Concept")


def test_a_class_named_by_the_file_stands_and_gets_no_hierarchy_row(tmp_path):
    onto = _ontology()
    matcher = NameMatcher(onto, use_embeddings=False)
    info = _info(tmp_path, "products.csv", "id,name,parent\nP1,Tea,\nP2,Green tea,P1\n", "id", EX + "Product", 0.9)
    class_from_hierarchy([info], onto, matcher, sorted(onto.object_properties))
    assert info.cls == URIRef(EX + "Product") and info.self_relations == {} and "parent" not in info.fks


def test_a_column_of_values_outside_the_key_is_no_self_reference(tmp_path):
    info = _info(tmp_path, "taxonomy.csv", "id,name,parent\nT1,Animals,\nT2,Birds,X9\n", "id", EX + "Influence", 0.3)
    assert self_reference_columns(info) == []


def test_the_preferred_label_of_the_class_s_own_vocabulary():
    onto = _ontology()
    matcher = NameMatcher(onto, use_embeddings=False)
    naming = naming_properties(onto, matcher)
    # SKOS declares three sub-properties of rdfs:label; the one named "preferred" names a concept
    assert class_label(naming, matcher, onto, SKOS.Concept).prop == SKOS.prefLabel
    # the shop vocabulary declares none: rdfs:label stays the choice for its classes
    assert class_label(naming, matcher, onto, URIRef(EX + "Packaging")) is None
    assert RDFS.label in {n.prop for n in naming}


def test_files_of_one_kind_named_by_language():
    cols = ["id", "name", "parent"]
    assert file_languages([("thesaurus-en-hierarchy.csv", cols), ("thesaurus-fr-hierarchy.csv", cols),
                           ("thesaurus-nl-hierarchy.csv", cols), ("roles.csv", ["code", "title"])]) == {
        "thesaurus-en-hierarchy.csv": "en", "thesaurus-fr-hierarchy.csv": "fr", "thesaurus-nl-hierarchy.csv": "nl"}
    # one file alone, or files of other columns, say nothing
    assert file_languages([("codes-no-2024.csv", cols)]) == {}
    assert file_languages([("stops-de.csv", cols), ("stops-it.csv", ["id", "stop_name"])]) == {}


def test_columns_named_by_language():
    refs = ["code", "labelFR", "labelEN", "labelNL", "titel_nl", "name_id", "colour_de"]
    assert [column_language(r, refs) for r in refs] == [None, "fr", "en", "nl", None, None, None]
    # a name, title or label column names its language alone too
    assert column_language("name_fr", ["id", "name_fr"]) == "fr"
    # one text in two languages: Dutch and German titles
    assert column_language("titel_nl", ["titel_nl", "titel_de"]) == "nl"
    assert translations("labelFR", ["labelFR", "labelEN", "labelNL", "code"], refs) == ["labelEN", "labelNL"]
    assert translations("label", ["label", "labelEN"], ["label", "labelEN"]) == []
    # a code before the rest of the name, in another language beside it
    assert column_language("fr_title", ["en_title", "fr_title"]) == "fr"
    assert column_language("en_title", ["en_title"]) is None


def test_language_variants_differ_by_a_code_alone_in_one_object():
    refs = ["id", "label_en", "label_fr", "labelNL", "en_title", "de_title", "name_id", "name_no", "a.name_en",
            "b.name_fr", "note_de"]
    assert language_variants("label_fr", refs) == {"label_fr": "fr", "label_en": "en", "labelNL": "nl"}
    assert language_variants("de_title", refs) == {"de_title": "de", "en_title": "en"}
    # identifiers (id, no are ISO 639-1 codes too), other objects, a code alone say nothing
    assert [language_variants(r, refs) for r in ("id", "name_id", "a.name_en", "note_de")] == [{}, {}, {}, {}]
