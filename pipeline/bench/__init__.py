"""Benchmarks (time and memory), not tests: ``python -m pipeline.bench.<name>``."""
