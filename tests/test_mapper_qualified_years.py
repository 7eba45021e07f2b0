"""Years with a qualifier (c. 1660, 1660?) are years to the offline mapper's profile, not text."""
from pipeline.mappers.offline.fit import value_kind
from pipeline.mappers.offline.profile import qualified_years


def test_qualified_years_profile_as_years():
    assert qualified_years(["1642", "c. 1660", "ca. 1658"])
    assert qualified_years(["circa 1700", "Ca 1701", "approx. 1702", "about 1703", "~1704", "1705~", "1706?", "1707%"])
    assert value_kind(["1642", "c. 1660", "ca. 1658"]) == "year"


def test_names_and_plain_years_are_not_qualified_years():
    assert not qualified_years(["1642", "1660"])  # plain years: xsd:gYear / whole numbers
    assert not qualified_years(["c. 1660", "Johannes Vermeer"])
    assert not qualified_years(["cat 1660", "c. 16600", "c. 660"])
    assert not qualified_years([])
    assert value_kind(["Rembrandt van Rijn", "Johannes Vermeer"]) == "text"
