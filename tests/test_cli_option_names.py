"""Messages name an option as the command line wrote it (pipeline.cli.option_as_typed)."""
from __future__ import annotations

import argparse

import pytest

from pipeline.cli import option_as_typed


@pytest.mark.parametrize("argv, expected", [
    (["validate", "c.yaml", "kg.nt", "-o", "a/b"], "-o"),
    (["validate", "c.yaml", "kg.nt", "-oa/b"], "-o"),
    (["validate", "c.yaml", "kg.nt", "--out", "a/b"], "--out"),
    (["validate", "c.yaml", "kg.nt", "--output=a/b"], "--output"),
    (["validate", "c.yaml", "kg.nt", "--outp", "a/b"], "--outp"),             # an abbreviation argparse accepts
    (["validate", "c.yaml", "kg.nt", "--out", "x", "-o", "a/b"], "-o"),      # the last one wins, as in argparse
    (["validate", "c.yaml", "kg.nt", "-q"], "-o/--output/--out"),             # not typed: every spelling
])
def test_option_as_typed(argv, expected):
    assert option_as_typed(argparse.Namespace(argv=tuple(argv)), "-o", "--output", "--out") == expected


def test_option_without_a_command_line_names_every_spelling():
    assert option_as_typed(argparse.Namespace(), "-o", "--out") == "-o/--out"
