"""Benchmark: wall time of this repo's Markdown corpus under mdexec, pytest-markdown-docs and Sybil.

All three run the same corpus the same way (one pytest process, `-n 0`, 8 virtual CPU devices). The
corpus is every Markdown file of the bundle with the blocks that the other two tools cannot express
expressed the same way for all three: an expected exception becomes a try/except inside the block,
and the blocks pytest-markdown-docs cannot express at all (`>>>` sessions, skips) are dropped for
all three. For pytest-markdown-docs every fence is marked `continuation`, so blocks share a
namespace as they do in the other two.

mdexec is also timed the way the test suite runs it (`-n 2` on the full, undropped corpus).
Results go to results/doctest_benchmark.md.

    python dev/bench_doctest.py

The harness's own cost: `--overhead FILE` times, in alternating pairs, the file under pytest with
mdexec (as this repository configures it, `-n 0`) and the same blocks executed bare by one Python
process (one namespace, `fresh` honoured, expected exceptions caught, skipped blocks skipped, no
output checks, no records), and prints each pair's CPU-time ratio (user + system, which a shared
machine disturbs far less than wall time; wall times are shown too) and the median:

    python dev/bench_doctest.py --overhead references/sharp_bits.md --pairs 5
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "examples"))
from mdexec.document import read_blocks  # noqa: E402

CORPUS_DIRS = ("skills", "agents", "references")
DEVICE_FLAGS = "--xla_force_host_platform_device_count=8"
SYBIL_CONFTEST = """\
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

pytest_collect_file = Sybil(parsers=[PythonCodeBlockParser()], patterns=["*.md"]).pytest()
"""


@dataclass(frozen=True)
class Timing:
    tool: str
    corpus: str
    seconds: float
    summary: str


def corpus_files() -> list[Path]:
    files = [REPO / "README.md"]
    for folder in CORPUS_DIRS:
        files += sorted((REPO / folder).rglob("*.md"))
    return files


def common_subset(path: Path, mark_continuation: bool) -> str:
    """The file as plain Python fences that all three tools run the same way.

    An expected exception becomes a try/except inside the block; `>>>` blocks and skipped blocks,
    which pytest-markdown-docs cannot express, become `text` fences for all three tools.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks = {block.line: block for block in read_blocks(path)}
    fences = [t for t in MarkdownIt("commonmark").parse("\n".join(lines)) if t.type == "fence" and t.map]
    for token in reversed(fences):  # from the end, so earlier line numbers stay valid
        block = blocks.get(token.map[0] + 1)
        if block is None:
            continue
        start, end = token.map
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        if block.is_doctest or block.directives.skip:
            lines[start] = f"{indent}{token.markup}text"
            continue
        if mark_continuation:
            lines[start] = f"{indent}{token.markup}python continuation"
        if block.directives.raises:
            body = [indent + line for line in expect_raises(block.source, block.directives.raises)]
            lines[start + 1 : end - 1] = body
    text = "\n".join(lines) + "\n"
    return re.sub(r"<!--\s*mdexec:.*?-->", "", text, flags=re.S)


def expect_raises(source: str, dotted: str) -> list[str]:
    """Python that runs `source` and passes only if it raises `dotted` (warnings turned into errors)."""
    module, _, name = dotted.rpartition(".")
    error = f'getattr(__import__("importlib").import_module("{module}"), "{name}")' if module else name
    body = [f"        {line}" if line.strip() else "" for line in source.splitlines()]
    return [
        "import warnings as _bench_warnings",
        f"_bench_expected = {error}",
        "try:",
        "    with _bench_warnings.catch_warnings():",
        "        if issubclass(_bench_expected, Warning):",
        '            _bench_warnings.simplefilter("error", _bench_expected)',
        *body,
        "except _bench_expected:",
        "    pass",
        "else:",
        f'    raise AssertionError("did not raise {dotted}")',
    ]


def build_corpus(root: Path, mark_continuation: bool) -> None:
    for path in corpus_files():
        target = root / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(common_subset(path, mark_continuation), encoding="utf-8")


def run_pytest(args: list[str], cwd: Path, cap: float) -> tuple[float, str]:
    """Run pytest; return wall seconds and its summary line, or how far it got if stopped at `cap`."""
    env = {**os.environ, "XLA_FLAGS": DEVICE_FLAGS}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *args]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired as stopped:
        out = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else stopped.stdout or ""
        progress = "".join(line for line in out.splitlines() if re.fullmatch(r"[.FEsx]+(\s+\[\s*\d+%\])?", line))
        finished = sum(progress.count(c) for c in ".FEsx")
        return cap, f"stopped at the {cap:.0f} s cap after {finished} items"
    seconds = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return seconds, re.sub(r" in [\d.]+s.*", "", last)


TOOL_ARGS = {
    "mdexec": ["-n", "0", "."],
    "pytest-markdown-docs": ["-n", "0", "-p", "no:mdexec", "--markdown-docs", "."],
    "Sybil": ["-n", "0", "-p", "no:mdexec", "."],
}


def measure(cap: float) -> list[Timing]:
    """Time the three tools on the common corpus, then mdexec as CI runs it."""
    timings = []
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        roots = {}
        for tool in TOOL_ARGS:  # build every corpus first, so all three see the same files
            roots[tool] = root = Path(tmp) / tool
            build_corpus(root, mark_continuation=tool == "pytest-markdown-docs")
            (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
            if tool == "Sybil":
                (root / "conftest.py").write_text(SYBIL_CONFTEST, encoding="utf-8")
        for tool, args in TOOL_ARGS.items():
            seconds, summary = run_pytest(args, roots[tool], cap)
            timings.append(Timing(tool, "common subset, -n 0", seconds, summary))
    paths = [str(p.relative_to(REPO)) for p in corpus_files()]
    seconds, summary = run_pytest(["-n", "2", "--dist", "loadfile", *paths], REPO, cap)
    timings.append(Timing("mdexec", "full corpus, -n 2 (as in CI)", seconds, summary))
    return timings


def write_report(timings: list[Timing], out: Path, cap: float) -> str:
    from _report import environment_stamp

    rows = "\n".join(f"| {t.tool} | {t.corpus} | {t.seconds:.1f} | {t.summary} |" for t in timings)
    report = (
        "# Doc-test benchmark\n\n"
        f"Command: `python dev/bench_doctest.py --cap {cap:.0f}`. Measured on: {environment_stamp()}.\n\n"
        "pytest-markdown-docs re-runs every earlier block of a file for each `continuation` block, so its\n"
        "time grows with the square of a file's length; a run still going at the cap is reported as stopped.\n\n"
        "| tool | corpus | wall time (s) | pytest summary |\n| --- | --- | --- | --- |\n"
        f"{rows}\n"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report, encoding="utf-8")
    return report


def run_bare(path: Path) -> None:
    """Execute a Markdown file's blocks with nothing around them: the baseline of `--overhead`."""
    import doctest
    import importlib
    import warnings

    os.chdir(tempfile.mkdtemp(prefix="bench-bare-"))
    namespace: dict = {}
    for block in read_blocks(path):
        directives = block.directives
        if directives.fresh or not namespace:
            namespace = {"__name__": "__main__", "__file__": str(path)}
        if directives.skip:
            continue
        source = block.source
        if block.is_doctest:
            source = "".join(example.source for example in doctest.DocTestParser().get_examples(source))
        code = compile("\n" * block.line + source, str(path), "exec")
        if not directives.raises:
            exec(code, namespace)  # noqa: S102 - running documentation is the job
            continue
        module, _, name = directives.raises.rpartition(".")
        expected = getattr(importlib.import_module(module), name) if module else getattr(__builtins__, name)
        try:
            with warnings.catch_warnings():
                if issubclass(expected, Warning):
                    warnings.simplefilter("error", expected)
                exec(code, namespace)  # noqa: S102
        except expected:
            pass


def cpu_seconds() -> float:
    """User plus system CPU time of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def overhead(path: Path, pairs: int) -> list[tuple[float, float]]:
    """(mdexec CPU seconds, bare CPU seconds) for `pairs` alternating runs, each a fresh process.

    CPU time (user + system, all threads) rather than wall time: on a shared machine the wall time of
    one run depends on what else runs, its CPU time much less. Wall times are printed beside it."""
    env = {**os.environ, "XLA_FLAGS": DEVICE_FLAGS}
    harness = [sys.executable, "-m", "pytest", "-q", "-n", "0", str(path)]
    bare = [sys.executable, __file__, "--bare", str(path)]
    results = []
    for index in range(pairs):
        seconds, wall = {}, {}
        for name, command in (("harness", harness), ("bare", bare))[:: 1 if index % 2 == 0 else -1]:
            start, cpu = time.perf_counter(), cpu_seconds()
            done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
            seconds[name], wall[name] = cpu_seconds() - cpu, time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(f"error: {name} run of {path} failed:\n{(done.stdout + done.stderr)[-2000:]}")
        results.append((seconds["harness"], seconds["bare"]))
        print(f"pair {index + 1}: CPU mdexec {seconds['harness']:.2f} s, bare {seconds['bare']:.2f} s, "
              f"ratio {seconds['harness'] / seconds['bare']:.3f} (wall {wall['harness']:.2f} s, {wall['bare']:.2f} s)",
              flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "results/doctest_benchmark.md", help="report file")
    parser.add_argument("--cap", type=float, default=300, help="stop a tool's run after this many seconds (default 300)")
    parser.add_argument("--overhead", type=Path, metavar="FILE", help="time FILE under mdexec against bare execution")
    parser.add_argument("--pairs", type=int, default=5, help="with --overhead: alternating pairs of runs (default 5)")
    parser.add_argument("--bare", type=Path, metavar="FILE", help=argparse.SUPPRESS)  # one bare run, for --overhead
    options = parser.parse_args()
    if options.bare:
        run_bare(options.bare.resolve())
        return 0
    if options.overhead:
        os.environ["XLA_FLAGS"] = DEVICE_FLAGS  # so the stamp reports the devices the runs used
        results = overhead(options.overhead.resolve(), options.pairs)
        ratios = sorted(h / b for h, b in results)
        from _report import environment_stamp

        print(f"median CPU-time ratio {ratios[len(ratios) // 2]:.3f} over {len(ratios)} pairs "
              f"(min {ratios[0]:.3f}, max {ratios[-1]:.3f}); {environment_stamp()}")
        return 0
    os.environ["XLA_FLAGS"] = DEVICE_FLAGS  # so the stamp reports the devices the runs used
    for tool in ("pytest_markdown_docs", "sybil"):
        if importlib.util.find_spec(tool) is None:
            print(f"error: {tool} is not installed; run `bash dev/setup.sh`", file=sys.stderr)
            return 2
    print(write_report(measure(options.cap), options.out, options.cap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
