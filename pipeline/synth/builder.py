"""The seeded choices of one generated scenario: domain, formats, names, records and data files.

The seed picks the domain (:data:`.vocab.DOMAINS`, seed mod 4), the format of each
entity's file (a permutation of CSV, JSON and XML, seed mod 6; the link table is CSV),
whether the XML root declares a default namespace (balanced over seeds), whether the
links to the member entity are a list nested in the main records or a link table, and through a
seeded random generator whether the main key is numeric, the date format, the opaque
codes and every value. The level (:data:`.vocab.LEVELS`) picks the column and
file names. Nothing else varies: one ``(seed, level)`` gives byte-identical files (no
clock, no hash order, sorted output).
"""
from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path
from xml.sax.saxutils import escape

from pipeline.synth.vocab import CITIES, DOMAINS, FIRST_NAMES, LAST_NAMES, LEVELS, WORDS, Attr, Domain, Entity

__all__ = ["ScenarioBuilder", "BASE", "DATE_FORMATS"]

#: Namespace of every generated IRI (``<BASE><domain>/...``).
BASE = "http://example.org/"
#: lexical forms of the date column; every one but ``iso`` needs ``toDate()``
DATE_FORMATS = ("iso", "dmy-slash", "ymd-compact", "dmy-dash")


def _snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def _fmt_date(d: tuple[int, int, int], fmt: str) -> str:
    y, m, day = d
    return {"iso": f"{y:04d}-{m:02d}-{day:02d}", "dmy-slash": f"{day:02d}/{m:02d}/{y:04d}",
            "ymd-compact": f"{y:04d}{m:02d}{day:02d}", "dmy-dash": f"{day:02d}-{m:02d}-{y:04d}"}[fmt]


class ScenarioBuilder:
    """The choices one ``(seed, level)`` makes and what follows from them: domain, file formats, the
    names of columns, files and IRIs, the records, and the data files.

    Args:
        seed: any integer (module docstring).
        level: schema distance of the column names, one of :data:`.vocab.LEVELS`.
    Raises:
        ValueError: unknown ``level``.
    """

    def __init__(self, seed: int, level: str) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, found {level!r}")
        self.rng = random.Random(f"kgc-synth-{seed}")  # str seeds are hashed with SHA-512: stable
        self.seed, self.level = seed, level
        self.dom: Domain = DOMAINS[seed % len(DOMAINS)]
        self.ns = f"http://example.org/{self.dom.name}#"
        # formats and the XML default namespace cycle with the seed (balanced over any 12 seeds, not
        # left to chance: a bench over 10 seeds must see every format in every role)
        fmts = list(itertools.permutations(("csv", "json", "xml")))[seed % 6]
        self.fmt = {"main": fmts[0], "parent": fmts[1], "member": fmts[2]}
        self.default_ns = bool((seed // 4) % 2 ^ seed % 2)
        # main->member links: a list nested in each main record (JSON array, repeated XML element)
        # for half of the seeds whose main file can nest, else a CSV link table
        self.nested_links = self.fmt["main"] != "csv" and (seed // 6) % 2 == 0
        self.numeric_key = self.rng.random() < 0.5
        self.date_format = self.rng.choice(DATE_FORMATS)
        pool = [f"{c}{n:02d}" for c in "FGHJQX" for n in range(1, 40)]
        self.rng.shuffle(pool)
        names = [a.local for e in self.entities().values() for a in e.attrs] + ["~lang", "~fk", "~code", "~m", "~c"]
        self.codes = dict(zip(names, pool))
        d = self.dom
        self.special = {  # columns that are no attribute of their own entity
            "lang": {"label": "language", "synonym": "lang", "language": "idioma", "opaque": self.codes["~lang"]},
            "fk": {"label": _snake(d.parent.label), "synonym": d.parent.synonym + "_ref",
                   "language": d.parent.foreign, "opaque": self.codes["~fk"]},
            "code": {"label": _snake(d.coded[1].replace("has ", "")), "synonym": "cat", "language": "categoria",
                     "opaque": self.codes["~code"]},
            "m": {"label": _snake(d.main.label), "synonym": d.main.synonym + "_ref", "language": d.main.foreign,
                  "opaque": self.codes["~m"]},
            "c": {"label": _snake(d.member.label), "synonym": d.member.synonym + "_ref", "language": d.member.foreign,
                  "opaque": self.codes["~c"]},
        }

    def entities(self) -> dict[str, Entity]:
        """The domain's three entities by role: ``main``, ``parent``, ``member``."""
        return {"main": self.dom.main, "parent": self.dom.parent, "member": self.dom.member}

    # ---- names ---------------------------------------------------------------------------
    def col(self, a: Attr) -> str:
        """The column (key, element) name of attribute ``a`` at this level."""
        return {"label": _snake(a.label), "synonym": a.synonym, "language": a.foreign,
                "opaque": self.codes[a.local]}[self.level]

    def singular(self, role: str) -> str:
        """The entity's name at this level (file names and XML record elements; opaque keeps the synonym)."""
        e = self.entities()[role]
        return {"label": _snake(e.label), "synonym": e.synonym, "language": e.foreign,
                "opaque": e.synonym}[self.level]

    def stem(self, role: str) -> str:
        """Plural file stem: every word of a Spanish name (language level), the last of an English one."""
        words = self.singular(role).split("_")

        def plural(w: str) -> str:
            if w[-1] in "aeiou":
                return w + "s"
            return w + "es" if self.level == "language" or w.endswith(("s", "x", "z", "ch", "sh")) else w + "s"

        if self.level == "language":
            return "_".join(plural(w) for w in words)
        return "_".join(words[:-1] + [plural(words[-1])])

    def file(self, role: str) -> str:
        """The file name of a role's entity: its plural stem and its format's extension."""
        return f"{self.stem(role)}.{self.fmt[role]}"

    def ref(self, role: str, a: Attr) -> str:
        """Data reference of ``a`` in its entity's file: nested attributes sit in a sub-record (JSON/XML)."""
        if a.group and self.fmt[role] != "csv":
            return f"{a.group}.{self.col(a)}" if self.fmt[role] == "json" else f"{a.group}/{self.col(a)}"
        return self.col(a)

    def template(self, role: str) -> str:
        """The subject template of a role's entity, ``<BASE><domain>/<entity>/{key column}``."""
        e = self.entities()[role]
        return f"{BASE}{self.dom.name}/{_snake(e.label)}/{{{self.col(e.attrs[0])}}}"

    def iri(self, role: str, key: str) -> str:
        """The IRI :meth:`template` gives the record of a role's entity with key ``key``."""
        return f"{BASE}{self.dom.name}/{_snake(self.entities()[role].label)}/{key}"

    def concept(self, code: str) -> str:
        """The IRI of the SKOS concept of ``code`` (``concept('')`` ends with the scheme's path)."""
        return f"{BASE}{self.dom.name}/{self.dom.scheme[0]}/{code}"

    # ---- values --------------------------------------------------------------------------
    def value(self, a: Attr, i: int) -> str:
        """A seeded value for attribute ``a`` of the ``i``-th record, by the attribute's kind.

        Raises:
            ValueError: a kind with no value generator.
        """
        r = self.rng
        k = a.kind
        if k == "text":
            return f"{r.choice(LAST_NAMES)} {r.choice(('Group', 'Holding', 'Partners', 'Works'))}"
        if k == "name":
            return r.choice(FIRST_NAMES)
        if k == "surname":
            return r.choice(LAST_NAMES)
        if k == "city":
            return r.choice(CITIES)
        if k == "email":
            return f"{r.choice(FIRST_NAMES).lower()}{i}@example.net"
        if k == "term":
            return "".join(r.choice(("ca", "lo", "mi", "ra", "ten", "vo", "xi", "zen")) for _ in range(3)).capitalize()
        if k == "note":
            return f"{r.choice(('Keep', 'Store', 'Check', 'Avoid'))} {r.choice(('cool', 'dry', 'daily', 'steps'))}"
        if k == "year":
            return str(r.randint(1850, 2015))
        if k == "int":
            return str(r.randint(12, 900))
        if k == "decimal":
            return f"{r.randint(1, 199)}.{r.randint(1, 99):02d}"
        raise ValueError(f"no value generator for kind {k!r}")

    def records(self) -> dict[str, list[dict[str, object]]]:
        """The records of each role, keyed by attribute local names; the main records also hold
        ``~lang``, ``~code``, ``~fk`` and ``~members`` (language, code, foreign key, member keys) and
        their date as a ``(year, month, day)`` tuple."""
        r, d = self.rng, self.dom
        n_main, n_parent, n_member = r.randint(6, 9), r.randint(3, 4), r.randint(4, 6)
        parents = [{d.parent.attrs[0].local: f"{d.parent.local[:2].upper()}{i + 1:03d}",
                    **{a.local: self.value(a, i) for a in d.parent.attrs[1:]}} for i in range(n_parent)]
        members = [{d.member.attrs[0].local: f"{d.member.local[0].upper()}{r.randint(100, 999)}{i}",
                    **{a.local: self.value(a, i) for a in d.member.attrs[1:]}} for i in range(n_member)]
        mains = []
        for i in range(n_main):
            lang = r.choice(sorted(WORDS))
            art, of, nouns = WORDS[lang]
            t = r.sample(nouns, 2)
            a = d.main.attrs
            rec: dict[str, object] = {
                a[0].local: (str(9780000000000 + r.randint(0, 10 ** 7) * 10 + i) if self.numeric_key
                             else f"{d.main.local[:3].upper()}-{i + 1:04d}"),
                a[1].local: f"{art} {t[0]} {of} {t[1]} {i + 1}", "~lang": lang,
                a[2].local: (r.randint(1990, 2024), r.randint(1, 12), r.randint(1, 28)),
                # an optional integer: about one record in four has none (null in JSON, empty elsewhere)
                a[3].local: self.value(a[3], i) if r.random() > 0.25 else None,
                a[4].local: self.value(a[4], i),
                "~code": r.choice(d.codes)[0], "~fk": r.choice(parents)[d.parent.attrs[0].local],
                "~members": sorted({str(m[d.member.attrs[0].local]) for m in r.sample(members, r.randint(1, 2))}),
            }
            mains.append(rec)
        return {"main": mains, "parent": parents, "member": members}

    # ---- files ---------------------------------------------------------------------------
    def columns(self, role: str) -> list[tuple[str, Attr | None, str]]:
        """``(reference, attribute or None, record key)`` of a role's file, in column order."""
        e = self.entities()[role]
        out: list[tuple[str, Attr | None, str]] = [(self.ref(role, a), a, a.local) for a in e.attrs]
        if role == "main":
            out.insert(2, (self.special["lang"][self.level], None, "~lang"))
            out += [(self.special["code"][self.level], None, "~code"), (self.special["fk"][self.level], None, "~fk")]
            if self.nested_links:
                out.append((self.special["c"][self.level], None, "~members"))
        return out

    def cell(self, rec: dict[str, object], key: str) -> object:
        """A record's value of ``key`` as the data files write it (a date in the seed's format)."""
        v = rec.get(key)
        if isinstance(v, tuple):
            return _fmt_date(v, self.date_format)  # type: ignore[arg-type]
        return v

    def write_data(self, folder: Path, recs: dict[str, list[dict[str, object]]]) -> None:
        """Write each role's file (CSV, JSON or XML) into ``folder``, and the CSV link table unless the
        member keys are nested in the main records."""
        for role, fmt in self.fmt.items():
            cols = self.columns(role)
            path = folder / self.file(role)
            if fmt == "csv":
                lines = [",".join(c for c, _, _ in cols)]
                for rec in recs[role]:
                    lines.append(",".join("" if self.cell(rec, k) is None else str(self.cell(rec, k))
                                          for _, _, k in cols))
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            elif fmt == "json":
                items = []
                for rec in recs[role]:
                    item: dict[str, object] = {}
                    for c, a, k in cols:
                        v = self.cell(rec, k)
                        if a is not None and a.kind in ("int", "year") and v is not None:
                            v = int(str(v))
                        if "." in c:
                            group, name = c.split(".", 1)
                            item.setdefault(group, {})[name] = v  # type: ignore[index]
                        else:
                            item[c] = v
                    items.append(item)
                path.write_text(json.dumps({self.stem(role): items}, indent=2, ensure_ascii=False) + "\n",
                                encoding="utf-8")
            else:
                ns = f' xmlns="http://example.org/{self.dom.name}/data"' if self.default_ns else ""
                out = ['<?xml version="1.0" encoding="UTF-8"?>', f"<{self.stem(role)}{ns}>"]
                tag = self.singular(role)
                for rec in recs[role]:
                    out.append(f"  <{tag}>")
                    for c, _, k in cols:
                        v = self.cell(rec, k)
                        if v is None:
                            continue
                        if isinstance(v, list):  # nested list of keys: one element per value
                            out += [f"    <{c}>{escape(str(x))}</{c}>" for x in v]
                        elif "/" in c:
                            group, name = c.split("/", 1)
                            out.append(f"    <{group}><{name}>{escape(str(v))}</{name}></{group}>")
                        else:
                            out.append(f"    <{c}>{escape(str(v))}</{c}>")
                    out.append(f"  </{tag}>")
                out.append(f"</{self.stem(role)}>")
                path.write_text("\n".join(out) + "\n", encoding="utf-8")
        if self.nested_links:
            return
        m, c = self.special["m"][self.level], self.special["c"][self.level]
        lines = [f"{m},{c}"] + [f"{rec[self.dom.main.attrs[0].local]},{mk}" for rec in recs["main"]
                                for mk in rec["~members"]]  # type: ignore[union-attr]
        (folder / self.link_file()).write_text("\n".join(lines) + "\n", encoding="utf-8")

    def link_file(self) -> str:
        """The file name of the CSV link table between main and member records."""
        return f"{self.stem('main')}_{self.stem('member')}.csv"
