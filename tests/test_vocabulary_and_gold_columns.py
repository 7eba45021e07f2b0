"""The KG vocabulary check (terms of the ontology's namespaces it does not declare) and the gold-table
columns a reader ignored (the tasks they leave unscored)."""
from __future__ import annotations

import pyoxigraph

from pipeline.ontology import load_ontology
from pipeline.scoring.mapping.gold_columns import _probable_field, ignored_gold_columns
from pipeline.table.markdown import parse_markdown
from pipeline.validation.vocabulary import VocabularyCheck, namespace_of

_ONTO = """@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix : <http://example.org/lib#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<http://example.org/lib> a owl:Ontology .
:Book a owl:Class . :title a owl:DatatypeProperty . foaf:name a owl:DatatypeProperty .
"""


def _check_with(tmp_path, onto_text, triples):
    """The vocabulary check's result on ``triples`` ``(s, p, o)`` (``o`` an IRI when it starts with http)
    against the ontology ``onto_text``."""
    onto = tmp_path / "o.ttl"
    onto.write_text(onto_text, encoding="utf-8")
    check = VocabularyCheck(load_ontology([onto]))
    for s, p, o in triples:
        check.add(pyoxigraph.NamedNode(s), pyoxigraph.NamedNode(p),
                  pyoxigraph.NamedNode(o) if o.startswith("http") else pyoxigraph.Literal(o))
    return check.result()


def _check(tmp_path, triples):
    return _check_with(tmp_path, _ONTO, triples)


def test_namespace_of_cuts_at_the_last_hash_else_slash():
    assert namespace_of("http://example.org/lib#Book") == "http://example.org/lib#"
    assert namespace_of("http://xmlns.com/foaf/0.1/name") == "http://xmlns.com/foaf/0.1/"
    assert namespace_of("urn:x") == ""


def test_undeclared_terms_of_the_own_namespace_fail_other_vocabularies_do_not(tmp_path):
    t = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    r = _check(tmp_path, [("http://e/b1", t, "http://example.org/lib#Bok"),
                          ("http://e/b2", t, "http://example.org/lib#Bok"),
                          ("http://e/b1", "http://example.org/lib#title", "x"),
                          ("http://e/b1", "http://xmlns.com/foaf/0.1/nick", "n"),
                          ("http://e/b1", "http://purl.org/dc/terms/created", "1866")])
    assert r.value is False
    got = [(f.severity, f.term, f.message) for f in r.findings]
    assert got == [("error", "<http://example.org/lib#Bok>", "class <http://example.org/lib#Bok> is not declared by "
                    "the ontology, in its own namespace (2 triple(s)); closest declared: <http://example.org/lib#Book>"),
                   ("warning", "<http://xmlns.com/foaf/0.1/nick>", "property foaf:nick is not declared by the ontology, "
                    "which declares other terms of that vocabulary (1 triple(s))")]  # nick is near no declared name
    assert r.details["namespaces"] == {"http://example.org/lib#": "error", "http://xmlns.com/foaf/0.1/": "warning"}


def test_a_kg_of_declared_terms_passes(tmp_path):
    r = _check(tmp_path, [("http://e/b1", "http://example.org/lib#title", "x")])
    assert (r.value, r.findings) == (True, [])


def test_a_near_miss_header_names_its_column_and_task_an_unrelated_one_none():
    assert _probable_field("Lang") == "language_tag"
    assert _probable_field("Rel Class") == "related_entity_class"
    assert _probable_field("Notes") is None
    assert _probable_field("Source") is None  # Source File or Source Reference: neither is guessed
    gold = parse_markdown("| Data Reference | Ontology Property | Lang | Notes |\n|---|---|---|---|\n"
                          "| title | lib:title | en | checked |\n", source="gold.md")
    cols, findings = ignored_gold_columns(gold)
    assert [(c.header, c.line, c.probable, c.task) for c in cols] == [
        ("Lang", 1, "Language Tag", "Language Annotation"), ("Notes", 1, None, None)]
    assert [(f.severity, f.line, f.candidate) for f in findings] == [("warning", 1, "Language Tag"), ("info", 1, None)]


def test_absent_gold_columns_leave_their_tasks_unscored_when_the_table_fills_them():
    """A task column the gold's header lacks is named (a misnamed header standing for it is left to
    ignored_gold_columns); the tasks the scored table gives values are listed as unscored."""
    from pipeline.scoring.mapping.gold_columns import absent_columns_finding, absent_gold_columns
    from pipeline.scoring.mapping.report import score_case

    gold = parse_markdown("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | Lang |\n"
                          "|---|---|---|---|---|---|\n| name | e.csv | ex:name | ex:E | http://x/{id} | en |\n",
                          "gold.md")
    assert absent_gold_columns(gold) == {"Related Entity Class": "Related Entity Class",
                                         "Join Condition": "Join Condition", "Datatype": "Datatype",
                                         "Function Name": "Function Name", "Function Output": "Function Output"}
    table = parse_markdown("| Data Reference | Source File | Ontology Property | Entity Class | Subject Generation | "
                           "Datatype | Function Name |\n|---|---|---|---|---|---|---|\n"
                           "| name | e.csv | ex:name | ex:E | http://x/{id} | xsd:integer | toUpperCase |\n", "t.md")
    report = score_case([table], gold, None, config=None)
    assert report.unscored_tasks == {
        "Language Annotation": "the gold's header 'Lang' (line 1) is probably 'Language Tag' but is no mapping-table "
                               "column: its cells were not read",
        "Datatype": "the gold table has no 'Datatype' column: the table's 1 value(s) there are judged by nothing",
        "Function Name": "the gold table has no 'Function Name' column: the table's 1 value(s) there are judged by "
                         "nothing"}
    assert [f.code for f in report.gold_findings] == ["gold-column-ignored", "gold-column-absent"]
    assert absent_columns_finding(gold, {"Datatype": 0}) is None  # nothing judged by nothing
    from pipeline.table.formats import parse_json
    assert absent_gold_columns(parse_json('[{"data_reference": "name", "ontology_property": "ex:name"}]')) == {}


_SCHEMA_ONTO = """@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix s: <https://schema.org/> .
@prefix : <http://example.org/lib#> . <http://example.org/lib> a owl:Ontology .
s:Event a owl:Class . s:name a owl:DatatypeProperty . :Book a owl:Class .
"""


def test_the_ontology_namespace_under_the_other_scheme_is_named_and_a_kg_of_no_declared_term_is_unchecked(tmp_path):
    """http://schema.org/name against an ontology of https://schema.org/ is no term of it (IRIs differ), said with
    the declared term of the same name, at the severity of the namespace it mirrors (schema.org is well known
    under either scheme: a warning; the ontology's own namespace: an error); a KG using no declared term at all
    makes the verdict 'not validated'."""
    from pipeline.validation.verdict import kg_verdict

    t = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    r = _check_with(tmp_path, _SCHEMA_ONTO, [("http://e/e1", t, "http://schema.org/Event"),
                                             ("http://e/e1", "http://schema.org/name", "Jazz")])
    assert r.value is True
    assert [(f.severity, f.code, f.message) for f in r.findings] == [
        ("warning", "undeclared-term", "class <http://schema.org/Event> is not declared by the ontology, which declares "
         "s:Event: the same name under https, not http (1 triple(s)); IRIs differing in their "
         "scheme are different terms, so no axiom or shape of the ontology applies to it"),
        ("warning", "undeclared-term", "property <http://schema.org/name> is not declared by the ontology, which "
         "declares s:name: the same name under https, not http (1 triple(s)); IRIs differing in "
         "their scheme are different terms, so no axiom or shape of the ontology applies to it"),
        ("warning", "no-ontology-term", "none of the KG's 2 triple(s) uses a class or property the ontology declares: "
         "the reasoners and the shapes derived from the ontology had nothing to check")]
    assert r.details["namespaces"] == {"http://example.org/lib#": "error", "https://schema.org/": "warning"}
    assert r.details["other_scheme"] == {"http://schema.org/": "https://schema.org/",
                                         "https://example.org/lib#": "http://example.org/lib#"}
    verdict = kg_verdict({"SV2": {"value": True, "status": "ok"}, "vocabulary": r.to_dict()})
    assert (verdict.state, verdict.sentence()) == (
        "not validated", "KG not validated: no triple uses a class or property the ontology declares, so the "
        "reasoners and the derived shapes had nothing to check (passes SV2, vocabulary)")
    mixed = _check_with(tmp_path, _SCHEMA_ONTO, [("http://e/b1", t, "https://example.org/lib#Book"),
                                                 ("http://e/e1", "https://schema.org/name", "Jazz")])
    assert [(f.severity, f.message.split(":")[0]) for f in mixed.findings] == [
        ("error", "class <https")]  # the own namespace mirrored: an error; a declared term used: not unchecked
    assert mixed.value is False and "unchecked" not in mixed.details
