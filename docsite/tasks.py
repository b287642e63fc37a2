"""Navigation by task: a page per skill made from its routing tables, and the site's nav tree."""

from __future__ import annotations

import os
import re
from pathlib import Path

from docsite import REPO
from docsite.generate import programs

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def skills() -> list[Path]:
    """Skill folders in the order the README introduces them (any others after, by name)."""
    found = sorted(p.parent for p in (REPO / "skills").glob("*/SKILL.md"))
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    order = re.findall(r"skill `([\w-]+)`", readme)
    return sorted(found, key=lambda p: (order.index(p.name) if p.name in order else len(order), p.name))


def routing_tables(text: str) -> list[list[list[str]]]:
    """Each table whose header names what to load or run, as rows of raw Markdown cells."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    in_fence = False
    for line in [*text.splitlines(), ""]:
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if not in_fence and line.startswith("|"):
            current.append(split_row(line))
            continue
        if len(current) > 2 and re.search(r"\b(load|run)\b", " ".join(current[0]), re.I):
            tables.append([current[0], *current[2:]])  # drop the `| --- |` row
        current = []
    return tables


def split_row(line: str) -> list[str]:
    """The cells of a table row; a `|` inside a code span or escaped does not split."""
    cells, cell, in_code = [], "", False
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    for index, char in enumerate(body):
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code and (index == 0 or body[index - 1] != "\\"):
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
    cells.append(cell.strip())
    return cells


def task_page(skill: Path) -> str:
    """The skill's routing tables as a page under tasks/, with links made relative to it."""
    text = (skill / "SKILL.md").read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", text, re.M)
    heading = title.group(1) if title else skill.name
    out = [
        f"# {heading}",
        "",
        f"Tasks from the routing table of the [`{skill.name}` skill](../skills/{skill.name}/SKILL.md): "
        "find the task, then read the page or run the program it names.",
        "",
    ]
    for table in routing_tables(text):
        for row in table:
            out.append("| " + " | ".join(_relink(cell, skill) for cell in row) + " |")
            if row is table[0]:
                out.append("|" + " --- |" * len(row))
        out.append("")
    return "\n".join(out)


def _relink(cell: str, skill: Path) -> str:
    """Rewrite relative links written from skills/<name>/ so they work from tasks/."""

    def move(match: re.Match) -> str:
        target, sep, anchor = match.group(1).partition("#")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or not target:
            return match.group(0)
        moved = os.path.relpath(os.path.normpath(skill / target), REPO / "tasks")
        return f"]({Path(moved).as_posix()}{sep}{anchor})"

    return _LINK.sub(move, cell)


def nav() -> list:
    """The site's navigation: home, tasks by skill, skills and agent, references, examples, scripts, the harness,
    the evals and the contributor's guide."""
    references = sorted((REPO / "references").glob("*.md"))
    return [
        {"Home": "README.md"},
        {"By task": [f"tasks/{skill.name}.md" for skill in skills()]},
        {"Skills and agent": [{skill.name: f"skills/{skill.name}/SKILL.md"} for skill in skills()]
         + [{f"agent {agent.stem}": f"agents/{agent.name}"} for agent in sorted((REPO / "agents").glob("*.md"))]},
        {"References": [f"references/{path.name}" for path in references]},
        {"Examples": [f"examples/{path.stem}.md" for path in programs("examples")]},
        {"Scripts": [f"scripts/{path.stem}.md" for path in programs("scripts")]},
        {"Doc-test harness": ["mdexec/README.md", "results/doctest_benchmark.md"]},
        {"Evals": [{"Trigger and answer evals": "evals/README.md"}, {"Answer evals: format": "evals/answers/README.md"},
                   {"Answer evals: the tasks": "evals/answer_tasks.md"}]},
        {"Contributing": "CONTRIBUTING.md"},
    ]
