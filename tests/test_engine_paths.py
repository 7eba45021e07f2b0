"""Any path reaches the engine's configuration as it is: `$` escaped for Morph-KGC's interpolation,
`%` plain, a comma (Morph-KGC's list separator in `mappings`) through an alias."""
from pathlib import Path

from morph_kgc.args_parser import load_config_from_argument

from pipeline.materialize.engine import engine_config, engine_path


def test_engine_reads_back_every_path(tmp_path):
    folder = tmp_path / "Report, 2024 $x %20 ${y}"
    folder.mkdir()
    mapping = folder / "m, 1.ttl"
    mapping.write_text("# empty\n", encoding="utf-8")
    out = folder / "kg%20$.nt"
    config = load_config_from_argument(engine_config(mapping, output_file=out))
    files = config.get_mappings_files("DataSource1")
    assert len(files) == 1 and "," not in files[0] and Path(files[0]).resolve() == mapping.resolve()
    assert config.get("CONFIGURATION", "output_file") == str(out.resolve())
    assert engine_path(mapping) == engine_path(mapping)  # one alias per file: the rule cache keys stay stable


def test_plain_path_is_itself(tmp_path):
    mapping = tmp_path / "m.ttl"
    mapping.write_text("", encoding="utf-8")
    assert engine_path(mapping) == str(mapping.resolve())
