"""Distributed materialization (Dask LocalCluster) writes the single-process output byte for byte.

The sources are cut into blocks far smaller than the files, so every join's parent spans several
blocks (no task holds a whole parent) and quoted line breaks fall across block boundaries.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.materialize.blocks import nominal_ranges, read_block, scan_block, split_file
from pipeline.materialize.distributed import materialize_distributed, parse_size
from pipeline.materialize.materializer import materialize

pytest.importorskip("distributed")
PREFIXES = """@prefix rml: <http://w3id.org/rml/> .
@prefix ex: <http://example.org/o#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""
MAPPING = PREFIXES + """
<#Stop> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "stops.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/stop/{id}" ; rml:class ex:Stop ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:parent ; rml:objectMap [ rml:parentTriplesMap <#Stop> ;
      rml:joinCondition [ rml:child "parent" ; rml:parent "id" ] ] ] .
<#Time> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "times.csv" ; rml:referenceFormulation rml:CSV ] ;
  rml:subjectMap [ rml:template "http://example.org/time/{trip}/{seq}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:seq ; rml:objectMap [ rml:reference "seq" ; rml:datatype xsd:integer ] ] ;
  rml:predicateObjectMap [ rml:predicate ex:stop ; rml:objectMap [ rml:parentTriplesMap <#Stop> ;
      rml:joinCondition [ rml:child "stop" ; rml:parent "id" ] ] ] .
<#Doc> a rml:TriplesMap ;
  rml:logicalSource [ rml:source "agency.json" ; rml:referenceFormulation rml:JSONPath ; rml:iterator "$.agencies[*]" ] ;
  rml:subjectMap [ rml:template "http://example.org/agency/{id}" ] ;
  rml:predicateObjectMap [ rml:predicate ex:name ; rml:objectMap [ rml:reference "name" ] ] .
"""


def _case(folder: Path, stops: int = 400, times: int = 1500) -> Path:
    folder.mkdir(parents=True)
    (folder / "m.rml.ttl").write_text(MAPPING, encoding="utf-8")
    lines = ["id,name,parent"]
    for i in range(stops):  # quoted names with commas and line breaks; some stops without a parent
        name = f'"Stop {i}, platform\n{i % 3}"' if i % 7 == 0 else f"Stop {i}"
        lines.append(f"s{i},{name},{'' if i % 5 == 0 else f's{i // 5 * 5}'}")
    (folder / "stops.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = ["trip,seq,stop"] + [f"t{j // 10},{j % 10 if j % 97 else 'x'},s{(j * 7) % (stops + 20)}" for j in range(times)]
    (folder / "times.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (folder / "agency.json").write_text(json.dumps({"agencies": [{"id": "a1", "name": "One"}, {"id": "a2", "name": None}]}),
                                        encoding="utf-8")
    return folder


def test_blocks_of_a_file_read_as_the_whole_file(tmp_path):
    folder = _case(tmp_path / "case")
    path = str(folder / "stops.csv")
    import pandas as pd

    whole = pd.read_table(path, sep=",", index_col=False, dtype=str, keep_default_na=False, na_filter=False)
    for size in (50, 333, 4096):
        ranges = nominal_ranges(Path(path).stat().st_size, size)
        blocks = split_file(path, ranges, [scan_block(path, a, b, ",") for a, b in ranges])
        assert len(blocks) == len(ranges) > 1
        parts = pd.concat([read_block(b, "CSV", ["id", "name"]) for b in blocks], ignore_index=True)
        assert parts.equals(whole[["id", "name"]])
    # a quote inside an unquoted field (pandas reads it as a character): the file is one block
    odd = folder / "odd.csv"
    odd.write_text('id,h\n' + '1,5\'3"\n2,"x\ny"\n' * 40, encoding="utf-8")
    ranges = nominal_ranges(odd.stat().st_size, 64)
    assert len(split_file(str(odd), ranges, [scan_block(str(odd), a, b, ",") for a, b in ranges])) == 1


def test_distributed_output_is_the_single_process_output_with_joins_across_blocks(tmp_path, monkeypatch):
    folder = _case(tmp_path / "case")
    monkeypatch.chdir(folder)
    assert main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "single.nt"), "--engine-copy",
                 str(tmp_path / "single.morph-kgc.ttl")]) == 1  # "x" is no integer
    single = materialize(tmp_path / "single.morph-kgc.ttl", output=tmp_path / "again.nt")
    dist = materialize_distributed(tmp_path / "single.morph-kgc.ttl", tmp_path / "dist.nt", workers=2,
                                   block_size=2048)
    assert (tmp_path / "dist.nt").read_bytes() == (tmp_path / "single.nt").read_bytes()
    assert dist.n_triples == single.n_triples > 3000
    # the parents (stops.csv, ~9 kB) span several blocks and buckets; the JSON document is the engine's
    assert dist.blocks >= 10 and dist.buckets >= 2 and dist.tasks["reduce"] == dist.buckets
    assert dist.tasks["engine"] == 1 and dist.tasks["scan"] >= 10
    # no statement dropped twice here: the counts agree, with the times whose stop no parent record has
    # (16 seq values 'x' that are no integer; stops s406 and s413 of 25 times each)
    assert dist.dropped == single.dropped == 16 + 50
    lost = sorted(f.message for f in single.findings if "value(s) dropped" in f.message)
    assert len(lost) == 1 and lost == sorted(f.message for f in dist.findings if "value(s) dropped" in f.message)
    assert lost[0].startswith("50 value(s) dropped: no parent record for join key (stop == id")
    manifest = json.loads(dist.manifest.read_text())
    assert sum(p["statements"] for p in manifest["parts"]) >= dist.n_triples
    assert {p["path"] for p in manifest["parts"]} == {p.name for p in dist.parts}
    union = set()
    for part in dist.parts:  # each part sorted and without duplicates; their union is the KG
        lines = part.read_text().splitlines()
        assert lines == sorted(set(lines))
        union.update(lines)
    assert union == set((tmp_path / "single.nt").read_text().splitlines())
    assert not (tmp_path / "dist.nt.parts" / "shuffle").exists()


def test_the_command_line_keeps_parts_without_merging(tmp_path, monkeypatch, capsys):
    folder = _case(tmp_path / "case", stops=60, times=200)
    monkeypatch.chdir(folder)
    assert main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "kg.nt"), "--distributed", "--workers", "1",
                 "--block-size", "1k", "--no-merge"]) == 1
    captured = capsys.readouterr()
    out = captured.out
    assert "sorted parts and their manifest" in out and not (tmp_path / "kg.nt").exists()
    assert (tmp_path / "kg.nt.parts" / "manifest.json").exists()
    found = json.loads((tmp_path / "kg.nt.parts" / "manifest.json").read_text())["findings"]
    # the times whose stop no parent has are counted by the reduce tasks, as the single process counts them
    # (the stops s60..s79 of 49 of the 200 times)
    assert [f["message"].split(":")[0] for f in found if "no parent record" in f["message"]] == ["49 value(s) dropped"]
    assert main(["-q", "materialize", "m.rml.ttl", str(tmp_path / "kg.nt"), "--distributed", "--block-size",
                 "lots"]) == 2
    assert "not a size" in capsys.readouterr().err
    assert parse_size("64MiB") == 64 << 20 and parse_size("512k") == 512 << 10 and parse_size("100") == 100
    shutil.rmtree(tmp_path / "kg.nt.parts")
