"""Write the site's Markdown sources under build/site-src: nothing generated is kept in the repo."""

from __future__ import annotations

import shutil
from pathlib import Path

from docsite import RECORDS, REPO, STAGE
from docsite.answers import PAGE as ANSWERS_PAGE
from docsite.answers import RESULTS, answers_page
from docsite.generate import example_page, help_texts, programs, script_page
from docsite.records import RecordProblem, load
from docsite.render import render_page
from docsite.tasks import skills, task_page
from mdexec.document import read_blocks


class StageFailed(Exception):
    """One or more pages cannot be built; the message has one line per problem."""


def executed_pages() -> list[Path]:
    """The Markdown files the test run executes and the site shows, with their outputs."""
    pages = [REPO / "README.md", REPO / "mdexec/README.md"]
    pages += [skill / "SKILL.md" for skill in skills()]
    pages += sorted((REPO / "agents").glob("*.md")) + sorted((REPO / "references").glob("*.md"))
    return pages


def plain_pages() -> list[Path]:
    """Pages shown as they are: they hold results or instructions, no Python blocks to record."""
    return [REPO / "CONTRIBUTING.md", REPO / "results/doctest_benchmark.md", REPO / "evals/README.md",
            REPO / "evals/answers/README.md"]


IMAGES = [REPO / "lift.svg"]  # shown by the pages, copied beside them


def stage(target: Path = STAGE, records: Path = RECORDS, answers: Path = RESULTS) -> list[Path]:
    """Write every page under `target`; raise StageFailed naming each page that cannot be built."""
    if target.exists():
        shutil.rmtree(target)
    problems: list[str] = []
    written: list[Path] = []

    def write(relative: str, text: str) -> None:
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    for source in executed_pages():
        try:
            record = load(source, records) if read_blocks(source) else None
        except RecordProblem as problem:
            problems.append(str(problem))
            continue
        write(source.relative_to(REPO).as_posix(), render_page(source.read_text(encoding="utf-8"), record))
    try:
        write(ANSWERS_PAGE, answers_page(answers))
    except RecordProblem as problem:
        problems.append(str(problem))
    if problems:
        raise StageFailed("\n".join(problems))
    for source in plain_pages():
        write(source.relative_to(REPO).as_posix(), source.read_text(encoding="utf-8"))
    for image in IMAGES:
        shutil.copy(image, target / image.relative_to(REPO))
    for skill in skills():
        write(f"tasks/{skill.name}.md", task_page(skill))
    examples, scripts = programs("examples"), programs("scripts")
    helps = help_texts(examples + scripts)
    for path in examples:
        write(f"examples/{path.stem}.md", example_page(path, helps[path]))
    for path in scripts:
        write(f"scripts/{path.stem}.md", script_page(path, helps[path]))
    (target / "stylesheets").mkdir(exist_ok=True)
    shutil.copy(Path(__file__).with_name("extra.css"), target / "stylesheets/extra.css")
    return written
