"""RML-FNML function executions evaluated in Python, in one iteration (for derived sources).

The engine evaluates the function executions of the term maps it runs. An RML-FNML *condition*
(``rml:condition [ rml:functionExecution ...; rml:return ... ]`` on a term map: the term is made
only where the function returns true) has no counterpart in the engine, so the derived-source
pass (:mod:`.derive`) evaluates it here, with the same implementations the engine calls: its
built-in GREL functions and our UDF file (:mod:`pipeline.fno.udfs`, which holds the IDLab
library).
"""
from __future__ import annotations

from typing import Any

from rdflib import Graph
from rdflib.term import Node

from pipeline.errors import InputError
from pipeline.fno import udfs
from pipeline.materialize.rml.vocabulary import RML
from pipeline.materialize.views.records import Iteration
from pipeline.materialize.views.view import expand_template

__all__ = ["FunctionCaller", "is_true"]

_GREL = "http://users.ugent.be/~bjdmeest/function/grel.ttl#"
_IDLAB = "https://w3id.org/imec/idlab/function#"


def is_true(value: Any) -> bool:
    """Whether a function output is true (a Python ``True`` or the text ``true``, any case)."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _candidates(param: str) -> list[str]:
    """A parameter IRI and the ``fno:predicate`` forms implementations key parameters by
    (``grel:valueParam`` -> ``grel:valueParameter``, ``idlab-fn:_str`` -> ``idlab-fn:str``)."""
    out = [param]
    if param.startswith(_GREL):
        local = param[len(_GREL):]
        out += [_GREL + local.replace("Param", "Parameter"), _GREL + local.replace("param_", "p_string_"),
                _GREL + local.replace("p_int", "param_int")]
    if param.startswith(_IDLAB + "_"):
        local = param[len(_IDLAB) + 1:]
        out += [_IDLAB + local, _IDLAB + "p_" + local]
    return out


class FunctionCaller:
    """Calls the function executions of an RML graph on iterations.

    Args:
        g: the RML graph (RML-Core vocabulary).
    """

    def __init__(self, g: Graph) -> None:
        self.g = g
        self._registry: dict[str, tuple[Any, dict[str, str]]] | None = None

    def registry(self) -> dict[str, tuple[Any, dict[str, str]]]:
        """Function IRI -> (implementation, {argument name: parameter IRI})."""
        if self._registry is None:
            from morph_kgc.fnml.built_in_functions import bif_dict

            self._registry = {f: (d["function"], d["parameters"]) for f, d in bif_dict.items()}
            self._registry.update(udfs.REGISTRY)
        return self._registry

    def _input(self, node: Node, it: Iteration) -> Any:
        g = self.g
        for p in (RML.constant, RML.reference, RML.template, RML.functionExecution):
            v = g.value(node, p)
            if v is None:
                continue
            if p == RML.constant:
                return str(v)
            if p == RML.reference:
                values = it.values(str(v))
                return values[0].lexical if values else None
            if p == RML.template:
                values = expand_template(str(v), it.values)
                return values[0] if values else None
            return self.call(v, it)
        return None

    def call(self, execution: Node, it: Iteration) -> Any:
        """The output of a function execution in one iteration (``None``: no value).

        Raises:
            InputError: the function is not one the engine has, or a parameter is not one of its.
        """
        g = self.g
        fn = g.value(execution, RML.function)
        entry = self.registry().get(str(fn))
        if entry is None:
            raise InputError(f"function <{fn}> is not known (Morph-KGC built-ins and the UDF file)")
        impl, params = entry
        by_iri = {iri: name for name, iri in params.items()}
        kwargs: dict[str, Any] = {}
        for inp in g.objects(execution, RML.input):
            param = g.value(inp, RML.parameter)
            name = next((by_iri[c] for c in _candidates(str(param)) if c in by_iri), None)
            if name is None:
                raise InputError(f"function <{fn}> has no parameter <{param}>")
            constant = g.value(inp, RML.inputValue)
            value_map = g.value(inp, RML.inputValueMap)
            kwargs[name] = str(constant) if constant is not None else \
                self._input(value_map, it) if value_map is not None else None
        return impl(**kwargs)
