"""The trigger-eval sets (evals/triggers/) and their runner (dev/trigger_eval.py).

CI has no credentials, so it checks the sets themselves and everything the runner can do offline with
the real client; the live measurement runs only when credentials are given and it is asked for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bundle import AGENTS, REPO, SKILLS, live_run_only
from jaxpro.evals import EvalError
from jaxpro.evals.client import invoked_component, is_agent_call, names_target
from jaxpro.evals.triggers import SPLITS, load_set

RUNNER = REPO / "dev" / "trigger_eval.py"
SETS = REPO / "evals" / "triggers"
COMPONENTS = {p.name for p in SKILLS} | {p.stem for p in AGENTS}
MIN_PER_KIND = 10  # positives and near-miss negatives per component, over both splits
MIN_PER_SPLIT = 4  # each split holds both kinds



def _rows(name: str, split: str) -> list[dict]:
    return json.loads((SETS / f"{name}.{split}.json").read_text(encoding="utf-8"))


def _normal(query: str) -> str:
    return " ".join(query.lower().split())


def test_every_component_has_a_train_and_a_heldout_set_and_nothing_else():
    expected = {f"{name}.{split}.json" for name in COMPONENTS for split in SPLITS}
    assert {p.name for p in SETS.glob("*.json")} == expected


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_sets_have_the_skill_creator_shape(name: str):
    for split in SPLITS:
        rows = load_set(SETS / f"{name}.{split}.json")  # raises on any other shape
        assert rows, f"{name}.{split}.json is empty"


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_enough_positives_and_negatives(name: str):
    splits = {split: _rows(name, split) for split in SPLITS}
    for split, rows in splits.items():
        positives = sum(r["should_trigger"] for r in rows)
        assert min(positives, len(rows) - positives) >= MIN_PER_SPLIT, f"{name}.{split}: {positives} positives of {len(rows)}"
    every = [r for rows in splits.values() for r in rows]
    positives = sum(r["should_trigger"] for r in every)
    assert positives >= MIN_PER_KIND and len(every) - positives >= MIN_PER_KIND


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_no_duplicate_queries_and_no_overlap_between_splits(name: str):
    train = [_normal(r["query"]) for r in _rows(name, "train")]
    heldout = [_normal(r["query"]) for r in _rows(name, "heldout")]
    assert len(set(train)) == len(train) and len(set(heldout)) == len(heldout), "a query repeats within a split"
    assert not set(train) & set(heldout), f"in both splits: {set(train) & set(heldout)}"


def test_a_query_expected_to_trigger_one_skill_never_expects_another():
    """Two skills cannot both be the right route for the same request."""
    skills = {p.name for p in SKILLS}
    owners: dict[str, set[str]] = {}
    for name in skills:
        for split in SPLITS:
            for row in _rows(name, split):
                if row["should_trigger"]:
                    owners.setdefault(_normal(row["query"]), set()).add(name)
    assert not {q: n for q, n in owners.items() if len(n) > 1}


def test_bad_set_is_a_one_line_error(tmp_path: Path):
    bad = tmp_path / "x.train.json"
    bad.write_text('[{"query": "hi", "should_trigger": "yes"}]', encoding="utf-8")
    with pytest.raises(EvalError, match="item 0 must be"):
        load_set(bad)


def test_tool_use_events_name_the_invoked_component():
    """The stream-json shape of a tool call, as the pinned client builds it: type, name, input."""
    skill_call = {"type": "assistant", "message": {"content": [
        {"type": "text", "text": "Loading the skill."},
        {"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "jax-pro:python-jax"}}]}}
    agent_call = {"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t2", "name": "Task", "input": {"subagent_type": "jax-pro:jax-pro", "prompt": "p"}}]}}
    other = {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read", "input": {}}]}}
    assert invoked_component(skill_call) == "jax-pro:python-jax"
    assert invoked_component(agent_call) == "jax-pro:jax-pro"
    assert invoked_component(other) is None
    assert is_agent_call(agent_call) and not is_agent_call(skill_call)
    assert names_target("jax-pro:jax-optimization", "jax-optimization")
    assert not names_target("jax-pro:jax-optimization-pro", "jax-optimization")
    assert not names_target("other-plugin:python-jax", "python-jax")


def _run(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RUNNER), *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_runner_help_and_list_work_offline():
    assert "--check-registration" in _run("--help").stdout
    listing = _run("--list")
    assert listing.returncode == 0, listing.stderr
    assert all(name in listing.stdout for name in COMPONENTS)


def test_the_real_client_registers_every_component_the_sets_name():
    result = _run("--check-registration")
    assert result.returncode == 0, result.stdout + result.stderr
    assert all(f"jax-pro:{name}" in result.stdout for name in COMPONENTS)


def test_without_credentials_the_runner_stops_with_one_line(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    result = _run("--split", "heldout", env=env)
    assert result.returncode == 2 and result.stderr.strip().startswith("error: no credentials")
    # A HOME where the client is not logged in: the real client refuses, and the runner says so.
    result = _run("--target", "python-jax", "--split", "heldout", "--runs", "1", "--home", str(tmp_path), env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error: the client could not call the API: Not logged in" in result.stderr


@live_run_only("JAX_PRO_LIVE_TRIGGERS", "the live trigger-rate run", "every query is a paid API call")
@pytest.mark.timeout(3600)
def test_live_trigger_rates_on_the_heldout_split():
    args = ["--split", "heldout", "--runs", "3"]
    if os.environ.get("JAX_PRO_CLAUDE_HOME"):
        args += ["--home", os.environ["JAX_PRO_CLAUDE_HOME"]]
    result = _run(*args, timeout=3500)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
