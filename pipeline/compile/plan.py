"""Plan pass of the compiler: audited table rows -> TriplesMap plans (:mod:`.model`).

Chain: :func:`plan_mapping` groups rows into TriplesMaps by (logical source,
subject template), builds subject maps, and one predicate-object map per row:
literal (reference, ``concat``, function) or IRI via a value map (code -> SKOS
concept, through an FnO function), both in :mod:`.objects`, or a relation to another
TriplesMap (:mod:`.relations`). Anything it cannot resolve becomes a finding and the row
is left out. :mod:`pipeline.compile.rml` then emits the plans as an RML graph.
"""
from __future__ import annotations

import re

from rdflib import URIRef
from rdflib.namespace import SKOS

from pipeline.compile.audit import AuditResult
from pipeline.findings import Finding
from pipeline.manifest import Case
from pipeline.ontology import Ontology
from pipeline.sources.load import SourceData
from pipeline.table import MappingRow, parse_concat, parse_value_map, split_class_alternatives
from pipeline.table.template import Segment, expand_template_prefix, parse_template
from pipeline.compile.model import Call, ObjectSpec, Plan, PredicateObject, Term, TriplesMapPlan, term_references
from pipeline.compile.objects import ObjectsMixin
from pipeline.compile.relations import RelationsMixin

__all__ = ["plan_mapping"]


class _Planner(ObjectsMixin, RelationsMixin):
    """Plans the TriplesMaps of one audited table: subjects and the driver here, objects in
    :mod:`.objects`, relations in :mod:`.relations`."""

    def __init__(self, rows: list[MappingRow], audit: AuditResult, ontology: Ontology, case: Case,
                 table_file: str) -> None:
        self.rows, self.audit, self.onto, self.case, self.file = rows, audit, ontology, case, table_file
        self.plan = Plan()
        self.iterators: dict[int, str | None] = {}
        self.tms: dict[tuple[int, str], TriplesMapPlan] = {}
        self.twins: dict[str, TriplesMapPlan] = {}

    # -- helpers -----------------------------------------------------------
    def find(self, row: MappingRow, column: str, message: str, expected: str | None = None,
             candidate: str | None = None, severity: str = "error") -> None:
        self.plan.findings.append(Finding("compile", self.file, message, row.line, column,
                                          getattr(row, column, None), expected, candidate, severity))

    def src(self, row: MappingRow) -> SourceData:
        return self.audit.row_sources[id(row)]

    def iterator(self, src: SourceData) -> str | None:
        key = id(src)
        if key not in self.iterators:
            self.iterators[key] = self._choose_iterator(src)
        return self.iterators[key]

    def _choose_iterator(self, src: SourceData) -> str | None:
        if src.source.format == "csv":
            return None
        if src.source.iterator or src.source.format != "xml":
            return src.iterator
        paths = []
        for row in self.rows:
            if self.audit.row_sources.get(id(row)) is not src:
                continue
            refs = (parse_concat(row.data_reference) or [row.data_reference or ""])
            refs += [r for s in self._segments(row) for r in s.references()]
            paths += [src.bind(r) for r in refs if r.startswith("/")]
        if not paths:
            return src.iterator
        split = [re.split(r"/(?![^\[]*\])", p.strip("/")) for p in paths]
        common = []
        for parts in zip(*split):
            if len(set(parts)) != 1 or "[" in parts[0]:
                break
            common.append(parts[0])
        # the iterator selects elements: never the leaf a reference reads
        if len(common) == min(len(s) for s in split):
            common = common[:-1]
        return "/" + "/".join(common) if common else src.iterator

    def relative(self, ref: str, src: SourceData, row: MappingRow, column: str) -> str | None:
        it = self.iterator(src)
        ref = src.bind(ref)  # unprefixed names of a default-namespace document: bound prefix (sources.py)
        if src.source.format == "xml" and ref.startswith("/"):
            if it and ref.startswith(it.rstrip("/") + "/"):
                return ref[len(it.rstrip("/")) + 1:]
            self.find(row, column, f"XPath {ref!r} is outside the iterator {it!r} of {src.source.path.name}",
                      f"a path below {it}")
            return None
        if src.source.format == "json" and ref.startswith("$"):
            prefix = (it or "$").replace("[*]", "")
            return ref[len(prefix):].lstrip(".") if ref.startswith(prefix) else ref.lstrip("$.")
        return ref

    def _segments(self, row: MappingRow) -> list[Segment]:
        return parse_template(expand_template_prefix(row.subject_template or "", self.onto.prefixes))

    # -- subject ------------------------------------------------------------
    def subject_term(self, template: str, src: SourceData, row: MappingRow) -> Term | None:
        segs = parse_template(expand_template_prefix(template, self.onto.prefixes))
        if segs and not (segs[0].kind == "const" and re.match(r"^[A-Za-z][\w+.\-]*:", segs[0].value)):
            # a template that starts with a variable ('{id}') is as relative as 'person/{id}': its values
            # are percent-encoded (R2RML 7.3), so they can never supply a scheme; resolve both alike
            base = self.case.base_iri or ""
            if not re.match(r"^[A-Za-z][\w+.\-]*:", base):
                self.find(row, "subject_template", "subject template is a relative IRI and the case has no base "
                          "IRI to resolve it against: every subject would be dropped",
                          "an absolute IRI template, or base_iri in the manifest")
                return None
            self.find(row, "subject_template", "subject template is a relative IRI; resolved against the base IRI",
                      "an absolute IRI template", base + template, severity="warning")
            if segs[0].kind == "const":
                segs[0] = Segment("const", base + segs[0].value)
            else:
                segs.insert(0, Segment("const", base))
        term = self.segments_term(segs, src, row, "subject_template", "iri")
        if term is not None and term.kind == "call":
            _inputs_as_templates(term)
        return term

    def segments_term(self, segs: list[Segment], src: SourceData, row: MappingRow, column: str,
                      term_type: str) -> Term | None:
        rel: list[Segment] = []
        for s in segs:
            if s.kind == "const":
                rel.append(s)
                continue
            r = self.relative(s.value, src, row, column)
            if r is None:
                return None
            rel.append(Segment(s.kind, r, s.function, s.args))
        if all(s.kind in ("const", "ref") for s in rel):
            text = "".join(_escape(s.value) if s.kind == "const" else "{" + _escape(s.value) + "}" for s in rel)
            return Term("template", text, term_type=term_type)
        parts: list = []
        for s in rel:
            if s.kind == "const":
                parts.append(s.value)
                continue
            value = Term("reference", s.value)
            if s.kind == "call":
                value = Term("call", call=Call(s.function, [value, *s.args]))
            parts.append(Term("call", call=Call("percentEncode", [value])) if term_type == "iri" else value)
        expr = parts[-1]
        for p in reversed(parts[:-1]):
            expr = Term("call", call=Call("concat", [p, expr]))
        if isinstance(expr, str):
            return Term("constant", expr, term_type=term_type)
        expr.term_type = term_type
        return expr

    def triples_map(self, row: MappingRow, template: str, src: SourceData, classes: list[URIRef]) -> TriplesMapPlan | None:
        key = (id(src), template)
        tm = self.tms.get(key)
        if tm is None:
            subject = self.subject_term(template, src, row)
            if subject is None:
                return None
            slug = re.sub(r"\W+", "_", f"{src.source.stem}_{_template_slug(template)}").strip("_")
            tm_id = f"TM{len(self.tms) + 1}_{slug}"[:80]
            tm = TriplesMapPlan(tm_id, src, self.iterator(src), subject, template)
            self.tms[key] = tm
        for c in classes:
            if c not in tm.classes:
                tm.classes.append(c)
        return tm

    def classes_of(self, row: MappingRow) -> list[URIRef]:
        alts = split_class_alternatives(row.entity_class)
        if len(alts) > 1:
            self.find(row, "entity_class", f"{len(alts)} alternative classes; subjects typed with the first only",
                      "one class", alts[0], severity="warning")
        iri = self.onto.expand(alts[0]) if alts else None
        return [iri] if iri is not None else []

    # -- driver -----------------------------------------------------------------
    def run(self) -> Plan:
        relations, pending = [], []
        for row in self.rows:
            tvars = [r for seg in self._segments(row) for r in seg.references()]
            if row.related_entity_class and not all(self.src(row).has_reference(v) for v in tvars):
                pending.append((row, None))  # a link-file row: its subject lives in another file
                continue
            tm = self.triples_map(row, row.subject_template, self.src(row), self.classes_of(row))
            if tm is None:
                self.plan.dropped_lines.append(row.line)
                continue
            pending.append((row, tm))
        for row, tm in pending:
            ok = self._row(row, tm, relations)
            (self.plan.compiled_lines if ok else self.plan.dropped_lines).append(row.line)
        self.plan.triples_maps = [t for t in self.tms.values() if t.poms or t.classes] + list(self.twins.values())
        for tm in self.plan.triples_maps:
            self._warn_cross_product(tm)
        return self.plan

    def _warn_cross_product(self, tm: TriplesMapPlan) -> None:
        """Several references with several values per record are paired value by value
        by no RML engine: each combination becomes a triple. Say so rather than hide it."""
        if tm.source.source.format != "xml":
            return
        refs = set(term_references(tm.subject))
        for pom in tm.poms:
            for obj in pom.objects:
                if obj.term is not None:
                    refs.update(term_references(obj.term))
        multi = sorted(r for r in refs if tm.source.max_per_record(r) > 1)
        if len(multi) > 1:
            self.plan.findings.append(Finding(
                "compile", self.file, f"TriplesMap {tm.id}: references {', '.join(multi)} each have several values "
                f"per record under iterator {tm.iterator}; their values are combined as a cross product",
                tm.lines[0] if tm.lines else None, "subject_template", ", ".join(multi),
                "an iterator at the repeated element they share", severity="warning"))

    def _row(self, row: MappingRow, tm: TriplesMapPlan, relations: list) -> bool:
        pred = self.onto.expand(row.ontology_property)
        if tm is None:
            if self.link_file(row):
                return True
            self.find(row, "subject_template", "subject template variables are not in the row's source and no "
                      "link-file join resolves them", "variables of the row's source file")
            return False
        has_map = bool(parse_value_map(row.function_output))
        is_relation = bool(row.related_entity_class) and not has_map and \
            self.onto.expand(split_class_alternatives(row.related_entity_class)[0]) != SKOS.Concept
        if is_relation:
            objects = self.relation(row, tm)
        elif has_map:
            term = self.value_map(row, tm.source)
            objects = [ObjectSpec(term=term)] if term else None
        elif row.data_reference:
            if row.join_condition:
                self.find(row, "join_condition", "join condition on a literal-valued row is ignored",
                          severity="info")
            term = self.literal(row, tm.source)
            objects = [ObjectSpec(term=term)] if term else None
        else:
            self.find(row, "data_reference", "row has neither a data reference nor a related entity class",
                      "a data reference, or a related class with a join")
            objects = None
        if not objects or pred is None:
            return False
        tm.poms.append(PredicateObject(pred, objects, row.line))
        tm.lines.append(row.line)
        return True


def _inputs_as_templates(term: Term) -> None:
    """Write the references a subject's function reads as templates ``{ref}`` (termType literal:
    the same value, unencoded), in place.

    Morph-KGC 2.10 escapes a literal function result through a column that only a template
    evaluation creates (``materializer._materialize_fnml_execution``); a TriplesMap whose subject
    is a function of plain references and whose object is a function (``$(replace(name,..))``
    with ``toUpperCase``) stops with ``KeyError: 'reference_results'``. A template input creates
    that column while the subject is built, so the mapping runs in the engine as it is.
    """
    for i, arg in enumerate(term.call.args if term.call else []):
        if isinstance(arg, Term) and arg.kind == "reference":
            term.call.args[i] = Term("template", "{" + _escape(arg.value) + "}")
        elif isinstance(arg, Term) and arg.kind == "call":
            _inputs_as_templates(arg)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")


def _template_slug(template: str) -> str:
    words = re.findall(r"[A-Za-z][A-Za-z0-9]+", re.sub(r"\$\(.*", "", template.split("//", 1)[-1]))
    return words[-1] if words else "tm"


def plan_mapping(audit: AuditResult, ontology: Ontology, case: Case, table_file: str = "<table>",
                 sources: list[SourceData] | None = None) -> Plan:
    """Group the audited rows into TriplesMap plans.

    Args:
        audit: the audit of the table (its ``kept`` rows and their sources).
        ontology: for prefixes and class IRIs.
        case: the case (base IRI).
        table_file: table path used in findings.
        sources: every loaded source (a join may name a file no row reads).
    Returns:
        A :class:`Plan`; rows that cannot be compiled are in ``dropped_lines`` with findings.
    """
    planner = _Planner(audit.kept, audit, ontology, case, table_file)
    planner.all_sources = list(sources or [])
    return planner.run()
