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
