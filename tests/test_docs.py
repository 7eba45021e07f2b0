"""The README and docs/ name only modules, files and anchors that exist."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    out = set()
    for heading in re.findall(r"^#+\s+(.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def _resolves(parts: list[str]) -> bool:
    """A dotted name is a package, a module, or a name a module defines (``def``, ``class`` or an
    assignment at its top level) followed by attributes of it."""
    for i in range(len(parts), 0, -1):
        base = ROOT / Path(*parts[:i])
        if base.is_dir() and i == len(parts):
            return True
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
            if i == len(parts):
                return True
            name = re.escape(parts[i])
            return re.search(rf"^(def|class) {name}\b|^{name}\s*[:=]|^from \S+ import .*\b{name}\b",
                             module.read_text(encoding="utf-8"), re.M) is not None
    return False


def test_module_paths_named_in_the_docs_exist():
    missing = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for path in set(re.findall(r"`?(pipeline/[\w/.-]+\.py)`?", text)):
            if not (ROOT / path).is_file():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
        for dotted in set(re.findall(r"\bpipeline(?:\.\w+)+", text)):
            if not _resolves(dotted.split(".")):
                missing.append(f"{page.relative_to(ROOT)}: {dotted}")
    assert not missing, "\n".join(sorted(missing))


def test_relative_links_and_anchors_resolve():
    broken = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://|mailto:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(sorted(broken))


#: Files of other projects the docs name (Text2KGBench's evaluation script, BLINKG's merge script).
EXTERNAL = {"run_eval.py", "merge_results.py"}


def test_file_names_named_in_the_docs_exist():
    # a module named by its file name alone (`guard.py` in a page about pipeline/materialize/)
    known = {p.name for p in ROOT.glob("pipeline/**/*.py")} | {p.name for p in ROOT.glob("tests/**/*.py")} | EXTERNAL
    missing = []
    for page in PAGES:
        for name in set(re.findall(r"`([\w-]+\.py)`", page.read_text(encoding="utf-8"))):
            if name not in known:
                missing.append(f"{page.relative_to(ROOT)}: {name}")
    assert not missing, "\n".join(sorted(missing))
