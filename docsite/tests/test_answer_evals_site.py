"""After the main run: each answer-eval task is answerable from the bundle, and its site page builds.

The main run records every Markdown block's outcome (build/records) and the gradings of the reference
and wrong answers (build/answer_evals); this file reads them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from docsite import REPO
from docsite.answers import RESULTS, all_tasks, answers_page, gradings
from docsite.records import RecordProblem, load
from jaxpro.anchors import headings
from jaxpro.evals.tasks import load_tasks, task_folders

TASK_IDS = [folder.name for folder in task_folders()]
EXECUTED = ("passed", "raised")  # mdexec: ran and did what it declares (`raised` = its declared error)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_the_section_that_answers_the_task_has_executed_blocks_that_pass(task_id: str):
    (task,) = load_tasks([task_id])
    file, _, anchor = task.meta["bundle"]["section"].partition("#")
    source = REPO / file
    record = load(source)  # refuses a missing or stale record, or one with any failed block
    (heading,) = [h for h in headings(source) if h.anchor == anchor]
    statuses = {line: block["status"] for line, block in record.blocks.items() if heading.line < line <= heading.end}
    assert any(status in EXECUTED for status in statuses.values()), (
        f"{file}#{anchor} (lines {heading.line}-{heading.end}) has no executed block: {statuses}")
    assert all(status in (*EXECUTED, "skipped") for status in statuses.values()), statuses


def test_the_tasks_page_shows_every_task_with_its_latest_grading():
    page = answers_page()
    graded = gradings()
    tasks = all_tasks()
    for task in tasks:
        assert f"\n## {task.id}\n" in page and task.meta["source"]["url"] in page
        assert f"](../{task.meta['bundle']['section']})" in page
        assert f"| {graded['reference']['grades'][task.id]['status']}" in page.split(f"[{task.id}](#{task.id})")[1].splitlines()[0]
    assert f"**{len(tasks)} of {len(tasks)} reference answers pass**" in page


def test_missing_or_stale_gradings_stop_the_page_with_what_to_do(tmp_path: Path):
    with pytest.raises(RecordProblem, match="no grading of the reference answers .* is missing.*run the test command first"):
        gradings(tmp_path)
    for name in ("reference", "wrong"):
        shutil.copy(RESULTS / f"{name}.json", tmp_path / f"{name}.json")
    data = json.loads((tmp_path / "wrong.json").read_text(encoding="utf-8"))
    data["grades"][0]["digest"] = "0" * 64
    (tmp_path / "wrong.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordProblem, match=f"has no grading of the current {data['grades'][0]['task']} "):
        gradings(tmp_path)


def test_the_tasks_page_quotes_the_latest_measured_arms():
    """The newest baseline/bundle pair under evals/runs/: who wrote the answers, and pass and clean-pass
    per skill, on the delta tasks and in total, as `dev/answer_eval.py --compare` computes them."""
    from jaxpro.evals import arms

    baseline, bundle = arms.latest_runs()
    page = answers_page()
    assert "## The lift, measured" in page and baseline.folder.name in page and bundle.folder.name in page
    assert arms.run_description(bundle)["writer"] in page and arms.run_description(baseline)["blindness"] in page
    rows = arms.rate_rows(all_tasks(), baseline, bundle)
    for row in rows:
        assert f"| {' | '.join(str(cell) for cell in row)} |" in page
    assert [row[0] for row in rows][-2:] == ["delta tasks", "all"]
