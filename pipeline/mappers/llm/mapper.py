"""LLM mapper: BLINKG-style prompts through litellm, robust parsing, validate-and-repair.

Flow per case: choose the ontology to send (the whole files, or the terms retrieved for the data
when the vocabulary is large: :mod:`.retrieve`, ``LLM_ONTOLOGY``), size the answer from the case
(:func:`expected_completion_tokens`, unless ``LLM_MAX_TOKENS`` is set) and fit prompt and answer
into the model's context window (:func:`pipeline.llm.context_window`; prompt tokens counted by
:func:`pipeline.llm.token_counter`): one prompt when it fits, else disjoint parts with smaller
source samples (:func:`~pipeline.mappers.llm.prompt.build_prompts`). Each part's ``max_tokens`` is
what the window leaves after its prompt (at most the answer's size); a part that leaves less than
:data:`MIN_ANSWER` tokens stops the case before any request, naming the setting to change.

Each prompt is sent ``runs`` times (temperature 0.3 by default; each run is one sample,
macro-averaged later by scoring). Every answer is parsed
(:func:`~pipeline.mappers.llm.parse.parse_response`, which records structural validity); an answer
cut at ``max_tokens``, stopped by a silent server or without a table is a warning and is not cached;
its complete rows are kept. The parts of a run are merged into one table, then validated and
repaired against the ontology and the data (:func:`pipeline.mappers.repair.repair_table`). The raw
(parsed) and the repaired table are both kept: BLINKG's raw versus post-processed results, and the
before/after-repair pair of the report. Every prompt and answer (partial ones too) is returned as a
transcript, with the ontology terms it sent.

Requests go through :func:`~pipeline.llm.complete` (streamed; cache, retries before the answer
starts, timeout on silence, tokens, latency, cost). A failure no later request can avoid (server
unreachable, key refused, unknown model, prompt over the window) ends the case at once with
:class:`LLMError`; Ctrl-C ends it with :class:`~pipeline.llm.LLMInterrupted`, both carrying the
transcripts so far. When the server refuses the JSON Schema ``response_format`` (its error names
it), the mapper asks for a Markdown table instead.
"""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import replace
from typing import Any

from pipeline import __version__
from pipeline.llm import (FATAL_KINDS, LLMError, LLMInterrupted, LLMSettings, complete, context_window,
                          max_output_tokens, refuses_structured_output, token_counter)
from pipeline.mappers.contract import MapInput, MapResult
from pipeline.mappers.llm.parse import ParsedResponse, parse_response
from pipeline.mappers.llm.prompt import PromptPart, build_prompts
from pipeline.mappers.llm.retrieve import retrieve_terms
from pipeline.mappers.registry import register
from pipeline.mappers.repair import repair_table
from pipeline.ontology import Ontology, load_ontology
from pipeline.table import MappingRow, MappingTable, json_schema

__all__ = ["LLMMapper", "merge_tables", "expected_completion_tokens", "RESPONSE_FORMAT", "TOKENS_PER_ROW",
           "MIN_ANSWER", "SAFETY_TOKENS", "AUTO_RETRIEVE_TERMS"]

log = logging.getLogger(__name__)

#: OpenAI structured-output request for the mapping-table schema.
RESPONSE_FORMAT: dict[str, Any] = {"type": "json_schema",
                                   "json_schema": {"name": "mapping_table", "schema": json_schema(), "strict": False}}
#: Tokens kept free between prompt plus answer and the window (what a chat template adds and a count may miss).
SAFETY_TOKENS = 64
#: The least answer a part may be given: below this, no useful table fits.
MIN_ANSWER = 256
#: ``LLM_ONTOLOGY=auto`` sends the terms retrieved for the data, not the whole files, above this many
#: classes and properties (a vocabulary of a few hundred terms is tens of thousands of tokens).
AUTO_RETRIEVE_TERMS = 200


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


def _label(index: int, count: int) -> str:
    return f"part {index}/{count}" if count > 1 else ""


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
            holds the parsed table; ``result.provenance`` has per-call figures, the window and how
            tokens were counted, the ontology terms sent, and ``warnings`` (truncated answers,
            answers without a table); ``result.transcripts`` every prompt and answer.
        Raises:
            LLMError: litellm is not installed; a prompt part leaves no room for an answer in the
                window (before any request); or a request failed in a way no later request can
                avoid (server unreachable, key refused, unknown model, window exceeded, a server that
                does not answer as an OpenAI-compatible API); or no run gave a single mapping row.
                The error carries the provenance and transcripts so far. Other failed requests do not
                raise: that run's table is empty and the error is in the provenance.
            LLMInterrupted: Ctrl-C during a request, with the transcripts so far (the partial answer too).
            OntologyError: the case has SKOS files and its ontology files alone cannot be parsed.
        """
        settings = self._settings(options)
        case = inputs.case
        # the completion budget counts the terms of the ontology files and a split prompt groups them: the
        # ontology without the SKOS vocabularies (split by scheme apart); without SKOS files, the loaded one
        ontology = load_ontology(case.ontologies, case.prefixes) if case.skos else inputs.ontology
        return self._runs(inputs, settings, ontology, repair)

    def _plan(self, inputs: MapInput, settings: LLMSettings, ontology: Ontology) -> dict[str, Any]:
        """Ontology to send, answer size, window, token counter and the prompt builder of the case."""
        sources = list(inputs.sources)
        n_terms = len(ontology.classes) + len(ontology.properties)
        retrieve = settings.ontology == "retrieved" or (settings.ontology == "auto" and n_terms > AUTO_RETRIEVE_TERMS)
        found = retrieve_terms(ontology, sources) if retrieve else None
        sized = settings.max_tokens is None
        answer = settings.max_tokens or expected_completion_tokens(ontology, sources,
                                                                   ceiling=max_output_tokens(settings))
        window = context_window(settings)
        counter = token_counter(settings)
        budget = None if window.tokens is None else window.tokens - min(answer, window.tokens // 2) - SAFETY_TOKENS
        return {"answer": answer, "sized": sized, "window": window, "counter": counter, "budget": budget,
                "terms": found.terms if found else None,
                "ontology_sent": ({"mode": "retrieved", "terms": len(found.terms), "of": found.total,
                                   "method": found.method} if found else {"mode": "all", "terms": n_terms,
                                                                          "of": n_terms})}

    def _part_limit(self, part: PromptPart, plan: dict[str, Any], settings: LLMSettings, case_name: str) -> int:
        """``max_tokens`` of one part: the answer's size, at most what the window leaves after its prompt.

        Raises:
            LLMError: the window leaves less than :data:`MIN_ANSWER` tokens (nothing is sent).
        """
        answer, window = plan["answer"], plan["window"]
        if window.tokens is None:
            return answer
        room = window.tokens - part.tokens - SAFETY_TOKENS
        if room < min(MIN_ANSWER, answer):
            where = f" (part {part.part})" if part.part else ""
            raise LLMError(
                f"{case_name}: the prompt{where} takes {part.tokens} tokens ({plan['counter'].method}) of the "
                f"{window.tokens}-token context window ({window.source}), leaving {max(room, 0)} for the answer "
                f"(at least {min(MIN_ANSWER, answer)} needed); no request was sent. Give the model a larger "
                f"window (the server's context size, then LLM_CONTEXT_WINDOW), or send less: "
                f"LLM_ONTOLOGY=retrieved (only the terms retrieved for the data), LLM_SHOTS=0")
        return min(answer, room)

    def _runs(self, inputs: MapInput, settings: LLMSettings, ontology: Ontology, repair: bool) -> list[MapResult]:
        case = inputs.case
        plan = self._plan(inputs, settings, ontology)
        prompts: dict[bool, list[tuple[PromptPart, int]]] = {}

        def parts(structured: bool) -> list[tuple[PromptPart, int]]:
            if structured not in prompts:
                built = build_prompts(case, ontology, budget=plan["budget"], structured=structured,
                                      shots=settings.shots, count=plan["counter"], terms=plan["terms"])
                prompts[structured] = [(p, self._part_limit(p, plan, settings, case.name)) for p in built]
            return prompts[structured]

        window = plan["window"]
        base = {"mapper": self.name, "version": __version__, "model": settings.model,
                "settings": settings.public(), "max_tokens_from": "case size" if plan["sized"] else "LLM_MAX_TOKENS",
                "answer_tokens": plan["answer"], "context_window": window.tokens, "context_window_from": (
                    window.source if window.tokens else "unknown: one prompt, not split"),
                "token_count": plan["counter"].method, "ontology_sent": plan["ontology_sent"]}
        try:
            parts(settings.structured)  # a part that cannot fit stops the case before any request
        except LLMError as exc:
            exc.provenance = {**base, "calls": [], "warnings": []}
            raise
        results: list[MapResult] = []
        transcripts: list[dict[str, Any]] = []
        for run in range(settings.runs):
            t0 = time.perf_counter()
            tables, calls, warnings = [], [], []
            structured = settings.structured
            index = 0
            while index < len(parts(structured)):
                part, limit = parts(structured)[index]
                label = _label(index + 1, len(parts(structured)))
                try:
                    record = complete(settings, part.messages, run=run, accept=_accepts, max_tokens=limit,
                                      response_format=RESPONSE_FORMAT if structured else None,
                                      label=f"{case.name} run {run}" + (f" {label}" if label else ""))
                except LLMInterrupted as stop:
                    transcripts.append(self._transcript(run, index, part, limit, stop.record))
                    stop.transcripts = transcripts
                    stop.provenance = {**base, "run": run, "calls": [*calls, stop.record.to_dict()],
                                       "warnings": warnings, "interrupted": True}
                    raise
                if structured and record.error_kind == "bad_request" and refuses_structured_output(record.error or ""):
                    log.warning("server refused structured output (%s); asking for a Markdown table", record.error)
                    structured, index = False, 0  # the Markdown prompts may be split differently
                    tables, calls = [], []
                    continue
                transcripts.append(self._transcript(run, index, part, limit, record))
                if record.error_kind in FATAL_KINDS:
                    prov = {**base, "run": run, "calls": [*calls, record.to_dict()], "warnings": warnings}
                    raise LLMError(record.error or "request failed", provenance=prov, transcripts=transcripts)
                parsed: ParsedResponse = parse_response(record.text, source=f"{case.name} run {run} {label}".rstrip(),
                                                        expected="json" if structured else "markdown")
                warning = self._warning(record, parsed, limit, plan)
                if warning:
                    warnings.append(f"{label}: {warning}" if label else warning)
                    log.warning("%s/%s run %d%s: %s", case.scenario, case.name, run, f" {label}" if label else "",
                                warning)
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
        said = [w for r in results for w in r.provenance["warnings"]]
        if not any(r.raw_tables[0].rows for r in results):
            # no run got any row: a problem of the server or settings (or a model that cannot do the
            # task), never an empty mapping to compile and score
            broke = any(c.get("finish_reason") in ("timeout", "error") for r in results for c in r.provenance["calls"])
            why = f"gave no {'complete ' if broke else ''}answer: {errors[0]}" if errors else \
                f"gave no mapping row: {said[0] if said else 'every answer was empty'}"
            raise LLMError(f"the LLM ({settings.model}) {why}",
                           provenance=results[0].provenance if len(results) == 1 else
                           {"runs": len(results), "per_run": [r.provenance for r in results]},
                           transcripts=transcripts)
        return results

    @staticmethod
    def _transcript(run: int, index: int, part: PromptPart, limit: int, record: Any) -> dict[str, Any]:
        """One prompt and its answer (partial ones too), with what was sent and why it ended."""
        return {"run": run, "part": index + 1, "part_of": part.part, "ontology_terms_sent": list(part.sent),
                "prompt_tokens_est": part.tokens, "max_tokens": limit, "messages": part.messages,
                "answer": record.text, "finish_reason": record.finish_reason, "error": record.error,
                **({"server_sent": record.extra["server_sent"]} if "server_sent" in record.extra else {}),
                "cached": record.cached, "attempts": record.attempts, "latency_s": record.latency_s,
                "first_token_s": record.first_token_s, "completion_tokens": record.completion_tokens}

    @staticmethod
    def _warning(record: Any, parsed: ParsedResponse, limit: int, plan: dict[str, Any]) -> str | None:
        """What the user must know about one answer (``None`` when it is complete and holds a table)."""
        if record.finish_reason == "length":
            parsed.repairs.append("completion stopped at the token limit (truncated)")
            parsed.structurally_valid = False
            capped = limit < plan["answer"]
            fix = (f"the context window ({plan['window'].tokens} tokens, {plan['window'].source}) left no more: "
                   "give the model a larger window or send less (LLM_ONTOLOGY=retrieved)" if capped
                   else "raise LLM_MAX_TOKENS")
            return (f"the answer was cut at max_tokens={limit} (finish_reason=length; {len(parsed.table)} complete "
                    f"rows kept, not cached); {fix}")
        if record.finish_reason in ("timeout", "error"):
            parsed.structurally_valid = False
            return f"{record.error} ({len(parsed.table)} complete rows kept, not cached)"
        if record.error:
            return f"no answer: {record.error}"
        if not len(parsed.table):
            return f"the answer holds no mapping table ({parsed.error}; not cached)"
        return None

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
            broke = any(c.get("finish_reason") in ("timeout", "error") for c in result.provenance.get("calls", []))
            raise LLMError(f"the LLM ({result.provenance.get('model')}) gave no {'complete ' if broke else ''}answer: "
                           f"{errors[0]}",
                           provenance=result.provenance, transcripts=result.transcripts)
        return result
