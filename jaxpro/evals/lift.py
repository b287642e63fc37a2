"""The lift per set: the latest measured pair of arms (evals/runs/), baseline and bundle, pass and clean-pass,
on the tasks the bundle was tuned on and on those held out from its tuning.

A task is *tuned on* when what the bundle arm read (the plugin at its run.json's `plugin_commit`) may have
been shaped by the task: the section the task names did not exist before the commit that added the task,
or changed between that commit's parent and the plugin commit, or a commit that touched the task's folder
also changed skills/, references/ or agents/. Every other task is *held out*: its section stood, word for
word as the arm read it, before the task was written, and no commit of the task changed the bundle. Edits
elsewhere that a task may have prompted (a SKILL.md routing line, another section) are not seen by the
rule, and every task was chosen knowing that the bundle covers its topic.

The split is read from git history up to the plugin commit, so it never changes once an arm is recorded.
dev/lift_chart.py writes the figures to lift.json and draws lift.svg beside the README;
tests/test_lift_chart.py recomputes both the figures and the split and compares them with lift.json.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
import tomllib
from pathlib import Path

from jaxpro.anchors import headings
from jaxpro.evals import EvalError
from jaxpro.evals.arms import ArmGrades, latest_runs, run_description
from jaxpro.evals.grading import Grade
from jaxpro.repo import REPO

SETS = ("held out", "tuned on", "all")
BUNDLE_FOLDERS = ("skills/", "references/", "agents/")
COMMAND = "python dev/lift_chart.py"


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    if done.returncode:
        raise EvalError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'} (the split needs the git history)")
    return done.stdout


def _history(plugin_commit: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each commit up to `plugin_commit`, oldest first, with the (status, path) it changed under
    evals/answers/ and the bundle's folders."""
    commits: list[tuple[str, list[tuple[str, str]]]] = []
    log = _git("log", "--reverse", "--format=@%H", "--name-status", "--no-renames", plugin_commit, "--",
               "evals/answers", *BUNDLE_FOLDERS)
    for line in log.splitlines():
        if line.startswith("@"):
            commits.append((line[1:], []))
        elif line.strip():
            status, path = line.split("\t", 1)
            commits[-1][1].append((status, path))
    return commits


def _files(wanted: set[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
    """The text of each (commit, path), None where it did not exist; one `git cat-file --batch` for all."""
    order = sorted(wanted)
    done = subprocess.run(["git", "cat-file", "--batch"], cwd=REPO, capture_output=True,
                          input="".join(f"{commit}:{path}\n" for commit, path in order).encode())
    out, position, found = done.stdout, 0, {}
    for key in order:
        header_end = out.index(b"\n", position)
        header = out[position:header_end].decode()
        if header.endswith("missing"):
            found[key], position = None, header_end + 1
            continue
        size = int(header.rsplit(" ", 1)[1])
        found[key] = out[header_end + 1 : header_end + 1 + size].decode("utf-8")
        position = header_end + 1 + size + 1
    return found


@functools.cache
def _sections(text: str) -> dict[str, str]:
    """Each heading anchor of a Markdown text, with the lines of its section."""
    lines = text.splitlines()
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "page.md"
        copy.write_text(text, encoding="utf-8")
        return {h.anchor: "\n".join(lines[h.line - 1 : h.end]) for h in headings(copy)}


def split(tasks: list[str], plugin_commit: str) -> dict[str, str]:
    """Per task, why it counts as tuned on for an arm that read the plugin at `plugin_commit` ("" when held out)."""
    history = _history(plugin_commit)
    added: dict[str, int] = {}
    for index, (_, changes) in enumerate(history):
        for status, path in changes:
            parts = path.split("/")
            if status == "A" and parts[3:] == ["task.toml"] and parts[2] not in added:
                added[parts[2]] = index
    missing = [task for task in tasks if task not in added]
    if missing:
        raise EvalError(f"no commit up to {plugin_commit[:7]} adds the task.toml of {', '.join(missing)}")
    tomls = _files({(plugin_commit, f"evals/answers/{task}/task.toml") for task in tasks})
    section = {task: tomllib.loads(tomls[(plugin_commit, f"evals/answers/{task}/task.toml")] or "")["bundle"]["section"]
               for task in tasks}
    texts = _files({(commit, section[task].partition("#")[0])
                    for task in tasks for commit in (f"{history[added[task]][0]}^", plugin_commit)})
    reasons = {}
    for task in tasks:
        first, file, anchor = history[added[task]][0], *section[task].split("#", 1)
        before, now = (texts[(commit, file)] for commit in (f"{first}^", plugin_commit))
        before_section = _sections(before).get(anchor) if before is not None else None
        together = [commit for commit, changes in history[added[task]:]
                    if any(p.startswith(f"evals/answers/{task}/") for _, p in changes)
                    and any(p.startswith(BUNDLE_FOLDERS) for _, p in changes)]
        if before_section is None:
            reasons[task] = f"{section[task]} did not exist before the task was added ({first[:7]})"
        elif before_section != _sections(now or "").get(anchor):
            reasons[task] = f"{section[task]} changed after the task was added ({first[:7]})"
        elif together:
            reasons[task] = f"commit {together[0][:7]} changed the task and the bundle together"
        else:
            reasons[task] = ""
    return reasons


def figures(baseline: ArmGrades, bundle: ArmGrades, tuned: dict[str, str]) -> list[dict]:
    """Per set: how many tasks, and per arm how many passed and clean-passed."""
    members = {"held out": [t for t, why in tuned.items() if not why], "tuned on": [t for t, why in tuned.items() if why],
               "all": list(tuned)}
    rows = []
    for name in SETS:
        grades = {arm.arm: [Grade(**arm.grades[t]) for t in members[name]] for arm in (baseline, bundle)}
        rows.append({"set": name, "tasks": len(members[name]),
                     "passed": {arm: sum(g.passed for g in found) for arm, found in grades.items()},
                     "clean": {arm: sum(g.clean for g in found) for arm, found in grades.items()}})
    return rows


def latest() -> tuple[ArmGrades, ArmGrades]:
    """The latest recorded pair of arms, (baseline, bundle)."""
    pair = latest_runs()
    if pair is None:
        raise EvalError("evals/runs/ holds no pair of graded baseline and bundle arms")
    return pair


def build() -> dict:
    """Everything lift.json holds: the arms, the plugin commit, the split with its reasons, the figures."""
    baseline, bundle = latest()
    plugin_commit = run_description(bundle).get("plugin_commit")
    if not plugin_commit:
        raise EvalError(f"{bundle.folder}/run.json names no plugin_commit, so the split cannot be made")
    tasks = sorted(set(baseline.grades) & set(bundle.grades))
    tuned = split(tasks, plugin_commit)
    return {
        "command": COMMAND,
        "arms": {arm.arm: arm.folder.relative_to(REPO).as_posix() for arm in (baseline, bundle)},
        "plugin_commit": plugin_commit,
        "figures": figures(baseline, bundle, tuned),
        "tuned_on": {task: why for task, why in tuned.items() if why},
        "held_out": [task for task, why in tuned.items() if not why],
    }
