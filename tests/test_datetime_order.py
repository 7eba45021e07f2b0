"""toDateTime reads its date part with toDate's reader and follows the column's day/month order."""
from __future__ import annotations

from pipeline.fno.dates import DMY, MDY, YEAR_FIRST, decide_date_order
from pipeline.fno.udfs import normalize_date, normalize_datetime


def test_date_times_follow_the_order_dates_follow():
    for order in (DMY, MDY, YEAR_FIRST):  # the date part is read as toDate reads the date alone
        for written in ("31/12/2024", "12/31/2024", "03/04/2024", "2024-03-04", "2024/3/4"):
            date = normalize_date(written, order)
            assert normalize_datetime(f"{written} 14:05", order) == (date and f"{date}T14:05:00")
    assert normalize_datetime("31/12/2024 14:05", DMY) == "2024-12-31T14:05:00"
    assert normalize_datetime("01.02.2024 9:30:15+0100", DMY) == "2024-02-01T09:30:15+01:00"
    assert normalize_datetime("12/31/2024T23:59Z", MDY) == "2024-12-31T23:59:00Z"
    assert normalize_datetime("31/12/2024 14:05", MDY) is None  # no 31st month
    assert normalize_datetime("03/04/2024 10:00", YEAR_FIRST) is None  # an undecided column guesses nothing
    assert normalize_datetime("31/12/2024 25:00", DMY) is None


def test_the_column_order_counts_date_times_by_their_date():
    got = decide_date_order(["31/12/2024 14:05", "01/02/2024 9:30", "2024-03-01T10:00:00Z"])
    assert (got.order, got.status, got.evidence) == (DMY, "decided", ["31/12/2024 14:05"])
    got = decide_date_order(["03/04/2024 10:00"])
    assert (got.order, got.status, got.evidence) == (YEAR_FIRST, "ambiguous", ["03/04/2024 10:00"])
    got = decide_date_order(["12/31/2024T08:00", "31/12/2024 08:00"])
    assert (got.order, got.status) == (YEAR_FIRST, "conflict")
