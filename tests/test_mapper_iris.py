"""Columns of web IRIs (pipeline.mappers.offline.iris): which values count as absolute http(s) IRIs."""
from pipeline.mappers.offline.iris import is_web_iri_column


def test_absolute_http_iris_qualify_with_blanks():
    assert is_web_iri_column(["https://data.example.org/a.csv", "", "http://example.org/x?y=1#z"])


def test_codes_relative_paths_and_other_schemes_do_not():
    assert not is_web_iri_column(["0042", "0043"])            # bare codes are never minted into IRIs
    assert not is_web_iri_column(["https://a.org/x", "a.csv"])  # one value is no IRI
    assert not is_web_iri_column(["mailto:nina@example.org"])   # not a web address
    assert not is_web_iri_column(["https://a.org/with space"])
    assert not is_web_iri_column(["", " "])


def test_mailto_and_tel_write_rfc_6068_and_3966_iris():
    """fn:mailto keeps the '@' (no template escaping) and percent-encodes what RFC 6068 excludes; fn:tel writes a
    global number without its visual separators; what is no address or no global number gives no value."""
    from pipeline.fno import udfs
    assert udfs.mailto(" ana@example.org ") == "mailto:ana@example.org"
    assert udfs.mailto("MAILTO:bo.lind@example.se") == "mailto:bo.lind@example.se"
    assert udfs.mailto("x%y&z@example.org") == "mailto:x%25y%26z@example.org"
    assert udfs.mailto("chloé@example.fr") == "mailto:chloé@example.fr"  # an IRI keeps non-ASCII letters
    assert [udfs.mailto(v) for v in ("n/a", "a b@example.org", "ana@localhost", None)] == [None] * 4
    assert udfs.tel("+34 91 123 4567") == "tel:+34911234567"
    assert udfs.tel("tel:+33-1-23-45-67-89") == "tel:+33123456789"
    assert udfs.tel("+49 (0)89 123456") == "tel:+4989123456"  # the trunk prefix is not dialled from abroad
    assert [udfs.tel(v) for v in ("91 123 4567", "ext. 12", "+1234567890123456", None)] == [None] * 4
    # an extension is RFC 3966's ;ext= parameter (section 5.1)
    assert [udfs.tel(v) for v in ("+1-555-123-4567 ext. 89", "+1 555 123 4567 x89", "+1 555 123 4567, ext 7",
                                  "+1 555 123 4567 extension 12", "tel:+1-555-123-4567;ext=89", "555-1234 ext. 5",
                                  "+1 555 123 4567 ext")] == \
        ["tel:+15551234567;ext=89", "tel:+15551234567;ext=89", "tel:+15551234567;ext=7", "tel:+15551234567;ext=12",
         "tel:+15551234567;ext=89", None, None]
    # several addresses in one cell: one IRI each (RFC 6068's `,`, a mail program's `;`); any part no address: none
    assert udfs.mailto("bob@x.org, bob@y.org") == ["mailto:bob@x.org", "mailto:bob@y.org"]
    assert udfs.mailto("cy@x.org;cy@y.org; cy@x.org") == ["mailto:cy@x.org", "mailto:cy@y.org"]
    assert udfs.mailto("ann@example.org, ann@example.org") == "mailto:ann@example.org"
    assert [udfs.mailto(v) for v in ("bob@x.org, n/a", "bob@x.org,", ",")] == [None] * 3


def test_table_names_of_the_iri_functions():
    from pipeline.fno import FUNCTIONS, function_for_name
    assert function_for_name("mailto()") == "mailto" and function_for_name("toMailto") == "mailto"
    assert function_for_name("tel()") == "tel"
    assert str(FUNCTIONS["mailto"].iri) == "https://w3id.org/kgc-pipeline/function#mailto"


def test_iri_forms_of_columns_and_the_properties_that_take_them():
    """A column is of a form when every value converts; the properties: named for the form, values resources."""
    from rdflib import Graph, URIRef
    from pipeline.mappers.offline.iris import form_properties, iri_form
    from pipeline.ontology import Ontology
    assert iri_form(["ana@example.org", "", "bo@example.se"]) == "e-mail"
    assert iri_form(["+34 91 123 4567", "+46 8 765 43 21"]) == "phone"
    assert iri_form(["91 123 4567", "+46 8 765 43 21"]) is None  # a local number is no tel: IRI
    assert iri_form(["ana@example.org", "n/a"]) is None
    onto = Ontology(Graph().parse(format="turtle", data="""
@prefix ex: <http://ex.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Person a owl:Class . ex:Mailbox a owl:Class . ex:Shop a owl:Class .
ex:mbox a owl:ObjectProperty ; rdfs:domain ex:Person .
ex:email a owl:DatatypeProperty ; rdfs:domain ex:Person .
ex:mailbox a rdf:Property ; rdfs:range ex:Mailbox .
ex:shopEmail a owl:ObjectProperty ; rdfs:domain ex:Shop .
ex:phone a owl:ObjectProperty .
"""))
    ex = lambda n: URIRef("http://ex.org/" + n)  # noqa: E731
    props = [ex(n) for n in ("mbox", "email", "mailbox", "shopEmail", "phone")]
    # the datatype property's values are literals; ex:shopEmail is used on shops
    assert form_properties(onto, ex("Person"), props, set(), "e-mail") == [ex("mbox"), ex("mailbox")]
    assert form_properties(onto, ex("Person"), props, {ex("Mailbox")}, "e-mail") == [ex("mbox")]  # a source of mailboxes
    assert form_properties(onto, ex("Person"), props, set(), "phone") == [ex("phone")]


def test_a_column_a_property_of_resources_names_word_for_word_is_written_as_iris(tmp_path):
    """``phone`` is foaf:phone's name word for word and no text property's (schema:telephone is reached by a
    synonym): kept for the tel: IRIs. ``email`` is schema:email's name word for word: the text property may
    take it. A column of local numbers (no tel: IRI) and one no property names stay."""
    from rdflib import URIRef
    from pipeline.manifest import Source
    from pipeline.mappers.offline.analysis import SourceInfo
    from pipeline.mappers.offline.iris import named_iri_columns
    from pipeline.mappers.offline.names import NameMatcher
    from pipeline.ontology import load_ontology
    from pipeline.sources.load import load_source
    from helpers import case_folder

    case = case_folder("mapper-phone-named-object-property-over-text")
    (tmp_path / "people.csv").write_text("id,phone,email,office,mobile\n"
                                         "1,+32 2 123 45 67,ann@example.org,02 123 45 67,+32 470 12 34 56\n",
                                         encoding="utf-8")
    data = load_source(Source(path=tmp_path / "people.csv", format="csv"), tmp_path)
    info = SourceInfo(data, "people.csv", "people", list(data.references))
    info.key, info.cls = ("id",), URIRef("http://xmlns.com/foaf/0.1/Person")
    ont = load_ontology([case / "onto.ttl"])
    schema, foaf = "http://schema.org/", "http://xmlns.com/foaf/0.1/"
    text = [URIRef(schema + "telephone"), URIRef(schema + "email"), URIRef(foaf + "name")]
    objects = [URIRef(foaf + "phone"), URIRef(foaf + "mbox")]
    found = named_iri_columns(info, ont, NameMatcher(ont, use_embeddings=False), ["phone", "email", "office", "mobile"],
                              objects, text, set())
    assert found == {"phone"}
