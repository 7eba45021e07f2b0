"""The validation part of `kgc text`'s case line says what graph_validation.json says: pass, FAIL,
not run (with why: a check that applied and did not finish, which makes the exit 1), or not
applicable (with why, once for the checks sharing it)."""
from __future__ import annotations

from pipeline.text.cli import _checks
from pipeline.validation.result import Result


def test_checks_words():
    val = {"SV2": Result(name="SV2", value=True, status="ok").to_dict(),
           "CS2-owlrl": Result(name="CS2-owlrl", value=False, status="ok").to_dict(),
           "SHACL": Result(name="SHACL", value=None, status="timeout", details={"reason": "timed out after 60 s"}).to_dict()}
    assert _checks(val) == "SV2 pass, CS2-owlrl FAIL, SHACL not run (timed out after 60 s)"


def test_not_applicable_checks_share_their_reason():
    val = {n: Result.not_applicable(n, "no triples to check").to_dict() for n in ("SV2", "CS2-owlrl", "SHACL")}
    assert _checks(val) == "SV2, CS2-owlrl, SHACL not applicable (no triples to check)"
