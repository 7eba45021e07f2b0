"""Evidence read from the values: decimal-comma columns with a few faulty cells, the forms of text values
(e-mail addresses, telephone numbers, web addresses) a property's name promises, and terms the
vocabulary marks owl:deprecated."""
from __future__ import annotations

from rdflib import URIRef

from pipeline.manifest import load_manifest
from pipeline.mappers import get_mapper, map_case
from pipeline.mappers.offline.forms import named_form, value_form
from pipeline.mappers.offline.profile import decimal_comma_column, decimal_comma_share
from pipeline.ontology import load_ontology

_HEAD = ("@prefix ex: <http://example.org/firm#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
         "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
         "ex:Firm a owl:Class ; rdfs:label \"Firm\" .\n")


def _map(tmp_path, onto: str, csv: str) -> tuple[set[tuple[str, str, str | None]], list[str]]:
    """The offline mapper (lexically) on ``firms.csv``: rows as (reference, property, function), finding messages."""
    (tmp_path / "onto.ttl").write_text(_HEAD + onto, encoding="utf-8")
    (tmp_path / "firms.csv").write_text(csv, encoding="utf-8")
    (tmp_path / "case.yaml").write_text("name: f\nsources: [firms.csv]\nontologies: [onto.ttl]\n"
                                        "prefixes: {ex: \"http://example.org/firm#\"}\n", encoding="utf-8")
    res = map_case(get_mapper("offline"), load_manifest(tmp_path / "case.yaml"), use_embeddings=False)
    return ({(r.data_reference, r.ontology_property, r.function_name) for r in res.table.rows},
            [f["message"] for f in res.provenance["findings"]])


def test_decimal_comma_share_counts_the_values_the_decided_mark_reads():
    assert decimal_comma_share(["1.234,56", "89,90", "12,00", "€ 5,50", "7,10"]) == 0.8
    assert decimal_comma_share(["8,99", "NA", "12,5"]) == 1.0  # a missing-value marker is no value
    assert decimal_comma_share(["1,500", "2,000"]) == 0.0  # thousands or decimals: nothing decides
    assert decimal_comma_share(["abc", "€ 5,50"]) == 0.0  # the only comma-decimal form is in a value no mark reads
    assert decimal_comma_column(["8,99", "12,5"]) and not decimal_comma_column(["8,99", "€ 5,50"])


def test_value_and_named_forms(tmp_path):
    assert value_form(["ana@example.org", "bo.lind@example.se", ""]) == "e-mail"
    assert value_form(["+34 91 123 4567", "(030) 123-456", "n/a"]) == "phone"
    assert value_form(["https://ana.example.org/", "www.example.se"]) == "web address"
    assert value_form(["€ 5,50", "12,00"]) is None and value_form(["42", "ana@example.org", "x"]) is None
    (tmp_path / "o.ttl").write_text(_HEAD + "ex:mail rdfs:label \"E-Mail\"@de . ex:contactEmail a owl:DatatypeProperty .\n"
                                    "ex:tel rdfs:label \"Telefon\"@de . ex:site rdfs:label \"homepage\" .\n"
                                    "ex:note rdfs:label \"Bemerkung\"@de .\n", encoding="utf-8")
    ont = load_ontology([tmp_path / "o.ttl"])
    ex = "http://example.org/firm#"
    assert [named_form(ont, URIRef(ex + n)) for n in ("mail", "contactEmail", "tel", "site", "note")] == [
        "e-mail", "e-mail", "phone", "web address", None]


def test_most_values_with_a_decimal_comma_fit_a_decimal_range_and_the_rest_are_counted(tmp_path):
    onto = ("ex:name a owl:DatatypeProperty ; rdfs:label \"Name\" ; rdfs:domain ex:Firm ; rdfs:range xsd:string .\n"
            "ex:price a owl:DatatypeProperty ; rdfs:label \"Price\" ; rdfs:domain ex:Firm ; rdfs:range xsd:decimal .\n")
    rows, msgs = _map(tmp_path, onto, "Name;Price\nA;1.234,56\nB;89,90\nC;12,00\nD;€ 5,50\nE;7,10\n")
    assert ("Price", "ex:price", "toDecimal()") in rows
    assert "column 'Price' of firms.csv maps to ex:price with toDecimal(), but 1 of its 5 values are no numbers in " \
           "the column's form (decimal mark, unit) (e.g. '€ 5,50'): they give no triple" in msgs
    # half or fewer read: the values say nothing about the column's kind, it stays unmapped
    rows, _ = _map(tmp_path, onto, "Name;Price\nA;1.234,56\nB;89,90\nC;ab 12\nD;€ 5,50\n")
    assert not any(r[0] == "Price" for r in rows)


def test_elimination_gives_a_property_named_for_a_form_only_a_column_of_that_form(tmp_path):
    onto = ("ex:name a owl:DatatypeProperty ; rdfs:label \"Name\" ; rdfs:domain ex:Firm ; rdfs:range xsd:string .\n"
            "ex:email a owl:DatatypeProperty ; rdfs:label \"E-Mail\"@de ; rdfs:domain ex:Firm ; rdfs:range xsd:string .\n")
    # the leftover text column holds no e-mail address: no pair by elimination
    rows, _ = _map(tmp_path, onto, "Name;Q7\nA;cheap\nB;dear\nC;fair\n")
    assert {r[0] for r in rows} == {"Name"}
    # the leftover column holds e-mail addresses: the only leftover text property of that form takes it
    rows, _ = _map(tmp_path, onto, "Name;Q7\nA;a@x.org\nB;b@y.org\nC;c@z.org\n")
    assert ("Q7", "ex:email", None) in rows


def test_deprecated_terms_are_not_proposed(tmp_path):
    onto = ("ex:name a owl:DatatypeProperty ; rdfs:label \"Name\" ; rdfs:domain ex:Firm ; rdfs:range xsd:string .\n"
            "ex:oldCity a owl:DatatypeProperty ; rdfs:label \"City\" ; owl:deprecated true ; rdfs:domain ex:Firm .\n"
            "ex:town a owl:DatatypeProperty ; rdfs:label \"Town\" ; owl:deprecated false ; rdfs:domain ex:Firm .\n")
    rows, msgs = _map(tmp_path, onto, "Name,City,Town\nA,Rome,Ostia\nB,Turin,Ivrea\n")
    assert ("City", "ex:oldCity", None) not in rows and ("Town", "ex:town", None) in rows
    assert "1 term(s) marked owl:deprecated true in the vocabulary not proposed: ex:oldCity" in msgs


def test_elimination_leaves_a_property_a_column_names_but_whose_values_misfit(tmp_path):
    onto = ("ex:name a owl:DatatypeProperty ; rdfs:label \"Name\" ; rdfs:domain ex:Firm ; rdfs:range xsd:string .\n"
            "ex:price a owl:DatatypeProperty ; rdfs:label \"Price\" ; rdfs:domain ex:Firm ; rdfs:range xsd:decimal .\n")
    # 'Price' names ex:price, its values are no numbers: the row number does not take the price by elimination
    rows, _ = _map(tmp_path, onto, "No;Name;Price\n1;A;dear\n2;B;cheap\n3;C;fair\n")
    assert {r[0] for r in rows} == {"Name"}
    # no column names it: the whole numbers are the only ones its range admits, and take it
    rows, _ = _map(tmp_path, onto, "No;Name;Remark\n1;A;dear\n2;B;cheap\n3;C;fair\n")
    assert ("No", "ex:price", None) in rows


def test_grouped_integers_and_unit_numbers_fit_their_ranges_and_get_todecimal(tmp_path):
    from pipeline.mappers.offline.profile import integer_share, unit_share

    assert integer_share(["1.512.491", "1.084.831", "629.047", "N/A"]) == 1.0
    assert integer_share(["12,5", "13,75"]) == 0.0                    # fractions: no integers
    assert unit_share(["310,7 km²", "405,02 km²"]) == 1.0 and unit_share(["5 km", "300 m"]) == 0.0
    onto = ("ex:name a owl:DatatypeProperty ; rdfs:label \"Name\" ; rdfs:domain ex:Firm ; rdfs:range xsd:string .\n"
            "ex:staff a owl:DatatypeProperty ; rdfs:label \"Staff\" ; rdfs:domain ex:Firm ; rdfs:range xsd:integer .\n"
            "ex:area a owl:DatatypeProperty ; rdfs:label \"Area\" ; rdfs:domain ex:Firm ; rdfs:range xsd:decimal .\n")
    rows, msgs = _map(tmp_path, onto, "Name;Staff;Area\nA;1.200;1.250,5 m²\nB;12.500;80 m²\nC;3.100.000;7,25 m²\n")
    assert {("Staff", "ex:staff", "toDecimal()"), ("Area", "ex:area", "toDecimal()")} <= rows
    assert not any("is not mapped" in m for m in msgs)
    # most values no integer (12,5): the column is not taken for the integer range
    rows, _ = _map(tmp_path, onto, "Name;Staff\nA;12,5\nB;13,75\nC;1.200\n")
    assert not any(r[1] == "ex:staff" for r in rows if r[0] == "Staff")
