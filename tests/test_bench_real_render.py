"""bench-real's per-case table: the validation column says the CPU seconds and exit code, or why not."""
from __future__ import annotations

from pipeline.bench.real import render


def test_validation_column_reports_cpu_and_exit_or_not_run():
    results = [
        {"case": "a", "status": "ok", "map": {"cpu_s": 1.5, "rss_kib": 2048}, "validate": {"rc": 1, "cpu_s": 6.98},
         "sources": [2, 2]},
        {"case": "b", "status": "ok", "map": {"cpu_s": 0.5}, "validate": {"rc": None, "timeout": True}, "sources": [1, 0]},
        {"case": "c", "status": "map exit 2", "map": {}},
    ]
    rows = [line for line in render(results).splitlines() if line.startswith("| a ") or line.startswith("| b ")
            or line.startswith("| c ")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in rows]
    assert [c[:6] for c in cells] == [
        ["a", "ok", "1.50", "2.00", "6.98 (1)", "2 of 2"],
        ["b", "ok", "0.50", "n/a", "timed out", "0 of 1"],
        ["c", "map exit 2", "n/a", "n/a", "not run", "n/a"],
    ]


def test_means_give_the_entailed_pair_scores_beside_the_written_ones():
    results = [{"case": "a", "status": "ok", "map": {}, "reachable": {"pair_precision": 0.5, "pair_recall": 0.25},
                "entailed": {"pair_precision": 0.75, "pair_recall": 0.5, "class_precision": 0.5, "class_recall": 1.0}},
               {"case": "b", "status": "ok", "map": {}, "reachable": {"pair_precision": 1.0, "pair_recall": 0.75},
                "entailed": {"pair_precision": 1.0, "pair_recall": 1.0, "class_precision": 1.0, "class_recall": 0.5}}]
    lines = render(results).splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| class P / R"))
    names = [c.strip() for c in lines[head].strip("|").split("|")]
    values = dict(zip(names, [c.strip() for c in lines[head + 2].strip("|").split("|")]))
    assert values["pair P / R (reachable)"] == "0.75 / 0.50"
    assert values["pair P / R (reachable, entailed)"] == "0.88 / 0.75"
    assert values["class P / R (reachable, entailed)"] == "0.75 / 0.75"


def test_means_say_how_many_unmarked_rows_the_reference_cannot_judge():
    judgements = [{"review": False, "right": True, "covered": True}, {"review": False, "right": False, "covered": True},
                  {"review": False, "right": False, "covered": False}, {"review": True, "right": False, "covered": False}]
    results = [{"case": "a", "status": "ok", "map": {}, "row_judgements": judgements,
                "rows": {"unmarked_precision_covered": 0.5}}]
    assert render(results).splitlines()[-1] == (
        "Unmarked rows the reference cannot judge (not right, and none of their values stated by the reference "
        "under any property: data its author did not map): 1 of 3. Precision of the other unmarked rows: 0.50 "
        "(case mean), 0.50 (2 rows).")
