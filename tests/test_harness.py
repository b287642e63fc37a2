"""Tests of the mdexec harness itself, run on the small Markdown files in tests/fixtures/md/.

Each test runs pytest in a subprocess on one fixture, exactly as a user would, and checks the
outcome counts and the messages the user sees.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bundle import pins

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path("tests/fixtures/md")


@dataclass
class Run:
    returncode: int
    output: str

    def count(self, outcome: str) -> int:
        """How many items ended with `outcome` (passed, failed, skipped, error), from the last line."""
        last = self.output.strip().splitlines()[-1]
        match = re.search(rf"(\d+) {outcome}", last)
        return int(match.group(1)) if match else 0


def run_pytest(*fixtures: str, extra: tuple[str, ...] = ()) -> Run:
    paths = [str(FIXTURES / name) for name in fixtures]
    command = [sys.executable, "-m", "pytest", "-n0", "-q", "-rs", "-p", "no:randomly", "--mdexec-record=", *extra, *paths]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    return Run(result.returncode, result.stdout + result.stderr)


def test_blocks_share_a_namespace_and_checks_pass():
    run = run_pytest("basic.md")
    assert run.returncode == 0, run.output
    assert (run.count("passed"), run.count("skipped")) == (4, 1)
    assert "tests/fixtures/md/basic.md: 4 executed, 1 skipped" in run.output
    assert "skipped L21: only shown, needs a TPU" in run.output


def test_failure_modes_are_reported_at_the_markdown_line():
    run = run_pytest("failures.md")
    assert run.returncode == 1
    # An output mismatch names the line and both texts.
    assert "line 5: printed '1', but the comment expects '2'" in run.output
    # The block after a failure is skipped because of it, with no NameError cascade.
    assert "skipped L8: L3 failed earlier in this namespace" in run.output
    assert "NameError" not in run.output
    # Tracebacks point into the Markdown file, at the right lines, with no harness frames.
    assert re.search(r"failures\.md:17: in <module>\n +inner\(\)", run.output)
    assert re.search(r"failures\.md:15: in inner\n +return \{\}\[\"missing\"\]", run.output)
    assert "mdexec/" not in run.output.replace("tests/fixtures/md/", "")
    # A block that should raise and does not.
    assert "block did not raise ValueError\n  in the block at tests/fixtures/md/failures.md:21" in run.output
    assert (run.count("failed"), run.count("skipped")) == (4, 1)


def test_short_summary_shows_the_error_not_the_traceback_header():
    run = run_pytest("failures.md", extra=("-rf",))
    assert "FAILED tests/fixtures/md/failures.md::L13 - KeyError: 'missing'" in run.output, run.output
    assert "FAILED tests/fixtures/md/failures.md::L21 - block did not raise ValueError" in run.output
    assert " - Traceback" not in run.output


def test_expected_exceptions_warnings_devices_and_isolation():
    run = run_pytest("jax_directives.md", "jax_isolation_check.md")
    # Everything passes except the block that sleeps past its 2 s timeout.
    assert (run.count("passed"), run.count("failed"), run.count("skipped")) == (5, 1, 1), run.output
    assert "Timeout (>2.0s)" in run.output
    assert "needs 64 devices, 8 available" in run.output
    assert "x64 leaked" not in run.output and "working directory leaked" not in run.output


def test_numbers_compare_with_tolerance_and_whitespace_is_normalised():
    run = run_pytest("numbers.md")
    assert run.returncode == 0, run.output


def test_doctest_mismatch_fails_with_doctest_report():
    run = run_pytest("doctest_fail.md")
    assert run.returncode == 1
    assert "Expected:\n    3\nGot:\n    2" in run.output


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("unknown_directive.md", "unknown_directive.md:3: unknown directive option 'raise'"),
        ("missing_colon.md", "missing_colon.md:3: malformed directive <!-- mdexec timeout=5 -->; write it with a colon"),
        ("unterminated.md", "unterminated.md:3: fence opened here with ``` is never closed"),
        ("bad_frontmatter.md", "bad_frontmatter.md:3: front matter is not valid YAML"),
        ("skip_no_reason.md", "skip_no_reason.md:1: skip needs a written reason"),
        ("untagged_python.md", "untagged_python.md:1: untagged fence looks like Python"),
        ("orphan_directive.md", "orphan_directive.md:1: directive is not followed by a Python fence"),
    ],
)
def test_malformed_input_gives_one_clear_error(fixture: str, message: str):
    run = run_pytest(fixture)
    assert run.returncode != 0
    assert message in run.output, run.output
    assert "Traceback" not in run.output
    assert "mdexec/" not in run.output.replace("tests/fixtures/md/", "")


def test_catches_real_rot_with_the_library_error_message():
    run = run_pytest("rot.md")
    assert run.count("failed") == 3, run.output
    assert "module 'jax' has no attribute 'tree_map'" in run.output
    assert "Missing required argument `wrt`" in run.output
    assert "No module named 'jax.experimental.maps'" in run.output


def test_parallel_run_keeps_each_file_on_one_worker():
    # Even when asked for plain `--dist load`, a file's blocks must run in order on one worker.
    run = run_pytest("basic.md", "jax_directives.md", "numbers.md", extra=("-n", "2", "--dist", "load"))
    assert run.returncode == 0, run.output
    assert run.count("passed") == 4 + 4 + 1


def test_works_on_any_folder_of_markdown_outside_this_repo(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text((REPO / FIXTURES / "basic.md").read_text(encoding="utf-8"), encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "docs"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "docs/guide.md: 4 executed, 1 skipped" in result.stdout


def test_record_writes_each_blocks_outcome_per_file_under_xdist(tmp_path: Path):
    records = tmp_path / "records"
    fixtures = ("basic.md", "failures.md", "jax_directives.md")
    run_pytest(*fixtures, extra=("-n", "2", "--dist", "loadfile", f"--mdexec-record={records}"))
    found = sorted(p.relative_to(records).as_posix() for p in records.rglob("*.json"))
    assert found == [f"tests/fixtures/md/{name}.json" for name in sorted(fixtures)]

    def load(name: str) -> dict:
        return json.loads((records / f"tests/fixtures/md/{name}.json").read_text(encoding="utf-8"))

    basic = load("basic.md")
    source = (REPO / FIXTURES / "basic.md").read_bytes()
    assert basic["file"] == "tests/fixtures/md/basic.md"
    assert basic["sha256"] == hashlib.sha256(source).hexdigest()
    assert basic["date"] == datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    assert basic["versions"]["jax"] == pins()["jax"] and basic["passed"] is True
    blocks = basic["blocks"]
    assert [(b["line"], b["status"]) for b in blocks] == [
        (3, "passed"), (11, "raised"), (15, "passed"), (21, "skipped"), (25, "passed")
    ]
    assert blocks[0]["stdout"] == "3\n3.141592653589793\n"
    assert (blocks[1]["error_type"], blocks[1]["error_message"]) == ("ZeroDivisionError", "division by zero")
    assert blocks[3]["reason"] == "only shown, needs a TPU"

    failures = load("failures.md")
    assert failures["passed"] is False
    statuses = {b["line"]: b for b in failures["blocks"]}
    assert statuses[13]["status"] == "failed" and statuses[13]["error_type"] == "KeyError"
    assert statuses[8]["reason"] == "L3 failed earlier in this namespace"
    assert statuses[3]["stdout"] == "1\n"  # a failed block's output is kept too

    first = load("jax_directives.md")["blocks"][0]
    assert first["error_type"] == "jax.errors.TracerBoolConversionError"
    assert first["error_message"].startswith("Attempted boolean conversion of traced array")


def test_record_is_off_by_default_and_with_an_empty_value(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("```python\nprint(1)  # 1\n```\n", encoding="utf-8")
    for extra in ([], ["--mdexec-record="]):
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, "docs"]
        result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        assert not list(tmp_path.rglob("*.json"))
    (tmp_path / "pytest.ini").write_text("[pytest]\nmdexec_record = out\n", encoding="utf-8")  # rootdir-relative
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "docs"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "out/docs/guide.md.json").read_text(encoding="utf-8"))["blocks"][0]["stdout"] == "1\n"


def test_the_heap_is_frozen_when_a_file_starts():
    """dev/bench_doctest.py --overhead measures what this saves: pytest's per-item allocations set off
    full collections, which would walk jax's module state each time."""
    run = run_pytest("frozen_heap.md", "basic.md")
    assert run.returncode == 0, run.output
    assert run.count("passed") == 5
    assert "tests/fixtures/md/frozen_heap.md: 1 executed, 0 skipped" in run.output
