"""RML normalisation: any RML document (R2RML, legacy RML, RML-Core, FNML) -> the engine copy.

:mod:`.normalize` chains the passes; :mod:`.unify` (vocabulary and sources), :mod:`.json_sources`
(JSONPath references and datatypes), :mod:`.xml_sources` (XML references no record has) and :mod:`.check` (static checks, and walking a mapping's
TriplesMaps and term maps) are its passes; :mod:`.vocabulary` holds the RML namespaces and kgc's
private ones.
"""
