"""Run a scripts/ tool as a subprocess, exactly as an assistant runs it, and check its error contract."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_script(tool: Path, *args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """Run `tool` with the test's Python; XLA_FLAGS is dropped so only --devices sets devices."""
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PRO_TRACEBACK")}
    command = [sys.executable, str(tool), *map(str, args)]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    """A bad input ends with exit `code` and exactly one `error: ...` line naming the fragments."""
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    for fragment in fragments:
        assert fragment in errors[0]
