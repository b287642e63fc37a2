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
OLD_FORM = "import optax\n\n\ndef grad_norm(grads):\n    return optax.global_norm(grads)\n"  # deprecated in optax 0.2.7
CLEAN = OLD_FORM.replace("optax.global_norm", "optax.tree.norm")


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
    assert "model.py" in text and "line 5" in text and "optax.global_norm" in text
    assert "-> optax.tree.norm" in text, text


@pytest.mark.parametrize(("name", "source"), [("clean.py", CLEAN), ("plain.py", "import numpy\nprint(1)\n"),
                                              ("notes.md", OLD_FORM)])
def test_a_clean_file_or_one_that_is_not_jax_code_gives_nothing(project: Path, name: str, source: str):
    (project / name).write_text(source, encoding="utf-8")
    done = run_hook(project, write_event(project / name))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


def test_only_the_kinds_measured_precise_are_reported(project: Path):
    """A version comparison is a `hedge` finding on the command line; the hook passes it on only if hedges
    are among the reported kinds."""
    (project / "probe.py").write_text('import jax\n\nNEW = jax.__version__ >= "0.5"\n', encoding="utf-8")
    kinds = json.loads((REPO / "hooks" / "reported_kinds.json").read_text(encoding="utf-8"))["kinds"]
    command_line = subprocess.run([sys.executable, str(REPO / "scripts/jax_currency_check.py"), str(project / "probe.py")],
                                  capture_output=True, text=True, timeout=120)
    assert " hedge " in command_line.stdout, command_line.stdout
    assert bool(context(run_hook(project, write_event(project / "probe.py")))) == ("hedge" in kinds)


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
    """hooks/reported_kinds.json lists the finding kinds at least 0.97 precise on the field corpus's held-out
    half, over at least 10 labelled findings (a kind with fewer is not measured, so not reported)."""
    rule = json.loads((REPO / "hooks" / "reported_kinds.json").read_text(encoding="utf-8"))
    measured = json.loads((REPO / "evals" / "field" / "results.json").read_text(encoding="utf-8"))
    assert measured["half"] == "test"
    precise = {kind for kind, row in measured["kinds"].items()
               if row["labelled"] >= rule["min_labelled"] and row["precision"] >= rule["min_precision"]}
    assert (rule["min_precision"], rule["min_labelled"]) == (0.97, 10)
    assert set(rule["kinds"]) == precise, (rule["kinds"], precise)


def test_the_readme_shows_what_the_hook_says(project: Path):
    """The README's example is the hook's own context on OLD_FORM, but for the two paths in its last line."""
    (project / "model.py").write_text(OLD_FORM, encoding="utf-8")
    said = context(run_hook(project, write_event(project / "model.py"))).splitlines()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = readme.split("## Checks what the assistant writes", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    plugin_path = f"python {REPO}/scripts/jax_currency_check.py {project}/model.py"
    assert [line.replace(plugin_path, "python <plugin>/scripts/jax_currency_check.py <project>/model.py")
            for line in said] == shown.splitlines()
