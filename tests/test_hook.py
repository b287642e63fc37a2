"""The plugin's hook (hooks/), run as Claude Code runs it: `sh check_written_file.sh` with the event on stdin.

Each test gives a fresh cache and state folder (XDG_CACHE_HOME) and a project folder; the project's
interpreter is this repository's .venv, passed as VIRTUAL_ENV, as an activated virtualenv would be.
The real client driving the installed hook is in tests/test_installed_plugin.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bundle import REPO

HOOK = REPO / "hooks" / "check_written_file.sh"
OLD_FORM = "import jax\n\ndef step(tree):\n    return jax.tree_map(lambda a: a * 2, tree)\n"
CLEAN = "import jax\n\ndef step(tree):\n    return jax.tree.map(lambda a: a * 2, tree)\n"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module, so that only the first check imports the libraries; sessions differ per test."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def project(tmp_path: Path, cache: Path, request: pytest.FixtureRequest) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (tmp_path / "cache").symlink_to(cache)
    (tmp_path / "session").write_text(request.node.name.replace("[", "_").replace("]", "").replace("-", "_")[:90])
    return folder


def run_hook(project: Path, event: dict, **env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ["PATH"], "HOME": str(project.parent), "XDG_CACHE_HOME": str(project.parent / "cache"),
            "VIRTUAL_ENV": str(Path(sys.executable).parent.parent), "CLAUDE_PROJECT_DIR": str(project)}
    session = (project.parent / "session").read_text()
    event = {"session_id": session, "cwd": str(project), **event}
    return subprocess.run(["sh", str(HOOK)], input=json.dumps(event), capture_output=True, text=True, cwd=project,
                          env={**base, **env}, timeout=120)


def write_event(path: Path, tool: str = "Write") -> dict:
    return {"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": {"file_path": str(path)}}


def context(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""


def test_an_old_form_is_reported_with_its_replacement(project: Path):
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    text = context(run_hook(project, write_event(project / "model.py", "Edit")))
    assert "model.py" in text and "line 4" in text and "jax.tree_map" in text
    assert "jax.tree.map" in text or "jax.tree_util.tree_map" in text, text


@pytest.mark.parametrize(("name", "source"), [("clean.py", CLEAN), ("plain.py", "import numpy\nprint(1)\n"),
                                              ("notes.md", "import jax\njax.tree_map\n")])
def test_a_clean_file_or_one_that_is_not_jax_code_gives_nothing(project: Path, name: str, source: str):
    (project / name).write_text(source, encoding="utf-8")
    done = run_hook(project, write_event(project / name))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


def test_files_outside_the_project_are_left_alone(project: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere.py"
    outside.write_text(OLD_FORM, encoding="utf-8")
    assert run_hook(project, write_event(outside)).stdout == ""


def test_the_environment_variable_turns_it_off(project: Path):
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    assert run_hook(project, write_event(project / "model.py"), JAX_PRO_HOOK="off").stdout == ""


def test_it_writes_nothing_in_the_project(project: Path):
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    assert context(run_hook(project, write_event(project / "model.py")))
    assert sorted(p.name for p in project.rglob("*")) == ["model.py"]


def test_a_failing_checker_is_silent_and_logged(project: Path):
    """An interpreter that cannot run the checker (here: one that exits at once) says nothing to the assistant."""
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    fake_env = project.parent / "broken-env"
    (fake_env / "bin").mkdir(parents=True)
    (fake_env / "bin" / "python").write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    (fake_env / "bin" / "python").chmod(0o755)
    done = run_hook(project, write_event(project / "model.py"), VIRTUAL_ENV=str(fake_env))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert f"{fake_env}/bin/python exited with 3" in (project.parent / "cache/jax-pro/hook/hook.log").read_text(encoding="utf-8")
    (project / "model.py").write_text("import jax\n" + "x = (" * 300 + "1" + ")" * 300 + "\n", encoding="utf-8")
    done = run_hook(project, write_event(project / "model.py"))
    assert done.returncode == 0 and done.stdout == "", done.stdout


def test_without_jax_it_says_so_once(project: Path, tmp_path: Path):
    """An interpreter without jax: only the data file is checked, and the hook says so once per conversation."""
    bare = tmp_path / "bare-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    first = context(run_hook(project, write_event(project / "model.py"), VIRTUAL_ENV=str(bare)))
    second = context(run_hook(project, write_event(project / "model.py"), VIRTUAL_ENV=str(bare)))
    assert "jax does not import" in first and "jax does not import" not in second


def test_stop_names_files_that_still_hold_findings_once(project: Path):
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    assert context(run_hook(project, write_event(project / "model.py")))
    stop = {"hook_event_name": "Stop", "stop_hook_active": False}
    first = run_hook(project, stop)
    assert json.loads(first.stdout)["decision"] == "block" and "model.py" in first.stdout
    assert run_hook(project, stop).stdout == "", "the same findings never block twice"
    assert run_hook(project, {**stop, "stop_hook_active": True}).stdout == ""


def test_stop_is_quiet_once_the_file_is_fixed(project: Path):
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    assert context(run_hook(project, write_event(project / "model.py")))
    (project / "model.py").write_text(CLEAN, encoding="utf-8")
    assert context(run_hook(project, write_event(project / "model.py"))) == ""
    assert run_hook(project, {"hook_event_name": "Stop", "stop_hook_active": False}).stdout == ""


def test_reported_kinds_are_those_measured_precise_enough():
    """hooks/reported_kinds.json lists the finding kinds whose test-half precision is at least 0.97."""
    results = REPO / "evals" / "field" / "results.json"
    kinds = set(json.loads((REPO / "hooks" / "reported_kinds.json").read_text(encoding="utf-8"))["kinds"])
    if not results.is_file():
        pytest.fail("evals/field/results.json is missing: the hook's kinds must come from a measurement")
    measured = json.loads(results.read_text(encoding="utf-8"))
    precise = {kind for kind, row in measured["test"]["kinds"].items() if row["precision"] >= 0.97}
    assert kinds == precise, (kinds, precise)
