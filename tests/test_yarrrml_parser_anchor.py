"""kgc's YARRRML reader against yarrrml-parser, the reference implementation (npm ``@rmlio/yarrrml-parser``).

Each example of yarrrml-parser's own test suite in ``tests/cases/yarrrml-parser/`` (MIT; data written
where the suite has none, see PROVENANCE.md there) is translated two ways, and the KGs must be the same:

* kgc: ``kgc compile <example> -o m.ttl`` then ``kgc materialize m.ttl kg.nt``;
* reference: yarrrml-parser's RML, run by ``kgc materialize`` too (Morph-KGC with kgc's guards, and
  kgc's function file, which holds the IDLab condition functions yarrrml-parser's conditions call).
  Morph-KGC 2.10 alone does not read the old FNML yarrrml-parser writes for functions and ignores its
  legacy ``rml:languageMap`` (morph-kgc#284); one engine on both sides compares the translations.

An example whose yarrrml-parser RML no engine here runs (a join condition written as a function
execution, which only RMLMapper reads) has the KG worked out by hand in ``expected.nt``.

yarrrml-parser is installed with npm into ``~/.cache/kgc/node-tools`` on first use (or taken from the
``node_modules`` folder ``KGC_NODE_MODULES`` names). The test skips only where Node.js is absent, and says so.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rdflib import Dataset, Graph
from rdflib.compare import isomorphic

from pipeline.cli import main

CASES = Path(__file__).resolve().parent / "cases" / "yarrrml-parser"
VERSION = "1.12.2"
CACHE = Path.home() / ".cache" / "kgc" / "node-tools"
EXAMPLES = sorted(p.name for p in CASES.iterdir() if p.is_dir())


#: Converts every example in one Node process (a process start costs more than a conversion), with
#: yarrrml-parser's generator as its command line uses it; its module cache is cleared per example,
#: since the generator adds each document's prefixes to a module-level table.
_DRIVER = """
const fs = require('fs'), path = require('path');
const [root, jobsFile] = process.argv.slice(2);
for (const [input, output] of JSON.parse(fs.readFileSync(jobsFile, 'utf8'))) {
  for (const k of Object.keys(require.cache)) if (k.includes('yarrrml-parser')) delete require.cache[k];
  const Y2R = require(path.join(root, '@rmlio', 'yarrrml-parser', 'lib', 'rml-generator.js'));
  const N3 = require(require.resolve('n3', {paths: [path.join(root, '@rmlio', 'yarrrml-parser')]}));
  const quads = new Y2R({includeMetadata: false}).convert([{yarrrml: fs.readFileSync(input, 'utf8'), file: input}]);
  const writer = new N3.Writer({format: 'N-Triples'});
  writer.addQuads(quads);
  writer.end((error, result) => fs.writeFileSync(output, result));
}
"""


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The ``node_modules`` folder holding yarrrml-parser (installed on first use)."""
    given = os.environ.get("KGC_NODE_MODULES")
    if given:
        return Path(given)
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js is absent: yarrrml-parser (npm @rmlio/yarrrml-parser) cannot run, so kgc's YARRRML "
                    "reader is not compared with it here (the other YARRRML tests still run)")
    if not (CACHE / "node_modules" / "@rmlio" / "yarrrml-parser" / "package.json").exists():
        subprocess.run(["npm", "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", "--loglevel=error",
                        f"@rmlio/yarrrml-parser@{VERSION}"], check=True, capture_output=True, timeout=600)
    return CACHE / "node_modules"


@pytest.fixture(scope="session")
def converted(node_modules: Path, tmp_path_factory) -> Path:
    """A copy of every example, each with yarrrml-parser's RML beside it (``yp.rml.nt``)."""
    root = tmp_path_factory.mktemp("yarrrml-parser")
    jobs = []
    for example in EXAMPLES:
        shutil.copytree(CASES / example, root / example)
        if not (root / example / "expected.nt").exists():
            jobs.append([str(_mapping(root / example)), str(root / example / "yp.rml.nt")])
    (root / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    (root / "driver.js").write_text(_DRIVER, encoding="utf-8")
    subprocess.run(["node", str(root / "driver.js"), str(node_modules), str(root / "jobs.json")], check=True,
                   capture_output=True, timeout=300)
    return root


def _mapping(folder: Path) -> Path:
    return next(p for p in sorted(folder.iterdir()) if p.suffix in (".yml", ".yarrrml"))


def _read(path: Path) -> Dataset:
    ds = Dataset()
    ds.parse(path, format="nquads" if path.suffix == ".nq" else "nt")
    return ds


def _graphs(ds: Dataset) -> dict[str, Graph]:
    """Named graph IRI (``""`` for the default graph) -> its triples."""
    out: dict[str, Graph] = {}
    for s, p, o, g in ds.quads((None, None, None, None)):
        name = "" if g is None or str(g) == str(ds.default_context.identifier) else str(g)
        out.setdefault(name, Graph()).add((s, p, o))
    return out


def _reference(folder: Path, work: Path) -> Dataset:
    if (folder / "expected.nt").exists():
        return _read(folder / "expected.nt")
    assert main(["materialize", str(folder / "yp.rml.nt"), str(work / "yp.nt"), "-q"]) in (0, 1)  # 1: both drop alike
    return _read(next(work.glob("yp.n[tq]")))


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_gives_the_kg_of_yarrrml_parser(example, converted, tmp_path, monkeypatch):
    folder = converted / example
    monkeypatch.chdir(folder)  # yarrrml-parser writes the sources as given: relative to the example
    assert main(["compile", str(_mapping(folder)), "-o", str(tmp_path / "kgc.rml.ttl"), "-q"]) == 0
    # exit 1: the guards dropped ill-typed literals (example1 writes "--10" as xsd:gDay), on both sides
    assert main(["materialize", str(tmp_path / "kgc.rml.ttl"), str(tmp_path / "kgc.nt"), "-q"]) in (0, 1)
    ours = _graphs(_read(next(tmp_path.glob("kgc.n[tq]"))))
    theirs = _graphs(_reference(folder, tmp_path))
    assert sum(len(g) for g in ours.values()) > 0
    assert set(ours) == set(theirs)
    for name, graph in ours.items():
        assert isomorphic(graph, theirs[name]), (
            f"graph {name or '(default)'}: only kgc: {sorted(set(graph) - set(theirs[name]))[:5]}; "
            f"only yarrrml-parser: {sorted(set(theirs[name]) - set(graph))[:5]}")


def test_kgc_yarrrml_export_is_read_by_yarrrml_parser_to_the_same_kg(node_modules, tmp_path):
    """kgc's YARRRML (per-record language tags, base, joins) run through yarrrml-parser gives kgc's KG."""
    root = Path(__file__).resolve().parent / "cases"
    for case in ("language-tag-from-column", "self-join-reflexive-only"):
        folder = root / case
        manifest = folder / "case.yaml"
        table_file = folder / "table.md"
        work = tmp_path / case
        work.mkdir()
        assert main(["compile", str(manifest), str(table_file), str(work / "m.ttl"), "--yarrrml", "-q"]) in (0, 1)
        assert main(["materialize", str(work / "m.ttl"), str(work / "kgc.nt"), "-q"]) == 0
        (work / "jobs.json").write_text(json.dumps([[str(work / "m.yarrrml.yml"), str(work / "yp.rml.nt")]]))
        (work / "driver.js").write_text(_DRIVER, encoding="utf-8")
        subprocess.run(["node", str(work / "driver.js"), str(node_modules), str(work / "jobs.json")], check=True,
                       capture_output=True, timeout=120)
        assert main(["materialize", str(work / "yp.rml.nt"), str(work / "yp.nt"), "-q"]) == 0
        ours, theirs = Graph().parse(work / "kgc.nt", format="nt"), Graph().parse(work / "yp.nt", format="nt")
        assert len(ours) > 0 and isomorphic(ours, theirs), case
