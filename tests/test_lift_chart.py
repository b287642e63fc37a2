"""The README's chart (lift.svg, drawn by dev/lift_chart.py) and its figures (lift.json) are those of the
measured arms under evals/runs/: recomputed here from the recorded grades and the git history, so the
committed files cannot go stale. Numbers and labels are compared, not pixels."""

from __future__ import annotations

import json
import re
import subprocess
from xml.etree import ElementTree

import pytest

from bundle import REPO
from jaxpro.evals.lift import figures, latest, split

DATA = json.loads((REPO / "lift.json").read_text(encoding="utf-8"))
REDRAW = "rerun `python dev/lift_chart.py` and commit lift.json and lift.svg"


def test_the_figures_are_those_of_the_latest_recorded_arms():
    baseline, bundle = latest()
    assert DATA["arms"] == {arm.arm: arm.folder.relative_to(REPO).as_posix() for arm in (baseline, bundle)}, REDRAW
    tasks = sorted(set(baseline.grades) & set(bundle.grades))
    tuned = {task: DATA["tuned_on"].get(task, "") for task in tasks}
    assert sorted([*DATA["tuned_on"], *DATA["held_out"]]) == tasks, REDRAW
    assert figures(baseline, bundle, tuned) == DATA["figures"], REDRAW
    assert DATA["figures"][-1]["tasks"] == len(tasks) and all(DATA["tuned_on"].values())


def test_the_split_is_what_the_rule_gives_on_the_git_history():
    known = subprocess.run(["git", "cat-file", "-e", f"{DATA['plugin_commit']}^{{commit}}"], cwd=REPO,
                           capture_output=True)
    if known.returncode:
        pytest.skip(f"no git history holding the plugin commit {DATA['plugin_commit'][:7]} (a copy or a shallow clone)")
    tasks = sorted([*DATA["tuned_on"], *DATA["held_out"]])
    assert split(tasks, DATA["plugin_commit"]) == {t: DATA["tuned_on"].get(t, "") for t in tasks}, REDRAW


def test_the_svg_labels_each_bar_with_its_figure():
    root = ElementTree.parse(REPO / "lift.svg").getroot()
    texts = [node.text for node in root.iter("{http://www.w3.org/2000/svg}text")]
    bars = sorted(t for t in texts if t and re.fullmatch(r"\d+/\d+", t))
    expected = sorted(f"{row[key][arm]}/{row['tasks']}" for row in DATA["figures"] for key in ("passed", "clean")
                      for arm in ("baseline", "bundle"))
    assert bars == expected, REDRAW
    for row in DATA["figures"]:
        assert f"{row['set']} ({row['tasks']} tasks)" in texts, REDRAW


def test_the_readme_shows_the_chart():
    assert re.search(r"!\[[^\]]+\]\(lift\.svg\)", (REPO / "README.md").read_text(encoding="utf-8"))
