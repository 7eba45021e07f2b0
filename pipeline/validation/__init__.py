"""Graph-layer validation of a materialized KG.

* :func:`.syntax.check_ntriples` - SV2 strict N-Triples syntax (RIOT-like);
  :func:`.syntax.riot_check` - the same with real Jena RIOT where installed.
* :func:`.consistency.owlrl_consistency`, :func:`.consistency.hermit_consistency` - CS2.
* :func:`.shacl.derive_shapes`, :func:`.shacl.validate_shacl`, :func:`.shacl.start_shacl` - SHACL
  (the last in a child process with a time limit).
* :func:`.module.ontology_module` - the part of the ontology a KG's terms reach: what the
  reasoners and SHACL validate against; :func:`.module.unresolved_imports` names the imports
  none of the files holds.
* :mod:`.java` - HermiT's and RIOT's classpaths from the jars named; a Java failure in one line.
* :class:`.axioms.AxiomCheck` - CS2-axioms: the OWL axioms that need no reasoner (functional and
  inverse-functional properties, disjoint classes, datatype ranges, maximum cardinalities) on
  every triple of a KG in SV2's pass.
* :func:`.verdict.kg_verdict` - the KG's verdict (valid, invalid, not validated) from the checks.
* :class:`.sample.SubjectSample` - the bounded, stratified sample CS2 and SHACL run on above
  :data:`.sample.FULL_LIMIT` triples, drawn during SV2's pass (each result then says what it covered).
* :mod:`.parallel` - owlrl and SHACL in child processes bounded in time.
* :mod:`.terms` - the IRI, language-tag and literal checks SV2 applies to each term; the
  manifest, the audit, the mappers and the materializer's guard apply them too.

Every check returns one :class:`.result.Result` and never raises on bad data; its findings are
:class:`pipeline.findings.Finding` objects.

The package re-exports nothing: importing :mod:`.terms` (cheap: regular expressions and rdflib's
namespaces) must not load the reasoners and pyshacl the other modules import, nor the
materializer's line counter :mod:`.sample` reads the KG with, whose guard imports :mod:`.terms`.
"""
