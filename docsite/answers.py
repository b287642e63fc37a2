"""The answer-evals page: every task, what its grader checks, and the latest grading of its answers.

The gradings come from the test run (tests/test_answer_evals_reference.py and _wrong.py run
`dev/answer_eval.py --grade ... --record build/answer_evals/<set>.json`, i.e. `jaxpro.evals.grading.record`). Like the mdexec records,
a grading that is missing, made with other pins, or older than a task, its grader or its answer
stops the build with a RecordProblem.
"""

from __future__ import annotations

import json
from pathlib import Path
from docsite import BUILD, REPO
from docsite.records import RUN_TESTS, RecordProblem
from jaxpro.evals import EvalError, arms
from jaxpro.evals.grading import FAILING
from jaxpro.evals.tasks import ANSWERS, Task, load_tasks, readable
from jaxpro.repo import pins

RESULTS = BUILD / "answer_evals"
PAGE = "evals/answer_tasks.md"
SETS = {"reference": "must pass", "wrong": "must fail"}  # build/answer_evals/<set>.json grades evals/answers/_<set>


def all_tasks() -> list[Task]:
    """Every task, as the evaluations read them; a task that cannot be read is a RecordProblem."""
    try:
        return readable(load_tasks())
    except EvalError as error:
        raise RecordProblem(f"{PAGE}: {error}") from error


def gradings(results: Path = RESULTS) -> dict[str, dict]:
    """Per set, the recorded run: checked to cover every task, with today's files and pins."""
    tasks = all_tasks()
    found = {}
    for name in SETS:
        path = results / f"{name}.json"
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        if not path.is_file():
            raise RecordProblem(f"{PAGE}: no grading of the {name} answers ({shown} is missing); {RUN_TESTS}")
        data = json.loads(path.read_text(encoding="utf-8"))
        for library, version in data["versions"].items():
            if pins().get(library, version) != version:
                raise RecordProblem(f"{PAGE}: {shown} was graded with {library} {version}, but pyproject.toml pins "
                                    f"{pins()[library]}; {RUN_TESTS}")
        grades = {grade["task"]: grade for grade in data["grades"]}
        answers = ANSWERS / f"_{name}"
        stale = [t.id for t in tasks if grades.get(t.id, {}).get("digest") != t.digest(answers / t.id)]
        if stale:
            raise RecordProblem(f"{PAGE}: {shown} has no grading of the current {', '.join(stale)} "
                                f"(a task, its grader or its {name} answer changed after the run of {data['date']}); {RUN_TESTS}")
        found[name] = {**data, "grades": grades}
    return found


def answers_page(results: Path = RESULTS) -> str:
    """The page: a summary table, then one section per task."""
    tasks = all_tasks()
    graded = gradings(results)
    reference, wrong = graded["reference"], graded["wrong"]
    passed = sum(g["status"] == "passed" for g in reference["grades"].values())
    rejected = sum(g["status"] in FAILING for g in wrong["grades"].values())
    versions = ", ".join(f"{name} {version}" for name, version in reference["versions"].items())
    out = [
        "# Answer evals: the tasks",
        "",
        "Each task is a request from a public thread about JAX, Flax, Optax, Orbax or NumPyro. An answer is "
        "graded by running it against the pinned libraries on the CPU with 8 virtual devices: its grader "
        "imports it and checks what it does. Every task ships a reference answer that must pass and a "
        "plausible wrong answer that must fail. The format and the runner: [Answer evals](answers/README.md). "
        "This page is generated from the tasks and the test run's latest grading when the site is built.",
        "",
        f"Latest grading ({reference['date']}, Python {reference['python']}, {versions}): "
        f"**{passed} of {len(tasks)} reference answers pass**, **{rejected} of {len(tasks)} wrong answers fail**.",
    ]
    out += _lift(tasks)
    out += ["", "| Task | Skill | Reference answer | Wrong answer |", "| --- | --- | --- | --- |"]
    for task in tasks:
        out.append(f"| [{task.id}](#{task.id}) | {task.skill} | {_result(reference['grades'][task.id], 100)} | "
                   f"{_result(wrong['grades'][task.id], 100)} |")
    for task in tasks:
        out += ["", *_section(task, reference["grades"][task.id], wrong["grades"][task.id])]
    return "\n".join(out) + "\n"


def _lift(tasks: list[Task]) -> list[str]:
    """The latest measured pair of arms under evals/runs/: who wrote the answers, and pass and clean-pass
    per skill, on the delta tasks and in total. Empty when no pair has been measured."""
    latest = arms.latest_runs()
    if latest is None:
        return []
    baseline, bundle = latest
    about = {arm.arm: arms.run_description(arm) for arm in latest}
    graded = [task for task in tasks if task.id in baseline.grades and task.id in bundle.grades]
    rows = arms.rate_rows(graded, baseline, bundle)
    written = about["bundle"].get("writer", "not recorded")
    out = ["", "## The lift, measured", "",
           f"The latest pair of arms in `evals/runs/`: {baseline.folder.name} and {bundle.folder.name}. Written by "
           f"{written}; {about['bundle'].get('how', 'how it was run is not recorded')}. Blindness of the baseline: "
           f"{about['baseline'].get('blindness', 'not recorded')}. A clean pass is a pass in which the currency "
           "checker finds no old API form and no version hedge.", "",
           "| set | tasks | passed, baseline → bundle | clean-passed | clean-pass rate |", "| --- | --- | --- | --- | --- |"]
    out += [f"| {' | '.join(str(cell) for cell in row)} |" for row in rows]
    lost = arms.lost(graded, baseline, bundle)
    out += ["", "Tasks the baseline clean-passes and the bundle does not: " + (", ".join(lost) or "none") + "."]
    return out


def _section(task: Task, reference: dict, wrong: dict) -> list[str]:
    meta = task.meta
    section = meta["bundle"]["section"]
    request = [f"> {_text(line)}" if line.strip() else ">" for line in meta["request"].strip().splitlines()]
    return [
        f"## {task.id}",
        "",
        *request,
        "",
        f"- **Source:** [{_text(meta['source']['title'])}]({meta['source']['url']})",
        f"- **The maintainers' answer:** {_text(' '.join(meta['source']['maintainers_answer'].split()))}",
        f"- **Skill:** `{task.skill}`; the bundle's answer: [`{section}`](../{section}) "
        f"(skill `{meta['bundle']['skill']}`)",
        f"- **The grader checks:** {_text(meta['grading']['checks'])}",
        f"- **The wrong answer:** {_text(meta['grading']['wrong'])}",
        f"- **Latest grading:** reference answer {_result(reference)} in {reference['seconds']} s; "
        f"wrong answer {_result(wrong)}",
        "",
        f"The answer is `{task.module}.py`, providing:",
        "",
        "```text",
        meta["interface"].strip("\n"),
        "```",
    ]


def _result(grade: dict, width: int = 240) -> str:
    """The status (a pass is `clean` when the currency checker found nothing), and the first failure's
    message or the checker's findings, cut to `width` characters."""
    status = grade["status"]
    if status == "passed":
        status = "passed, not clean" if grade["findings"] else "passed, clean"
    message = grade["message"] or "; ".join(grade["findings"])
    message = message if len(message) <= width else message[: width - 3] + "..."
    return status if not message else f"{status}: {_text(message)}"


def _text(text: str) -> str:
    """Text safe inside a Markdown table cell or list item: `|` escaped, `<` outside code spans too."""
    pieces = text.replace("|", "\\|").split("`")
    return "`".join(piece if index % 2 else piece.replace("<", "&lt;") for index, piece in enumerate(pieces))
