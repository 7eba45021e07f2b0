"""CPU seconds and memory of a command's whole process tree (the benchmarks' measurement).

A command such as ``kgc materialize`` is several processes at once: the engine, the guard worker,
``sort``, Dask's scheduler and workers. The largest process's peak resident memory (what
``os.wait4`` reports) understates what the command needs; wall time on a shared machine is noise.
:func:`measure` runs a command and reports, for its whole process tree:

* **CPU seconds**: user + system time of every process of the tree. The benchmark process makes
  itself a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``), so a descendant whose parent
  exits before it is reparented to the benchmark and reaped there; the CPU time is then the
  increase of ``getrusage(RUSAGE_CHILDREN)`` over the run, which holds every reaped descendant.
* **Memory**: ``/proc`` is read every :data:`INTERVAL` seconds; the peak of the *sum* of the
  resident set sizes of all processes of the tree at one instant, the peak of the root process
  alone, and per direct child of the root (a Dask worker, the guard worker) the peak of the sum
  over its own subtree. A resident page shared by a forked parent and child counts twice (an
  upper bound). Processes shorter than the interval can be missed.

Without ``/proc`` (not Linux) only the root's peak (``ru_maxrss``) is known and the sums are
``None``.
"""
from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["INTERVAL", "Usage", "measure", "become_subreaper"]

#: Seconds between two reads of ``/proc``.
INTERVAL = 0.05
_PR_SET_CHILD_SUBREAPER = 36
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Usage:
    """What :func:`measure` found (memory in MB of 2**20 bytes, times in seconds).

    Attributes:
        rc: exit code. wall_s: wall-clock seconds. cpu_s: user + system seconds of the tree.
        peak_sum_mb: peak of the summed RSS of all processes of the tree (``None`` without ``/proc``).
        peak_root_mb: peak RSS of the command's own process.
        peak_process_mb: peak RSS of the largest single process.
        processes: every other process seen in the tree, ``{"pid", "parent", "cmd", "peak_mb",
            "own_mb", "cpu_s"}``: the peak of the RSS summed over it and its descendants, the peak
            of its own RSS, and its CPU seconds (its own and its waited-for children's) as last
            seen, a lower bound (the interval before it ended is not in it). A child caught between
            its ``fork``/``vfork`` and its ``exec`` shows its parent's RSS, so a subtree's peak can
            count a process twice; ``own_mb`` cannot.
        root_cmd: the command line of the root process as ``/proc`` shows it (a process forked from
            the root without ``exec`` shows the same).
    """

    rc: int
    wall_s: float
    cpu_s: float
    peak_sum_mb: float | None
    peak_root_mb: float
    peak_process_mb: float
    processes: list[dict] = field(default_factory=list)
    root_cmd: str = ""


def become_subreaper() -> bool:
    """Make this process the reaper of orphaned descendants (Linux); ``False`` where not possible."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _proc_table() -> dict[int, tuple[int, int, str, float]]:
    """``pid -> (parent pid, RSS bytes, command name, CPU seconds of it and its waited-for children)``
    of every process (empty without ``/proc``)."""
    out = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode("utf-8", "replace")
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: fields follow the last ')'
        close = stat.rfind(")")
        fields = stat[close + 2:].split()
        ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        out[int(name)] = (int(fields[1]), int(fields[21]) * _PAGE, stat[stat.find("(") + 1:close], ticks / _HZ)
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:200]
    except OSError:
        return ""


class _Sampler(threading.Thread):
    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.stop = threading.Event()
        self.peak_sum = 0
        self.peak_root = 0
        self.peak_process = 0
        # per process of the tree: parent, command line, peak of its subtree's summed RSS, CPU seconds
        self.parent: dict[int, int] = {}
        self.cmd: dict[int, str] = {}
        self.subtree_peak: dict[int, int] = {}
        self.own_peak: dict[int, int] = {}
        self.cpu: dict[int, float] = {}
        self.available = os.path.isdir("/proc")

    def run(self) -> None:
        while not self.stop.is_set() and self.available:
            self.sample()
            self.stop.wait(INTERVAL)

    def sample(self) -> None:
        table = _proc_table()
        if self.root not in table:
            return
        kids: dict[int, list[int]] = {}
        for pid, (ppid, *_) in table.items():
            kids.setdefault(ppid, []).append(pid)
        order, stack = [], [self.root]  # the tree, parents before children
        while stack:
            pid = stack.pop()
            order.append(pid)
            stack.extend(kids.get(pid, []))
        subtree: dict[int, int] = {}
        for pid in reversed(order):  # children before parents
            ppid, rss, name, cpu = table[pid]
            subtree[pid] = rss + sum(subtree[k] for k in kids.get(pid, []))
            self.peak_process = max(self.peak_process, rss)
            if pid not in self.cmd:
                self.cmd[pid] = _cmdline(pid) or name
                self.parent[pid] = ppid
            self.subtree_peak[pid] = max(self.subtree_peak.get(pid, 0), subtree[pid])
            self.own_peak[pid] = max(self.own_peak.get(pid, 0), rss)
            self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu)
        self.peak_root = max(self.peak_root, table[self.root][1])
        self.peak_sum = max(self.peak_sum, subtree[self.root])


def _reap_orphans() -> None:
    """Wait for descendants reparented to this process (subreaper) that have exited."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def measure(cmd: list[str], log: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> Usage:
    """Run ``cmd`` (stdout and stderr to ``log``) and measure its process tree (module docstring).

    Args:
        cmd: the command. log: file for its output. cwd, env: as for :class:`subprocess.Popen`.
    Returns:
        A :class:`Usage`.
    """
    become_subreaper()
    _reap_orphans()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=cwd, env=env)
        sampler = _Sampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        sampler.stop.set()
        sampler.join()
    wall = time.perf_counter() - t0
    # descendants still running after the command ended (a daemon left behind) are waited for:
    # their CPU seconds belong to the command
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        left = [pid for pid, (ppid, *_) in _proc_table().items() if ppid == os.getpid()]
        _reap_orphans()
        if not left:
            break
        time.sleep(INTERVAL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    mb = 1 << 20
    root_peak = max(sampler.peak_root, usage.ru_maxrss * 1024)
    return Usage(rc=os.waitstatus_to_exitcode(status), wall_s=round(wall, 2), cpu_s=round(cpu, 2),
                 peak_sum_mb=round(sampler.peak_sum / mb, 1) if sampler.available else None,
                 peak_root_mb=round(root_peak / mb, 1),
                 peak_process_mb=round(max(sampler.peak_process, root_peak) / mb, 1),
                 processes=[{"pid": pid, "parent": sampler.parent[pid], "cmd": sampler.cmd[pid],
                             "peak_mb": round(sampler.subtree_peak[pid] / mb, 1),
                             "own_mb": round(sampler.own_peak[pid] / mb, 1), "cpu_s": round(sampler.cpu[pid], 2)}
                            for pid in sorted(sampler.cmd) if pid != proc.pid],
                 root_cmd=sampler.cmd.get(proc.pid, ""))

