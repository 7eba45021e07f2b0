"""Every positional argument and every --out of the existing subcommands has help text."""
from __future__ import annotations

import argparse

from pipeline.cli import build_parser


def test_positionals_and_out_have_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {action.dest}" for name, p in sub.choices.items() for action in p._actions
               if (not action.option_strings or "--out" in action.option_strings) and not action.help]
    assert missing == []
    assert "LLM_CONTEXT_WINDOW" in sub.choices["run"].format_help()
