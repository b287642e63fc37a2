"""Pages generated at build time for each example and script: docstring, `--help` output, source."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from docsite import REPO


class HelpFailed(Exception):
    """A program's `--help` did not exit 0; the message names the program and shows its error."""


def programs(folder: str) -> list[Path]:
    """The runnable programs of examples/ or scripts/ (files starting with `_` are shared helpers)."""
    return sorted(p for p in (REPO / folder).glob("*.py") if not p.name.startswith("_"))


def help_texts(paths: list[Path]) -> dict[Path, str]:
    """Run each program's `--help` from the repository root, two at a time."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        return dict(zip(paths, pool.map(help_text, paths)))


def help_text(path: Path) -> str:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    command = [sys.executable, str(path.relative_to(REPO)), "--help"]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise HelpFailed(f"{path.relative_to(REPO)}: `--help` exited {result.returncode}:\n{result.stderr.strip()}")
    return result.stdout


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def example_page(path: Path, help_output: str) -> str:
    """An example: what it shows (its docstring), how to run it, its flags, and its source."""
    relative = path.relative_to(REPO).as_posix()
    source = path.read_text(encoding="utf-8").rstrip("\n")
    return "\n".join(
        [
            f"# {path.stem}",
            "",
            f"`{relative}`: a runnable example that asserts its claims and prints its measured results. "
            "This page is generated from the file when the site is built.",
            "",
            _as_markdown(docstring(path)),
            "",
            "## Run it",
            "",
            "```bash",
            f"python {relative}",
            "```",
            "",
            "## Options",
            "",
            _text_block(help_output),
            "",
            "## Source",
            "",
            _fenced(source, "python"),
            "",
        ]
    )


def script_page(path: Path, help_output: str) -> str:
    """A script is a black box: its one-line purpose, how to call it, and its `--help`."""
    relative = path.relative_to(REPO).as_posix()
    summary = docstring(path).strip().splitlines()[0] if docstring(path).strip() else ""
    return "\n".join(
        [
            f"# {path.stem}",
            "",
            f"`{relative}`: {summary}",
            "",
            "Run it as a black box, from any directory, starting with its help. Below is that help, "
            "as `--help` printed it when this site was built.",
            "",
            "```bash",
            f"python {relative} --help",
            "```",
            "",
            _text_block(help_output),
            "",
        ]
    )


def _text_block(text: str) -> str:
    return _fenced(text.rstrip("\n"), "text")


def _fenced(text: str, language: str) -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return f"{fence}{language}\n{text}\n{fence}"


def _as_markdown(text: str) -> str:
    """A docstring as Markdown: a blank line before a list that follows a paragraph line."""
    out: list[str] = []
    for line in text.splitlines():
        if re.match(r"\s*[-*] ", line) and out and out[-1].strip() and not re.match(r"\s*[-*] |\s+\S", out[-1]):
            out.append("")
        out.append(line)
    return "\n".join(out)
