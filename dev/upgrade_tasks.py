"""Codebase-upgrade tasks (issue 28): fetch an old release, build its environments, record which of its
tests passed on its own JAX, grade an upgraded copy on the pins, and prove each grader both ways.

The tasks are pinned in evals/upgrade/tasks.toml; the logic is in jaxpro/evals/upgrade.py. Wheels,
environments and working copies live in --home (default ~/.cache/jax-pro/upgrade), never in the checkout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals import upgrade
from jaxpro.evals import upgrade_arms

EPILOG = """\
examples:
  .venv/bin/python dev/upgrade_tasks.py list
  .venv/bin/python dev/upgrade_tasks.py env now                     # the pins + the tests' imports
  .venv/bin/python dev/upgrade_tasks.py env then mctx-0.0.5         # the release's day (needs uv, pyenv)
  .venv/bin/python dev/upgrade_tasks.py record mctx-0.0.5           # passing/<id>.txt from the then env
  .venv/bin/python dev/upgrade_tasks.py fetch mctx-0.0.5 /tmp/mctx  # a working copy to upgrade
  .venv/bin/python dev/upgrade_tasks.py grade mctx-0.0.5 /tmp/mctx  # tests on the pins, checker, diff size
  .venv/bin/python dev/upgrade_tasks.py prove                       # untouched fails, reference passes
  .venv/bin/python dev/upgrade_tasks.py prepare bundle /tmp/arms/up-bundle   # an agentic arm's folders
  .venv/bin/python dev/upgrade_tasks.py grade-arm /tmp/arms/up-bundle --record evals/runs/X/grades.json
  .venv/bin/python dev/upgrade_tasks.py keep-arm /tmp/arms/up-bundle evals/runs/X/bundle   # logs + diffs only

exit codes:
  0  done (grade: solved; prove: every grader proven both ways)
  1  not solved / not proven, or an error (one line naming what to do)
  2  usage error"""


def pyenv_python(version: str) -> str:
    """The newest pyenv interpreter of VERSION (x.y), for the then environment."""
    try:
        root = Path(subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        raise EvalError(f"pyenv is needed to find Python {version} for the then environment") from None
    found = sorted(root.glob(f"versions/{version}.*/bin/python{version}"),
                   key=lambda p: [int(x) for x in p.parts[-3].split(".")])
    if not found:
        raise EvalError(f"no pyenv Python {version}: run `pyenv install {version}`")
    return str(found[-1])


def uv_binary(home: Path) -> str:
    """uv, installed from PyPI into HOME/tools on first use."""
    uv = home / "tools" / "bin" / "uv"
    if not uv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(home / "tools")], check=True)
        subprocess.run([str(home / "tools" / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", "uv==0.13.9"], check=True)
    return str(uv)


def command_list(tasks: list[upgrade.UpgradeTask]) -> None:
    print(f"{'task':<22}{'released':<12}{'jax then':<10}{'half':<8}{'passing tests':>14}")
    for task in tasks:
        count = len(task.passing_tests()) if task.passing_file.is_file() else "-"
        print(f"{task.id:<22}{task.released:<12}{task.jax_then:<10}{task.half:<8}{count:>14}")


def command_record(task: upgrade.UpgradeTask, home: Path, timeout: float) -> None:
    """Run every test of the untouched release in its then environment; keep the ones that passed."""
    python = upgrade.then_python(task, home)
    if not python.exists():
        raise EvalError(f"no then environment for {task.id}: run `dev/upgrade_tasks.py env then {task.id}`")
    with tempfile.TemporaryDirectory() as scratch:
        tree = upgrade.extract(task, home, Path(scratch) / task.id)
        run = upgrade.run_tests(python, tree, None, warnings_as_errors=False, timeout=timeout)
    passed = [node for node in run.passed() if "\n" not in node]  # pytest cannot select such ids again
    if not passed:
        raise EvalError(f"no test of {task.id} passed on jax {task.jax_then}; check its then environment")
    version = subprocess.run([str(python), "-c", "import jax, sys; print(jax.__version__, sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.split()
    header = (f"# {task.spec}: tests that passed on jax {version[0]}, Python {version[1]} (uv --exclude-newer "
              f"{task.then_date or task.released}); {len(passed)} of {len(run.outcomes)} collected; "
              f"{len(run.collection_errors)} test files could not be imported\n")
    task.passing_file.parent.mkdir(parents=True, exist_ok=True)
    task.passing_file.write_text(header + "\n".join(passed) + "\n")
    print(f"{task.id}: {len(passed)} of {len(run.outcomes)} tests passed on jax {version[0]} -> {task.passing_file}")


def command_grade(task: upgrade.UpgradeTask, tree: Path, home: Path, as_json: bool) -> int:
    result = upgrade.grade(task, tree.resolve(), home)
    if as_json:
        print(json.dumps(result.as_dict(), indent=1))
    else:
        print(f"{task.id}: {result.passed}/{result.tests} recorded tests pass on the pins with DeprecationWarning "
              f"as an error; {result.old_forms} old forms left; {result.changed_lines} lines changed")
        for node in result.failing[:10]:
            print(f"  failing: {node}")
        for line in result.old_form_lines[:10]:
            print(f"  old form: {line}")
    return 0 if result.solved else 1


def command_prove(tasks: list[upgrade.UpgradeTask], home: Path, record: Path | None, order: list[str]) -> int:
    """Each grader both ways: the untouched release is not solved, the reference upgrade is. A task whose
    grading fails (a timeout, say) is reported and counts as not proven; the record is written after
    every task, keeping the rows of tasks not proven in this call."""
    proven = True
    for task in tasks:
        try:
            with tempfile.TemporaryDirectory() as scratch:
                untouched = upgrade.extract(task, home, Path(scratch) / "untouched")
                before = upgrade.grade(task, untouched, home)
                reference = upgrade.extract(task, home, Path(scratch) / "reference")
                upgrade.apply_patch(task.reference_patch, reference)
                after = upgrade.grade(task, reference, home)
        except EvalError as error:
            print(f"{task.id:<22} not proven: {error}", flush=True)
            proven = False
            continue
        ok = not before.solved and after.solved
        proven &= ok
        print(f"{task.id:<22} untouched {before.passed:>4}/{before.tests:<4} old forms {before.old_forms:>3}   "
              f"reference {after.passed:>4}/{after.tests:<4} old forms {after.old_forms:>3} "
              f"changed {after.changed_lines:>4}   {'proven' if ok else 'NOT PROVEN'}", flush=True)
        if record:
            _merge_record(record, order, {"task": task.id, "half": task.half, "untouched": before.as_dict(),
                                   "reference": after.as_dict(), "proven": ok})
    return 0 if proven else 1


def _merge_record(record: Path, order: list[str], row: dict) -> None:
    """Write ROW into the JSON list RECORD, replacing an older row of its task, in the tasks' ORDER."""
    rows = [old for old in (json.loads(record.read_text()) if record.is_file() else []) if old["task"] != row["task"]]
    rows = sorted([*rows, row], key=lambda r: order.index(r["task"]) if r["task"] in order else len(order))
    record.write_text(json.dumps(rows, indent=1) + "\n")


def command_grade_arm(folder: Path, tasks: list[upgrade.UpgradeTask], home: Path, record: Path | None) -> int:
    rows = upgrade_arms.grade_arm(folder, tasks, home)
    print(f"{'task':<22}{'half':<8}{'tests':>9}{'old forms':>11}{'changed':>9}{'runs':>6}{'plugin read':>12}{'wall s':>8}")
    for row in rows:
        print(f"{row['task']:<22}{row['half']:<8}{row['passed']:>4}/{row['tests']:<4}{row['old_forms']:>11}"
              f"{row['changed_lines']:>9}{row['runs']:>6}{row['plugin_chars_read']:>12}{row['wall_s'] or '-':>8}")
    if record:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=upgrade.DEFAULT_HOME, help="wheels, environments (default %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the tasks, their day's jax and half")
    env = sub.add_parser("env", help="build the now environment, or a task's then environment")
    env.add_argument("which", choices=("now", "then"))
    env.add_argument("task", nargs="?")
    record = sub.add_parser("record", help="record which tests pass on the task's own JAX")
    record.add_argument("task")
    record.add_argument("--timeout", type=float, default=3600, help="seconds for the whole suite (default %(default)s)")
    fetch = sub.add_parser("fetch", help="unpack the untouched release into a new folder")
    fetch.add_argument("task")
    fetch.add_argument("into", type=Path)
    grade = sub.add_parser("grade", help="grade an upgraded copy on the pins")
    grade.add_argument("task")
    grade.add_argument("tree", type=Path)
    grade.add_argument("--json", action="store_true")
    prove = sub.add_parser("prove", help="untouched fails and reference passes, for every task (or those named)")
    prove.add_argument("tasks", nargs="*")
    prove.add_argument("--record", type=Path, help="write the rows as JSON here")
    prepare = sub.add_parser("prepare", help="lay out an agentic arm (baseline or bundle) in a new folder")
    prepare.add_argument("arm", choices=("baseline", "bundle"))
    prepare.add_argument("out", type=Path)
    prepare.add_argument("tasks", nargs="*")
    grade_arm = sub.add_parser("grade-arm", help="grade every task folder of an arm, with its runs, reads, time")
    grade_arm.add_argument("folder", type=Path)
    grade_arm.add_argument("--record", type=Path, help="write the rows as JSON here")
    grade_arm.add_argument("--task", action="append", dest="only", help="grade only this task (repeatable)")
    keep = sub.add_parser("keep-arm", help="copy an arm's logs and its changes as diffs (no package code) into a folder")
    keep.add_argument("folder", type=Path)
    keep.add_argument("into", type=Path)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    home = args.home.resolve()
    try:
        now, tasks = upgrade.load()
        if args.command == "list":
            command_list(tasks)
        elif args.command == "env" and args.which == "now":
            same = f"{sys.version_info.major}.{sys.version_info.minor}" == now.python
            print(upgrade.make_now_env(now, home, sys.executable if same else pyenv_python(now.python)))
        elif args.command == "env":
            if not args.task:
                raise EvalError("env then needs a task id")
            task = upgrade.find(args.task, tasks)
            print(upgrade.make_then_env(task, home, uv_binary(home), pyenv_python(task.python_then)))
        elif args.command == "record":
            command_record(upgrade.find(args.task, tasks), home, args.timeout)
        elif args.command == "fetch":
            print(upgrade.extract(upgrade.find(args.task, tasks), home, args.into.resolve()))
        elif args.command == "grade":
            return command_grade(upgrade.find(args.task, tasks), args.tree, home, args.json)
        elif args.command == "prove":
            chosen = [upgrade.find(name, tasks) for name in args.tasks] or tasks
            return command_prove(chosen, home, args.record, [task.id for task in tasks])
        elif args.command == "prepare":
            chosen = [upgrade.find(name, tasks) for name in args.tasks] or tasks
            print(upgrade_arms.prepare(chosen, args.arm, args.out.resolve(), home))
        elif args.command == "keep-arm":
            upgrade_arms.keep(args.folder.resolve(), tasks, home, args.into.resolve())
        elif args.command == "grade-arm":
            chosen = [upgrade.find(name, tasks) for name in args.only] if args.only else tasks
            return command_grade_arm(args.folder.resolve(), chosen, home, args.record)
    except EvalError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
