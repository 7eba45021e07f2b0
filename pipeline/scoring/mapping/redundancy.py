"""CN4 statement-generation redundancy of a compiled mapping.

Semi-structured KGC benchmark, mapping-level check CN4 (001 seed): from the
compiled mapping's provenance, how many statement-generation events (one
triples map x predicate-object map x term map, as the compiler defines it)
produce an RDF statement that another event also produces. Redundant events
do not change the graph (RDF is a set) but signal duplicated mapping rows.

Input is compiler-agnostic: a list of ``(event_id, set_of_statements)``;
statements are any hashable values (``(s, p, o)`` tuples of rdflib terms,
N-Triples lines ...). Formulas:

* ``redundant_events`` = events with at least one statement also produced by another event;
* ``rate = redundant_events / events`` (``None`` when there are no events; lower is better);
* ``shared_statements`` = distinct statements produced by two or more events.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Hashable, Iterable

__all__ = ["RedundancyResult", "check_cn4"]

log = logging.getLogger(__name__)


@dataclass
class RedundancyResult:
    """Result of CN4.

    Attributes:
        name: ``"CN4"``.
        events: number of generation events.
        redundant_events: events sharing at least one statement with another event.
        rate: ``redundant_events / events`` in [0, 1]; ``None`` with no events.
        statements: distinct statements over all events.
        shared_statements: distinct statements produced by >= 2 events.
        higher_is_better: ``False``.
        overlaps: ``{"events": [ids...], "statements": count}`` per group of events sharing statements,
            largest first (at most 50 listed).
    """

    name: str = "CN4"
    events: int = 0
    redundant_events: int = 0
    rate: float | None = None
    statements: int = 0
    shared_statements: int = 0
    higher_is_better: bool = False
    overlaps: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"name": self.name, "events": self.events, "redundant_events": self.redundant_events,
                "rate": self.rate, "statements": self.statements, "shared_statements": self.shared_statements,
                "higher_is_better": self.higher_is_better, "overlaps": self.overlaps}


def check_cn4(events: Iterable[tuple[str, Iterable[Hashable]]]) -> RedundancyResult:
    """Count statement-generation events whose statements another event also produces.

    Args:
        events: ``(event_id, statements)`` pairs; an id seen twice is merged into one event.
            Unhashable statements are skipped (logged), never raised.
    Returns:
        A :class:`RedundancyResult` (formulas in the module docstring).
    """
    by_event: dict[str, set[Hashable]] = defaultdict(set)
    for event_id, statements in events:
        bucket = by_event[str(event_id)]
        for st in statements or ():
            try:
                bucket.add(st)
            except TypeError:
                log.warning("CN4: skipping unhashable statement %r of event %s", st, event_id)
    producers: dict[Hashable, set[str]] = defaultdict(set)
    for eid, sts in by_event.items():
        for st in sts:
            producers[st].add(eid)
    shared = {st: ids for st, ids in producers.items() if len(ids) > 1}
    redundant = {eid for ids in shared.values() for eid in ids}
    groups: dict[tuple[str, ...], int] = defaultdict(int)
    for ids in shared.values():
        groups[tuple(sorted(ids))] += 1
    overlaps = [{"events": list(k), "statements": v}
                for k, v in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))][:50]
    n = len(by_event)
    return RedundancyResult(events=n, redundant_events=len(redundant),
                            rate=len(redundant) / n if n else None, statements=len(producers),
                            shared_statements=len(shared), overlaps=overlaps)
