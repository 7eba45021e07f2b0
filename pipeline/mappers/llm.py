"""LLM mapper: BLINKG-style prompts through litellm, robust parsing, validate-and-repair.

Flow per case: build the prompt (or several, when the case exceeds the
model's input window: :func:`~pipeline.mappers.llm_prompt.build_prompts`),
send each ``runs`` times (temperature 0.3 by default; each run is one sample,
macro-averaged later by scoring), parse every answer
(:func:`~pipeline.mappers.llm_parse.parse_response`, which records structural
validity), merge the parts of a run into one table, then validate-and-repair
it against the ontology and the data (:func:`pipeline.repair.repair_table`).
The raw (parsed) and the repaired table are both kept: BLINKG's raw versus
post-processed results.

Requests go through :func:`~pipeline.mappers.llm_client.complete` (cache,
retries, timeout, tokens, latency, cost). When the server rejects the JSON
Schema ``response_format``, the mapper falls back to asking for a Markdown table.
"""
from __future__ import annotations

import hashlib
import logging
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..manifest import Case
from ..ontology import Ontology, load_ontology
from ..table import MappingRow, MappingTable, json_schema
from .base import MapResult, register
from .llm_client import CallRecord, LLMError, LLMSettings, complete, context_window, count_tokens
from .llm_parse import ParsedResponse, parse_response
from .llm_prompt import build_prompts

__all__ = ["LLMMapper", "merge_tables", "RESPONSE_FORMAT"]

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

    def _call(self, settings: LLMSettings, messages: list[dict[str, str]], run: int,
              structured: bool) -> tuple[CallRecord, bool]:
        record = complete(settings, messages, run=run, response_format=RESPONSE_FORMAT if structured else None)
        if structured and record.error and "BadRequest" in record.error:
            log.warning("server rejected structured output (%s); asking for a Markdown table", record.error[:120])
            return record, False
        return record, structured

    def map_runs(self, case: Case, *, workdir: str | Path | None = None, repair: bool = True,
                 **options: Any) -> list[MapResult]:
        """Map ``case`` ``settings.runs`` times; one :class:`MapResult` per run.

        Args:
            case: the scenario case.
            workdir: folder for repaired XML copies used by the repair step (temporary if ``None``).
            repair: run validate-and-repair (else the parsed table is returned as is).
            options: :class:`LLMSettings` field overrides (``model``, ``runs``, ``shots`` ...).
        Returns:
            ``runs`` results; ``result.table`` is the repaired table, ``result.raw_tables``
            holds the parsed table; ``result.provenance`` has per-call figures.
        Raises:
            LLMError: litellm is not installed. Failed requests do not raise: the
                run's table is empty and the error is in the provenance.
        """
        settings = self._settings(options)
        ontology = load_ontology(case.ontologies, case.prefixes)
        window = context_window(settings)
        budget = max(1024, window - (settings.max_tokens or 0))
        prompts = {structured: None for structured in (True, False)}

        def parts(structured: bool):
            if prompts[structured] is None:
                prompts[structured] = build_prompts(case, ontology, budget=budget, structured=structured,
                                                    shots=settings.shots,
                                                    count=lambda m: count_tokens(settings, m))
            return prompts[structured]

        full = None
        results = []
        for run in range(settings.runs):
            t0 = time.perf_counter()
            tables, calls = [], []
            structured = settings.structured
            for index in range(len(parts(structured))):
                part = parts(structured)[index]
                record, still = self._call(settings, part.messages, run, structured)
                if still != structured:
                    structured = False
                    part = parts(False)[min(index, len(parts(False)) - 1)]
                    record = complete(settings, part.messages, run=run)
                parsed: ParsedResponse = parse_response(record.text, source=f"{case.name} run {run}",
                                                        expected="json" if structured else "markdown")
                if record.finish_reason == "length":
                    parsed.repairs.append("completion stopped at the token limit (truncated)")
                    parsed.structurally_valid = False
                tables.append(parsed.table)
                calls.append({"part": part.part, "prompt_sha256": _hash(part.messages), "prompt_tokens_est": part.tokens,
                              **record.to_dict(), "parse": parsed.to_dict()})
            raw = merge_tables(tables, source=f"{settings.model} {case.name} run {run}")
            table, repair_info = raw, None
            if repair:
                if full is None:
                    full = load_ontology([*case.ontologies, *case.skos], case.prefixes)
                table, repair_info = self._repair(raw, full, case, workdir)
            valid = [c["parse"]["structurally_valid"] for c in calls]
            provenance = {
                "mapper": self.name, "version": __version__, "model": settings.model, "run": run,
                "settings": settings.public(), "context_window": window, "parts": len(calls),
                "calls": calls, "structurally_valid": all(valid) and bool(valid),
                "latency_s": round(sum(c["latency_s"] or 0 for c in calls), 4),
                "prompt_tokens": sum(c["prompt_tokens"] or 0 for c in calls),
                "completion_tokens": sum(c["completion_tokens"] or 0 for c in calls),
                "cost_usd": None if any(c["cost_usd"] is None for c in calls) else sum(c["cost_usd"] for c in calls),
                "cache_hits": sum(1 for c in calls if c["cached"]),
                "wall_s": round(time.perf_counter() - t0, 4), "repair": repair_info,
            }
            results.append(MapResult(table, provenance, [raw]))
        return results

    def _repair(self, raw: MappingTable, ontology: Ontology, case: Case,
                workdir: str | Path | None) -> tuple[MappingTable, dict[str, Any]]:
        from ..repair import repair_table
        from ..sources import load_source
        with tempfile.TemporaryDirectory(prefix="llm-repair-") as tmp:
            folder = Path(workdir) if workdir else Path(tmp)
            sources = [load_source(s, folder) for s in case.sources]
            result = repair_table(raw, ontology, case, sources)
        return result.table, result.summary()

    def map(self, case: Case, **options: Any) -> MapResult:
        """Map ``case`` once (run 0 of :meth:`map_runs`, or run ``options['run']``).

        See :meth:`map_runs` for options and result shape.

        Raises:
            LLMError: every request of the run failed (no model reachable, no key), so there
                is no table to return - unlike :meth:`map_runs`, which returns empty tables
                so that scoring over several runs counts such runs as empty.
        """
        run = int(options.pop("run", 0))
        options.setdefault("runs", max(run + 1, 1))
        result = self.map_runs(case, **options)[run]
        errors = [c.get("error") for c in result.provenance.get("calls", []) if c.get("error")]
        if errors and not result.table.rows:
            # one run that got no answer at all is a configuration problem, not an empty mapping
            raise LLMError(f"the LLM ({result.provenance.get('model')}) gave no answer: {errors[0]}. Set LLM_MODEL, "
                           "and LLM_API_KEY (or the provider's key variable) or LLM_API_BASE for a local server")
        return result
