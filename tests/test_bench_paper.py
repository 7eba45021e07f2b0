"""The offline-vs-paper benchmark: published figures, like-for-like rescoring, the verdict."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipeline.bench import paper
from pipeline.bench.paper_compare import compare, comparison_markdown, mean_over
from pipeline.bench.paper_scores import (PublishedTable, llm_reports, load_published, load_rescored, model_name,
                                         rescore)
from pipeline.errors import InputError
from pipeline.table.formats import read_table
from pipeline.table.markdown import to_markdown


def test_published_figures_load_with_their_sources() -> None:
    blocks = load_published()
    assert [(b.scenario, b.setting) for b in blocks] == [
        (s, t) for s in ("scenario1", "scenario2", "scenario3") for t in ("expert", "raw", "post-processed")]
    s3 = {b.setting: b for b in blocks if b.scenario == "scenario3"}
    assert s3["expert"].source == "evaluation/scenario3_manual/measure_f.csv@3a3b770"
    assert s3["expert"].scores["OpenAI o3"]["Related Entity Class"] == 0.631313131
    assert s3["raw"].scores["GPT-4o"]["Data Reference"] == 0.947368421
    assert s3["raw"].scores["GPT-4o"]["Related Entity Class"] is None  # left empty in the published file
    assert mean_over(s3["expert"].scores["OpenAI o3"], s3["expert"].scores["OpenAI o3"]) == pytest.approx(
        (0.55 + 0.5503663 + 0.537545788 + 0.631313131 + 0.523926237 + 0.75) / 9)
    s2_expert = next(b for b in blocks if (b.scenario, b.setting) == ("scenario2", "expert"))
    assert "OpenAI o1" in s2_expert.scores  # scenario 2's expert table names o1, not o3
    assert all(len(s) == len(next(iter(b.scores.values()))) for b in blocks for s in b.scores.values())


@pytest.mark.parametrize("block, expected", [
    ({"columns": ["Entity Class", "Datatype"], "rows": {"m": [0.5]}},
     "block 1 (scenario3, expert): model 'm' has 1 value(s) for 2 column(s)"),
    ({"columns": ["Entity Class", "Colour"], "rows": {"m": [0.5, 0.5]}},
     "block 1 (scenario3, expert): unknown task column(s) ['Colour']"),
    ({"rows": {"m": [0.5]}}, "block 1 (scenario3, expert): expected keys"),
])
def test_malformed_published_file_names_block_and_model(tmp_path: Path, block: dict, expected: str) -> None:
    path = tmp_path / "published.yaml"
    path.write_text(yaml.safe_dump({"tables": [{"scenario": "scenario3", "setting": "expert", "file": "f.csv",
                                                 "commit": "abcdef0123", **block}]}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_published(path)
    assert expected in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("folder, name", [
    ("o3_clean", "OpenAI o3"), ("o3", "OpenAI o3"), ("llama_hf", "Llama 3.3 70B"), ("gemini_2.5", "Gemini 2.5 Pro"),
    ("gemini_2.5_clean", "Gemini 2.5 Pro"), ("gpt4o", "GPT-4o"), ("deepseek_clean", "DeepSeek-R1"),
    ("mixtral_hf", "Mixtral 8x22B"), ("claude", "claude"), ("o3mini", "o3mini"),
])
def test_model_names_from_result_folders(folder: str, name: str) -> None:
    assert model_name(folder) == name


def _published() -> list[PublishedTable]:
    return [PublishedTable("sx", "expert", "f@1", {
        "A": {"Entity Class": 0.9, "Datatype": 0.2, "Join Condition": 0.0},
        "B": {"Entity Class": 0.6, "Datatype": 0.5, "Join Condition": None}}),
        PublishedTable("other", "expert", "g@2", {"A": {"Entity Class": 1.0}})]


def test_compare_means_over_shared_tasks_and_lists_losses() -> None:
    offline = {"Entity Class": 0.8, "Datatype": 0.5, "Join Condition": 0.7, "Function Name": None}
    rescored = {"post-processed": {"A": {"tasks": {"Entity Class": 0.4, "Datatype": None, "Join Condition": 0.1}}}}
    comp = compare("sx", offline, _published(), rescored)
    assert list(comp.columns) == ["published expert", "rescored post-processed"]
    expert = comp.means["published expert"]
    assert expert["tasks"] == ["Entity Class", "Join Condition", "Datatype"]
    assert expert["offline"] == pytest.approx((0.8 + 0.7 + 0.5) / 3)
    assert expert["models"]["A"] == pytest.approx((0.9 + 0.0 + 0.2) / 3)
    assert expert["models"]["B"] == pytest.approx((0.6 + 0.5) / 2)  # B's empty Join cell is skipped
    assert comp.means["rescored post-processed"]["tasks"] == ["Entity Class", "Join Condition"]
    # B's Datatype 0.5 ties the offline 0.5: a tie is no loss
    assert comp.losses == [("published expert", "Entity Class", "A", 0.9, 0.8)]
    assert comp.beats_mean is True
    md = comparison_markdown(comp, "snapshot of 2026-11-29")
    assert "| Entity Class | 0.800 | 0.900 (A) | 0.400 (A) |" in md
    assert "| **offline** | **0.667** | **0.750** |" in md
    assert "| B | 0.550 | n/a |" in md
    assert "- Entity Class, published expert: A 0.900 vs offline 0.800" in md
    assert "Verdict: the offline mapper's mean task F1 is above every LLM's in every column" in md


def test_compare_says_so_when_an_llm_mean_is_higher() -> None:
    comp = compare("sx", {"Entity Class": 0.5, "Datatype": 0.1}, _published())
    assert comp.beats_mean is False
    assert "**not** above" in comparison_markdown(comp)
    assert "no LLM figures" in comparison_markdown(compare("none", {"Entity Class": 0.5}, _published()))


def _evaluation_folder(root: Path, gold_md: str) -> Path:
    """A BLINKG-style evaluation/ folder: run 1 is the gold table plus a second (helper) table, run 2 no table."""
    out = root / "evaluation"
    for sub in ("scenario1_clean", "scenario1_no_clean"):
        model = out / sub / "1B" / "gpt4o"
        model.mkdir(parents=True)
        (model / "gpt4o_1.md").write_text(gold_md + "\n\n| Function | Purpose |\n|---|---|\n| f() | x |\n",
                                          encoding="utf-8")
        (model / "gpt4o_2.md").write_text("Sorry, I cannot produce the table.", encoding="utf-8")
        (model / "gpt4o_0.80_all.csv").write_text("not a table run", encoding="utf-8")
    (out / "scenario1_clean" / "9Z" / "o3").mkdir(parents=True)
    return out


def test_llm_tables_are_rescored_with_our_scorer(scenarios: Path, tmp_path: Path) -> None:
    gold = read_table(scenarios / "scenario1" / "1B" / "expected_table.md")
    evaluation = _evaluation_folder(tmp_path, to_markdown(gold))
    reports, notes = llm_reports(evaluation, scenarios.parent, "scenario1")
    got = rescore(reports)
    assert set(got) == {"post-processed", "raw"}
    gpt = got["post-processed"]["GPT-4o"]
    assert (gpt["cases"], gpt["runs"]) == (1, 2)
    # run 1 equals the gold (F1 1), run 2 predicts nothing (F1 0): macro over runs 0.5
    assert {t: f for t, f in gpt["tasks"].items() if f is not None} == {
        "Data Reference": 0.5, "Ontology Property": 0.5, "Entity Class": 0.5, "Subject Generation": 0.5}
    assert got["raw"]["GPT-4o"]["tasks"] == gpt["tasks"]
    assert any("gpt4o_1.md: line 7: a second table starts here" in n for n in notes)
    assert any("gpt4o_2.md: no table read" in n and "scored as an empty table" in n for n in notes)
    assert any("9Z: no benchmark case scenario1/9Z; skipped" in n for n in notes)
    with pytest.raises(InputError, match="expected a folder scenario3_clean or scenario3_no_clean"):
        llm_reports(evaluation, scenarios.parent, "scenario3")


@pytest.mark.slow
def test_bench_paper_end_to_end_on_one_case(scenarios: Path, tmp_path: Path, capsys) -> None:
    gold = read_table(scenarios / "scenario1" / "1B" / "expected_table.md")
    evaluation = _evaluation_folder(tmp_path, to_markdown(gold))
    snapshot, out = tmp_path / "rescored.yaml", tmp_path / "comparison.md"
    rc = paper.main(["--blinkg", str(scenarios.parent), "--scenario", "scenario1", "--case", "1B",
                     "--llm-tables", str(evaluation), "--write-rescored", str(snapshot), "--out", str(out)])
    assert rc == 0
    figures, label = load_rescored(snapshot)
    assert figures["scenario1"]["post-processed"]["GPT-4o"]["tasks"]["Entity Class"] == 0.5
    assert label.startswith("snapshot of ")
    md = out.read_text(encoding="utf-8")
    # the offline mapper solves 1B exactly; the best rescored LLM is the half-empty GPT-4o above
    assert "| Entity Class | 1.000 | 0.970 (Gemini 2.5 Pro) | 1.000 (Gemini 2.5 Pro, Mixtral 8x22B) | " \
           "1.000 (Gemini 2.5 Pro, Mixtral 8x22B) | 0.500 (GPT-4o) | 0.500 (GPT-4o) |" in md
    captured = capsys.readouterr()
    assert "## scenario1: offline mapper vs the LLMs of the BLINKG paper" in captured.out
    err = captured.err
    assert "bench-paper: note: " in err and "gpt4o_2.md: no table read" in err  # unusable tables are said


@pytest.mark.parametrize("args, message", [
    (["--scenario", "scenario9"], "unknown scenario 'scenario9' (expected one of scenario1, scenario2, scenario3)"),
    (["--scenario", "scenario3", "--out", "/nonexistent/dir/x.md"], "/nonexistent/dir/x.md: cannot write here"),
    (["--scenario", "scenario3", "--write-rescored", "/nonexistent/r.yaml"], "/nonexistent/r.yaml: cannot write"),
    (["--scenario", "scenario3", "--llm-tables", "{tmp}/missing"], "--llm-tables folder not found"),
    (["--scenario", "scenario3", "--llm-tables", "{tmp}"], "no LLM tables for scenario3 (expected folders such as"),
])
def test_bad_bench_input_is_one_line_and_exit_2(scenarios: Path, tmp_path: Path, capsys, args: list[str],
                                                message: str) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert paper.main(["--blinkg", str(scenarios.parent), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert paper.main(["--blinkg", str(tmp_path / "nowhere"), "--scenario", "scenario1"]) == 2


def test_a_model_with_tables_for_fewer_cases_is_not_compared() -> None:
    rescored = {"raw": {"A": {"cases": 2, "tasks": {"Entity Class": 0.5}},
                        "B": {"cases": 1, "tasks": {"Entity Class": 1.0}}}}
    comp = compare("sx", {"Entity Class": 0.8}, [], rescored, cases=2)
    assert comp.partial == [("rescored raw", "B", 1, 2)]
    assert list(comp.columns["rescored raw"]) == ["A"] and comp.beats_mean is True
    assert "Not compared (tables for fewer cases than the offline run): B (rescored raw, 1 of 2 cases)." \
        in comparison_markdown(comp)
