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
The client is the pinned CLI under .tools/, or $JAXPRO_CLAUDE if set.

Examples:
    python dev/trigger_eval.py --list
    python dev/trigger_eval.py --check-registration
    ANTHROPIC_API_KEY=... python dev/trigger_eval.py --split heldout --runs 3
    python dev/trigger_eval.py --home ~ --target python-jax --split train
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals.client import PLUGIN, choose_home, client_version
from jaxpro.evals.report import print_table
from jaxpro.evals.triggers import SPLITS, components, evaluate, load_cases, registered_components, set_sizes, summary_rows

OFFLINE = "use --list or --check-registration to work offline"


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
        print_table(["component", "kind", "split", "positives", "negatives"], set_sizes(targets, splits))
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
    home, scratch = choose_home(args.home, OFFLINE)
    try:
        outcomes = evaluate(cases, home, args.runs, args.workers, args.timeout, args.model, args.max_turns)
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
