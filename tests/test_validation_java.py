"""The Java tools' classpaths are built from the jars named (RIOT and Debian's clashing SLF4J bindings),
and a Java failure is one line: not run when the JVM could not start, else the root cause."""
from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.validation import consistency
from pipeline.validation.java import RIOT_JARS, java, java_failure, riot_classpath
from pipeline.validation.syntax import riot_available, riot_check


def _jar(path: Path, *names: str) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for n in names:
            z.writestr(n, "x")


def _debian_folder(tmp_path: Path) -> Path:
    """A /usr/share/java as Debian lays it out once libapache-jena-java is installed: Jena's jars, the
    libraries, and every SLF4J jar of libslf4j-java (log4j-over-slf4j and slf4j-log4j12 among them)."""
    folder = tmp_path / "java"
    folder.mkdir()
    for name in RIOT_JARS + ("slf4j-log4j12", "log4j-over-slf4j", "slf4j-jdk14", "slf4j-nop", "maven-core-3.x"):
        _jar(folder / f"{name}.jar", "META-INF/MANIFEST.MF")
    # Debian's Jena 4.5: Xerces' classes moved to xerces/, its message bundles left under the old path
    _jar(folder / "jena-core.jar", "xerces/impl/dv/SchemaDVFactory.class",
         "org/apache/jena/ext/xerces/impl/msg/XMLMessages.properties",
         "org/apache/jena/ext/xerces/impl/xpath/regex/message.properties")
    return folder


def test_riot_classpath_names_its_jars_and_one_slf4j_binding(tmp_path, monkeypatch):
    monkeypatch.setenv("KGC_CACHE_DIR", str(tmp_path / "cache"))
    folder = _debian_folder(tmp_path)
    entries = riot_classpath(folder, env={}).split(os.pathsep)
    jars = [Path(e).name for e in entries if e.endswith(".jar")]
    assert jars == [f"{n}.jar" for n in RIOT_JARS]
    assert "slf4j-log4j12.jar" not in jars and "log4j-over-slf4j.jar" not in jars and "*" not in "".join(entries)
    messages = Path(entries[0])  # the moved bundles, where the moved classes look for them
    assert (messages / "xerces" / "impl" / "msg" / "XMLMessages.properties").read_text() == "x"
    assert (messages / "xerces" / "impl" / "xpath" / "regex" / "message.properties").is_file()
    assert str(messages).startswith(str(tmp_path / "cache" / "jena-xerces"))


def test_riot_classpath_without_jena_or_with_jena_home(tmp_path):
    folder = _debian_folder(tmp_path)
    (folder / "jena-core.jar").unlink()
    assert riot_classpath(folder, env={}) is None
    home = tmp_path / "apache-jena-4.10.0"
    (home / "lib").mkdir(parents=True)
    assert riot_classpath(folder, env={"JENA_HOME": str(home)}) == str(home / "lib" / "*")


def test_java_failure_in_one_line():
    trace = ("Exception in thread \"main\" org.semanticweb.owlapi.io.UnparsableOntologyException: Problem parsing\n"
             "\tat org.semanticweb.owlapi.io.AbstractOWLParser.getInputStream(AbstractOWLParser.java:131)\n"
             "Caused by: java.net.UnknownHostException: www.w3.org\n\tat java.base/java.net.URLConnection.x(U.java:5)\n"
             "\t... 23 more\n")
    assert java_failure(trace, "HermiT") == ("failed", "HermiT failed: java.net.UnknownHostException: www.w3.org")
    clash = ("SLF4J: Detected both log4j-over-slf4j.jar AND bound slf4j-log4j12.jar on the class path, preempting "
             "StackOverflowError.\nException in thread \"main\" java.lang.ExceptionInInitializerError\n\tat x.y(Z.java:1)\n"
             "Caused by: java.lang.IllegalStateException: Detected both log4j-over-slf4j.jar AND bound "
             "slf4j-log4j12.jar on the class path, preempting StackOverflowError.\n")
    status, reason = java_failure(clash, "RIOT")
    assert (status, reason) == ("not_run", "the JVM could not start RIOT: Detected both log4j-over-slf4j.jar AND "
                                           "bound slf4j-log4j12.jar on the class path, preempting StackOverflowError.")
    assert java_failure("Error: Could not find or load main class riotcmd.riot\n", "RIOT") == (
        "not_run", "the JVM could not start RIOT: Error: Could not find or load main class riotcmd.riot")


@pytest.mark.skipif(shutil.which("java") is None, reason="no java executable")
def test_riot_that_cannot_start_is_not_run_with_the_reason(tmp_path, monkeypatch):
    """JENA_HOME names a distribution without Jena's jars: the JVM starts and cannot load riotcmd.riot."""
    (tmp_path / "jena" / "lib").mkdir(parents=True)
    monkeypatch.setenv("JENA_HOME", str(tmp_path / "jena"))
    kg = tmp_path / "kg.nt"
    kg.write_text("<http://a/b> <http://a/c> <http://a/d> .\n", encoding="utf-8")
    r = riot_check(kg)
    assert (r.value, r.status) == (None, "not_run")
    assert r.details["reason"] == ("the JVM could not start RIOT: Error: Could not find or load main class riotcmd.riot "
                                   "(java.lang.ClassNotFoundException: riotcmd.riot)")


@pytest.mark.skipif(not riot_available(), reason="Java or Debian's Jena jars are not installed")
def test_installed_riot_starts_and_reads_a_file(tmp_path):
    kg = tmp_path / "kg.nt"
    kg.write_text("<http://a/b> <http://a/c> <bad iri> .\n", encoding="utf-8")
    r = riot_check(kg)
    assert (r.value, r.status, r.details["N_err"]) == (False, "ok", 1)


def test_without_java_hermit_is_listed_as_not_applicable_with_the_reason(tmp_path, monkeypatch, capsys):
    # Java is optional: its absence is said on the check's line and in the verdict, never silent
    example = Path(__file__).resolve().parent.parent / "data" / "example"
    monkeypatch.chdir(tmp_path)
    assert main(["compile", str(example / "example.yaml"), str(example.parent.parent / "mappings" / "example_table.md"),
                 "m.ttl", "-q"]) == 0
    assert main(["materialize", "m.ttl", "kg.nt", "-q"]) == 0
    monkeypatch.setattr(consistency, "java", lambda: None)
    capsys.readouterr()
    assert main(["validate", str(example / "example.yaml"), "kg.nt", "-o", "v.json"]) == 0
    out = capsys.readouterr().out
    assert "CS2-hermit: n/a (no Java runtime found" in out
    assert out.splitlines()[-2].startswith("KG valid: passes SV2, CS2-owlrl, SHACL, vocabulary; CS2-hermit n/a (no Java runtime")
    hermit = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))["CS2-hermit"]
    assert (hermit["status"], hermit["value"]) == ("not_applicable", None)


def test_java_is_found_on_the_path_else_under_java_home(tmp_path, monkeypatch):
    # the message for a machine without Java names both places; JAVA_HOME alone (a JDK outside the PATH) must count
    exe = tmp_path / "jdk" / "bin" / "java"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n", encoding="utf-8")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert java() is None
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    assert java() == str(exe)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nothing"))
    assert java() is None
