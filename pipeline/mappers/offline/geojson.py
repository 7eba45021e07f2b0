"""GeoJSON (RFC 7946) records in the offline mapper: the format's own members, and the position of a Point.

* **Type members.** Every GeoJSON object has a ``type`` member whose value is one of the nine GeoJSON
  types (RFC 7946 section 1.4 and 3: ``"Feature"``, ``"Point"`` ...): it says how the document is
  built, not what the described thing is, so such a member (every value a GeoJSON type) is no column
  to map (:func:`geojson_type_members`).
* **Positions.** The ``coordinates`` of a Point geometry is a single position (section 3.1.2), an array
  of numbers in a fixed order: longitude, latitude and optionally altitude (section 3.1.1; WGS 84
  degrees, section 4). Its elements are different quantities, so the array is no value of one property
  (read whole, an RML reference gives one term per element: both numbers would become longitudes). Each
  element is read by its index (``geometry.coordinates[0]``, an RFC 9535 index selector the compiler
  and the engine evaluate) and matched with the datatype properties by the name the standard gives its
  place (:func:`point_positions`, :func:`assign_positions`); a place another member of the records already gives
  (``properties.longitude``) is not stated twice.
"""
from __future__ import annotations

import re

import numpy as np
from rdflib import URIRef
from scipy.optimize import linear_sum_assignment

from pipeline.findings import Finding
from pipeline.ontology import Ontology
from pipeline.mappers.offline.analysis import MIN_SCORE, Assignment, SourceInfo
from pipeline.mappers.offline.fit import domain_evidence, domain_fits, value_fit
from pipeline.mappers.offline.names import NameMatcher

__all__ = ["GEOJSON_TYPES", "POSITION_NAMES", "geojson_type_members", "point_positions", "assign_positions"]

#: The GeoJSON types (RFC 7946 section 1.4): the values of a GeoJSON object's ``type`` member.
GEOJSON_TYPES = frozenset({"Feature", "FeatureCollection", "Point", "MultiPoint", "LineString", "MultiLineString",
                           "Polygon", "MultiPolygon", "GeometryCollection"})
#: The elements of a position in order (RFC 7946 section 3.1.1): "longitude and latitude ... precisely in
#: that order", then an optional altitude.
POSITION_NAMES = ("longitude", "latitude", "altitude")

#: Least name match of an assigned property to a place for the records to give that place already (a name
#: match, :data:`.iris.IDENTIFIER_RELATION`'s level).
GIVEN_PLACE = 0.7

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _sibling(ref: str, name: str) -> str:
    """The member ``name`` beside the last step of the dotted ``ref`` (``geometry.coordinates`` -> ``geometry.type``)."""
    return f"{ref.rsplit('.', 1)[0]}.{name}" if "." in ref else name


def geojson_type_members(info: SourceInfo) -> list[str]:
    """The references of a JSON source named ``type`` (last step) whose every value is a GeoJSON type."""
    if info.data.source.format != "json":
        return []
    out = []
    for r in info.refs:
        values = {v.strip() for v in info.data.values(r) if v and v.strip()}
        if r.rsplit(".", 1)[-1] == "type" and values and values <= GEOJSON_TYPES:
            out.append(r)
    return out


def point_positions(info: SourceInfo) -> dict[str, int]:
    """The ``coordinates`` references of Point geometries in a JSON source -> the number of elements of their
    positions (2 or 3).

    A reference qualifies when its last step is ``coordinates``, the ``type`` beside it is ``"Point"`` in
    every record that has one, and every record holding it holds one array of 2 or 3 numbers, of the same
    length in every record (an array of positions, a LineString's, is no position and not read as values
    at all: :mod:`pipeline.sources.tree`)."""
    if info.data.source.format != "json":
        return {}
    out: dict[str, int] = {}
    for r in info.refs:
        if r.rsplit(".", 1)[-1] != "coordinates":
            continue
        kinds = {v.strip() for v in info.data.values(_sibling(r, "type")) if v and v.strip()}
        if kinds != {"Point"}:
            continue
        lengths = {len(rec.get(r, ())) for rec in info.data.records if rec.get(r)}
        if len(lengths) == 1 and (n := next(iter(lengths))) in (2, 3) \
                and all(_NUMBER.match(v.strip()) for v in info.data.values(r)):
            out[r] = n
    return out


def assign_positions(info: SourceInfo, ont: Ontology, matcher: NameMatcher, dprops: list[URIRef],
                     positions: dict[str, int]) -> list[Finding]:
    """Assign the elements of the Point positions of ``info`` (:func:`point_positions`) to the free datatype
    properties usable on the records' class that their places name (``longitude`` ~ ``geo:long``): the best
    joint assignment (Hungarian algorithm; "longitude" and "latitude" share letters, so a greedy choice could
    give the one latitude property to the longitude), each pair at a name match's level
    (:data:`.analysis.MIN_SCORE`) once weighed by how the element's values fit the range. A place another
    member of the records already gives (``properties.longitude`` assigned to a property named as a longitude
    at :data:`GIVEN_PLACE`) is not stated a second time under another property.

    Returns:
        One warning per element left unassigned for want of a property, naming its index reference (the row a
        person would write); an info per element whose place another member gives.
    """
    out: list[Finding] = []
    if info.cls is None or info.cls in info.borrowed:
        return out
    taken = {(a.cls, a.prop) for a in info.assignments}
    # a place another member already gives (properties.longitude -> geo:long, a property named as that place at
    # a name match's level) is not stated twice under a second property
    given: dict[str, Assignment] = {}
    for a in info.assignments:
        if a.cls == info.cls:
            best = max(POSITION_NAMES, key=lambda name: matcher.score(name, a.prop))
            if matcher.score(best, a.prop) >= GIVEN_PLACE:
                given.setdefault(best, a)
    for ref, n in positions.items():
        names = POSITION_NAMES[:n]
        cands = sorted((p for p in dprops if (info.cls, p) not in taken and domain_fits(ont, p, info.cls) > 0), key=str)
        # a given place takes no property (its row of scores is 0)
        scores = np.array([[0.0 if name in given else
                            matcher.score(name, p) * value_fit(ont, p, info.data.values(f"{ref}[{i}]"))
                            for p in cands] for i, name in enumerate(names)]) if cands else np.zeros((n, 0))
        rows, cols = linear_sum_assignment(-scores) if cands else ([], [])
        chosen = {i: j for i, j in zip(rows, cols) if scores[i, j] >= MIN_SCORE}
        for i, name in enumerate(names):
            element = f"{ref}[{i}]"
            if name in given:
                a = given[name]
                out.append(Finding("map", str(info.data.source.path), (
                    f"{element!r} of {info.name} (the {name} of each Point, RFC 7946 section 3.1.1) is not mapped: "
                    f"{a.reference!r} gives the records' {name} ({ont.compact(a.prop)})"), column="data_reference",
                    value=element, severity="info"))
                continue
            if i not in chosen:
                out.append(Finding("map", str(info.data.source.path), (
                    f"{element!r} of {info.name} (the {name} of each Point, RFC 7946 section 3.1.1) is not mapped: no "
                    f"free property of {ont.compact(info.cls)} is named as a {name}"), column="data_reference",
                    value=element, severity="warning"))
                continue
            p, score = cands[chosen[i]], float(scores[i, chosen[i]])
            info.assignments.append(Assignment(element, p, info.cls, score, [
                f"{element!r} is the {name} of each Point (a GeoJSON position is [longitude, latitude, altitude], "
                f"RFC 7946 section 3.1.1): {name!r} ~ {ont.compact(p)} similarity {score:.2f}",
                domain_evidence(ont, p, info.cls)]))
            taken.add((info.cls, p))
    return out
