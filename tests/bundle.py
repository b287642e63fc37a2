"""What the bundle checks need to know about the repository: its files, pins and Claude Code's CLI."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from jaxpro.repo import REPO, pins  # noqa: F401 - the tests import them from here

SKILLS = sorted(p.parent for p in (REPO / "skills").glob("*/SKILL.md"))
AGENTS = sorted((REPO / "agents").glob("*.md"))
EXCLUDED_DIRS = {".git", ".venv", ".tools", "node_modules", "__pycache__", "fixtures", ".pytest_cache", "build",
                 "runs"}  # evals/runs: measured arms, their prompts and answers kept as written


def live_run_only(flag: str, what: str, because: str) -> pytest.MarkDecorator:
    """Skip a live eval unless `flag`=1 and credentials are given: it makes paid API calls."""
    credentials = os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("JAX_PRO_CLAUDE_HOME")
    return pytest.mark.skipif(
        os.environ.get(flag) != "1" or not credentials,
        reason=f"{what} needs credentials (ANTHROPIC_API_KEY, or JAX_PRO_CLAUDE_HOME naming a logged-in HOME) "
        f"and {flag}=1, because {because}; CI has neither",
    )


def repo_files(*suffixes: str) -> list[Path]:
    """Tracked-looking files with these suffixes, outside virtualenvs, tools and test fixtures."""
    found = []
    for path in REPO.rglob("*"):
        if path.suffix in suffixes and path.is_file():
            if not EXCLUDED_DIRS.intersection(path.relative_to(REPO).parts):
                found.append(path)
    return sorted(found)


def front_matter(path: Path) -> dict:
    """The YAML front matter of a skill or agent file (the harness has already checked it parses)."""
    import yaml

    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path.relative_to(REPO)} must start with YAML front matter"
    return yaml.safe_load(text.split("---\n", 2)[1]) or {}


def claude_binary() -> Path:
    """Claude Code's platform binary, installed (pinned) by dev/setup.sh under .tools/.

    With JAXPRO_SKIP_CLAUDE=1 (setup then installs no CLI) the checks that need it are skipped.
    """
    candidates = sorted((REPO / ".tools/node_modules/@anthropic-ai").glob("claude-code-*/claude"))
    if not candidates:
        if os.environ.get("JAXPRO_SKIP_CLAUDE") == "1":
            pytest.skip("JAXPRO_SKIP_CLAUDE=1: Claude Code's CLI is not installed")
        raise FileNotFoundError(
            "Claude Code CLI not found under .tools/: run `bash dev/setup.sh` (it needs npm),"
            " or set JAXPRO_SKIP_CLAUDE=1 to skip the checks that need it"
        )
    return candidates[0]


def run_claude(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI offline with a fresh HOME, so no login or user settings are involved."""
    with tempfile.TemporaryDirectory(prefix="claude-home-") as home:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "NO_COLOR": "1", "CI": "1"}
        return subprocess.run(
            [str(claude_binary()), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
        )


def parse_tokens(text: str) -> int:
    """Turn the CLI's `~183`, `~1.6k` estimates into integers."""
    match = re.fullmatch(r"~?([\d.]+)(k?)", text.strip())
    assert match, f"cannot read a token estimate from {text!r}"
    return round(float(match.group(1)) * (1000 if match.group(2) else 1))
