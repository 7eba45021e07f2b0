"""The package's shape: a folder per stage, no import cycle, no import inside a function.

Read with :mod:`ast` from the source, so the checks see every import, also those a test run never
executes. Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first, so a module
that imports ``a.b.c`` depends on those packages too (but for the packages that hold the module
itself, which are initialised before it runs); a cycle through a package's ``__init__`` counts.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"

#: Third-party packages that cost over a quarter of a second to import (``python -X importtime``)
#: or come from an optional extra: a function that needs them imports them, so that commands
#: which never call it do not pay for them.
HEAVY = {"torch", "transformers", "sentence_transformers", "sklearn", "skops", "matplotlib", "litellm", "openai",
         "dask", "distributed", "morph_kgc", "nltk", "pandas"}

#: Modules allowed at the top of ``pipeline/``: what every stage shares.
TOP_LEVEL = {"__init__", "cli", "errors", "findings", "ontology", "manifest", "rdffile", "rdflists", "embeddings", "llm",
             "cache", "outfolder", "gcpause"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], list[tuple[int, str]]]:
    """(project modules imported at module level, [(line, module) imported inside a function])."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: set[str] = set()
    inner: list[tuple[int, str]] = []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                pkg = pkg[:len(pkg) - node.level + 1]
                base = ".".join(pkg + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        # the module itself and every package on its way, but for the packages that hold this
        # module: those are initialised before it runs
        own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        found = []
        for n in names:
            parts = n.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in modules and prefix != name and prefix not in own:
                    found.append(prefix)
        return found

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, True)
            elif isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                continue
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                if in_function:
                    roots = ([a.name.split(".")[0] for a in child.names] if isinstance(child, ast.Import)
                             else [(child.module or "").split(".")[0]] if not child.level else ["pipeline"])
                    for root in roots:
                        if root not in HEAVY:
                            inner.append((child.lineno, root if root != "pipeline" else
                                          ",".join(targets(child)) or "pipeline"))
                else:
                    top.update(targets(child))
            else:
                visit(child, in_function)

    visit(tree, False)
    top.discard(name)
    return top, inner


def _graph() -> tuple[dict[str, set[str]], dict[str, list[tuple[int, str]]], dict[str, Path]]:
    modules = _modules()
    edges, inner = {}, {}
    for name, path in modules.items():
        edges[name], inner[name] = _imports(name, path, modules)
    return edges, inner, modules


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in edges:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycle():
    edges, _, _ = _graph()
    cycles = _cycles(edges)
    assert not cycles, "import cycles:\n" + "\n".join("  " + " <-> ".join(c) for c in cycles)


def test_no_project_or_light_import_inside_a_function():
    _, inner, modules = _graph()
    bad = [f"{modules[m].relative_to(PACKAGE.parent)}:{line} imports {what}"
           for m, found in sorted(inner.items()) for line, what in found]
    assert not bad, f"{len(bad)} imports inside functions (allowed only for {sorted(HEAVY)}):\n" + "\n".join(bad)


def test_top_of_the_package_holds_only_what_every_stage_shares():
    loose = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in TOP_LEVEL)
    assert not loose, f"modules loose at the top of pipeline/: {loose}"
