"""The vocabularies of RML documents, and kgc's private namespaces between the engine and the guard.

Every document is rewritten into :data:`RML` (RML-Core, ``http://w3id.org/rml/``) by
:func:`pipeline.materialize.rml.unify.unify`; :data:`RR` (R2RML), :data:`LEGACY` (the RML of
``semweb.mmlab.be``), :data:`QL` and :data:`FNML` are what it reads. :data:`BNODE_NS` and
:data:`REF_NS` are written into the engine copy by :mod:`pipeline.materialize.rml.normalize` and
turned back into blank nodes and reference-valued IRIs by :mod:`pipeline.materialize.guard`.
"""
from __future__ import annotations

from rdflib import Namespace

__all__ = ["RML", "RR", "LEGACY", "QL", "FNML", "BNODE_NS", "REF_NS", "KGC", "DERIVED_SUFFIX"]

RML = Namespace("http://w3id.org/rml/")
RR = Namespace("http://www.w3.org/ns/r2rml#")
LEGACY = Namespace("http://semweb.mmlab.be/ns/rml#")
QL = Namespace("http://semweb.mmlab.be/ns/ql#")
FNML = "http://semweb.mmlab.be/ns/fnml#"

#: Private namespace of the IRIs that stand for blank nodes between engine and guard.
BNODE_NS = "https://w3id.org/kgc-pipeline/bnode/"
#: Private namespace of reference-valued IRIs: ``REF_NS + iri_safe(base) + "/" + iri_safe(value)``;
#: the guard uses the value when it is an absolute IRI, else base + value (R2RML section 11.2).
REF_NS = "https://w3id.org/kgc-pipeline/ref/"

#: kgc's private annotations of an RML graph between normalisation passes (never in an engine copy):
#: ``kgc:derive`` on a logical source says why it must be derived (see :mod:`pipeline.materialize.views.derive`).
KGC = Namespace("https://w3id.org/kgc-pipeline/rml#")

#: File name suffix of derived sources (:mod:`pipeline.materialize.views.derive`): JSON records in which
#: only an absent key is a null value, so the engine reads an empty string as a value there.
DERIVED_SUFFIX = ".kgc-derived.json"
