"""A statement dropped from a derived source (kgc's JSON copy of a logical source's records, here for
RML-IO's CSV null values) is placed in the user's file: the record by the user's column and the line it
starts on, a value by the line of the record holding it (nu18 materialize-csv-drop-names-temporary-json-
wrong-line: the copy's internal key ``k0_id`` and a line of the copy, another record's)."""
from __future__ import annotations

from pipeline.materialize.views.records import csv_rows

from helpers import materialize_mapping

MAPPING = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/o#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<#TM> a rml:TriplesMap ;
  rml:logicalSource [ rml:source [ a rml:RelativePathSource ; rml:path "items.csv" ] ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/item/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:label ; rml:objectMap [ rml:reference "label" ; rml:languageMap [ rml:reference "lang" ] ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:price ; rml:objectMap [ rml:reference "price" ; rml:datatype xsd:decimal ] ] .
"""
# record 3 (id 13) starts on line 6: record 1's label spans lines 2-3, line 4 is blank; its id and its
# price are also substrings of lines 2 and 5 (a first textual occurrence would be another record)
ITEMS = 'id,label,lang,price\n113,"two\nlines",en,1.5\n\n12,"3,50 Tea",en,2.00\n13,Chai,,"3,50"\n'


def test_csv_rows_start_lines():
    assert [line for line, _ in csv_rows(ITEMS, "items.csv")] == [2, 5, 6]


def test_drops_in_derived_source_name_user_record_and_line(tmp_path, monkeypatch, capsys):
    rc, err, _ = materialize_mapping(tmp_path, MAPPING, {"items.csv": ITEMS}, monkeypatch, capsys)
    assert rc == 1
    assert ("1 triple(s) dropped: empty language tag (the language map gave an empty value)\n"
            "  first dropped: record id='13' in items.csv line 6: <http://example.org/item/13> ") in err
    assert "  first dropped: value '3,50' in " + str((tmp_path / "items.csv").resolve()) + " line 6: " in err
    assert "k0_" not in err and "kgc-derived.json line" not in err
