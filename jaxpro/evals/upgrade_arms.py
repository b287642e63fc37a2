"""Agentic arms on the codebase-upgrade tasks: lay out one folder per task with the untouched release,
the user's request and the tests to make pass; grade each folder and total what the arm spent.

The baseline arm reads nothing but its task folders; the bundle arm also has the plugin (as a user
installs it, without evals/, tests/, dev/, docsite/) and runs its PostToolUse hook after every write
(after_write.sh, as in jaxpro/evals/arms.py). Both may run code with the grading interpreter, and log
each run (`RUN`), each read outside the task (`READ path first-last`) and the start and end times
(`START`/`END` with `date +%s`) in the task's LOG.md.
"""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals import arms
from jaxpro.evals import upgrade
from jaxpro.repo import REPO

PROMPT = """\
This folder holds `{package}` {version}, a JAX library as released on {released}, unchanged. Make it
work on the JAX stack installed here (jax 0.12.0.1, jaxlib 0.12.0.1, flax 0.12.12, optax 0.2.8,
chex 0.1.92, numpy 2.5.5): every test listed in `TESTS.txt` (the ones that passed on the JAX of its day)
must pass with DeprecationWarning treated as an error, and the package must keep its behaviour. Edit
the package in place; do not delete, skip or weaken tests. Run the tests from this folder with

    XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=. {python} -m pytest -q -p no:cacheprovider -W error::DeprecationWarning @TESTS.txt
"""
BRIEF = """\
# Brief: {arm} arm, codebase upgrades

You are a coding assistant doing {count} jobs, one per folder under `tasks/`. Each folder holds an old
release of a JAX package and `PROMPT.md`, the user's exact request. Do each job in its folder.

{plugin}Rules of this arm (you may run code):
- At the start of each job append `START <output of date +%s>` to the task's `LOG.md`, and `END <date +%s>`
  when you are done with it.
- Run Python only as `{python}`, from inside the task's folder. Before each command that runs code,
  append one line `RUN <command>` to the task's `LOG.md`.
{hook}- Each time you read a file outside `tasks/`, append one line `READ <path> <first line>-<last line>` to the
  task's `LOG.md` (the lines you read; the whole file is `1-<its length>`).
- Read nothing outside `tasks/`{reach} (no other folder on this machine, no web, no installed package
  sources); running code that imports the libraries (help(), dir(), inspect of signatures) is allowed.
- Do every job; do not stop at one.
"""
PLUGIN = """\
You have the jax-pro plugin installed at `plugin/`. The client shows you its skills and agent by name and
description only:

{skills}

Read a skill's SKILL.md only when its description matches the job, then only the files and sections it
routes you to, as you need them; its scripts may be run like any code (log them as RUN).

"""


def prepare(tasks: list[upgrade.UpgradeTask], arm: str, out: Path, home: Path) -> Path:
    """Lay out ARM under OUT (which must not exist); returns the brief's path."""
    if arm not in ("baseline", "bundle"):
        raise EvalError(f"arm {arm!r}: the arms are baseline and bundle")
    if out.exists():
        raise EvalError(f"{out} exists; give a new folder, so that no earlier work is mixed in")
    python = upgrade.now_python(home)
    for task in tasks:
        folder = upgrade.extract(task, home, out / "tasks" / task.id)
        (folder / "TESTS.txt").write_text("\n".join(task.passing_tests()) + "\n", encoding="utf-8")
        (folder / "PROMPT.md").write_text(PROMPT.format(package=task.package, version=task.version,
                                                        released=task.released, python=python), encoding="utf-8")
    plugin = hook = reach = ""
    if arm == "bundle":
        shutil.copytree(REPO, out / "plugin", ignore=shutil.ignore_patterns(*arms.NOT_SHIPPED), symlinks=False)
        wrapper = out / "after_write.sh"
        wrapper.write_text(arms.AFTER_WRITE.format(venv=python.parent.parent,
                                                   hook=out / "plugin/hooks/check_written_file.sh"), encoding="utf-8")
        plugin = PLUGIN.format(skills="\n".join(f"- **{name}**: {text}" for name, text in arms.components()))
        hook = arms.HOOK_RULE.format(wrapper=wrapper)
        reach = " and `plugin/`"
    brief = out / "BRIEF.md"
    brief.write_text(BRIEF.format(arm=arm, count=len(tasks), plugin=plugin, python=python, hook=hook, reach=reach),
                     encoding="utf-8")
    manifest = {"arm": arm, "tasks": [task.id for task in tasks], "commit": arms._commit(), "prepared": arms._now()}
    (out / "arm.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return brief


def wall_seconds(log: Path) -> int | None:
    """END minus START of a task's LOG.md (the first START, the last END), or None when either is missing."""
    starts, ends = [], []
    for line in log.read_text(encoding="utf-8").splitlines() if log.is_file() else []:
        kind, _, value = line.partition(" ")
        if kind in ("START", "END") and value.strip().isdigit():
            (starts if kind == "START" else ends).append(int(value))
    return ends[-1] - starts[0] if starts and ends else None


def grade_arm(folder: Path, tasks: list[upgrade.UpgradeTask], home: Path) -> list[dict]:
    """Grade every task folder of an arm and add what the arm spent on it (runs, plugin reads, seconds)."""
    spent = arms.usage(folder / "tasks", reads_under="plugin/")
    rows = []
    for task in tasks:
        tree = folder / "tasks" / task.id
        if not tree.is_dir():
            continue
        grade = upgrade.grade(task, tree, home).as_dict()
        used = spent.get(task.id, {"runs": 0, "lines_read": 0, "chars_read": 0})
        grade.update(runs=used["runs"], plugin_lines_read=used["lines_read"], plugin_chars_read=used["chars_read"],
                     wall_s=wall_seconds(tree / "LOG.md"), half=task.half)
        rows.append(grade)
    return rows


def summary_row(arm: str, rows: list[dict]) -> str:
    """One Markdown table row of an arm's totals: solved, old forms left, lines changed, code runs, plugin
    characters read (total and median per task) and wall time (median per task, minutes)."""
    chars = [row["plugin_chars_read"] for row in rows]
    walls = [row["wall_s"] for row in rows if row["wall_s"] is not None] or [0]
    return (f"| {arm} | {sum(row['solved'] for row in rows)} / {len(rows)} | {sum(row['old_forms'] for row in rows)} | "
            f"{sum(row['changed_lines'] for row in rows)} | {sum(row['runs'] for row in rows)} | "
            f"{sum(chars):,} / {statistics.median(chars):,.0f} | {statistics.median(walls) / 60:.1f} |")


def keep(folder: Path, tasks: list[upgrade.UpgradeTask], home: Path, into: Path) -> None:
    """Copy an arm's record into INTO without the packages' code: per task its LOG.md and the arm's
    changes as a unified diff against the untouched release (`changes.patch`), plus BRIEF.md and arm.json."""
    into.mkdir(parents=True, exist_ok=True)
    for name in ("BRIEF.md", "arm.json"):
        shutil.copy(folder / name, into / name)
    for task in tasks:
        tree = folder / "tasks" / task.id
        if not tree.is_dir():
            continue
        target = into / "tasks" / task.id
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(tree / "LOG.md", target / "LOG.md")
        (target / "changes.patch").write_text(upgrade.unified_diff(task, home, tree), encoding="utf-8")
