"""The codebase-upgrade tasks (issue 28): well-formed pins, recorded test lists and reference patches, the
proof and the arms' records agreeing with them, and one grader run both ways on the real release."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from jaxpro.evals import arms
from jaxpro.evals import upgrade
from jaxpro.evals import upgrade_arms

NOW, TASKS = upgrade.load()
PROOF = upgrade.UPGRADE / "proof.json"
ARMS_RUN = sorted(upgrade.UPGRADE.parent.glob("runs/upgrade-*"))


def test_at_least_six_tasks_each_with_its_tests_and_reference() -> None:
    assert len(TASKS) >= 6
    assert len({task.id for task in TASKS}) == len(TASKS)
    for task in TASKS:
        assert task.passing_tests(), task.id
        header = task.passing_file.read_text().splitlines()[0]
        assert f"jax {task.jax_then}," in header and (task.then_date or task.released) in header, header
        assert task.reference_patch.is_file(), task.reference_patch
        assert len(task.sha256) == 64 and task.released[:4] in {"2022", "2023", "2024", "2025"}


def test_the_split_is_the_fixed_rule() -> None:
    for task in TASKS:
        digit = int(hashlib.sha256(task.id.encode()).hexdigest(), 16) % 2
        assert task.half == ("tuning" if task.moved or not digit else "test")


def test_every_recorded_proof_holds_both_ways() -> None:
    """proof.json (written by `prove --record`) holds a row per proven task: untouched not solved, the
    reference solved on every recorded test; every task has one."""
    rows = json.loads(PROOF.read_text())
    for task in TASKS:
        row = next((row for row in rows if row["task"] == task.id), None)
        assert row is not None, f"{task.id}: no proof recorded (run `dev/upgrade_tasks.py prove {task.id} --record`)"
        assert not row["untouched"]["solved"] and row["untouched"]["passed"] < row["untouched"]["tests"]
        assert row["reference"]["solved"] and row["reference"]["passed"] == len(task.passing_tests())
        assert row["proven"]


@pytest.mark.skipif(not ARMS_RUN, reason="no upgrade arms recorded yet")
def test_both_arms_graded_on_the_same_tasks_with_their_changes_kept() -> None:
    newest = ARMS_RUN[-1]
    graded = {}
    for arm in ("baseline", "bundle"):
        rows = json.loads((newest / arm / "grades.json").read_text())
        graded[arm] = {row["task"] for row in rows}
        for row in rows:
            task = upgrade.find(row["task"], TASKS)
            assert row["tests"] == len(task.passing_tests()) and row["solved"] == (row["passed"] == row["tests"])
            assert (newest / arm / "tasks" / task.id / "LOG.md").is_file()
            patch = (newest / arm / "tasks" / task.id / "changes.patch").read_text()
            assert (row["changed_lines"] > 0) == bool(patch), task.id
    assert graded["baseline"] == graded["bundle"] and len(graded["bundle"]) >= 4


@pytest.mark.skipif(not ARMS_RUN, reason="no upgrade arms recorded yet")
def test_readme_table_is_the_recorded_arms() -> None:
    readme = (upgrade.UPGRADE.parents[1] / "README.md").read_text()
    for arm in ("baseline", "bundle"):
        rows = json.loads((ARMS_RUN[-1] / arm / "grades.json").read_text())
        assert upgrade_arms.summary_row(arm, rows) in readme, arm


def test_wall_seconds_reads_start_and_end(tmp_path: Path) -> None:
    log = tmp_path / "LOG.md"
    log.write_text("START 100\nRUN python -m pytest\nSTART 150\nEND 400\n")
    assert upgrade_arms.wall_seconds(log) == 300
    log.write_text("RUN x\n")
    assert upgrade_arms.wall_seconds(log) is None


def test_only_reads_of_the_plugin_count(tmp_path: Path) -> None:
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "guide.md").write_text("one\ntwo\nthree\n")
    (tmp_path / "BRIEF.md").write_text("brief\n")
    (tmp_path / "tasks" / "t").mkdir(parents=True)
    log = tmp_path / "tasks" / "t" / "LOG.md"
    log.write_text(f"READ {tmp_path}/BRIEF.md 1-1\nREAD plugin/guide.md 2-3\nREAD plugin/missing.md 1-9\nRUN x\n")
    used = arms.usage(tmp_path / "tasks", reads_under="plugin/")["t"]
    assert (used["lines_read"], used["chars_read"]) == (2, len("two\nthree\n"))


def test_grader_both_ways_on_the_real_release(tmp_path: Path) -> None:
    """tree-math 0.2.0 from PyPI: untouched, two recorded tests fail on the pins; with the reference patch
    every recorded test passes. The project's own interpreter has what its tests import (absl)."""
    task = upgrade.find("tree-math-0.2.0", TASKS)
    home = tmp_path / "home"
    python = Path(sys.executable)
    untouched = upgrade.extract(task, home, tmp_path / "untouched")
    before = upgrade.grade(task, untouched, home, python=python)
    assert not before.solved and before.failing and before.changed_lines == 0
    patched = upgrade.extract(task, home, tmp_path / "patched")
    upgrade.apply_patch(task.reference_patch, patched)
    after = upgrade.grade(task, patched, home, python=python)
    assert after.solved and after.passed == len(task.passing_tests()) and after.changed_lines > 0


def test_a_missing_task_and_a_bad_file_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(upgrade.EvalError, match="no task 'nope'"):
        upgrade.find("nope", TASKS)
    bad = tmp_path / "tasks.toml"
    bad.write_text("[now\n")
    with pytest.raises(upgrade.EvalError, match="tasks.toml"):
        upgrade.load(bad)
