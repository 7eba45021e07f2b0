"""The KG's verdict: one word and its reasons, from the results of the KG checks (SV2, CS2, SHACL).

Run status and KG validity are two verdicts: a run that wrote its KG is ``ok`` whatever the
KG is; the KG is

* ``valid`` when every check that applies ran and none fails; when a passing check saw a sample of
  the KG (``details.coverage.mode == "sample"``: CS2 and SHACL above 20,000 triples), the verdict
  says so (:attr:`Verdict.sampled`, ``KG valid on a sample: ...``): a sample cannot show that the
  KG is consistent. It stays ``valid`` for the exit code (SV2 and CS2-axioms read every triple;
  ``kgc validate --full`` reasons over all of them);
* ``invalid`` when a check fails (value ``False``): the KG has an error;
* ``not validated`` when none fails but a check that applies did not run or finish (status
  ``not_run``, ``timeout`` or ``failed``): nothing is known about what it would have found,
  so this is never a pass; likewise when a passing check says the checks had nothing to check
  (``details.unchecked``: no triple of the KG uses a term of the ontology, so the reasoners and the
  derived shapes pass vacuously);
* ``not checked`` when no check result exists (``--no-evaluate``, or the run failed before).

``not_applicable`` (HermiT without Java) does not count. Results are ``Result.to_dict()`` dicts
(or the ``{"value", "status", "reason"}`` summaries of ``run.json``); this module imports nothing
heavy, so the report and the console read it too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["NOT_RUN", "Verdict", "kg_verdict", "check_reason", "check_word"]

#: Statuses of a check that should have run on the KG and did not finish: never a pass.
NOT_RUN = ("not_run", "timeout", "failed")


def check_reason(result: Mapping[str, Any]) -> str:
    """Why a check did not run, failed or does not apply, in one line: ``details.reason`` (or
    ``reason``), else its first error finding (for a check that does not apply, the finding
    :meth:`pipeline.validation.result.Result.not_applicable` keeps its reason in), else its status."""
    details = result.get("details") or {}
    why = details.get("reason") or result.get("reason")
    if not why and result.get("status") == "over runs":  # LLM_RUNS > 1: the runs did not all validate
        why = "not validated in every run (see runs/<i>/graph_validation.json)"
    if not why:
        kinds = ("fatal", "error", "info") if result.get("status") == "not_applicable" else ("fatal", "error")
        first = next((f for f in result.get("findings") or [] if f.get("severity") in kinds), None)
        why = first.get("message") if first else result.get("status") or "no reason recorded"
    return " ".join(str(why).split())


def check_word(result: Mapping[str, Any]) -> str:
    """A check's outcome as a word: ``passes``, ``fails``, ``not run``, ``n/a``; never "ok" (which
    says the value was computed, not what it is)."""
    value, status = result.get("value"), result.get("status")
    if status in NOT_RUN and value is None:
        return "not run"
    if value is True:
        return "passes"
    if value is False:
        return "fails"
    return "n/a"


@dataclass
class Verdict:
    """The KG's verdict.

    Attributes:
        state: ``valid``, ``invalid``, ``not validated`` or ``not checked`` (module docstring).
        failing: checks whose value is ``False``.
        not_run: check -> one-line reason, for checks that applied and did not run or finish.
        passed: checks that ran and pass.
        not_applicable: check -> why it cannot apply here (HermiT without Java); not counted, but said.
        sampled: passing check -> ``[triples seen, triples of the KG]`` for the checks that saw a sample.
        caveats: passing check -> what part of the data it did not look at (``details.caveat``:
            ``xsd:date values not reasoned over: 2 literals`` for HermiT), said beside its name.
        unchecked: why the passing checks checked nothing of the ontology (``details.unchecked``), or
            ``""``; the state is then ``not validated``.
    """

    state: str
    failing: list[str] = field(default_factory=list)
    not_run: dict[str, str] = field(default_factory=dict)
    passed: list[str] = field(default_factory=list)
    not_applicable: dict[str, str] = field(default_factory=dict)
    sampled: dict[str, list[int]] = field(default_factory=dict)
    caveats: dict[str, str] = field(default_factory=dict)
    unchecked: str = ""

    def _named(self, names: list[str]) -> str:
        return ", ".join(f"{n} ({self.caveats[n]})" if n in self.caveats else n for n in names)

    @property
    def label(self) -> str:
        """The state as said to a user: ``valid on a sample`` when a passing check saw only a sample."""
        return "valid on a sample" if self.state == "valid" and self.sampled else self.state

    def sample_phrase(self) -> str:
        """``CS2-owlrl, SHACL on a sample of 1,923 of 90,001 triples`` (``""``: no check saw a sample)."""
        by_size: dict[tuple[int, int], list[str]] = {}
        for name, (seen, total) in self.sampled.items():
            by_size.setdefault((seen, total), []).append(name)
        return "; ".join(f"{self._named(names)} on a sample of {seen:,} of {total:,} triples"
                         for (seen, total), names in by_size.items())

    def sentence(self) -> str:
        """The verdict in one sentence (``KG valid: passes SV2, CS2-owlrl, SHACL`` ...)."""
        if self.state == "not checked":
            return "KG not checked"
        parts = []
        if self.failing:
            parts.append(f"fails {', '.join(self.failing)}")
        by_reason: dict[str, list[str]] = {}
        for name, why in self.not_run.items():  # one reason given once, with every check it stopped
            by_reason.setdefault(why, []).append(name)
        parts += [f"{', '.join(names)} did not run ({why})" for why, names in by_reason.items()]
        if self.unchecked and not self.failing:
            parts.append(f"{self.unchecked} (passes {self._named(self.passed)})")
        if self.state == "valid" and self.sampled:
            whole = [n for n in self.passed if n not in self.sampled]
            parts.append((f"passes {self._named(whole)} on every triple; " if whole else "")
                         + "passes " + self.sample_phrase() + " only")
        elif self.state == "valid":
            parts.append(f"passes {self._named(self.passed)}")
        elif self.sampled:  # a pass on a sample beside a failure or a check not run: said too
            parts.append("passes " + self.sample_phrase() + " only")
        # a check that cannot apply here (HermiT without Java) is said, so its absence is visible
        parts += [f"{name} n/a ({why})" for name, why in self.not_applicable.items()]
        return f"KG {self.label}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``state``, ``failing``, ``not_run``, ``passed``, ``sentence``)."""
        return {"state": self.state, "failing": self.failing, "not_run": self.not_run, "passed": self.passed,
                "not_applicable": self.not_applicable, "sampled": self.sampled, "caveats": self.caveats,
                "unchecked": self.unchecked,
                "label": self.label,
                "sentence": self.sentence()}


def kg_verdict(validation: Mapping[str, Mapping[str, Any]] | None) -> Verdict:
    """The verdict on a KG from its check results (``{name: Result.to_dict()}``, as
    :func:`pipeline.run.evaluate.graph_validation` returns and ``graph_validation.json`` holds).

    Returns:
        A :class:`Verdict`; ``invalid`` wins over ``not validated`` (a check found an error).
    """
    checks = {k: v for k, v in (validation or {}).items() if isinstance(v, Mapping)}
    if not checks:
        return Verdict("not checked")
    failing = [k for k, v in checks.items() if v.get("value") is False]
    # a check without a value that applies (any status but not_applicable) did not run or finish
    not_run = {k: check_reason(v) for k, v in checks.items()
               if v.get("value") is None and v.get("status") != "not_applicable"}
    passed = [k for k, v in checks.items() if v.get("value") is True]
    not_applicable = {k: check_reason(v) for k, v in checks.items()  # those that say why
                      if v.get("value") is None and v.get("status") == "not_applicable"
                      and ((v.get("details") or {}).get("reason") or v.get("reason"))}
    sampled = {}
    for k in passed:
        cov = (checks[k].get("details") or {}).get("coverage") or checks[k].get("coverage") or {}
        if cov.get("mode") == "sample" and len(cov.get("triples") or ()) == 2:
            sampled[k] = [int(cov["triples"][0]), int(cov["triples"][1])]
    caveats = {k: str((checks[k].get("details") or {}).get("caveat") or checks[k].get("caveat"))
               for k in passed if (checks[k].get("details") or {}).get("caveat") or checks[k].get("caveat")}
    unchecked = next((str(d["unchecked"]) for k in passed if (d := checks[k].get("details") or {}).get("unchecked")),
                     "")
    state = "invalid" if failing else "not validated" if not_run or unchecked else "valid"
    return Verdict(state, failing, not_run, passed, not_applicable, sampled, caveats, unchecked)
