"""Every positional argument and every --out of the existing subcommands has help text."""
from __future__ import annotations

import argparse
import shutil

import pytest

from pipeline.cli import build_parser, main

from helpers import CASES


def test_positionals_and_out_have_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {action.dest}" for name, p in sub.choices.items() for action in p._actions
               if (not action.option_strings or "--out" in action.option_strings) and not action.help]
    assert missing == []
    assert "LLM_CONTEXT_WINDOW" in sub.choices["run"].format_help()


def test_each_command_summary_is_the_help_its_parser_gives():
    from pipeline.cli import COMMANDS

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert helps == {name: summary for name, (_, summary) in COMMANDS.items()}


def test_a_command_loads_only_the_stages_it_runs():
    import subprocess
    import sys

    code = ("import sys; from pipeline.cli import build_parser; build_parser(['materialize']); "
            "print(sorted(m for m in ('pipeline.mappers.offline', 'pipeline.text.offline', 'pipeline.report', "
            "'pipeline.scoring.mapping') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    listed = subprocess.run([sys.executable, "-m", "pipeline.cli", "--help"], capture_output=True, text=True)
    assert listed.returncode == 0 and "materialize" in listed.stdout


def test_quiet_keeps_the_findings_as_its_help_says(tmp_path, capsys):
    from pipeline.cli import QUIET_HELP

    work = tmp_path / "case"
    shutil.copytree(CASES / "sensor-datetime-missing", work)
    assert main(["-q", "map", str(work / "case.yaml"), str(tmp_path / "t.md")]) == 0
    err = capsys.readouterr().err
    # -q keeps the warnings and infos (scripts and tests read them), and its help says so
    assert "warning: " in err and "info: " in err and "are still printed" in QUIET_HELP


def test_an_unknown_option_is_said_with_the_subcommands_usage(capsys):
    """Case cli-map-text-no-o-option: 'kgc map case.yaml t.md --bogus' printed kgc's own usage
    (the list of subcommands), not kgc map's."""
    with pytest.raises(SystemExit) as exc:
        main(["map", "case.yaml", "t.md", "--bogus"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.startswith("usage: kgc map ") and "kgc map: error: unrecognized arguments: --bogus" in err


def test_text_and_map_take_o_for_their_output():
    for command, dest in (("map", "output_opt"), ("text", "out")):
        args = build_parser([command]).parse_args([command, "x.yaml", "-o", "y"])
        assert getattr(args, dest) == "y"
