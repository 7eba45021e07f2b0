"""`kgc compile --rml legacy`: the compiled mapping in legacy RML (rr:, the RML of semweb.mmlab.be, old
FNML, @base), which another engine, SDM-RDFizer (PyPI rdfizer), runs to the KG kgc materializes; and
which kgc materialize reads back (functions included) to the same KG."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from pipeline.cli import main
from pipeline.compile.legacy import FNML, LEGACY_RML, QL, RR

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def _nt(path: Path) -> Graph:
    return Graph().parse(path, format="nt")


def _sdm_rdfizer(mapping: Path, out: Path) -> Graph:
    """Run SDM-RDFizer on ``mapping``; its N-Triples output as a graph."""
    (out / "kg").mkdir(parents=True)
    config = out / "config.ini"
    config.write_text(f"[default]\nmain_directory: {out}\n\n[datasets]\nnumber_of_datasets: 1\n"
                      f"output_folder: {out / 'kg'}\nall_in_one_file: no\nremove_duplicate: yes\nenrichment: yes\n"
                      f"name: kg\nordered: no\nlarge_file: false\n\n[dataset1]\nname: kg\nmapping: {mapping}\n",
                      encoding="utf-8")
    # rdfizer imports pyodbc (for ODBC database sources, which this mapping has none of) at the top, and
    # pyodbc needs the system's unixODBC library: an empty module stands in for it
    code = ("import sys, types; sys.modules['pyodbc'] = types.ModuleType('pyodbc'); "
            "from rdfizer import semantify; semantify(sys.argv[1])")
    run = subprocess.run([sys.executable, "-c", code, str(config)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return _nt(out / "kg" / "kg.nt")


def test_sdm_rdfizer_runs_the_legacy_export_to_the_kg_kgc_makes(tmp_path):
    table, manifest = str(ROOT / "mappings" / "example_table.md"), str(EXAMPLE / "example.yaml")
    assert main(["compile", manifest, table, str(tmp_path / "legacy.ttl"), "--rml", "legacy", "-q"]) == 0
    assert main(["compile", manifest, table, str(tmp_path / "core.ttl"), "-q"]) == 0
    assert main(["materialize", str(tmp_path / "core.ttl"), str(tmp_path / "kg.nt"), "-q"]) == 0
    ours = _nt(tmp_path / "kg.nt")
    theirs = _sdm_rdfizer(tmp_path / "legacy.ttl", tmp_path / "sdm")
    assert len(ours) == 16 and set(theirs) == set(ours)  # joins, classes, datatypes, non-ASCII values


def test_legacy_vocabulary_base_and_functions_read_back_by_kgc(tmp_path):
    (tmp_path / "p.csv").write_text("id,name,email,boss\n1,Ann,env@example.org,\n2,Bob,bob@example.org,1\n",
                                    encoding="utf-8")
    (tmp_path / "case.yaml").write_text("sources: [p.csv]\nontologies: [onto.ttl]\nbase_iri: http://base.example.org/\n",
                                        encoding="utf-8")
    (tmp_path / "onto.ttl").write_text("<http://example.org/Person> a <http://www.w3.org/2002/07/owl#Class> .\n",
                                       encoding="utf-8")
    (tmp_path / "m.yarrrml").write_text("""prefixes: {ex: "http://example.org/"}
mappings:
  person:
    sources: [[p.csv~csv]]
    s: ex:person/$(id)
    po:
      - [a, ex:Person]
      - [ex:name, $(name), en~lang]
      - [ex:mail, $(email)~iri]
      - [ex:upper, {function: grel:toUpperCase, parameters: [[grel:valueParameter, $(name)]]}]
      - p: ex:boss
        o: {mapping: person, condition: {function: equal, parameters: [[str1, $(boss)], [str2, $(id)]]}}
""", encoding="utf-8")
    case = str(tmp_path / "case.yaml")
    assert main(["compile", case, str(tmp_path / "m.yarrrml"), str(tmp_path / "legacy.ttl"), "--rml", "legacy",
                 "-q"]) == 0
    text = (tmp_path / "legacy.ttl").read_text(encoding="utf-8")
    assert text.startswith("@base <http://base.example.org/> .\n") and "w3id.org/rml" not in text
    g = Graph().parse(tmp_path / "legacy.ttl")
    (tm,) = g.subjects(RDF.type, RR.TriplesMap)
    ls = g.value(tm, LEGACY_RML.logicalSource)
    assert g.value(ls, LEGACY_RML.referenceFormulation) == QL.CSV
    assert g.value(ls, LEGACY_RML.source) == Literal(str(tmp_path / "p.csv"))
    assert len(list(g.subject_objects(FNML.functionValue))) == 1
    assert (None, RR.parentTriplesMap, tm) in g and g.value(g.value(tm, RR.subjectMap), RR.termType) is None
    # kgc materialize reads the legacy document (old FNML too): the KG of the RML-Core document
    assert main(["compile", case, str(tmp_path / "m.yarrrml"), str(tmp_path / "core.ttl"), "-q"]) == 0
    assert main(["materialize", str(tmp_path / "core.ttl"), str(tmp_path / "a.nt"), "-q"]) == 0
    assert main(["materialize", str(tmp_path / "legacy.ttl"), str(tmp_path / "b.nt"), "-q"]) == 0
    a, b = _nt(tmp_path / "a.nt"), _nt(tmp_path / "b.nt")
    assert set(a) == set(b) and len(a) == 9
    # the relative IRI a reference makes is resolved against the base IRI (rml:baseIRI / @base)
    assert (URIRef("http://example.org/person/1"), URIRef("http://example.org/mail"),
            URIRef("http://base.example.org/env@example.org")) in a
    assert (URIRef("http://example.org/person/2"), URIRef("http://example.org/upper"), Literal("BOB")) in a
