"""BLINKG-style prompts: sources (content or a structure-preserving sample), ontology, SKOS, shots.

The prompt follows the BLINKG setup (Chaves-Fraga et al., section 4.1): a
task description, then each source with its file name and its content or a
sample (the first rows of a CSV with its header, the first records of a JSON
array inside the document's own envelope, the whole XML fragment), then the
ontology and the SKOS vocabularies. Templates live in ``prompts/*.j2``;
worked examples for one- and few-shot prompts in ``prompts/examples.json``.

Context budget: only when a prompt exceeds the budget its window leaves,
the source samples shrink (fewer records, shorter XML), :func:`ontology_groups`
splits the ontology into disjoint groups (a class with the properties whose
domain is that class, BLINKG's per-entity sub-ontologies of scenario 2),
:func:`skos_chunks` the SKOS vocabularies into one chunk per concept scheme, and
:func:`build_prompts` packs them greedily into parts that fit; the mapper runs
each part and merges the tables. The ontology sent may be the part retrieved for
the data (:mod:`.retrieve`) rather than the whole files.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import jinja2
from rdflib import BNode, Graph, URIRef
from rdflib.namespace import OWL, RDF, SKOS

from pipeline.fno import FUNCTIONS, TABLE_FUNCTIONS
from pipeline.manifest import Case, Source
from pipeline.ontology import Ontology
from pipeline.table import COLUMNS, MappingRow, MappingTable, json_schema, to_markdown

__all__ = ["PromptPart", "SAMPLE_STEPS", "source_sample", "ontology_groups", "skos_chunks", "subgraph_turtle", "render_prompt",
           "build_prompts"]

log = logging.getLogger(__name__)

_PROMPTS = Path(__file__).parent / "prompts"


@dataclass(frozen=True)
class PromptPart:
    """One prompt to send: messages plus what part of the ontology it covers.

    Attributes:
        messages: chat messages (system, user).
        part: ``None`` for the whole case, else a description of the ontology group(s).
        terms: IRIs of the ontology terms covered (empty: all).
        tokens: prompt tokens (the counter's, margin included).
        sent: prefixed names of the ontology terms (and SKOS schemes) the prompt sends; ``("all",)``
            for the whole ontology files.
    """

    messages: list[dict[str, str]]
    part: str | None
    terms: frozenset[URIRef]
    tokens: int
    sent: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(_PROMPTS)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=False, autoescape=False)


def _sample_json(data, rows: int) -> tuple[object, int, int]:
    """Cut every list of objects to ``rows`` items; returns (data, shown, total) of the largest list."""
    best = (0, 0)
    if isinstance(data, list):
        cut = [_sample_json(x, rows)[0] for x in data[:rows]]
        if data and all(isinstance(x, dict) for x in data):
            best = (min(rows, len(data)), len(data))
        return cut, *best
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            out[k], shown, total = _sample_json(v, rows)
            if total > best[1]:
                best = (shown, total)
        return out, *best
    return data, 0, 0


def source_sample(source: Source, rows: int = 8, max_chars: int = 60_000) -> dict[str, object]:
    """Text of one source for a prompt, sampled so that its structure stays complete.

    Args:
        source: the manifest entry.
        rows: records to keep for CSV/JSON (BLINKG: 5-10).
        max_chars: XML longer than this is cut at a record boundary (``</...>`` line).
    Returns:
        ``{"name", "format", "sample", "sampled": bool, "shown": int, "records": int}``.
    Raises:
        OSError, UnicodeDecodeError, json.JSONDecodeError: unreadable source.
    """
    text = source.path.read_text(encoding="utf-8-sig")
    name = source.name or source.path.name
    if source.format == "csv":
        lines = [l for l in text.splitlines() if l.strip()]
        total = max(0, len(lines) - 1)
        shown = min(rows, total)
        return {"name": name, "format": "csv", "sample": "\n".join(lines[:shown + 1]),
                "sampled": shown < total, "shown": shown, "records": total}
    if source.format == "json":
        data = json.loads(text)
        cut, shown, total = _sample_json(data, rows)
        return {"name": name, "format": "json", "sample": json.dumps(cut, indent=1, ensure_ascii=False),
                "sampled": shown < total, "shown": shown, "records": total}
    sampled = len(text) > max_chars
    if sampled:
        cut = text.rfind("\n", 0, max_chars)
        text = text[:cut if cut > 0 else max_chars] + "\n<!-- ... -->"
    return {"name": name, "format": "xml", "sample": text.strip(), "sampled": sampled, "shown": 0, "records": 0}


def ontology_groups(ontology: Ontology) -> list[tuple[str, frozenset[URIRef]]]:
    """Split the ontology into disjoint groups: each class with the properties whose domain is that class.

    A property with several domain classes goes with the first of them (sorted order), so
    no term is in two groups; range classes are named by IRI in the property's own triples
    and described in their own group. Properties without a domain form a last group.

    Returns:
        ``[(label, terms)]``; ``label`` is the class's prefixed name.
    """
    groups: list[tuple[str, frozenset[URIRef]]] = []
    seen: set[URIRef] = set()
    for cls in sorted(ontology.classes):
        props = {p for p in ontology.properties if cls in ontology.domains(p) and p not in seen}
        seen |= props
        groups.append((ontology.compact(cls), frozenset({cls} | props)))
    rest = frozenset(p for p in ontology.properties if p not in seen and not str(p).startswith(str(OWL)))
    if rest:
        groups.append(("properties without a domain", rest))
    return groups


def skos_chunks(case: Case) -> list[tuple[str, str]]:
    """The case's SKOS vocabularies cut into one Turtle text per concept scheme.

    A concept belongs to the scheme of its ``skos:inScheme`` / ``skos:topConceptOf``;
    concepts of no scheme form a last chunk. Used only when a prompt must be split, so
    that every scheme is sent once.

    Returns:
        ``[(label, turtle)]`` in scheme order (sorted by IRI).
    """
    graph = Graph()
    for path in case.skos:
        graph.parse(path, format="turtle")
    owner: dict = {}
    for concept, scheme in [*graph.subject_objects(SKOS.inScheme), *graph.subject_objects(SKOS.topConceptOf)]:
        owner.setdefault(concept, scheme)
    for scheme in set(graph.subjects(RDF.type, SKOS.ConceptScheme)):
        owner.setdefault(scheme, scheme)
    chunks: dict = {}
    for subject in set(graph.subjects()):
        key = owner.get(subject)
        if key is None and isinstance(subject, BNode):
            continue  # blank nodes travel with the subject that points to them
        chunk = chunks.setdefault(key, Graph(bind_namespaces="none"))
        todo = [subject]
        while todo:
            node = todo.pop()
            for triple in graph.triples((node, None, None)):
                chunk.add(triple)
                if isinstance(triple[2], BNode):
                    todo.append(triple[2])
    out = []
    for key in sorted(chunks, key=lambda k: (k is None, str(k))):
        g = chunks[key]
        for prefix, ns in graph.namespaces():
            g.bind(prefix, ns, override=False)
        label = f"SKOS scheme <{key}>" if key is not None else "SKOS concepts of no scheme"
        out.append((label, g.serialize(format="turtle").strip()))
    return out


def subgraph_turtle(ontology: Ontology, terms: frozenset[URIRef] | None) -> str:
    """Turtle of the triples about ``terms`` (with their blank-node descriptions); all when ``None``."""
    if terms is None:
        graph = ontology.graph
    else:
        graph = Graph(bind_namespaces="none")
        for p, ns in ontology.prefixes.items():
            graph.bind(p, ns, override=True)
        todo = list(terms)
        done: set = set()
        while todo:
            node = todo.pop()
            if node in done:
                continue
            done.add(node)
            for _, pred, obj in ontology.graph.triples((node, None, None)):
                graph.add((node, pred, obj))
                if not isinstance(obj, URIRef) and not hasattr(obj, "language") and obj not in done:
                    todo.append(obj)  # blank nodes: unions, restrictions, lists
    return graph.serialize(format="turtle").strip()


def _examples(shots: int, structured: bool) -> list[dict[str, object]]:
    data = json.loads((_PROMPTS / "examples.json").read_text(encoding="utf-8"))[:max(0, shots)]
    for ex in data:
        rows = [MappingRow(**r) for r in ex["rows"]]
        lines = [json.dumps({k: v for k, v in r.cells().items() if v is not None}, ensure_ascii=False) for r in rows]
        ex["answer_json"] = '{"rows": [\n  ' + ",\n  ".join(lines) + "\n]}"
        ex["answer_markdown"] = to_markdown(MappingTable(rows=rows))
    return data


def render_prompt(case: Case, ontology_text: str, skos_text: str, *, structured: bool = True, shots: int = 0,
                  part: str | None = None, rows: int = 8, max_chars: int = 60_000) -> list[dict[str, str]]:
    """Render the chat messages for one prompt.

    Args:
        case: the case (sources and base IRI are used).
        ontology_text / skos_text: Turtle to append.
        structured: ask for JSON following :func:`pipeline.table.json_schema` (else Markdown).
        shots: number of worked examples (0 zero-shot, 1 one-shot, 3 few-shot).
        part: description of the ontology part when the case was split.
        rows: sample size per CSV/JSON source.
        max_chars: XML sources longer than this are cut at a record boundary.
    Returns:
        ``[{"role": "system", ...}, {"role": "user", ...}]``.
    """
    env = _env()
    user = env.get_template("task.j2").render(
        sources=[source_sample(s, rows=rows, max_chars=max_chars) for s in case.sources], ontology=ontology_text, skos=skos_text,
        base_iri=case.base_iri, structured=structured, columns=COLUMNS, examples=_examples(shots, structured),
        part=part, schema=json.dumps(json_schema(), indent=1),
        functions=[(name, FUNCTIONS[key].description) for name, key in TABLE_FUNCTIONS])
    system = env.get_template("system.j2").render().strip()
    return [{"role": "system", "content": system}, {"role": "user", "content": user.strip() + "\n"}]


def _skos_text(case: Case) -> str:
    return "\n\n".join(Path(p).read_text(encoding="utf-8").strip() for p in case.skos)


#: Sample sizes tried, largest first, when the sources alone take more than half of a part's budget:
#: (records per CSV/JSON source, characters of an XML source).
SAMPLE_STEPS = ((8, 60_000), (5, 24_000), (3, 12_000), (2, 6_000), (1, 3_000))


def _sample_size(case: Case, budget: int | None, count: Callable[[list[dict[str, str]]], int], structured: bool,
                 shots: int, rows: int) -> tuple[int, int, int]:
    """``(rows, xml_chars, tokens)``: the largest sample whose prompt without ontology takes at most
    half of ``budget`` (the smallest sample when none does)."""
    steps = [(min(r, rows), c) for r, c in SAMPLE_STEPS]
    for r, c in steps:
        tokens = count(render_prompt(case, "", "", structured=structured, shots=shots, rows=r, max_chars=c))
        if budget is None or tokens <= budget // 2:
            return r, c, tokens
    return steps[-1][0], steps[-1][1], tokens


def build_prompts(case: Case, ontology: Ontology, *, budget: int | None,
                  count: Callable[[list[dict[str, str]]], int],
                  structured: bool = True, shots: int = 0, rows: int = 8,
                  terms: frozenset[URIRef] | None = None) -> list[PromptPart]:
    """Build one prompt for the case, or several when it exceeds ``budget`` tokens.

    The ontology sent is the whole of its files, or - with ``terms`` - the descriptions of those
    terms only (:func:`subgraph_turtle`; see :mod:`.retrieve`). When it fits (or ``budget`` is
    ``None``: the window is unknown) one prompt is built. Otherwise the source samples shrink until
    the prompt without ontology takes at most half of the budget (:data:`SAMPLE_STEPS`), and the
    ontology groups of :func:`ontology_groups` and the SKOS schemes of :func:`skos_chunks` -
    disjoint, so nothing is sent twice but the task and the source samples every part needs - are
    packed greedily (in order) into parts whose prompt fits. A single unit that does not fit still
    gets its own part: the caller checks each part against the window before any request.

    Args:
        case, ontology: the case and its loaded ontology (without SKOS).
        budget: input-token budget of a part (window minus the answer's reserve), ``None``: no limit.
        count: token counter for a message list.
        terms: the ontology terms to send (``None``: all).
    Returns:
        The prompt parts, at least one; each names the ontology terms it sends.
    """
    skos = _skos_text(case)
    if terms is None:
        whole = "\n\n".join(Path(p).read_text(encoding="utf-8").strip() for p in case.ontologies)
        sent = ("all",)
    else:
        whole = subgraph_turtle(ontology, terms)
        sent = tuple(sorted(ontology.compact(t) for t in terms))
    msgs = render_prompt(case, whole, skos, structured=structured, shots=shots, rows=rows)
    tokens = count(msgs)
    if budget is None or tokens <= budget:
        return [PromptPart(msgs, None, frozenset(terms or ()), tokens, sent)]
    n_rows, chars, base = _sample_size(case, budget, count, structured, shots, rows)
    log.info("prompt of %d tokens exceeds the budget of %d; splitting ontology and SKOS (samples: %d records, "
             "%d XML characters; %d tokens without ontology)", tokens, budget, n_rows, chars, base)
    groups = ontology_groups(ontology)
    if terms is not None:
        groups = [(label, t & terms) for label, t in groups if t & terms]
    units: list[tuple[str, frozenset[URIRef], str]] = [(label, t, "") for label, t in groups]
    units += [(label, frozenset(), text) for label, text in (skos_chunks(case) if case.skos else [])]

    def render(group: list[tuple[str, frozenset[URIRef], str]]) -> PromptPart:
        part_terms = frozenset().union(*(t for _, t, _ in group))
        label = ", ".join(g for g, _, _ in group)
        onto = subgraph_turtle(ontology, part_terms) if part_terms else "# (this part holds SKOS vocabularies only)"
        m = render_prompt(case, onto, "\n\n".join(t for _, _, t in group if t), structured=structured,
                          shots=shots, part=label, rows=n_rows, max_chars=chars)
        names = tuple(sorted(ontology.compact(t) for t in part_terms)) + tuple(g for g, t, x in group if x)
        return PromptPart(m, label, part_terms, count(m), names)

    parts: list[PromptPart] = []
    current: list[tuple[str, frozenset[URIRef], str]] = []
    last: PromptPart | None = None
    for unit in units:
        trial = render(current + [unit])
        if trial.tokens <= budget or not current:
            current.append(unit)
            last = trial
            continue
        parts.append(last)  # type: ignore[arg-type]
        current = [unit]
        last = render(current)
    if last is not None:
        parts.append(last)
    return parts
