"""Fast paths of `kgc compile` on large CSV sources (pipeline/sources/columns.py): the ragged-record check
without parsing an unquoted file, and the first records of a column without parsing the rest.
Each must give exactly what the full parse gives."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.sources.columns import ColumnRecords


def _records(tmp_path: Path, text: bytes, names=("a", "b", "c")) -> ColumnRecords:
    path = tmp_path / "s.csv"
    path.write_bytes(text)
    return ColumnRecords(path, ",", list(names))


def _parsed(records: ColumnRecords):
    records._load()  # the full parse first: ragged() then reads what it recorded
    return records.ragged()


@pytest.mark.parametrize("text, expected", [
    (b"a,b,c\n1,2,3\n4,5\n6,7,8,9\n\n10,11,12\n", ([(4, 4)], [(3, 2)])),
    (b"a,b,c\r\n1,2,3\r\n4\r\n\r\n5,6,7,8,9\r\n", ([(5, 5)], [(3, 1)])),  # CRLF, a blank line
    (b"\xef\xbb\xbfa,b,c\n1,2,3\n4,5,6", ([], [])),                        # BOM, no final line break
    (b"a,b,c\n1,2\n", ([], [(2, 2)])),
])
def test_unquoted_file_needs_no_parse_and_gives_the_parsed_answer(tmp_path, text, expected):
    fast = _records(tmp_path, text)
    assert fast._ragged_unquoted() == expected
    assert fast.ragged() == expected and not fast.parsed  # answered without parsing
    assert _parsed(_records(tmp_path, text)) == expected


@pytest.mark.parametrize("text", [b'a,b,c\n"1,2",3\n4,5,6,7\n',  # a quote: a separator may be data
                                  b"a,b,c\r1,2\r",                # CR line ends
                                  b"\na,b,c\n1,2\n"])             # a blank first line
def test_other_files_are_parsed(tmp_path, text):
    records = _records(tmp_path, text)
    assert records._ragged_unquoted() is None
    assert records.ragged() == _parsed(_records(tmp_path, text))
    assert records.parsed


def test_head_reads_the_first_records_only_and_matches_the_column(tmp_path):
    text = b"a,b,c\n1,x,3\n4,,6\n\n7,y\n8,z,9\n"
    records = _records(tmp_path, text)
    assert records.head("b", 3) == ["x", "", "y"] and not records.parsed
    assert records.head("nope", 3) is None
    full = _records(tmp_path, text)
    assert full.column("b")[:3] == ["x", "", "y"] and full.head("b", 10) == full.column("b") == ["x", "", "y", "z"]
