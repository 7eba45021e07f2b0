"""Date-times and xsd:date ranges in the offline mapper (pipeline.mappers.offline.fit)."""
from pipeline.mappers.offline.fit import has_time_of_day


def test_a_time_of_day_would_be_lost_as_a_date():
    assert has_time_of_day("2024-02-02T01:01:00")
    assert has_time_of_day("2024-01-01 10:00")


def test_midnight_and_plain_dates_lose_nothing():
    assert not has_time_of_day("2024-01-01T00:00:00")
    assert not has_time_of_day("2024-01-01")
    assert not has_time_of_day("01/02/2024")
