"""Latency of the plugin's hook and speed of the currency checker, as a user's session meets them.

Runs `sh hooks/check_written_file.sh` exactly as Claude Code does (the PostToolUse event on stdin), from
a scratch project whose interpreter is given by VIRTUAL_ENV:

- jax file, cold: a JAX file of about --lines lines (the bundle's examples, concatenated) with a fresh,
  empty cache folder each time (XDG_CACHE_HOME), so the installed libraries are imported;
- jax file, warm: the same file after one call has filled the cache, edited before every call (a line
  is appended), as the assistant's successive edits are;
- not jax: a .py file that imports none of the libraries (answered by the shell, no Python started).

Then the checker's own command line: the start of a run on a one-line file (warm cache), and lines per
second of CPU time over --corpus (default: this repository's Python files), warm.

    .venv/bin/python dev/bench_hook.py                 # 30 calls per row
    .venv/bin/python dev/bench_hook.py --runs 50 --lines 1000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "hooks" / "check_written_file.sh"
CHECKER = REPO / "scripts" / "jax_currency_check.py"


def jax_source(lines: int) -> str:
    """At least `lines` lines of real JAX code: the bundle's examples, one after another."""
    text = ""
    for example in sorted((REPO / "examples").glob("[!_]*.py")):
        text += example.read_text(encoding="utf-8") + "\n"
        if text.count("\n") >= lines:
            break
    return text


CPU_TIMES: list[float] = []  # CPU seconds (user + system) of each hook call, in call order


def call_hook(project: Path, file: Path, env: dict[str, str]) -> float:
    """Seconds one hook call takes, from start to exit (its CPU seconds go to CPU_TIMES)."""
    event = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "PostToolUse",
                        "tool_name": "Edit", "tool_input": {"file_path": str(file)}})
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(["sh", str(HOOK)], input=event, capture_output=True, text=True, cwd=project, env=env)
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_TIMES.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return elapsed


def percentiles(times: list[float], cpu: list[float] | None = None) -> dict[str, float]:
    """n, wall-clock p50/p95/max in ms, and (given the calls' CPU seconds) the CPU p50/p95 in ms."""
    ordered = sorted(times)
    row = {"n": len(ordered), "p50_ms": 1000 * statistics.median(ordered),
           "p95_ms": 1000 * ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
           "max_ms": 1000 * ordered[-1]}
    if cpu:
        spent = sorted(cpu)
        row |= {"cpu_p50_ms": 1000 * statistics.median(spent),
                "cpu_p95_ms": 1000 * spent[min(len(spent) - 1, round(0.95 * (len(spent) - 1)))]}
    return row


def hook_rows(python: Path, lines: int, runs: int, cold_runs: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        jax_file, plain = project / "model.py", project / "util.py"
        source = jax_source(lines)
        jax_file.write_text(source, encoding="utf-8")
        plain.write_text("import numpy as np\n\n" + "x = np.arange(10)\n" * lines, encoding="utf-8")
        venv = Path(os.path.abspath(python)).parent.parent  # absolute: the hook runs from the scratch project
        env = {"PATH": os.environ["PATH"], "HOME": scratch, "VIRTUAL_ENV": str(venv),
               "CLAUDE_PROJECT_DIR": str(project)}
        cold = []
        for index in range(cold_runs):
            cold.append(call_hook(project, jax_file, {**env, "XDG_CACHE_HOME": f"{scratch}/cold{index}"}))
        warm_env = {**env, "XDG_CACHE_HOME": f"{scratch}/warm"}
        call_hook(project, jax_file, warm_env)
        warm = []
        for index in range(runs):
            with open(jax_file, "a", encoding="utf-8") as handle:
                handle.write(f"# edit {index}\n")
            warm.append(call_hook(project, jax_file, warm_env))
        other = [call_hook(project, plain, warm_env) for _ in range(runs)]
        cpu = CPU_TIMES[-(len(cold) + 1 + len(warm) + len(other)):]
        cold_cpu, warm_cpu, other_cpu = cpu[:len(cold)], cpu[len(cold) + 1:len(cold) + 1 + len(warm)], cpu[-len(other):]
        return {f"jax file ({source.count(chr(10))} lines), cold": percentiles(cold, cold_cpu),
                f"jax file ({source.count(chr(10))} lines), warm": percentiles(warm, warm_cpu),
                f"not jax ({lines} lines)": percentiles(other, other_cpu)}


def checker_rows(python: Path, corpus: list[Path], runs: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "XDG_CACHE_HOME": scratch}
        one = Path(scratch) / "one.py"
        one.write_text("import jax\n", encoding="utf-8")
        subprocess.run([str(python), str(CHECKER), *map(str, corpus)], env=env, capture_output=True)  # fill the cache
        starts = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([str(python), str(CHECKER), str(one)], env=env, capture_output=True)
            starts.append(time.perf_counter() - start)
        lines = sum(p.read_bytes().count(b"\n") for p in corpus)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([str(python), str(CHECKER), *map(str, corpus)], env=env, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"checker start (1-line file, warm)": percentiles(starts),
                f"checker over {len(corpus)} files, {lines} lines, warm": {"cpu_s": cpu, "lines_per_cpu_s": lines / cpu}}


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", type=Path, default=REPO / ".venv" / "bin" / "python",
                        help="the project's interpreter (default: this repository's .venv)")
    parser.add_argument("--lines", type=int, default=1000, help="size of the JAX file (default 1000)")
    parser.add_argument("--runs", type=int, default=30, help="calls per warm row (default 30)")
    parser.add_argument("--cold-runs", type=int, default=3, help="calls with an empty cache (default 3)")
    parser.add_argument("--corpus", type=Path, nargs="*", help="files for the lines/s row (default: the repo's)")
    args = parser.parse_args()
    corpus = args.corpus or sorted(p for d in ("scripts", "examples", "dev", "jaxpro", "mdexec", "tests")
                                   for p in (REPO / d).rglob("*.py") if "fixtures" not in p.parts)
    versions = subprocess.run([str(args.python), "-c", "import jax, sys; print(sys.version.split()[0], jax.__version__)"],
                              capture_output=True, text=True).stdout.split()
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"machine: {machine()}; python {versions[0]}, jax {versions[1]}; "
          f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}; sh is {shutil.which('sh')}")
    rows = {**hook_rows(args.python, args.lines, args.runs, args.cold_runs), **checker_rows(args.python, corpus, 5)}
    width = max(map(len, rows))
    for name, row in rows.items():
        cells = "  ".join(f"{k}={v:.0f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items())
        print(f"{name:<{width}}  {cells}")


if __name__ == "__main__":
    main()
