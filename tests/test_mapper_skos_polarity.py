"""Binary codes onto a term and its negation: the evidence names one label pair, the same on every run
(the labels were taken from a set, so the text depended on the process's string hash seed)."""
from __future__ import annotations

import os
import subprocess
import sys

from pipeline.mappers.offline.skos import match_value_map
from pipeline.ontology import load_ontology

SKOS = """@prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix ex: <http://example.org/day/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Day a owl:Class . ex:scheme a skos:ConceptScheme .
ex:available a skos:Concept ; skos:inScheme ex:scheme ; skos:prefLabel "Available" .
ex:notAvailable a skos:Concept ; skos:inScheme ex:scheme ; skos:prefLabel "Not available" ;
    skos:altLabel "not-available" .
"""


def _evidence(tmp_path) -> str:
    (tmp_path / "skos.ttl").write_text(SKOS, encoding="utf-8")
    vm = match_value_map(load_ontology([tmp_path / "skos.ttl"]), "monday", ["0", "1", "1"])
    return vm.evidence


def test_polarity_evidence_names_the_first_label_pair_in_order(tmp_path):
    assert _evidence(tmp_path) == ("binary codes ['0', '1'] of 'monday': true -> 'available', false -> its "
                                   "negation 'not available' (the two concepts of <http://example.org/day/scheme>; "
                                   "name similarity 0.17)")


def test_polarity_evidence_does_not_depend_on_the_hash_seed(tmp_path):
    code = ("import pathlib, sys; sys.path.insert(0, 'tests'); from test_mapper_skos_polarity import _evidence; "
            f"print(_evidence(pathlib.Path({str(tmp_path)!r})))")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(runs) == 1
