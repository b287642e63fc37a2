"""Benchmark: wall time of this repo's Markdown corpus under mdexec, pytest-markdown-docs and Sybil.

All three run the same corpus the same way (one pytest process, `-n 0`, 8 virtual CPU devices). The
corpus is every Markdown file of the bundle with the blocks that the other two tools cannot express
dropped for all three: blocks with an mdexec directive (expected exception, skip, timeout, device
count, fresh namespace) and `>>>` doctest blocks. For pytest-markdown-docs every fence is marked
`continuation`, so blocks share a namespace as they do in the other two.

mdexec is also timed the way the test suite runs it (`-n 2` on the full, undropped corpus).
Results go to results/doctest_benchmark.md.

    python dev/bench_doctest.py
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "examples"))
from mdexec.document import PYTHON_LANGS, read_blocks  # noqa: E402

CORPUS_DIRS = ("skills", "agents", "references")
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
    """The file with every block the other tools cannot express turned into a non-Python fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    dropped = {b.line for b in read_blocks(path) if b.is_doctest or b.directives != type(b.directives)()}
    for token in MarkdownIt("commonmark").parse("\n".join(lines)):
        if token.type != "fence" or not token.map:
            continue
        lang = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
        if lang not in PYTHON_LANGS:
            continue
        start = token.map[0]
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        if start + 1 in dropped:
            lines[start] = f"{indent}{token.markup}text"
        elif mark_continuation:
            lines[start] = f"{indent}{token.markup}python continuation"
    text = "\n".join(lines) + "\n"
    return re.sub(r"<!--\s*mdexec:.*?-->", "", text, flags=re.S)


def build_corpus(root: Path, mark_continuation: bool) -> None:
    for path in corpus_files():
        target = root / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(common_subset(path, mark_continuation), encoding="utf-8")


def run_pytest(args: list[str], cwd: Path) -> tuple[float, str]:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return seconds, re.sub(r" in [\d.]+s.*", "", last)


def measure() -> list[Timing]:
    timings = []
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        for tool, continuation in (("mdexec", False), ("pytest-markdown-docs", True), ("Sybil", False)):
            root = Path(tmp) / tool
            build_corpus(root, continuation)
            (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
            if tool == "Sybil":
                (root / "conftest.py").write_text(SYBIL_CONFTEST, encoding="utf-8")
            args = {
                "mdexec": ["-n", "0", "."],
                "pytest-markdown-docs": ["-n", "0", "-p", "no:mdexec", "--markdown-docs", "."],
                "Sybil": ["-n", "0", "-p", "no:mdexec", "."],
            }[tool]
            seconds, summary = run_pytest(args, root)
            timings.append(Timing(tool, "common subset, -n 0", seconds, summary))
    paths = [str(p.relative_to(REPO)) for p in corpus_files()]
    seconds, summary = run_pytest(["-n", "2", "--dist", "loadfile", *paths], REPO)
    timings.append(Timing("mdexec", "full corpus, -n 2 (as in CI)", seconds, summary))
    return timings


def write_report(timings: list[Timing], out: Path) -> str:
    from _report import environment_stamp

    rows = "\n".join(f"| {t.tool} | {t.corpus} | {t.seconds:.1f} | {t.summary} |" for t in timings)
    report = (
        "# Doc-test benchmark\n\n"
        f"Command: `python dev/bench_doctest.py`. Measured on: {environment_stamp()}.\n\n"
        "| tool | corpus | wall time (s) | pytest summary |\n| --- | --- | --- | --- |\n"
        f"{rows}\n"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report, encoding="utf-8")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "results/doctest_benchmark.md", help="report file")
    options = parser.parse_args()
    for tool in ("pytest_markdown_docs", "sybil"):
        if importlib.util.find_spec(tool) is None:
            print(f"error: {tool} is not installed; run `bash dev/setup.sh`", file=sys.stderr)
            return 2
    print(write_report(measure(), options.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
