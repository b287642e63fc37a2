"""Measure what the bundle changes in the code an assistant writes, by running that code.

Each task under evals/answers/<id>/ is a real user's request, the interface the answer must provide
(task.toml) and a grader (grader.py, pytest) that imports the answer and checks what it does on the
pinned libraries, on the CPU with 8 virtual devices. An answers folder holds one sub-folder per task
id with the task's `<module>.py` in it; see evals/answers/README.md.

Grade a folder of answers written by anything (a client, a person); no credentials needed. Each task
is graded in its own process, in an empty working directory:

    python dev/answer_eval.py --grade evals/answers/_reference
    python dev/answer_eval.py --grade evals/answers/_wrong --expect fail
    python dev/answer_eval.py --grade my-answers --task loss-history-append-jit

Measure the lift (credentials needed, as for dev/trigger_eval.py: ANTHROPIC_API_KEY with a fresh,
empty HOME, or --home DIR where Claude Code is logged in). For every task the pinned Claude Code CLI
answers twice, each time in a fresh empty directory outside this repository: once with the plugin
(`--plugin-dir REPO`), once without (the baseline):

    claude -p PROMPT [--plugin-dir REPO] --model MODEL --output-format stream-json --verbose
           --permission-mode acceptEdits --permission-prompts none --disallowedTools ...

`--mode oneshot` (default) forbids running code (Bash is denied): the answer shows what the model
knows. `--mode agentic` allows Bash, with the pinned virtualenv first on PATH, so the model can run
and fix its code. Web tools are denied in both modes. The transcripts (stream-json), the answers and
the grades are kept under --out; the table shows per task whether each answer passed and whether the
task's skill loaded, then in total the pass rates with and without the bundle and their difference,
and the tasks the baseline fails. Every task costs two client sessions of paid API calls.

    ANTHROPIC_API_KEY=... python dev/answer_eval.py --model sonnet
    python dev/answer_eval.py --home ~ --model haiku --mode agentic --task loss-history-append-jit

The client is the pinned CLI under .tools/, or $JAXPRO_CLAUDE if set. Helper-run arms (assistants that are not driven through the CLI, e.g. a coding session's sub-agents):
`--prepare baseline|bundle --out DIR` lays out the tasks, their exact prompts and the arm's brief (see
jaxpro/evals/arms.py); after the assistant has written its answers, grade them with `--grade DIR/tasks
--record DIR/grades.json`, and compare two arms, task by task and per skill, with `--compare DIR_A DIR_B`:

    python dev/answer_eval.py --prepare baseline --out /tmp/arms/baseline
    python dev/answer_eval.py --grade /tmp/arms/baseline/tasks --record /tmp/arms/baseline/grades.json
    python dev/answer_eval.py --compare evals/runs/2026-11-25-baseline evals/runs/2026-11-25-bundle

Offline: --list prints the tasks; --check-client runs the exact client command lines of both arms and
both modes without credentials and checks what the client sets up (plugin skills, allowed tools).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import sys
from pathlib import Path

from jaxpro.evals import EvalError, arms
from jaxpro.evals.client import choose_home, client_version
from jaxpro.evals.compare import measure
from jaxpro.evals.grading import FAILING, grade_all, record
from jaxpro.evals.report import print_comparison, print_grades, print_table
from jaxpro.evals.sessions import MODES, SessionOptions, check_client
from jaxpro.evals.tasks import SKILLS, Task, load_tasks, readable
from jaxpro.repo import REPO, shown

OFFLINE = "use --grade DIR, --list or --check-client to work offline"
MODES_OF_ARMS = ("baseline", "bundle")


def live(tasks: list[Task], args: argparse.Namespace) -> int:
    """Both arms for every task, graded; prints the tables and writes summary.json under --out."""
    out = args.out.resolve()
    readable(tasks)
    options = SessionOptions(args.mode, args.model, args.max_turns, args.max_budget_usd, args.timeout)
    home, scratch = choose_home(args.home, OFFLINE)
    try:
        comparison = measure(tasks, options, home, out, args.workers, args.grade_timeout)
    finally:
        if scratch is not None:
            scratch.cleanup()
    print_comparison(comparison)
    version = client_version()
    print(f"client: Claude Code {version}, model {args.model or 'default'}, mode {args.mode}; "
          f"transcripts, answers and summary.json under {shown(out)}")
    summary = {"client": version, "model": args.model or "default", "mode": args.mode,
               "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), **comparison.summary()}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


def list_tasks(tasks: list[Task]) -> None:
    print_table(["task", "skill", "module", "bundle section"],
                [[t.id, t.skill, f"{t.module}.py", t.error or t.meta["bundle"]["section"]] for t in tasks])
    counts = {skill: sum(t.skill == skill for t in tasks) for skill in SKILLS}
    print(f"\n{len(tasks)} tasks: " + ", ".join(f"{skill} {n}" for skill, n in counts.items()))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", action="append", metavar="ID", help="a task id (repeatable; default: every task)")
    parser.add_argument("--workers", type=int, default=2, help="gradings or client sessions at a time (default: 2)")
    parser.add_argument("--grade-timeout", type=float, default=120.0, help="seconds per grading (default: 120)")
    parser.add_argument("--json", action="store_true", help="with --grade: print the grades as JSON")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--grade", type=Path, metavar="DIR", help="grade the answers in DIR (one sub-folder per task id)")
    mode.add_argument("--list", action="store_true", help="print the tasks and exit")
    mode.add_argument("--check-client", action="store_true",
                      help="run both arms' and modes' client command lines offline and check their setup")
    mode.add_argument("--prepare", choices=MODES_OF_ARMS, metavar="ARM",
                      help="lay out a helper-run arm (baseline or bundle) under --out: tasks, prompts, brief")
    mode.add_argument("--compare", nargs=2, type=Path, metavar=("DIR_A", "DIR_B"),
                      help="compare two graded arms: per task, per skill, delta tasks and in total")
    parser.add_argument("--expect", choices=("pass", "fail"), default="pass",
                        help="with --grade: exit 0 only if every answer passes (default), or only if every one fails")
    parser.add_argument("--record", type=Path, metavar="FILE", help="with --grade: also write the grades as JSON to FILE")
    live_options = parser.add_argument_group("live run (without --grade)")
    live_options.add_argument("--model", help="model for the client, e.g. sonnet, haiku (default: the client's default)")
    live_options.add_argument("--mode", choices=MODES, default="oneshot",
                              help="oneshot: no code execution (default); agentic: Bash allowed")
    live_options.add_argument("--home", help="a HOME where Claude Code is logged in (default: a fresh HOME with ANTHROPIC_API_KEY)")
    live_options.add_argument("--out", type=Path, default=REPO / "build" / "answer_runs",
                              help="where transcripts, answers and summary.json go (default: build/answer_runs)")
    live_options.add_argument("--timeout", type=float, default=600.0, help="seconds per client session (default: 600)")
    live_options.add_argument("--max-turns", type=int, default=30, help="turns per client session (default: 30)")
    live_options.add_argument("--max-budget-usd", type=float, help="the client's spending cap per session")
    args = parser.parse_args(argv)
    if min(args.workers, args.max_turns) < 1 or min(args.timeout, args.grade_timeout) <= 0:
        parser.error("--workers, --max-turns, --timeout and --grade-timeout must be positive")
    if args.grade is not None and not args.grade.is_dir():
        parser.error(f"--grade {args.grade}: no such directory")
    if (args.record or args.json or args.expect != "pass") and args.grade is None:
        parser.error("--record, --json and --expect go with --grade")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tasks = load_tasks(args.task)
    if not tasks:
        raise EvalError("no tasks under evals/answers/")
    if args.list:
        list_tasks(tasks)
        return 0
    if args.check_client:
        usable = [task for task in tasks if not task.error] or readable(tasks)  # any readable task's prompt will do
        for line in check_client(usable[0]):
            print(line)
        return 0
    if args.prepare:
        python = Path(sys.prefix).resolve() / "bin" / "python" if args.mode == "agentic" else None  # not through the checkout
        brief = arms.prepare(tasks, args.prepare, args.out.resolve(), agentic_python=python)
        print(f"prepared the {args.prepare} arm for {len(tasks)} tasks: give the assistant {brief}; then grade with "
              f"--grade {brief.parent / 'tasks'} --record {brief.parent / 'grades.json'}")
        return 0
    if args.compare:
        first, second = (arms.ArmGrades.read(folder.resolve()) for folder in args.compare)
        print_table(["task", "skill", "delta", first.arm, second.arm], arms.compare_rows(tasks, first, second))
        print()
        print_table(["set", "tasks", f"passed {first.arm} → {second.arm}", "clean-passed", "clean-pass rate"],
                    arms.rate_rows(tasks, first, second))
        print(f"\ntasks {first.arm} clean-passes and {second.arm} does not: "
              + (", ".join(arms.lost(tasks, first, second)) or "none"))
        return 0
    if args.grade is None:
        return live(tasks, args)
    answers = args.grade.resolve()
    grades = grade_all(tasks, answers, args.workers, args.grade_timeout)
    if args.record:
        record(grades, answers, args.record)
    if args.json:
        print(json.dumps([dataclasses.asdict(g) for g in grades], indent=1))
    else:
        print_grades(tasks, grades)
    if args.expect == "pass":
        return 0 if all(g.passed for g in grades) else 1
    wrongly_passed = [g.task for g in grades if g.status not in FAILING]
    if wrongly_passed and not args.json:
        print("expected every answer to fail; these did not: " + ", ".join(wrongly_passed))
    return 1 if wrongly_passed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except EvalError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
