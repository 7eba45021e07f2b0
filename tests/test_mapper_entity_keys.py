"""The key of a second entity of a record by its members named as identifiers (pipeline.mappers.offline.nested,
``named_identifier``): a member of a list keys it only when no other member does, and an identifier the data
refute (a value with two different values of another member) keys nothing: the entity is keyed by its owner.
The identifier member of the object an entity lies in (``member_id``) is one named as an identifier or as an IRI
with absolute IRIs for values (``cpe23Uri``)."""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.manifest import load_manifest
from pipeline.mappers.offline.analysis import SourceInfo
from pipeline.mappers.offline.nested import identifies, named_identifier
from pipeline.sources.load import load_source

ROOT = Path(__file__).resolve().parents[1] / "data" / "real-mappings"

# components of the CycloneDX SBOM of the python:3.9 image (container-sbom-cyclonedx, sbom-python-3.9.json),
# cut to the members read here: two libraries and the image's operating system
COMPONENTS = [
    {"type": "library", "name": "adduser", "version": "3.118", "licenses": [{"license": {"id": "GPL-2.0"}}]},
    {"type": "library", "name": "apt", "version": "2.2.4",
     "licenses": [{"license": {"id": "GPL-2.0"}}, {"license": {"id": "GPL-2.0+"}}]},
    {"type": "operating-system", "name": "debian", "version": "11", "description": "Debian GNU/Linux 11 (bullseye)",
     "syft:distro:versionID": "11", "website": "https://www.debian.org/",
     "issue-tracker": "https://bugs.debian.org/"},
]


def _info(tmp_path, doc: dict, key: tuple[str, ...]) -> SourceInfo:
    (tmp_path / "sbom.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "o.ttl").write_text("", encoding="utf-8")
    (tmp_path / "c.yaml").write_text("sources: [{path: sbom.json}]\nontologies: [o.ttl]\n", encoding="utf-8")
    src = load_manifest(tmp_path / "c.yaml").sources[0]
    data = load_source(src, tmp_path)
    refs = [r for r in data.references if any(v.strip() for v in data.values(r))]
    return SourceInfo(data, src.path.name, src.stem, refs, key=key)


def test_a_member_of_a_list_keys_no_entity_another_identifier_keys(tmp_path):
    info = _info(tmp_path, {"components": COMPONENTS}, ("name",))
    assert info.data.iterator == "$.components[*]"
    own = ("issue-tracker", "website", "description", "syft:distro:versionID", "licenses.license.id")
    # the operating system holds no license: keyed by both, it would get no IRI
    assert named_identifier(info, own) == ("syft:distro:versionID",)
    # with no identifier read once per record, the list's member still keys
    assert named_identifier(info, ("website", "licenses.license.id")) == ("licenses.license.id",)


def test_a_refuted_identifier_keys_the_entity_by_its_owner(tmp_path):
    # three events of the city agenda (city-cultural-agenda-es) in Lorca, one postal code, three streets
    events = [{"identifier": "3423", "streetAddress": "CASTILLO FORTALEZA DEL SOL. S. X - XX", "postalCode": "30800"},
              {"identifier": "3403", "streetAddress": "C/ Lope Gisbert", "postalCode": "30800"},
              {"identifier": "3317", "streetAddress": "Plaza de España, 7", "postalCode": "30800"},
              {"identifier": "11578054", "streetAddress": "AVENIDA LAS AGUILAS 2", "postalCode": "28044"}]
    info = _info(tmp_path, {"events": events}, ("identifier",))
    own = ("streetAddress", "postalCode")
    assert not identifies(info, ("postalCode",), own)
    assert named_identifier(info, own) == ("identifier",)
    # one street per postal code: the code is not refuted and keys the address
    info = _info(tmp_path, {"events": events[2:]}, ("identifier",))
    assert identifies(info, ("postalCode",), own)
    assert named_identifier(info, own) == ("postalCode",)
    # an empty street contradicts nothing
    info = _info(tmp_path, {"events": [dict(events[0], streetAddress=""), events[1]]}, ("identifier",))
    assert identifies(info, ("postalCode",), own)


def test_an_objects_identifier_member_the_data_refute_keys_nothing(tmp_path):
    """Operational points of the RINF register (rinf-railway-infrastructure, rinf-it-lfi.xml): each
    ``OPRailwayLocation`` holds the kilometre point of the point on a line and that line's national number.
    The number is the object's identifier-named member, but one line holds many kilometre points: it names
    the line, so it keys no location (member_id gives nothing; the entity is keyed within its owner)."""
    from pipeline.mappers.offline.nested import member_id
    ops = [("IT06915", "AREZZO", [("Arezzo-Stia", "227.370"), ("Arezzo-Sinalunga", "227.370")]),
           ("IT06852", "SINALUNGA", [("Arezzo-Sinalunga", "196.683")]),
           ("IT06063", "Arezzo Pescaiola", [("Arezzo-Sinalunga", "1.668")]),
           ("IT06064", "Via Chiari", [("Arezzo-Sinalunga", "4.330")])]
    xml = "<RINFData>" + "".join(
        f'<OperationalPoint><OPName Value="{name}"/><UniqueOPID Value="{uid}"/>' + "".join(
            f'<OPRailwayLocation Kilometer="{km}" NationalIdentNum="{line}"/>' for line, km in locs)
        + "</OperationalPoint>" for uid, name, locs in ops) + "</RINFData>"
    (tmp_path / "op.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "o.ttl").write_text("", encoding="utf-8")
    (tmp_path / "c.yaml").write_text("sources: [{path: op.xml}]\nontologies: [o.ttl]\n", encoding="utf-8")
    src = load_manifest(tmp_path / "c.yaml").sources[0]
    data = load_source(src, tmp_path)
    refs = [r for r in data.references if any(v.strip() for v in data.values(r))]
    info = SourceInfo(data, src.path.name, src.stem, refs, key=("UniqueOPID/@Value",))
    own = ("OPRailwayLocation/@Kilometer",)
    assert "OPRailwayLocation/@NationalIdentNum" in refs
    assert not identifies(info, ("OPRailwayLocation/@NationalIdentNum",), own)
    assert member_id(info, own) == ()
    # the two points of one line at one kilometre: nothing refutes the number, which keys as the object's id
    (tmp_path / "op.xml").write_text("<RINFData>" + "".join(
        f'<OperationalPoint><UniqueOPID Value="{uid}"/>'
        f'<OPRailwayLocation Kilometer="227.370" NationalIdentNum="Arezzo-Stia"/></OperationalPoint>'
        for uid in ("IT06915", "IT06852")) + "</RINFData>", encoding="utf-8")
    data = load_source(src, tmp_path)
    info = SourceInfo(data, src.path.name, src.stem, list(data.references), key=("UniqueOPID/@Value",))
    assert member_id(info, own) == ("OPRailwayLocation/@NationalIdentNum",)


def test_a_member_named_as_an_iri_whose_values_are_iris_keys_its_objects_entity(tmp_path):
    """CPE matches of two NVD CVE records (nvd-cve-sepses, nvdcve-1.1-recent-subset.json): the CPE entity that a
    match's version bounds open (``versionEndIncluding``, ``versionStartIncluding``, each absent from some
    matches) is keyed by the match's ``cpe23Uri``, an IRI naming the product (RDF 1.1 Concepts 1.2), not by the
    bounds, which would give no IRI to a match lacking one."""
    from pipeline.mappers.offline.identity import iri_like
    from pipeline.mappers.offline.nested import member_id
    items = [{"cve": {"ID": "CVE-2020-36420"}, "nodes": [{"operator": "OR", "cpe_match": [
                {"vulnerable": True, "cpe23Uri": "cpe:2.3:a:polipo_project:polipo:*:*:*:*:*:*:*:*",
                 "versionEndIncluding": "1.1.1"}]}]},
             {"cve": {"ID": "CVE-2021-34477"}, "nodes": [{"operator": "OR", "cpe_match": [
                {"vulnerable": True, "cpe23Uri": "cpe:2.3:a:microsoft:.net_education_bundle_sdk_install_tool:*:*:*:*:*:"
                                                 "visual_studio_code:*:*", "versionStartIncluding": "0.6.0"},
                {"vulnerable": True, "cpe23Uri": "cpe:2.3:a:microsoft:.net_install_tool_for_extension_authors:*:*:*:*:"
                                                 "*:visual_studio_code:*:*", "versionStartIncluding": "1.1.0"}]}]}]
    info = _info(tmp_path, {"CVE_Items": items}, ("cve.ID",))
    assert info.data.iterator == "$.CVE_Items[*]"
    own = ("nodes.cpe_match.versionEndIncluding", "nodes.cpe_match.versionStartIncluding")
    assert member_id(info, own) == ("nodes.cpe_match.cpe23Uri",)
    assert iri_like("nodes.cpe_match.cpe23Uri", info.data.values("nodes.cpe_match.cpe23Uri"))
    # named as an IRI, but a value is no absolute IRI (no scheme): it names nothing, and keys nothing
    assert not iri_like("homepageUrl", ["www.debian.org", "https://www.debian.org/"])
    # IRIs in a member not named as one (a description that is a link) are no identifier either
    assert not iri_like("description", ["https://www.debian.org/"])


def test_an_identifier_some_occurrences_of_a_part_lack_keys_none_of_them(tmp_path):
    """Two techniques of MITRE ATT&CK for ICS (attack-ics-sepses, ics-attack-subset.json: T0858 and T0868, cut to
    their id, name, dates and references) with the case's SEPSES vocabulary: of each technique's five
    ``external_references`` one holds an ``external_id`` (the ATT&CK page), four are citations without one. Keyed
    by ``external_id`` the citations got no IRI (2 references of 10); keyed within their technique by position,
    every occurrence is one ``attack:Reference`` with its URL."""
    import shutil
    from pipeline.cli import main
    from pipeline.mappers.offline.nested import held_by_every_occurrence
    case = ROOT / "attack-ics-sepses"
    src = json.loads((case / "data" / "ics-attack-subset.json").read_text(encoding="utf-8"))
    keep = ("type", "id", "name", "created", "modified", "external_references")
    objects = [{k: o[k] for k in keep} for o in src["objects"]
               if o["id"] in ("attack-pattern--2883c520-7957-46ca-89bd-dab1ad53b601",
                              "attack-pattern--2aa406ed-81c3-4c1d-ba83-cfbee5a2847a")]
    assert [len(o["external_references"]) for o in objects] == [5, 5]
    (tmp_path / "bundle.json").write_text(json.dumps({"type": "bundle", "objects": objects}), encoding="utf-8")
    for f in ("sepses-attack.ttl", "dcterms.ttl"):
        shutil.copy(case / "ontology" / f, tmp_path / f)
    (tmp_path / "case.yaml").write_text("name: attack-refs\nbase_iri: http://w3id.org/sepses/resource/\n"
                                        "sources: [{path: bundle.json}]\n"
                                        "ontologies: [sepses-attack.ttl, dcterms.ttl]\n", encoding="utf-8")
    info = _info(tmp_path, {"type": "bundle", "objects": objects}, ("id",))
    assert not held_by_every_occurrence(info, "external_references.external_id")
    assert held_by_every_occurrence(info, "external_references.url") and held_by_every_occurrence(info, "name")
    assert named_identifier(info, ("external_references.url", "external_references.external_id",
                                   "external_references.source_name")) == ()
    assert main(["-q", "run", str(tmp_path / "case.yaml"), "--out", str(tmp_path / "out")]) == 0
    out = next((tmp_path / "out").glob("*/attack-refs"))
    ref = "http://w3id.org/sepses/vocab/ref/attack#"
    rows = json.loads((out / "table.json").read_text(encoding="utf-8"))["rows"]
    assert {r["subject_template"] for r in rows if r["entity_class"] == ref + "Reference"} == {
        "http://w3id.org/sepses/resource/reference/{id}_{external_references.#}"}
    kg = (out / "kg.nt").read_text(encoding="utf-8").splitlines()
    subjects = sorted(t.split()[0] for t in kg if t.endswith(f"<{ref}Reference> ."))
    base = "<http://w3id.org/sepses/resource/reference/attack-pattern--"
    assert subjects == [f"{base}2883c520-7957-46ca-89bd-dab1ad53b601_{i}>" for i in range(5)] + [
        f"{base}2aa406ed-81c3-4c1d-ba83-cfbee5a2847a_{i}>" for i in range(5)]
    assert f'{base}2883c520-7957-46ca-89bd-dab1ad53b601_4> <{ref}referenceUrl> "https://www.plcgurus.net/plc-basics/" .' \
        in kg
    assert f'{base}2aa406ed-81c3-4c1d-ba83-cfbee5a2847a_0> <{ref}referenceId> "T0868" .' in kg


def test_a_second_entity_of_single_values_and_value_lists_is_one_per_record(tmp_path):
    """CAPEC 3.9 (capec-attack-patterns-sepses, its three attack patterns, SEPSES vocabularies): each pattern's
    ``@Abstraction``, ``@Status``, likelihood and severity (once per pattern) and its lists of single values
    (``Prerequisites/Prerequisite``, ``Mitigations/Mitigation``, ``Indicators/Indicator``: one member each, a
    multi-valued property) open one ``capec:CAPEC`` per pattern, keyed by the pattern's ``@ID``; keyed by the
    owner's key and every value, the values were combined as a cross product (and the rows marked for review)."""
    import shutil
    from pipeline.cli import main
    from pipeline.mappers.offline.containers import split
    from pipeline.mappers.offline.nested import within_owner
    case = ROOT / "capec-attack-patterns-sepses"
    shutil.copytree(case, tmp_path / "capec")
    src = load_manifest(tmp_path / "capec" / "case.yaml").sources[0]
    kind, data = next((k, d) for k, d in split(load_source(src, tmp_path / "c"), "capec.xml", set())
                      if k.step.endswith("Attack_Pattern"))
    info = SourceInfo(data, "Attack_Pattern.xml", "Attack_Pattern", list(data.references), key=("@ID",))
    once = ("@Abstraction", "@Status", "capec:Likelihood_Of_Attack")
    lists = ("capec:Prerequisites/capec:Prerequisite", "capec:Mitigations/capec:Mitigation")
    assert within_owner(info, once + lists) == ("@ID",)
    # a part with two members (a consequence's scope and impact) holds things of their own: not one per record
    both = ("capec:Consequences/capec:Consequence/capec:Scope", "capec:Consequences/capec:Consequence/capec:Impact")
    assert within_owner(info, once + both) == ("@ID",) + once + both
    # lists of single values alone are values of the record's own entity: no entity per record here
    assert within_owner(info, lists) == ("@ID",) + lists
    assert main(["-q", "run", str(tmp_path / "capec" / "case.yaml"), "--out", str(tmp_path / "out")]) in (0, 1)
    kg = (next((tmp_path / "out").glob("*/capec-attack-patterns-sepses")) / "kg.nt").read_text(encoding="utf-8")
    C, R = "http://w3id.org/sepses/vocab/ref/capec#", "http://w3id.org/sepses/resource/cAPEC/"
    lines = kg.splitlines()
    assert sorted(t.split()[0] for t in lines if t.endswith(f"<{C}CAPEC> .")) == sorted(f"<{R}{i}>" for i in (1, 10, 96))
    assert f'<{R}10> <{C}likelihoodOfAttack> "High" .' in lines and f'<{R}96> <{C}abstraction> "Detailed" .' in lines
    assert [sum(1 for t in lines if t.startswith(f"<{R}{i}> <{C}{p}>")) for i in (1, 10, 96)
            for p in ("prerequisite", "mitigation")] == [3, 1, 4, 4, 2, 1]
    assert f'<{R}10> <{C}mitigation> "Do not expose environment variable to the user." .' in lines


def test_a_member_named_as_its_class_whose_values_are_codes_keys_the_occurrences(tmp_path):
    """A member of a repeating part named as the class of its object (``vulnerabilities.vulnerability`` of an
    ``ex:Vulnerability``) whose values are codes, each once over all occurrences, keys the part's entity; a
    name, a number, or a code two occurrences share keys nothing (the position does)."""
    from pipeline.mappers.offline.identity import designation_like
    from pipeline.mappers.offline.nested import member_id
    advisories = [{"id": "ADV-1", "vulnerabilities": [{"vulnerability": "VU-2023-0001", "severity": "HIGH"},
                                                      {"vulnerability": "VU-2023-0002", "severity": "LOW"}]},
                  {"id": "ADV-2", "vulnerabilities": [{"vulnerability": "VU-2023-0003", "severity": "LOW"}]}]
    info = _info(tmp_path, {"advisories": advisories}, ("id",))
    own = ("vulnerabilities.severity",)
    assert member_id(info, own, ["vulnerability"]) == ("vulnerabilities.vulnerability",)
    # named as another class, or no class given: not the object's designation
    assert member_id(info, own, ["weakness"]) == ()
    assert member_id(info, own) == ()
    assert designation_like("vulnerabilities.vulnerabilities", ["vulnerability"], ["VU-1", "VU-2"])
    assert designation_like("a/@cve", ["cve"], ["CVE-2023-0052"])
    assert not designation_like("a.cve", ["cve"], ["CVE-2023-0052", "CVE-2023-0052"])  # shared
    assert not designation_like("a.cve", ["cve"], ["Black Box KVM"])  # a name
    assert not designation_like("a.chapter", ["chapter"], ["1", "2"])  # numbers: an ordinal repeats per owner
    assert not designation_like("a.cve", ["cve"], ["CVE-2023-0052", ""])  # an occurrence without one
    assert not designation_like("a.cve", ["cve"], [])
    # the same code in two advisories: nothing in the data says it is one thing rather than a per-owner label
    advisories[1]["vulnerabilities"][0]["vulnerability"] = "VU-2023-0001"
    info = _info(tmp_path, {"advisories": advisories}, ("id",))
    assert member_id(info, own, ["vulnerability"]) == ()
