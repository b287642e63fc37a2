"""Helper-run arms: answers written by assistants that are not driven through a client's CLI (for example
sub-agents of a coding session), without credentials, and the comparison of two arms.

`prepare` lays out one folder per task under OUT/tasks/ (the task's start files, and PROMPT.md with the
exact prompt) and a BRIEF.md that the assistant follows. In the `baseline` arm the brief gives nothing to
read and no code to run. In the `bundle` arm OUT/plugin/ holds the plugin as a user installs it, minus
what would reveal the answers (evals/, tests/, dev/, docsite/ and the build and tool folders), and the
brief lists the skills and the agent by name and description, as the client shows them: a skill's
SKILL.md is read only when its description matches the task, then what it routes to.

Grade an arm with `dev/answer_eval.py --grade OUT/tasks --record OUT/grades.json`; compare two with
`--compare OUT_A OUT_B`.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
import subprocess
from pathlib import Path

import yaml

from jaxpro.evals import EvalError
from jaxpro.evals.sessions import ARMS
from jaxpro.evals.tasks import SKILLS, Task
from jaxpro.repo import REPO

NOT_SHIPPED = ("evals", "tests", "dev", "docsite", "jaxpro", "build", "dist", "results", ".git", ".venv", ".tools",
               "__pycache__", "*.egg-info", ".pytest_cache")
BRIEF = {
    "baseline": """\
# Brief: baseline arm

You are a coding assistant answering {count} requests, one per folder under `tasks/`. Each folder has
`PROMPT.md`, the user's exact request, and may hold files the user gave you. Write the answer file the
prompt names into that folder, as the user would receive it.

Rules of this arm:
- Use only what you know. Read nothing but the files in `tasks/` (no other folder on this machine, no
  web, no installed package sources).
- Do not run any code (no Python, no shell commands that execute it); write the answer only.
- Answer every task; do not stop at one.
""",
    "bundle": """\
# Brief: bundle arm

You are a coding assistant answering {count} requests, one per folder under `tasks/`. Each folder has
`PROMPT.md`, the user's exact request, and may hold files the user gave you. Write the answer file the
prompt names into that folder, as the user would receive it.

You have the jax-pro plugin installed at `plugin/`. The client shows you its skills and agent by name
and description only:

{skills}

Rules of this arm:
- For each task, decide from these descriptions alone which skill matches. Read that skill's
  `plugin/skills/<name>/SKILL.md` only then, and after it the files it routes you to (references,
  examples, scripts) as you need them. Read nothing else outside `tasks/` and `plugin/` (no other
  folder on this machine, no web, no installed package sources).
- Do not run any code (no Python, no shell commands that execute it); write the answer only.
- Answer every task; do not stop at one.
""",
}


def components() -> list[tuple[str, str]]:
    """(name, description) of each skill and the agent, from their front matter, as the client lists them."""
    found = []
    for path in [*sorted((REPO / "skills").glob("*/SKILL.md")), *sorted((REPO / "agents").glob("*.md"))]:
        front = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])
        kind = "skill" if path.name == "SKILL.md" else "agent"
        found.append((f"{front['name']} ({kind})", " ".join(str(front["description"]).split())))
    return found


def prepare(tasks: list[Task], arm: str, out: Path) -> Path:
    """Lay out an arm under `out` (which must not exist yet); returns the brief's path."""
    if arm not in ARMS:
        raise EvalError(f"--prepare {arm}: the arms are {', '.join(ARMS)}")
    if out.exists():
        raise EvalError(f"--out {out}: already exists; give a new folder, so that no earlier answer is mixed in")
    for task in tasks:
        folder = out / "tasks" / task.id
        start = task.path / "start"
        if start.is_dir():
            shutil.copytree(start, folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "PROMPT.md").write_text(task.prompt(), encoding="utf-8")
    skills = ""
    if arm == "bundle":
        shutil.copytree(REPO, out / "plugin", ignore=shutil.ignore_patterns(*NOT_SHIPPED), symlinks=False)
        skills = "\n".join(f"- **{name}**: {description}" for name, description in components())
    brief = out / "BRIEF.md"
    brief.write_text(BRIEF[arm].format(count=len(tasks), skills=skills), encoding="utf-8")
    manifest = {"arm": arm, "tasks": [task.id for task in tasks], "prepared": _now(), "commit": _commit(),
                "not_shipped_in_plugin": list(NOT_SHIPPED) if arm == "bundle" else None}
    (out / "arm.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return brief


@dataclasses.dataclass(frozen=True)
class ArmGrades:
    """One arm's recorded grades (`--grade DIR/tasks --record DIR/grades.json`) and its description."""

    folder: Path
    arm: str
    grades: dict[str, dict]

    @classmethod
    def read(cls, folder: Path) -> ArmGrades:
        record = folder / "grades.json"
        if not record.is_file():
            raise EvalError(f"{record}: missing; grade the arm first: dev/answer_eval.py --grade {folder}/tasks "
                            f"--record {record}")
        data = json.loads(record.read_text(encoding="utf-8"))
        arm = json.loads((folder / "arm.json").read_text(encoding="utf-8"))["arm"] if (folder / "arm.json").is_file() else folder.name
        return cls(folder, arm, {grade["task"]: grade for grade in data["grades"]})


RUNS = REPO / "evals" / "runs"  # committed arms: <date>-<arm>/ with tasks/, grades.json, arm.json, run.json


def latest_runs(runs: Path = RUNS) -> tuple[ArmGrades, ArmGrades] | None:
    """The newest date that has both a baseline and a bundle arm under `runs`, as (baseline, bundle)."""
    found: dict[str, dict[str, Path]] = {}
    for folder in sorted(runs.glob("*-*")) if runs.is_dir() else []:
        date, _, arm = folder.name.rpartition("-")
        if arm in ARMS and (folder / "grades.json").is_file():
            found.setdefault(date, {})[arm] = folder
    complete = [date for date, arms in found.items() if set(arms) == set(ARMS)]
    if not complete:
        return None
    newest = found[max(complete)]
    return ArmGrades.read(newest["baseline"]), ArmGrades.read(newest["bundle"])


def run_description(arm: ArmGrades) -> dict:
    """The arm's run.json: who wrote the answers (client, model), how it was run, how blindness was kept."""
    path = arm.folder / "run.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def compare_rows(tasks: list[Task], first: ArmGrades, second: ArmGrades) -> list[list[object]]:
    """Per task: its skill, whether it rests on the API delta, and each arm's verdict."""
    return [[task.id, task.skill, "yes" if "delta" in task.meta else "", _verdict(first.grades.get(task.id)),
             _verdict(second.grades.get(task.id))] for task in tasks]


def rate_rows(tasks: list[Task], first: ArmGrades, second: ArmGrades) -> list[list[object]]:
    """Per skill, for the delta tasks, and in total: tasks, pass and clean-pass counts of both arms and
    the differences (second minus first)."""
    groups = [(skill, [t for t in tasks if t.skill == skill]) for skill in SKILLS]
    groups += [("delta tasks", [t for t in tasks if "delta" in t.meta]), ("all", tasks)]
    rows = []
    for name, group in groups:
        if not group:
            continue
        counts = [sum(_passed(arm.grades.get(t.id), clean) for t in group)
                  for clean in (False, True) for arm in (first, second)]
        rows.append([name, len(group), f"{counts[0]} → {counts[1]} ({counts[1] - counts[0]:+d})",
                     f"{counts[2]} → {counts[3]} ({counts[3] - counts[2]:+d})",
                     f"{counts[2] / len(group):.0%} → {counts[3] / len(group):.0%}"])
    return rows


def lost(tasks: list[Task], first: ArmGrades, second: ArmGrades) -> list[str]:
    """Tasks the first arm clean-passes and the second does not."""
    return [t.id for t in tasks if _passed(first.grades.get(t.id), True) and not _passed(second.grades.get(t.id), True)]


def _passed(grade: dict | None, clean: bool) -> bool:
    return bool(grade) and grade["status"] == "passed" and not (clean and grade.get("findings"))


def _verdict(grade: dict | None) -> str:
    if grade is None:
        return "not graded"
    if grade["status"] != "passed":
        return grade["status"]
    return "clean pass" if not grade.get("findings") else "pass, not clean"


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"
