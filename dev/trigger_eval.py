"""Measure how often each skill and the agent of this plugin trigger, through the real Claude Code client.

Each eval set under evals/triggers/ is a JSON list in the skill-creator format,
`[{"query": "...", "should_trigger": true}, ...]`, one file per component and split:
`<name>.train.json` (for tuning a description) and `<name>.heldout.json` (for checking it afterwards).

For every query the script runs the pinned CLI once per --runs:

    claude -p QUERY --plugin-dir REPO --output-format stream-json --verbose --max-turns 2

in an empty working directory, reads the stream, and records which skills (`Skill` tool calls, input
`skill`) and agents (`Agent`/`Task` tool calls, input `subagent_type`) the model invokes. It stops the
client as soon as the component under test or any agent is invoked, or when the turns (--max-turns)
end: a second turn lets the model look something up, or load a skill and then delegate. A query passes when its trigger rate
is at least --threshold and it should trigger, or below it and it should not. The table gives, per
component and split, the recall on positives, the false-trigger rate on negatives and the accuracy;
the exit code is 1 when any component's accuracy is below --min-accuracy.

Credentials: ANTHROPIC_API_KEY in the environment (the client then runs with a fresh, empty HOME, so
no user settings or other plugins interfere), or --home DIR naming a HOME where Claude Code is logged
in (used as is). Every query is a paid API call. Without credentials, use --list to check the sets, or
--check-registration to confirm, offline, that the client registers every component the sets name.

Examples:
    python dev/trigger_eval.py --list
    python dev/trigger_eval.py --check-registration
    ANTHROPIC_API_KEY=... python dev/trigger_eval.py --split heldout --runs 3
    python dev/trigger_eval.py --home ~ --target python-jax --split train
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EVALS = REPO / "evals" / "triggers"
PLUGIN = "jax-pro"
SPLITS = ("train", "heldout")
SKILL_TOOL = "Skill"
AGENT_TOOLS = ("Agent", "Task")  # the agent tool is named Agent, with the older name Task as an alias


class EvalError(Exception):
    """A problem the user must fix (bad eval file, no credentials, no client); printed as one line."""


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
        hits = [any(_names_target(name, self.case.target) for name in run) for run in self.invoked]
        return sum(hits) / len(hits)

    def passed(self, threshold: float) -> bool:
        return (self.rate >= threshold) == self.case.should_trigger


def components() -> dict[str, str]:
    """Every component of the plugin: skill folder names and agent file stems, mapped to their kind."""
    found = {p.parent.name: "skill" for p in (REPO / "skills").glob("*/SKILL.md")}
    found.update({p.stem: "agent" for p in (REPO / "agents").glob("*.md")})
    return found


def _shown(path: Path) -> str:
    """A path as the user should see it: relative to the repository when it is inside."""
    return str(path.relative_to(REPO)) if path.resolve().is_relative_to(REPO) else str(path)


def load_set(path: Path) -> list[dict[str, object]]:
    """A JSON list of {"query": str, "should_trigger": bool}; any other shape is an EvalError."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EvalError(f"{_shown(path)}: cannot read it as JSON ({error})") from error
    if not isinstance(rows, list):
        raise EvalError(f"{_shown(path)}: expected a JSON list of {{query, should_trigger}} objects")
    for index, row in enumerate(rows):
        if not (
            isinstance(row, dict)
            and set(row) == {"query", "should_trigger"}
            and isinstance(row["query"], str)
            and row["query"].strip()
            and isinstance(row["should_trigger"], bool)
        ):
            raise EvalError(
                f"{_shown(path)}: item {index} must be {{\"query\": non-empty string, "
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
                raise EvalError(f"{_shown(path)}: missing; every component needs a {split} set")
            cases += [Case(target, split, str(r["query"]), bool(r["should_trigger"])) for r in load_set(path)]
    return cases


def claude_binary() -> Path:
    """The CLI that dev/setup.sh pins under .tools/."""
    candidates = sorted((REPO / ".tools/node_modules/@anthropic-ai").glob("claude-code-*/claude"))
    if not candidates:
        raise EvalError("Claude Code CLI not found under .tools/: run `bash dev/setup.sh`")
    return candidates[0]


def client_version() -> str:
    """The pinned client's version, e.g. `2.1.330`."""
    with tempfile.TemporaryDirectory(prefix="trigger-eval-home-") as home:
        result = subprocess.run([str(claude_binary()), "--version"], env=client_env(Path(home)),
                                capture_output=True, text=True, timeout=60)
    return result.stdout.split()[0] if result.stdout.strip() else "unknown"


def client_env(home: Path) -> dict[str, str]:
    """A minimal environment: PATH, the chosen HOME and the API key if one is set."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1"}
    for name in ("ANTHROPIC_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def stream_events(lines: Iterable[str]) -> Iterator[dict]:
    """The JSON objects of a stream-json output, skipping anything that is not JSON."""
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


def invoked_component(event: dict) -> str | None:
    """The skill or agent name a tool call in this stream event invokes, if it invokes one."""
    if event.get("type") != "assistant":
        return None
    for block in event.get("message", {}).get("content", []):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        arguments = block.get("input") or {}
        if block.get("name") == SKILL_TOOL and isinstance(arguments.get("skill"), str):
            return arguments["skill"]
        if block.get("name") in AGENT_TOOLS and isinstance(arguments.get("subagent_type"), str):
            return arguments["subagent_type"]
    return None


def _names_target(name: str, target: str) -> bool:
    """True for `jax-pro:<target>` and for a bare `<target>`."""
    plugin, _, component = name.rpartition(":")
    return component == target and plugin in ("", PLUGIN)


def run_query(query: str, target: str, home: Path, timeout: float, model: str | None, max_turns: int = 2) -> list[str]:
    """Runs the client on one query; returns the skills and agents it invoked, in order."""
    command = [str(claude_binary()), "-p", query, "--plugin-dir", str(REPO), "--output-format", "stream-json",
               "--verbose", "--max-turns", str(max_turns), "--no-session-persistence"]
    if model:
        command += ["--model", model]
    invoked: list[str] = []
    with tempfile.TemporaryDirectory(prefix="trigger-eval-cwd-") as cwd:
        process = subprocess.Popen(command, cwd=cwd, env=client_env(home), stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        timer = _kill_after(process, timeout)
        try:
            for event in stream_events(process.stdout):  # type: ignore[arg-type]
                name = invoked_component(event)
                if name is not None:
                    invoked.append(name)
                if _is_agent_call(event) or (name is not None and _names_target(name, target)):
                    break  # decided; an agent would start a costly sub-session
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


def _is_agent_call(event: dict) -> bool:
    """True if this stream event holds an Agent/Task tool call."""
    content = event.get("message", {}).get("content", []) if event.get("type") == "assistant" else []
    return any(isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in AGENT_TOOLS for b in content)


def _kill_after(process: subprocess.Popen, seconds: float) -> threading.Timer:
    """Kill the client if it runs longer than `seconds`."""
    timer = threading.Timer(seconds, process.kill)
    timer.start()
    return timer


def registered_components(home: Path) -> dict[str, list[str]]:
    """The skills and agents the client registers for this plugin, read from its offline `init` event."""
    command = [str(claude_binary()), "-p", "list", "--plugin-dir", str(REPO), "--output-format", "stream-json",
               "--verbose", "--max-turns", "1", "--no-session-persistence"]
    with tempfile.TemporaryDirectory(prefix="trigger-eval-cwd-") as cwd:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1"}  # never a key: no API call
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    for event in stream_events(result.stdout.splitlines()):
        if event.get("type") == "system" and event.get("subtype") == "init":
            return {kind: [n for n in event.get(kind, []) if n.startswith(f"{PLUGIN}:")] for kind in ("skills", "agents")}
    raise EvalError(f"the client printed no init event (exit {result.returncode}): {result.stderr.strip()[:200]}")


def choose_home(home: str | None, offline: str = "use --list or --check-registration to work offline") -> tuple[Path, tempfile.TemporaryDirectory | None]:
    """The HOME to run the client in: the given one, or a fresh one when ANTHROPIC_API_KEY is set.

    `offline` ends the no-credentials message: what the user can run instead.
    """
    if home:
        path = Path(home).expanduser()
        if not path.is_dir():
            raise EvalError(f"--home {home}: no such directory")
        return path, None
    if os.environ.get("ANTHROPIC_API_KEY"):
        scratch = tempfile.TemporaryDirectory(prefix="trigger-eval-home-")
        return Path(scratch.name), scratch
    raise EvalError(
        "no credentials: set ANTHROPIC_API_KEY, or pass --home DIR where Claude Code is logged in "
        f"({offline})"
    )


def evaluate(cases: list[Case], home: Path, args: argparse.Namespace) -> list[Outcome]:
    """Runs every case --runs times, --workers at a time."""
    outcomes = {id(case): Outcome(case, []) for case in cases}
    jobs = [(case, run) for case in cases for run in range(args.runs)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
        futures = {pool.submit(run_query, case.query, case.target, home, args.timeout, args.model, args.max_turns): case for case, _ in jobs}
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


def print_table(header: list[str], rows: list[list[object]]) -> None:
    """A plain fixed-width table."""
    text = [[f"{v:.2f}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in text)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in text:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())


def list_sets(targets: list[str], splits: list[str]) -> None:
    """Counts of positives and negatives per set, without running anything."""
    cases = load_cases(targets, splits)
    rows = []
    for target in targets:
        for split in splits:
            group = [c for c in cases if (c.target, c.split) == (target, split)]
            positives = sum(c.should_trigger for c in group)
            rows.append([target, components()[target], split, positives, len(group) - positives])
    print_table(["component", "kind", "split", "positives", "negatives"], rows)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", action="append", metavar="NAME",
                        help="a skill or agent name (repeatable; default: every component)")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all", help="which eval split (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="runs per query; the rate is over these (default: 3)")
    parser.add_argument("--threshold", type=float, default=0.5,
                        help="a query counts as triggering when its rate is at least this (default: 0.5)")
    parser.add_argument("--min-accuracy", type=float, default=0.8,
                        help="exit 1 if a component's accuracy on a split is below this (default: 0.8)")
    parser.add_argument("--workers", type=int, default=4, help="client processes at a time (default: 4)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per client run (default: 120)")
    parser.add_argument("--max-turns", type=int, default=2, help="turns the client may take per query (default: 2)")
    parser.add_argument("--model", help="model for the client (default: the client's default)")
    parser.add_argument("--home", help="a HOME where Claude Code is logged in (default: a fresh HOME with ANTHROPIC_API_KEY)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="print the sets' sizes and exit; no API calls")
    mode.add_argument("--check-registration", action="store_true",
                      help="check offline that the client registers every component named by the sets")
    args = parser.parse_args(argv)
    if min(args.runs, args.workers, args.max_turns) < 1 or args.timeout <= 0:
        parser.error("--runs, --workers, --max-turns and --timeout must be positive")
    if not 0 < args.threshold <= 1 or not 0 <= args.min_accuracy <= 1:
        parser.error("--threshold must be in (0, 1] and --min-accuracy in [0, 1]")
    known = components()
    for name in args.target or []:
        if name not in known:
            parser.error(f"--target {name}: not a component of this plugin (known: {', '.join(sorted(known))})")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    targets = args.target or sorted(components())
    splits = list(SPLITS) if args.split == "all" else [args.split]
    if args.list:
        list_sets(targets, splits)
        return 0
    if args.check_registration:
        with tempfile.TemporaryDirectory(prefix="trigger-eval-home-") as home:
            registered = registered_components(Path(home))
        kinds = components()
        missing = [t for t in targets if f"{PLUGIN}:{t}" not in registered["skills" if kinds[t] == "skill" else "agents"]]
        if missing:
            raise EvalError(f"the client does not register: {', '.join(missing)}")
        print(f"the client registers all {len(targets)} components: " + ", ".join(f"{PLUGIN}:{t}" for t in targets))
        return 0
    cases = load_cases(targets, splits)
    home, scratch = choose_home(args.home)
    try:
        outcomes = evaluate(cases, home, args)
    finally:
        if scratch is not None:
            scratch.cleanup()
    rows = summary_rows(outcomes, args.threshold)
    failures = [o for o in outcomes if not o.passed(args.threshold)]
    if args.json:
        print(json.dumps({"summary": rows, "cases": [
            {**dataclasses.asdict(o.case), "invoked": o.invoked, "rate": o.rate} for o in outcomes]}, indent=2))
    else:
        print_table(["component", "split", "queries", "recall", "false trigger", "accuracy"],
                    [list(r.values()) for r in rows])
        if failures:
            print("\nmisrouted queries (rate, expected, query, what was invoked):")
            for o in failures:
                invoked = ", ".join(sorted({n for run in o.invoked for n in run})) or "nothing"
                print(f"  {o.rate:.2f}  {'trigger' if o.case.should_trigger else 'silent '}  "
                      f"[{o.case.target}/{o.case.split}] {o.case.query!r} -> {invoked}")
        print(f"\nclient: Claude Code {client_version()}, model {args.model or 'default'}; "
              f"{args.runs} runs per query, threshold {args.threshold}")
    return 1 if any(r["accuracy"] < args.min_accuracy for r in rows) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except EvalError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
