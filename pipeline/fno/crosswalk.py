"""Code-list crosswalks: turn source codes into the keys a value map expects.

Gold tables of scenario 3 map EU authority codes (``open``, ``la``, ``ESP``)
to SKOS concepts, while CODICE data carries Spanish code lists (``9``,
``3``, ``ES``). A crosswalk file (``crosswalks/*.yaml``) names the source
code list (matched against the ``listURI`` attribute the data carries), the
target concept scheme, and the code -> key table.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pycountry
import yaml

__all__ = ["Crosswalk", "crosswalks", "crosswalk_for_scheme", "code_labels"]

_DIR = Path(__file__).with_name("crosswalks")


@dataclass(frozen=True)
class Crosswalk:
    """One code-list crosswalk.

    Attributes:
        name: file stem.
        source_list: code-list name found in the data's ``listURI`` attribute.
        target_scheme: namespace of the target concept IRIs.
        codes: source code -> target key (the last IRI segment).
    """

    name: str
    source_list: str
    target_scheme: str
    codes: dict[str, str]


def _iso_alpha2_to_alpha3() -> dict[str, str]:
    return {c.alpha_2: c.alpha_3 for c in pycountry.countries}


@lru_cache(maxsize=1)
def crosswalks() -> tuple[Crosswalk, ...]:
    """All packaged crosswalks."""
    out = []
    for f in sorted(_DIR.glob("*.yaml")):
        data = yaml.safe_load(f.read_text(encoding="utf-8"))
        if "target_scheme" not in data:
            continue  # a code-label file (code_labels)
        codes = data["codes"]
        if codes == "iso3166-alpha2-to-alpha3":
            codes = _iso_alpha2_to_alpha3()
        out.append(Crosswalk(data["name"], data["source_list"], data["target_scheme"],
                             {str(k): str(v) for k, v in codes.items()}))
    return tuple(out)


def crosswalk_for_scheme(iris: list[str]) -> Crosswalk | None:
    """The crosswalk whose target scheme holds most of ``iris`` (value-map targets), else ``None``."""
    best, hits = None, 0
    for cw in crosswalks():
        n = sum(i.startswith(cw.target_scheme) for i in iris)
        if n > hits:
            best, hits = cw, n
    return best


@lru_cache(maxsize=1)
def code_labels() -> dict[str, dict[str, str]]:
    """Code-list name (as found in a ``listURI``) -> code -> its meaning in English words, from the
    packaged files that carry ``labels`` (``codice-contracting-system.yaml``: ``"3"`` -> ``contract
    based on a framework agreement``)."""
    out: dict[str, dict[str, str]] = {}
    for f in sorted(_DIR.glob("*.yaml")):
        data = yaml.safe_load(f.read_text(encoding="utf-8"))
        if "labels" in data:
            out[str(data["source_list"])] = {str(k): str(v) for k, v in data["labels"].items()}
    return out
