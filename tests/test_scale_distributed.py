"""Distributed materialization (Dask local cluster) equals the single-process output, joins included."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.compile import compile_table
from pipeline.materialize.distributed import materialize_distributed, plan_partitions
from pipeline.manifest import load_manifest
from pipeline.materialize.materializer import materialize
from pipeline.materialize.rml.normalize import normalize_rml
from pipeline.ontology import load_ontology
from pipeline.sources.load import load_source
from pipeline.table import read_table

pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parent.parent


def test_distributed_output_is_the_single_process_output_with_a_cross_partition_join(tmp_path):
    # people.csv rows p1, p2 | p3 and cities.csv rows MAD | STO fall into partitions 0 | 1:
    # p2 (partition 0) lives in STO (partition 1), so its livesIn join crosses partitions
    case = load_manifest(ROOT / "data" / "example" / "example.yaml")
    onto = load_ontology([*case.ontologies, *case.skos], case.prefixes)
    sources = [load_source(s, tmp_path / "inputs") for s in case.sources]
    engine = normalize_rml(compile_table(read_table(case.gold_table), onto, case, sources).rml).graph
    engine.serialize(tmp_path / "e.ttl", format="turtle")
    single = materialize(tmp_path / "e.ttl")
    single.write(tmp_path / "single.nt")
    mappings, broadcast = plan_partitions(engine, 2, tmp_path / "plan")
    assert (len(mappings), broadcast) == (2, 1)
    dist = materialize_distributed(engine, tmp_path / "dist.nt", 2)
    assert (tmp_path / "dist.nt").read_bytes() == (tmp_path / "single.nt").read_bytes()
    assert (dist.triples, dist.dropped, len(dist.parts)) == (16, 0, 2)
    lives_in = [ln for ln in (tmp_path / "dist.nt").read_text().splitlines() if "livesIn" in ln]
    assert "<http://example.org/person/p2> <http://example.org/ontology#livesIn> <http://example.org/city/STO> ." \
        in lives_in and len(lives_in) == 3
    part0 = (tmp_path / "dist.nt.parts" / "part-00000.nt").read_text()
    assert "person/p2> <http://example.org/ontology#livesIn> <http://example.org/city/STO>" in part0
