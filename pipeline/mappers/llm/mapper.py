"""LLM mapper: BLINKG-style prompts through litellm, robust parsing, validate-and-repair.

Flow per case: size ``max_tokens`` from the case (:func:`expected_completion_tokens`, unless
``LLM_MAX_TOKENS`` is set), build one prompt - or several disjoint parts only when it exceeds
the model's known input window (:func:`~pipeline.mappers.llm.prompt.build_prompts`) - and
send each ``runs`` times (temperature 0.3 by default; each run is one sample, macro-averaged
later by scoring). Every answer is parsed (:func:`~pipeline.mappers.llm.parse.parse_response`,
which records structural validity); a truncated answer or one without a table is a warning
and is not cached. The parts of a run are merged into one table, then validated and repaired
against the ontology and the data (:func:`pipeline.mappers.repair.repair_table`). The raw (parsed)
and the repaired table are both kept: BLINKG's raw versus post-processed results, and the
before/after-repair pair of the report. Every prompt and answer is returned as a transcript.

Requests go through :func:`~pipeline.llm.complete` (cache, the openai client's
retries, timeout, tokens, latency, cost). A failure no later request can avoid (server
unreachable, key refused, unknown model) ends the case at once with :class:`LLMError`.
When the server rejects the JSON Schema ``response_format``, the mapper falls back to
asking for a Markdown table.
"""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import replace
from typing import Any

from pipeline import __version__
from pipeline.ontology import Ontology, load_ontology
from pipeline.mappers.contract import MapInput, MapResult
from pipeline.mappers.registry import register
from pipeline.mappers.repair import repair_table
from pipeline.table import MappingRow, MappingTable, json_schema
from pipeline.llm import (FATAL_KINDS, LLMError, LLMSettings, complete, context_window, count_tokens,
                         max_output_tokens)
from pipeline.mappers.llm.parse import ParsedResponse, parse_response
from pipeline.mappers.llm.prompt import build_prompts

__all__ = ["LLMMapper", "merge_tables", "expected_completion_tokens", "RESPONSE_FORMAT", "TOKENS_PER_ROW"]

log = logging.getLogger(__name__)

#: OpenAI structured-output request for the mapping-table schema.
RESPONSE_FORMAT: dict[str, Any] = {"type": "json_schema",
                                   "json_schema": {"name": "mapping_table", "schema": json_schema(), "strict": False}}


def _row_key(row: MappingRow) -> tuple:
    return (row.source_file, row.data_reference, row.ontology_property, row.entity_class,
            row.related_entity_class, row.join_condition)


def merge_tables(tables: list[MappingTable], source: str = "merged") -> MappingTable:
    """Concatenate tables (parts of one split case), dropping repeated rows.

    Two rows are the same when source file, data reference, property, class,
    related class and join condition are equal; the first one wins.
    """
    out = MappingTable(source=source)
    seen: set[tuple] = set()
    for t in tables:
        out.notes.extend(t.notes)
        for row in t.rows:
            key = _row_key(row)
            if key in seen:
                continue
            seen.add(key)
            out.rows.append(row)
    return out


def _hash(messages: list[dict[str, str]]) -> str:
    return hashlib.sha256("\n".join(m["content"] for m in messages).encode("utf-8")).hexdigest()


#: Completion tokens allowed per expected table row: a JSON row with a long XPath, a function
#: and a template takes 100-240 tokens (measured on the BLINKG gold tables); 150 plus 50%
#: headroom on the row estimate below covers them.
TOKENS_PER_ROW = 150


def expected_completion_tokens(ontology: Ontology, sources: list, *, floor: int = 2048,
                               ceiling: int | None = None) -> int:
    """``max_tokens`` sized to the table the case needs.

    A table has about one row per data reference that maps onto the ontology, so at most
    ``min(references, properties + classes)`` rows, plus one per source; each gets
    :data:`TOKENS_PER_ROW` tokens, with 50% headroom and 512 tokens for the envelope.

    Args:
        ontology: the case's ontology (without SKOS). sources: loaded sources
            (:class:`pipeline.sources.load.SourceData`).
        floor: least value. ceiling: the model's completion limit when known (else 32,768).
    Returns:
        Tokens, in ``[floor, ceiling]``.
    """
    refs = sum(len(s.references) for s in sources)
    rows = min(refs, len(ontology.properties) + len(ontology.classes)) + len(sources)
    want = int(rows * TOKENS_PER_ROW * 1.5) + 512
    return max(floor, min(want, ceiling or 32_768))


def _accepts(text: str) -> bool:
    """An answer worth caching holds at least one table row."""
    return len(parse_response(text, expected="json").table) > 0


@register("llm")
class LLMMapper:
    """Map a case with an LLM (any litellm model or OpenAI-compatible server).

    Args:
        settings: run settings; default :meth:`LLMSettings.from_env`.
    """

    name = "llm"

    def __init__(self, settings: LLMSettings | None = None) -> None:
        self.settings = settings

    def _settings(self, overrides: dict[str, Any]) -> LLMSettings:
        base = self.settings or LLMSettings.from_env()
        known = {k: v for k, v in overrides.items() if k in LLMSettings.__dataclass_fields__}
        return replace(base, **known) if known else base

    def map_runs(self, inputs: MapInput, *, repair: bool = True, **options: Any) -> list[MapResult]:
        """Map ``inputs.case`` ``settings.runs`` times; one :class:`MapResult` per run.

        Args:
            inputs: the case with its loaded ontology (SKOS included) and sources.
            repair: run validate-and-repair (else the parsed table is returned as is).
            options: :class:`LLMSettings` field overrides (``model``, ``runs``, ``shots`` ...).
        Returns:
            ``runs`` results; ``result.table`` is the repaired table, ``result.raw_tables``
            holds the parsed table; ``result.provenance`` has per-call figures and
            ``warnings`` (truncated answers, answers without a table); ``result.transcripts``
            every prompt and answer.
        Raises:
            LLMError: litellm is not installed, or a request failed in a way no later request
                can avoid (server unreachable, key refused, unknown model); the error carries the
                provenance and transcripts so far. Other failed requests do not raise: the
                run's table is empty and the error is in the provenance.
            OntologyError: the case has SKOS files and its ontology files alone cannot be parsed.
        """
        settings = self._settings(options)
        case = inputs.case
        # the completion budget counts the terms of the ontology files and a split prompt groups them: the
        # ontology without the SKOS vocabularies (split by scheme apart); without SKOS files, the loaded one
        ontology = load_ontology(case.ontologies, case.prefixes) if case.skos else inputs.ontology
        return self._runs(inputs, settings, ontology, repair)

    def _runs(self, inputs: MapInput, settings: LLMSettings, ontology: Ontology, repair: bool) -> list[MapResult]:
        case = inputs.case
        sized = settings.max_tokens is None
        if sized:
            settings = replace(settings, max_tokens=expected_completion_tokens(
                ontology, list(inputs.sources), ceiling=max_output_tokens(settings)))
        window = context_window(settings)
        budget = None if window is None else max(1024, window - settings.max_tokens)
        prompts: dict[bool, list] = {}

        def parts(structured: bool):
            if structured not in prompts:
                prompts[structured] = build_prompts(case, ontology, budget=budget, structured=structured,
                                                    shots=settings.shots,
                                                    count=lambda m: count_tokens(settings, m))
            return prompts[structured]

        base = {"mapper": self.name, "version": __version__, "model": settings.model,
                "settings": settings.public(), "max_tokens_from": "case size" if sized else "LLM_MAX_TOKENS",
                "context_window": window,
                "context_window_from": ("LLM_CONTEXT_WINDOW" if settings.context_window else
                                        "litellm" if window else "unknown: one prompt, not split")}
        results: list[MapResult] = []
        transcripts: list[dict[str, Any]] = []
        for run in range(settings.runs):
            t0 = time.perf_counter()
            tables, calls, warnings = [], [], []
            structured = settings.structured
            index = 0
            while index < len(parts(structured)):
                part = parts(structured)[index]
                record = complete(settings, part.messages, run=run, accept=_accepts,
                                  response_format=RESPONSE_FORMAT if structured else None)
                if structured and record.error_kind == "bad_request":
                    log.warning("server rejected structured output (%s); asking for a Markdown table", record.error)
                    structured, index = False, 0  # the Markdown prompts may be split differently
                    tables, calls = [], []
                    continue
                label = f"run {run}" + (f" part {index + 1}/{len(parts(structured))}" if len(parts(structured)) > 1
                                        else "")
                transcripts.append({"run": run, "part": index + 1, "part_of": part.part, "messages": part.messages,
                                    "answer": record.text, "finish_reason": record.finish_reason,
                                    "error": record.error, "cached": record.cached})
                if record.error_kind in FATAL_KINDS:
                    prov = {**base, "run": run, "calls": [*calls, record.to_dict()], "warnings": warnings}
                    raise LLMError(record.error or "request failed", provenance=prov, transcripts=transcripts)
                parsed: ParsedResponse = parse_response(record.text, source=f"{case.name} {label}",
                                                        expected="json" if structured else "markdown")
                warning = None
                if record.finish_reason == "length":
                    parsed.repairs.append("completion stopped at the token limit (truncated)")
                    parsed.structurally_valid = False
                    warning = (f"the answer was cut at max_tokens={settings.max_tokens} (finish_reason=length; "
                               f"{len(parsed.table)} complete rows kept, not cached); raise LLM_MAX_TOKENS")
                elif record.error:
                    warning = f"no answer: {record.error}"
                elif not len(parsed.table):
                    warning = f"the answer holds no mapping table ({parsed.error}; not cached)"
                if warning:
                    warnings.append(f"{label}: {warning}")
                    log.warning("%s/%s %s: %s", case.scenario, case.name, label, warning)
                tables.append(parsed.table)
                calls.append({"part": part.part, "prompt_sha256": _hash(part.messages),
                              "prompt_tokens_est": part.tokens, **record.to_dict(), "parse": parsed.to_dict()})
                index += 1
            raw = merge_tables(tables, source=f"{settings.model} {case.name} run {run}")
            table, repair_info = raw, None
            if repair:
                result = repair_table(raw, inputs.ontology, case, list(inputs.sources))
                table, repair_info = result.table, result.summary()
            valid = [c["parse"]["structurally_valid"] for c in calls]
            provenance = {
                **base, "run": run, "structured": structured, "parts": len(calls),
                "calls": calls, "structurally_valid": all(valid) and bool(valid), "warnings": warnings,
                "latency_s": round(sum(c["latency_s"] or 0 for c in calls), 4),
                "prompt_tokens": sum(c["prompt_tokens"] or 0 for c in calls),
                "completion_tokens": sum(c["completion_tokens"] or 0 for c in calls),
                "cost_usd": None if any(c["cost_usd"] is None for c in calls) else sum(c["cost_usd"] for c in calls),
                "cache_hits": sum(1 for c in calls if c["cached"]),
                "wall_s": round(time.perf_counter() - t0, 4), "repair": repair_info,
            }
            results.append(MapResult(table, provenance, [raw],
                                     [t for t in transcripts if t["run"] == run]))
        errors = [c["error"] for r in results for c in r.provenance["calls"] if c.get("error")]
        if errors and not any(r.raw_tables[0].rows for r in results):
            # no run got any answer: a problem of the server or settings, not an empty mapping
            raise LLMError(f"the LLM ({settings.model}) gave no answer: {errors[0]}",
                           provenance=results[0].provenance if len(results) == 1 else
                           {"runs": len(results), "per_run": [r.provenance for r in results]},
                           transcripts=transcripts)
        return results

    def map(self, inputs: MapInput, **options: Any) -> MapResult:
        """Map ``inputs.case`` once (run 0 of :meth:`map_runs`, or run ``options['run']``).

        See :meth:`map_runs` for options and result shape.

        Raises:
            LLMError: every request of the run failed (no model reachable, no key), so there
                is no table to return - unlike :meth:`map_runs`, which returns empty tables
                so that scoring over several runs counts such runs as empty.
        """
        run = int(options.pop("run", 0))
        options["runs"] = run + 1
        result = self.map_runs(inputs, **options)[run]
        errors = [c.get("error") for c in result.provenance.get("calls", []) if c.get("error")]
        if errors and not result.table.rows:
            # one run that got no answer at all cannot be scored as an empty mapping
            raise LLMError(f"the LLM ({result.provenance.get('model')}) gave no answer: {errors[0]}",
                           provenance=result.provenance, transcripts=result.transcripts)
        return result
