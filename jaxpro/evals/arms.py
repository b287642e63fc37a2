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


AGENTIC_RULES = """\
Rules of this arm (agentic: you may run code):
- Run Python only as `{python}` (the pinned libraries), from inside the task's folder. Before each command
  that runs code, append one line `RUN <command>` to the task's `LOG.md`.
{hook}- Each time you read a file outside `tasks/`, append one line `READ <path> <first line>-<last line>` to the
  task's `LOG.md` (the lines you read; the whole file is `1-<its length>`).
- Read nothing outside `tasks/`{reach} (no other folder on this machine, no web, no installed package
  sources); running code that imports the libraries is allowed.
- Answer every task; do not stop at one.
"""
HOOK_RULE = """\
- After every write of a `.py` file, run `sh {wrapper} <that file>` (not a code run: do not log it) and read
  what it prints, as the client would show you its hook's output.
"""
AFTER_WRITE = """\
#!/bin/sh
# What Claude Code does after a Write or Edit: the plugin's PostToolUse hook with the event on stdin; prints
# the context the client would hand to the assistant.
file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
event=$(printf '{{"session_id":"arm","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{{"file_path":"%s"}}}}' "$(dirname "$file")" "$file")
printf '%s' "$event" | VIRTUAL_ENV={venv} CLAUDE_PROJECT_DIR="$(dirname "$file")" sh {hook} | {venv}/bin/python -c '
import json, sys
out = sys.stdin.read()
print(json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else "hook: nothing to report")'
"""


def agentic_brief(brief: str, arm: str, out: Path, python: Path) -> str:
    """The one-shot brief with its rules replaced by those of an agentic arm (and the hook, for the bundle)."""
    head = brief.split("Rules of this arm:")[0]
    hook = ""
    if arm == "bundle":
        wrapper = out / "after_write.sh"
        wrapper.write_text(AFTER_WRITE.format(venv=python.parent.parent, hook=out / "plugin/hooks/check_written_file.sh"),
                           encoding="utf-8")
        hook = HOOK_RULE.format(wrapper=wrapper)
        head += ("Read a skill's SKILL.md only when its description matches the task, then only the files and "
                 "sections it routes you to, as you need them.\n\n")
    reach = " and `plugin/`" if arm == "bundle" else ""
    return head + AGENTIC_RULES.format(python=python, hook=hook, reach=reach)


def components() -> list[tuple[str, str]]:
    """(name, description) of each skill and the agent, from their front matter, as the client lists them."""
    found = []
    for path in [*sorted((REPO / "skills").glob("*/SKILL.md")), *sorted((REPO / "agents").glob("*.md"))]:
        front = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])
        kind = "skill" if path.name == "SKILL.md" else "agent"
        found.append((f"{front['name']} ({kind})", " ".join(str(front["description"]).split())))
    return found


def prepare(tasks: list[Task], arm: str, out: Path, agentic_python: Path | None = None) -> Path:
    """Lay out an arm under `out` (which must not exist yet); returns the brief's path. With
    `agentic_python`, the assistant may run code with that interpreter and logs its runs and reads."""
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
    text = BRIEF[arm].format(count=len(tasks), skills=skills)
    brief.write_text(agentic_brief(text, arm, out, agentic_python) if agentic_python else text, encoding="utf-8")
    manifest = {"arm": arm, "mode": "agentic" if agentic_python else "oneshot", "tasks": [task.id for task in tasks],
                "prepared": _now(), "commit": _commit(),
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


def usage(tasks_dir: Path, reads_under: str | None = None) -> dict[str, dict[str, int]]:
    """Per task, from its LOG.md: code runs, and lines and bytes read outside tasks/ (the arm's own log);
    with `reads_under`, only reads whose path contains it (say "plugin/") count."""
    found = {}
    for log in sorted(tasks_dir.glob("*/LOG.md")):
        runs, lines, size = 0, 0, 0
        for entry in log.read_text(encoding="utf-8").splitlines():
            kind, _, rest = entry.partition(" ")
            if kind == "RUN":
                runs += 1
            elif kind == "READ" and (parts := rest.rsplit(" ", 1)) and "-" in parts[-1]:
                if reads_under and reads_under not in parts[0]:
                    continue
                first, _, last = parts[-1].partition("-")
                path = Path(parts[0]) if Path(parts[0]).is_absolute() else tasks_dir.parent / parts[0]
                text = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []
                chosen = text[int(first) - 1:int(last)] if first.isdigit() and last.isdigit() else []
                lines += len(chosen)
                size += sum(len(line) + 1 for line in chosen)
        found[log.parent.name] = {"runs": runs, "lines_read": lines, "chars_read": size}
    return found
