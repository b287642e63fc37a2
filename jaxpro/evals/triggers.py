"""Trigger evals: for each skill and the agent, queries that should load it and near misses that should not.

Each set under evals/triggers/ is a JSON list in the skill-creator format,
`[{"query": "...", "should_trigger": true}, ...]`, one file per component and split.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals.client import (PLUGIN, claude_binary, client_env, init_event, invoked_component,
                                 is_agent_call, names_target, stream_events)
from jaxpro.repo import REPO, shown

EVALS = REPO / "evals" / "triggers"
SPLITS = ("train", "heldout")


@dataclasses.dataclass(frozen=True)
class Case:
    """One query of one eval set."""

    target: str
    split: str
    query: str
    should_trigger: bool


@dataclasses.dataclass
class Outcome:
    """What happened for one case over all its runs."""

    case: Case
    invoked: list[list[str]]  # per run, the skills and agents invoked, in order

    @property
    def rate(self) -> float:
        hits = [any(names_target(name, self.case.target) for name in run) for run in self.invoked]
        return sum(hits) / len(hits)

    def passed(self, threshold: float) -> bool:
        return (self.rate >= threshold) == self.case.should_trigger


def components() -> dict[str, str]:
    """Every component of the plugin: skill folder names and agent file stems, mapped to their kind."""
    found = {p.parent.name: "skill" for p in (REPO / "skills").glob("*/SKILL.md")}
    found.update({p.stem: "agent" for p in (REPO / "agents").glob("*.md")})
    return found


def load_set(path: Path) -> list[dict[str, object]]:
    """A JSON list of {"query": str, "should_trigger": bool}; any other shape is an EvalError."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EvalError(f"{shown(path)}: cannot read it as JSON ({error})") from error
    if not isinstance(rows, list):
        raise EvalError(f"{shown(path)}: expected a JSON list of {{query, should_trigger}} objects")
    for index, row in enumerate(rows):
        if not (
            isinstance(row, dict)
            and set(row) == {"query", "should_trigger"}
            and isinstance(row["query"], str)
            and row["query"].strip()
            and isinstance(row["should_trigger"], bool)
        ):
            raise EvalError(
                f"{shown(path)}: item {index} must be {{\"query\": non-empty string, "
                f"\"should_trigger\": true or false}}, got {row!r}"
            )
    return rows


def load_cases(targets: Iterable[str], splits: Iterable[str]) -> list[Case]:
    """The cases of the requested components and splits, in file order."""
    cases = []
    for target in targets:
        for split in splits:
            path = EVALS / f"{target}.{split}.json"
            if not path.is_file():
                raise EvalError(f"{shown(path)}: missing; every component needs a {split} set")
            cases += [Case(target, split, str(r["query"]), bool(r["should_trigger"])) for r in load_set(path)]
    return cases


def set_sizes(targets: list[str], splits: list[str]) -> list[list[object]]:
    """Per component and split: its kind and the numbers of positives and negatives."""
    cases = load_cases(targets, splits)
    kinds = components()
    rows = []
    for target in targets:
        for split in splits:
            group = [c for c in cases if (c.target, c.split) == (target, split)]
            positives = sum(c.should_trigger for c in group)
            rows.append([target, kinds[target], split, positives, len(group) - positives])
    return rows


def run_query(query: str, target: str, home: Path, timeout: float, model: str | None, max_turns: int = 2) -> list[str]:
    """Runs the client on one query; returns the skills and agents it invoked, in order.

    It stops the client as soon as the target or any agent is invoked (an agent would start a costly
    sub-session), or at the result event.
    """
    command = [str(claude_binary()), "-p", query, "--plugin-dir", str(REPO), "--output-format", "stream-json",
               "--verbose", "--max-turns", str(max_turns), "--no-session-persistence"]
    if model:
        command += ["--model", model]
    invoked: list[str] = []
    with tempfile.TemporaryDirectory(prefix="trigger-eval-cwd-") as cwd:
        process = subprocess.Popen(command, cwd=cwd, env=client_env(home), stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        try:
            for event in stream_events(process.stdout):  # type: ignore[arg-type]
                name = invoked_component(event)
                if name is not None:
                    invoked.append(name)
                if is_agent_call(event) or (name is not None and names_target(name, target)):
                    break
                if event.get("type") == "result":
                    if event.get("is_error") and event.get("terminal_reason") == "api_error":
                        raise EvalError(f"the client could not call the API: {event.get('result')}")
                    break
            return invoked
        finally:
            timer.cancel()
            if process.poll() is None:
                process.kill()
            process.wait()


def registered_components(home: Path) -> dict[str, list[str]]:
    """The skills and agents the client registers for this plugin, read from its offline `init` event."""
    command = [str(claude_binary()), "-p", "list", "--plugin-dir", str(REPO), "--output-format", "stream-json",
               "--verbose", "--max-turns", "1", "--no-session-persistence"]
    env = client_env(home)
    env.pop("ANTHROPIC_API_KEY", None)  # never a key: no API call
    event = init_event(command, env)
    return {kind: [n for n in event.get(kind, []) if n.startswith(f"{PLUGIN}:")] for kind in ("skills", "agents")}


def evaluate(cases: list[Case], home: Path, runs: int, workers: int, timeout: float, model: str | None,
             max_turns: int) -> list[Outcome]:
    """Runs every case `runs` times, `workers` at a time."""
    outcomes = {id(case): Outcome(case, []) for case in cases}
    jobs = [(case, run) for case in cases for run in range(runs)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_query, case.query, case.target, home, timeout, model, max_turns): case
                   for case, _ in jobs}
        for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            try:
                outcomes[id(futures[future])].invoked.append(future.result())
            except EvalError:
                pool.shutdown(wait=False, cancel_futures=True)  # the same error would repeat for every query
                raise
            print(f"\r{done}/{len(jobs)} runs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return list(outcomes.values())


def summary_rows(outcomes: list[Outcome], threshold: float) -> list[dict[str, object]]:
    """Per component and split: recall on positives, false-trigger rate on negatives, accuracy."""
    rows = []
    for key in sorted({(o.case.target, o.case.split) for o in outcomes}):
        group = [o for o in outcomes if (o.case.target, o.case.split) == key]
        positives = [o for o in group if o.case.should_trigger]
        negatives = [o for o in group if not o.case.should_trigger]
        rows.append({
            "component": key[0],
            "split": key[1],
            "queries": len(group),
            "recall": sum(o.rate >= threshold for o in positives) / max(len(positives), 1),
            "false_trigger": sum(o.rate >= threshold for o in negatives) / max(len(negatives), 1),
            "accuracy": sum(o.passed(threshold) for o in group) / len(group),
        })
    return rows
