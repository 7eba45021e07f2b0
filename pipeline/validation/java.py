"""The Java tools the checks run: HermiT (CS2) and Jena RIOT (SV2's cross-check).

Their classpaths are built from the jars named, never from every jar of a folder: Debian's
``/usr/share/java`` holds, once ``libslf4j-java`` is installed (Jena depends on it), both
``log4j-over-slf4j.jar`` and ``slf4j-log4j12.jar``, and SLF4J refuses to start with the two
("Detected both log4j-over-slf4j.jar AND bound slf4j-log4j12.jar"). RIOT gets the jars of
Debian's ``libapache-jena-java`` and of the packages it depends on, with one SLF4J binding
(``slf4j-simple``, which writes RIOT's diagnostics to stderr as ``[main] ERROR ... [line: 2,
col: 32] ...``), or, when ``JENA_HOME`` names an Apache Jena distribution, its ``lib/`` (as
Jena's own scripts do).

Debian's Jena 4.5 moves Xerces' classes from ``org.apache.jena.ext.xerces`` to ``xerces`` but
leaves its message bundles under the old path: Jena's start-up then fails with "internal
error" in ``XSSimpleTypeDecl.applyFacets1`` (the regular-expression parser cannot load its
messages). The bundles are copied once to where the moved classes look for them
(``jena-xerces/`` under the cache root, :func:`pipeline.cache.root`; a temporary folder when
caching is off), and that folder goes on the classpath.

A Java process that fails is summed up in one line (:func:`java_failure`): a JVM that could not
start (no memory for the heap, a class missing from the classpath, a logging clash) is
``not_run`` with its reason; a tool that started and failed is ``failed`` with the root cause
(the last ``Caused by:``), never a stack-trace fragment.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Mapping

from pipeline.cache import root as cache_root

__all__ = ["DEBIAN_JARS", "RIOT_JARS", "JVM_FLAGS", "hermit_classpath", "riot_classpath", "java_failure", "java"]

#: Options of every JVM the checks start. Each check is one short run (a KG's consistency, a file's
#: syntax), so the JVM's start-up dominates its CPU: the client compiler alone
#: (``TieredStopAtLevel=1``) skips the optimizing compiler's threads, and the serial collector the
#: parallel one's. Measured on HermiT (CPU s of the child process, user + system): on BLINKG scenario 3's
#: KG and ontology 1.5 -> 0.8-1.0, on DBpedia's ontology (970 KB) 1.7-2.1 -> 0.9, on schema.org
#: (1.1 MB) 4.9-5.3 -> 3.8-4.1; the same verdicts.
JVM_FLAGS: tuple[str, ...] = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

#: Debian's folder of Java libraries.
DEBIAN_JARS = Path("/usr/share/java")
#: The jars RIOT runs on, by Debian's unversioned names: Jena's own (``libapache-jena-java``),
#: the libraries its package depends on, and one SLF4J binding.
RIOT_JARS = ("jena-cmds", "jena-arq", "jena-core", "jena-base", "jena-iri",
             "commons-cli", "commons-codec", "commons-compress", "commons-csv", "commons-io", "commons-lang3",
             "commons-logging", "dexx.collection", "gson", "guava", "httpclient", "httpcore", "jackson-core",
             "jackson-databind", "jackson-annotations", "jsonld-java", "jakarta.json-api", "titanium-json-ld",
             "protobuf", "thrift", "slf4j-api", "slf4j-simple")
#: The jars without which RIOT cannot run at all (the others are loaded for some syntaxes only).
_RIOT_REQUIRED = ("jena-cmds", "jena-arq", "jena-core", "jena-base", "jena-iri", "slf4j-api")


def hermit_classpath() -> str | None:
    """owlready2's bundled HermiT: its folder and ``HermiT.jar`` (``None`` when owlready2 or the jar is missing)."""
    spec = importlib.util.find_spec("owlready2")  # its files only: HermiT runs as a Java process
    if spec is None or spec.origin is None:
        return None
    here = os.path.join(os.path.dirname(spec.origin), "hermit")
    jar = os.path.join(here, "HermiT.jar")
    return os.pathsep.join([here, jar]) if os.path.exists(jar) else None


def _xerces_messages(jena_core: Path) -> Path | None:
    """A folder with Debian's moved Xerces message bundles (module docstring), made once per jar."""
    try:
        with zipfile.ZipFile(jena_core) as z:
            names = z.namelist()
            if "xerces/impl/dv/SchemaDVFactory.class" not in names or "xerces/impl/msg/XMLMessages.properties" in names:
                return None  # Xerces where Jena's upstream build puts it, or the bundles beside the classes
            old = "org/apache/jena/ext/xerces/"
            bundles = [n for n in names if n.startswith(old) and n.endswith(".properties")]
            st = jena_core.stat()
            key = hashlib.sha1(f"{jena_core.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:16]
            base = cache_root()
            roots = ([base / "jena-xerces"] if base is not None else []) + [Path(tempfile.gettempdir()) / "kgc-jena-xerces"]
            for root in roots:
                folder = root / key
                if (folder / "done").is_file():
                    return folder
                try:
                    for n in bundles:
                        target = folder / "xerces" / n[len(old):]
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(z.read(n))
                    (folder / "done").write_text("")
                    return folder
                except OSError:
                    continue  # an unwritable cache root: the temporary folder
    except (OSError, zipfile.BadZipFile):
        return None
    return None


def riot_classpath(jar_dir: Path = DEBIAN_JARS, env: Mapping[str, str] | None = None) -> str | None:
    """The classpath RIOT runs on, or ``None`` when Jena is not installed.

    Args:
        jar_dir: Debian's jar folder (:data:`DEBIAN_JARS`).
        env: the environment (default ``os.environ``); ``JENA_HOME`` names an Apache Jena
            distribution, whose ``lib/*`` is used as it is.
    Returns:
        ``os.pathsep``-joined entries: :data:`RIOT_JARS` found in ``jar_dir`` (``None`` when one
        of Jena's core jars or ``slf4j-api`` is missing), plus the folder of Xerces message
        bundles Debian's Jena needs.
    """
    env = os.environ if env is None else env
    home = env.get("JENA_HOME")
    if home and (Path(home) / "lib").is_dir():
        return str(Path(home) / "lib" / "*")
    found = {name: jar_dir / f"{name}.jar" for name in RIOT_JARS if (jar_dir / f"{name}.jar").is_file()}
    if any(name not in found for name in _RIOT_REQUIRED):
        return None
    entries = [str(p) for p in found.values()]
    messages = _xerces_messages(found["jena-core"])
    if messages is not None:
        entries.insert(0, str(messages))
    return os.pathsep.join(entries)


#: Lines a JVM prints when it cannot start or cannot load the tool (HotSpot's launcher, SLF4J).
_NO_START = ("Error occurred during initialization of VM", "Could not create the Java Virtual Machine",
             "Could not find or load main class", "Invalid maximum heap size", "Unrecognized VM option",
             "Could not reserve enough space", "There is insufficient memory for the Java Runtime",
             "UnsupportedClassVersionError", "Detected both log4j-over-slf4j", "ExceptionInInitializerError",
             "NoClassDefFoundError")
_EXCEPTION = re.compile(r"^\s*(?:Caused by: |Exception in thread \"[^\"]*\" )?((?:[\w$]+\.)+[\w$]*(?:Exception|Error))"
                        r"(?::\s*(.*))?$")


def java_failure(output: str, tool: str) -> tuple[str, str]:
    """One line on a Java process that failed.

    Args:
        output: its stdout and stderr. tool: the tool's name for the message (``HermiT``, ``RIOT``).
    Returns:
        ``(status, reason)``: ``("not_run", "the JVM could not start HermiT: ...")`` when the JVM
        or the tool's classes could not start (module docstring), else ``("failed", "HermiT failed:
        <root cause>")`` with the last ``Caused by:`` exception (class and message), or the last
        non-empty line when no exception is printed.
    """
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    exceptions = [m for m in map(_EXCEPTION.match, lines) if m]
    causes = [m for m in exceptions if m.group(0).lstrip().startswith("Caused by:")]
    root = (causes or exceptions or [None])[-1]
    cause = f"{root.group(1)}: {root.group(2)}" if root is not None and root.group(2) else \
        (root.group(1) if root is not None else (lines[-1] if lines else "no output"))
    start = next((ln for ln in lines if any(k in ln for k in _NO_START)), None)
    if start is not None:
        why = start.removeprefix("SLF4J: ")
        if root is not None and root.group(1) not in why and why[:40] not in cause:
            why += f" ({cause})"
        return "not_run", f"the JVM could not start {tool}: {why}"
    return "failed", f"{tool} failed: {cause}"


def java() -> str | None:
    """The ``java`` executable on the PATH, else ``$JAVA_HOME/bin/java`` (where a JDK installed outside
    the PATH is found), or ``None``."""
    home = os.environ.get("JAVA_HOME")
    return shutil.which("java") or (shutil.which("java", path=str(Path(home) / "bin")) if home else None)
