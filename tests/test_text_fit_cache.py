"""The fitted-extractor cache of ``kgc text`` (pipeline/text/fit_cache.py): a second run with the
same training data, settings and code loads the fit and writes the same triples; anything else
misses; a damaged or tampered file is refused and refitted with a warning; ``KGC_CACHE_DIR=0``
writes nothing; the benchmark harness always fits."""
from __future__ import annotations

import io
import json
import logging
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import InputError
from pipeline.text import fit_cache, offline
from pipeline.text.bench import main as bench_main
from pipeline.text.fit_cache import FitCache, UnsafeFit
from pipeline.text.manifest import load_case
from pipeline.text.offline import OfflineExtractor

from helpers import text2kgbench_ontology

CASES = Path(__file__).parent / "cases"
UNIVERSITY = CASES / "text"  # DBpedia-WebNLG layout, 8 training sentences
FILM = CASES / "text-tekgen"  # Wikidata-TekGen layout


@pytest.fixture
def fits(monkeypatch):
    """Counts the offline extractor's fits (the real fit runs)."""
    calls = []
    real = OfflineExtractor.fit

    def counting(self, training, progress=None):
        calls.append(sorted(training))
        return real(self, training, progress)
    monkeypatch.setattr(OfflineExtractor, "fit", counting)
    return calls


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")  # TF-IDF neighbours: no model load
    return tmp_path / "cache" / fit_cache.NAMESPACE


def _run(manifest: Path, out: Path, capsys) -> tuple[list[list[dict]], str, dict]:
    assert main(["text", str(manifest), "--out", str(out), "--no-validate"]) == 0
    err = capsys.readouterr().err
    name = load_case(manifest).name
    rows = [json.loads(x) for x in (out / name / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    prov = json.loads((out / name / "provenance.json").read_text(encoding="utf-8"))
    return [r["triples"] for r in rows], err, prov


def _files(folder: Path) -> list[Path]:
    """The fit files diskcache keeps in the folder."""
    return sorted(folder.rglob("*.val")) if folder.is_dir() else []


def test_the_second_run_loads_the_fit_and_writes_the_same_triples(tmp_path, cache_dir, fits, capsys):
    first, err1, prov1 = _run(UNIVERSITY / "case.yaml", tmp_path / "o1", capsys)
    assert len(fits) == 1 and len(_files(cache_dir)) == 1
    stored = _files(cache_dir)[0]
    assert "fitted in " in err1 and f"stored in the cache {stored}" in err1
    assert prov1["fit"] == {"source": "fitted", "file": str(stored), "note": None, "key": prov1["fit"]["key"]}
    with zipfile.ZipFile(stored) as zf:  # the file is the fit of the key the provenance names
        assert json.loads(zf.read("meta.json"))["key"] == prov1["fit"]["key"]
    # the fit's steps are said as they start, in order (a fit on thousands of sentences takes minutes)
    steps = [line.split(": fitting: ")[1].rsplit(" (", 1)[0] for line in err1.splitlines() if ": fitting: " in line]
    assert steps == ["names, types and sentence vectors of 8 training sentences",
                     "candidate pairs of 8 training sentences", "first-level models on 76 candidate pairs"]
    second, err2, prov2 = _run(UNIVERSITY / "case.yaml", tmp_path / "o2", capsys)
    assert len(fits) == 1 and ": fitting: " not in err2  # not fitted again
    assert f"loaded from the cache {stored}" in err2 and "fitting the offline extractor" not in err2
    assert prov2["fit"]["source"] == "cache" and prov2["fit"]["file"] == str(stored)
    assert second == first and sum(map(len, first)) == 3
    assert prov2["settings"] == prov1["settings"] and prov2["similarity"] == prov1["similarity"] == "tf-idf"


def test_a_changed_training_sentence_or_setting_misses(tmp_path, cache_dir, fits, capsys):
    case = tmp_path / "case"
    shutil.copytree(UNIVERSITY, case)
    _run(case / "case.yaml", tmp_path / "o", capsys)
    train = case / "train.jsonl"
    lines = train.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["sent"] = first["sent"].replace(" is ", " was ", 1)
    assert first["sent"] != json.loads(lines[0])["sent"]
    train.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n", encoding="utf-8")
    _, err, _ = _run(case / "case.yaml", tmp_path / "o", capsys)
    assert len(fits) == 2 and "stored in the cache" in err and len(_files(cache_dir)) == 2
    manifest = case / "case.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("threshold: 0.3", "threshold: 0.35"),
                        encoding="utf-8")
    _run(case / "case.yaml", tmp_path / "o", capsys)
    assert len(fits) == 3 and len(_files(cache_dir)) == 3
    _run(case / "case.yaml", tmp_path / "o", capsys)  # unchanged since: loaded
    assert len(fits) == 3
    # a default written out is the same setting; another value of any setting is another key
    training = {"u": (load_case(UNIVERSITY / "case.yaml").ontology, load_case(UNIVERSITY / "case.yaml").train)}
    assert fit_cache.fit_key({}, training) == fit_cache.fit_key({"k": 5, "stack": True}, training)
    assert fit_cache.fit_key({}, training) != fit_cache.fit_key({"k": 4}, training)


def test_fit_key_is_the_ontology_not_where_it_was_read(tmp_path):
    """An OWL ontology copied to another folder is the same fit (the file paths serve validation only);
    a change to one of its terms is another fit."""
    def key(folder: Path) -> str:
        case = load_case(folder / "case.yaml")
        assert case.ontology.rdf_files == [str(folder / "university.ttl")]
        return fit_cache.fit_key({}, {"u": (case.ontology, case.train)})

    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        shutil.copytree(CASES / "text-owl-ontology", folder)
    assert key(first) == key(second)
    onto = second / "university.ttl"
    onto.write_text(onto.read_text(encoding="utf-8").replace('"city"', '"town"'), encoding="utf-8")
    assert key(first) != key(second)


def _tamper(path: Path, change) -> None:
    """Rewrite the zip at ``path`` with ``change(name, data) -> data`` applied to each member."""
    src = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for info in src.infolist():
            out.writestr(info.filename, change(info.filename, src.read(info.filename)))
    path.write_bytes(buf.getvalue())


def _untrusted_own_type(name: str, data: bytes) -> bytes:
    if name != "state.json":
        return data
    return data.replace(b'"o":"pipeline.text.mentions.Lexicon"', b'"o":"subprocess.Popen"', 1)


def _untrusted_skops_type(name: str, data: bytes) -> bytes:
    if not name.startswith("sklearn/"):
        return data
    inner = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for info in inner.infolist():
            body = inner.read(info.filename)
            if info.filename == "schema.json":
                schema = json.loads(body)
                schema["__module__"], schema["__class__"] = "sklearn.pipeline", "Pipeline"
                body = json.dumps(schema).encode()
            out.writestr(info.filename, body)
    return buf.getvalue()


@pytest.mark.parametrize("tamper, reason", [
    (lambda p: p.write_bytes(b"\x00garbage, not a zip" * 10), "BadZipFile"),
    (lambda p: _tamper(p, _untrusted_own_type), "outside the allowlist: subprocess.Popen"),
    (lambda p: _tamper(p, _untrusted_skops_type), "outside the allowlist: sklearn.pipeline.Pipeline"),
])
def test_a_damaged_or_tampered_file_is_refused_and_refitted(tmp_path, cache_dir, fits, capsys, caplog, tamper,
                                                           reason):
    first, _, _ = _run(UNIVERSITY / "case.yaml", tmp_path / "o", capsys)
    stored = _files(cache_dir)[0]
    tamper(stored)
    with caplog.at_level(logging.WARNING, logger="pipeline.text.fit_cache"):
        again, err, prov = _run(UNIVERSITY / "case.yaml", tmp_path / "o", capsys)
    warning = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warning) == 1 and f"fit cache: {stored} refused" in warning[0] and reason in warning[0]
    assert len(fits) == 2 and again == first and prov["fit"]["source"] == "fitted"
    # the refused file was replaced by the new fit: the next run loads it
    _run(UNIVERSITY / "case.yaml", tmp_path / "o", capsys)
    assert len(fits) == 2


def test_a_file_of_another_fit_is_refused(tmp_path, cache_dir):
    case = load_case(UNIVERSITY / "case.yaml")
    training = {"u": (case.ontology, case.train)}
    cache = FitCache()
    fit = cache.fitted({}, training, lambda: OfflineExtractor().fit(training))
    other = fit_cache.fit_key({"k": 3}, training)
    with open(fit.path, "rb") as fh:
        cache._store().set(other, fh, read=True)  # the file of one fit under another's key
    with pytest.raises(UnsafeFit, match="written for another fit"):
        cache.get(other)


def test_no_cache_with_kgc_cache_dir_0_and_no_error_when_it_cannot_be_written(tmp_path, monkeypatch, fits,
                                                                               capsys):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KGC_CACHE_DIR", "0")
    first, err, prov = _run(UNIVERSITY / "case.yaml", tmp_path / "o", capsys)
    _run(UNIVERSITY / "case.yaml", tmp_path / "o", capsys)
    assert len(fits) == 2 and "not stored: the cache is off (KGC_CACHE_DIR=0)" in err
    assert prov["fit"] == {"source": "fitted", "file": None, "note": "the cache is off (KGC_CACHE_DIR=0)", "key": None}
    assert not list(tmp_path.rglob("*.val")) and not list(tmp_path.rglob(fit_cache.NAMESPACE))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("KGC_CACHE_DIR", str(blocker))  # the cache folder cannot be created
    again, err, _ = _run(UNIVERSITY / "case.yaml", tmp_path / "o", capsys)
    assert again == first and "not stored: the cache folder cannot be written" in err


def test_a_stacked_extractor_round_trips_through_the_safe_format(monkeypatch):
    """Bagged gradient-boosted stackers, vectorizers, linear models, the lexicon: stored and loaded
    (no pickle) they give the same scores and triples."""
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    monkeypatch.setattr(offline, "STACK_MIN_SENTENCES", 1)
    case = load_case(UNIVERSITY / "case.yaml")
    ex = OfflineExtractor().fit({"tiny_university": (case.ontology, case.train)})
    assert len(ex.stackers) == 3
    data = fit_cache.dumps(ex, {"key": "k", "format": fit_cache.FORMAT})
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert not [n for n in names if n.endswith((".pkl", ".pickle", ".joblib"))]
    back = fit_cache.loads(data, "k")
    assert type(back.stackers[0]).__name__ == "Bagged" and type(back.stackers[0].models[0]).__name__ == \
        "HistGradientBoostingClassifier"
    assert back.facts == ex.facts and back.lexicon.alias_to_name == ex.lexicon.alias_to_name
    texts = [s.text for s in case.sentences] + [s.text for s in case.train]
    assert back.extract(texts, case.ontology) == ex.extract(texts, case.ontology)
    with pytest.raises(UnsafeFit, match="another fit"):
        fit_cache.loads(data, "other")


def test_zero_shot_kgc_text_loads_the_fit_with_its_label_model(tmp_path, monkeypatch, fits, capsys):
    """A user's ontology without training sentences: the second run loads the zero-shot fit, the
    label model included (fitted once, with the packaged MiniLM token vectors)."""
    from pipeline import embeddings
    if not embeddings.available():
        pytest.skip("the zero-shot label model needs the packaged MiniLM")
    bench = tmp_path / "t2kb"
    text2kgbench_ontology(bench, "1_tinyuni", UNIVERSITY, scored=False)
    monkeypatch.setenv("TEXT2KGBENCH_DIR", str(bench))
    monkeypatch.setenv("TEXT2KGBENCH_TEKGEN_DIR", str(tmp_path / "no-tekgen"))
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    case = tmp_path / "film"
    shutil.copytree(FILM, case)
    manifest = case / "case.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("train: [train.jsonl]\n", ""), encoding="utf-8")
    first, err1, prov1 = _run(manifest, tmp_path / "o1", capsys)
    assert prov1["setting"] == "zero-shot" and "zero-shot: the offline extractor for 8 training sentences" in err1
    labels = []
    real = fit_cache.LabelModel.fit
    monkeypatch.setattr(fit_cache.LabelModel, "fit", lambda self, ex: labels.append(1) or real(self, ex))
    second, err2, prov2 = _run(manifest, tmp_path / "o2", capsys)
    assert len(fits) == 1 and labels == [] and "loaded from the cache" in err2
    assert second == first and ("director", "Hideo Nakata") in {(t["rel"], t["obj"]) for t in first[0]}


def test_the_benchmark_harness_fits_and_never_reads_the_cache(tmp_path, monkeypatch, fits):
    # no PIPELINE_NO_EMBEDDINGS: the harness's label model reads token vectors of the packaged model
    # (the test passed only after another test had loaded it)
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    bench = tmp_path / "t2kb"
    text2kgbench_ontology(bench, "1_tinyuni", UNIVERSITY, scored=True)
    argv = ["--bench", str(bench), "--out", str(tmp_path / "out"), "--only", "1_tinyuni", "--no-validate"]
    assert bench_main(argv) == 0 and bench_main(argv) == 0
    assert len(fits) == 2 and not list(tmp_path.rglob("*.val"))


def test_the_folder_keeps_the_most_recently_used_fits_within_its_size(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    case = load_case(UNIVERSITY / "case.yaml")
    ex = OfflineExtractor().fit({"tiny_university": (case.ontology, case.train)})
    cache = FitCache(tmp_path)
    (tmp_path / fit_cache.NAMESPACE).mkdir()
    loose = tmp_path / fit_cache.NAMESPACE / ("d" * 64 + ".kgcfit")  # a fit kept one file per key: no lookup reads it
    loose.write_bytes(b"PK")
    for key in ("a" * 64, "b" * 64):
        assert cache.put(key, ex, {}) == cache.path(key)
    assert not loose.exists()
    size = cache.path("a" * 64).stat().st_size
    assert cache.get("a" * 64) is not None  # used: now more recent than b
    # a bound that holds the two fits and half of another: storing c evicts the least recently used
    bounded = FitCache(tmp_path, size_mb=(cache._store().volume() + size / 2) / 2 ** 20)
    assert bounded.put("c" * 64, ex, {}) is not None
    assert [k[0] for k in ("a" * 64, "b" * 64, "c" * 64) if bounded.path(k)] == ["a", "c"]
    assert len(_files(bounded.folder)) == 2 and not list(bounded.folder.glob(".*part"))  # no temporary file left


def test_many_small_fits_do_not_evict_a_large_one(tmp_path, monkeypatch):
    """The default bound is by size: a fit kept (here a stand-in of 20 MB) outlives a hundred fits of
    a few sentences stored after it, which a bound of three files by count did not."""
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    case = load_case(UNIVERSITY / "case.yaml")
    ex = OfflineExtractor().fit({"tiny_university": (case.ontology, case.train)})
    cache = FitCache(tmp_path)
    assert cache.size_mb == fit_cache.DEFAULT_SIZE_MB
    cache._store().set("z" * 64, io.BytesIO(os.urandom(20 * 2 ** 20)), read=True)
    for n in range(100):
        cache.put(f"{n:064d}", ex, {})
    assert cache.path("z" * 64) is not None and all(cache.path(f"{n:064d}") for n in range(100))


def test_the_size_bound_is_the_users_setting(tmp_path, monkeypatch):
    monkeypatch.setenv(fit_cache.SIZE_ENV, "2.5")
    assert FitCache(tmp_path).size_mb == 2.5
    for bad in ("0", "-1", "lots", "nan"):
        monkeypatch.setenv(fit_cache.SIZE_ENV, bad)
        with pytest.raises(InputError, match=rf"^KGC_TEXT_FITS_MB='{bad}': expected the fit cache's size in MB"):
            FitCache(tmp_path)


def test_an_extractor_holding_what_the_format_cannot_store_is_used_unstored(tmp_path, monkeypatch):
    """A function (or the sequence tagger's torch network) has no safe stored form: the fit is
    used as it is and nothing is written."""
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    case = load_case(UNIVERSITY / "case.yaml")
    training = {"tiny_university": (case.ontology, case.train)}

    def prepare(ex):
        ex.hook = len
    fit = FitCache(tmp_path).fitted({}, training, lambda: OfflineExtractor().fit(training), prepare)
    assert fit.source == "fitted" and fit.path is None and fit.extractor.hook is len
    assert fit.note == "it holds an object of type builtins.builtin_function_or_method"
    assert "not stored: it holds" in fit.describe() and not list(tmp_path.rglob("*.val"))


def test_an_edit_of_decoding_keeps_the_code_key_and_an_edit_of_what_fits_changes_it(tmp_path):
    """The code part of the key hashes the real source files the fit imports: a copy of
    ``pipeline/text`` edited in a decoding, spelling, window, negation or report module gives the
    same digest; an edit of features, the scored-pair record, the stacker or the fit another."""
    text = tmp_path / "pipeline" / "text"
    shutil.copytree(Path(fit_cache.__file__).parent, text, ignore=shutil.ignore_patterns("__pycache__"))
    base = fit_cache._code_digest(text)
    assert base == fit_cache._code_digest()  # the copy is the package's own sources
    names = {p.name for p in fit_cache.fit_modules(text)}
    assert {"offline.py", "features.py", "stacking.py", "pair_score.py", "mentions.py"} <= names
    assert not names & {"decode.py", "canonical.py", "windows.py", "negation.py", "bench.py", "harness.py",
                        "metrics.py", "rdf.py", "cli.py"}

    def edited(name: str) -> str:
        f = text / name
        before = f.read_bytes()
        f.write_bytes(before.replace(b"\n\n\n", b"\n\n\n# an edit\n", 1))
        assert f.read_bytes() != before
        try:
            return fit_cache._code_digest(text)
        finally:
            f.write_bytes(before)
    for name in ("decode.py", "canonical.py", "windows.py", "negation.py", "bench.py", "harness.py", "metrics.py"):
        assert edited(name) == base, name
    for name in ("features.py", "pair_score.py", "stacking.py", "offline.py", "mentions.py", "fit_cache.py"):
        assert edited(name) != base, name
    assert fit_cache._code_digest(text) == base


def test_a_stacked_fit_runs_no_function_of_the_applied_modules(monkeypatch):
    """What the key leaves out (:data:`fit_cache.APPLIED_MODULES`) is never run by a fit: with every
    function and class of those modules replaced by one that raises, wherever it was imported, a
    stacked fit (cross-fitted stacker rounds) completes; extracting then fails (the stubs are live)."""
    import sys
    import types
    monkeypatch.setenv("PIPELINE_NO_EMBEDDINGS", "1")
    monkeypatch.setattr(offline, "STACK_MIN_SENTENCES", 1)

    class Ran(Exception):
        pass
    applied = {sys.modules[m] for m in fit_cache.APPLIED_MODULES}
    stubbed = 0
    for mod in [m for n, m in list(sys.modules.items()) if n.startswith("pipeline.") and m is not None]:
        for attr, value in list(vars(mod).items()):
            if isinstance(value, (types.FunctionType, type)) and value.__module__ in fit_cache.APPLIED_MODULES:
                def stub(*a, _name=f"{value.__module__}.{attr}", **k):
                    raise Ran(_name)
                monkeypatch.setattr(mod, attr, stub)
                stubbed += mod not in applied
    assert stubbed >= 4  # offline's f1_decode, stated, threshold_decode, write_triples, canonical_spellings ...
    case = load_case(UNIVERSITY / "case.yaml")
    ex = OfflineExtractor().fit({"tiny_university": (case.ontology, case.train)})
    assert len(ex.stackers) == 3
    with pytest.raises(Ran):
        ex.extract([s.text for s in case.sentences], case.ontology)
