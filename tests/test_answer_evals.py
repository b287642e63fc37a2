"""The answer-eval tasks (evals/answers/) and their runner (dev/answer_eval.py), without credentials.

The gradings of the reference and wrong answers are in test_answer_evals_reference.py and
test_answer_evals_wrong.py; that each task's bundle section executed and passed is checked after the
main run, from the mdexec records, in docsite/tests/test_answer_evals_site.py. The live measurement
needs credentials; CI runs every step before the first API call with the real client.
"""

from __future__ import annotations

import json
import os
import re
import sys
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from answer_evals import TASK_IDS, run
from bundle import REPO, claude_binary, live_run_only
from jaxpro.evals import arms
from jaxpro.evals.sessions import ARMS, SessionOptions, client_command
from jaxpro.evals.tasks import ANSWERS, SKILLS, load_tasks, problems
MIN_PER_SKILL = 5  # for each of the four skills
MIN_TASKS = 30
MIN_AGENT_TASKS = 2  # "agent-kind tasks": multi-file work for the jax-pro agent
EXAMPLE = "loss-history-append-jit"  # the example task of evals/answers/README.md


@pytest.mark.parametrize("task", TASK_IDS)
def test_task_metadata_and_files_are_complete(task: str):
    found = problems(ANSWERS / task)
    assert not found, "\n".join(found)


def test_every_answer_folder_belongs_to_a_task():
    for answers in ("_reference", "_wrong"):
        folders = {p.name for p in (ANSWERS / answers).iterdir() if p.is_dir() and p.name != "__pycache__"}
        assert folders <= set(TASK_IDS), f"{answers}: answers for no task: {sorted(folders - set(TASK_IDS))}"


def test_no_file_under_evals_answers_is_collected_by_the_main_suite():
    """Graders run only through the runner, with their own pytest.ini; the main run never imports them."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "answers" in settings["norecursedirs"]
    assert not [p for p in ANSWERS.rglob("test_*.py")], "a file under evals/answers is named test_*.py"


def test_enough_tasks_for_every_skill_and_the_agent():
    tasks = load_tasks()
    counts = {skill: sum(task.skill == skill for task in tasks) for skill in SKILLS}
    assert len(tasks) >= MIN_TASKS, f"{len(tasks)} tasks; the issue asks for at least {MIN_TASKS}: {counts}"
    short = {skill: n for skill, n in counts.items() if skill != "agent" and n < MIN_PER_SKILL}
    assert not short, f"fewer than {MIN_PER_SKILL} tasks for: {short}"
    assert counts["agent"] >= MIN_AGENT_TASKS, f"{counts['agent']} agent-kind (multi-file) tasks"


def test_metadata_problems_are_named(tmp_path: Path):
    folder = tmp_path / "bad-task"
    folder.mkdir()
    (folder / "test_grader.py").write_text("", encoding="utf-8")
    toml = (ANSWERS / EXAMPLE / "task.toml").read_text(encoding="utf-8")
    toml = toml.replace(f'id = "{EXAMPLE}"', 'id = "other"').replace('skill = "python-jax"\nlibraries', 'skill = "pytorch"\nlibraries')
    toml = toml.replace("https://github.com/jax-ml/jax/issues/2521", "http://example.com/post")
    toml = re.sub(r'(section = "references/\w+\.md)#[\w-]+"', r'\1#no-such-heading"', toml)
    toml = 'port = "matlab"\n' + toml + '\n[delta]\nlibrary = "jax"\nkind = "removed"\nold = "jax.no_such_name"\n'
    (folder / "task.toml").write_text(toml, encoding="utf-8")
    found = "\n".join(problems(folder))
    for expected in ("id 'other' is not the folder name", "skill 'pytorch' is not one of",
                     "port 'matlab' is not one of", "[delta] jax removed 'jax.no_such_name' is not in api_changes.toml",
                     "is not an https URL of a thread", "has no heading with anchor #no-such-heading",
                     "grader.py: missing", "test_grader.py: a grader must not be named test_*.py",
                     "_reference/bad-task/history.py: missing"):
        assert expected in found
    (folder / "task.toml").write_text('id = "bad-task"\n', encoding="utf-8")
    assert "bad-task/task.toml: no `module`" in "\n".join(problems(folder))


def test_the_prompt_is_the_request_the_pins_and_the_interface():
    (task,) = load_tasks([EXAMPLE])
    prompt = task.prompt()
    assert prompt.startswith(task.meta["request"].strip())
    assert "jax 0.12.0.1" in prompt and "flax 0.12.12" in prompt and "numpyro 0.22.0" in prompt
    assert "Write the answer as `history.py` in the current directory" in prompt
    assert prompt.rstrip().endswith(task.meta["interface"].strip())


def test_command_lines_differ_only_by_the_plugin_and_by_bash():
    claude_binary()
    (task,) = load_tasks([EXAMPLE])
    bundle = client_command(task, "bundle", SessionOptions("oneshot", "haiku"))
    baseline = client_command(task, "baseline", SessionOptions("oneshot", "haiku"))
    agentic = client_command(task, "bundle", SessionOptions("agentic"))
    assert bundle[1:3] == ["-p", task.prompt()]  # the prompt sits right after -p, before any list option
    assert bundle[bundle.index("--plugin-dir") + 1] == str(REPO) and "--plugin-dir" not in baseline
    assert [a for a in bundle if a not in ("--plugin-dir", str(REPO))] == baseline
    assert bundle[bundle.index("--model") + 1] == "haiku" and "--model" not in agentic
    assert bundle[bundle.index("--disallowedTools") + 1] == "WebFetch,WebSearch,Bash"
    assert agentic[agentic.index("--disallowedTools") + 1] == "WebFetch,WebSearch"
    assert agentic[agentic.index("--allowedTools") + 1] == "Bash" and "--allowedTools" not in bundle


def test_help_and_list_work_offline():
    assert "--grade DIR" in run("--help").stdout
    listing = run("--list")
    assert listing.returncode == 0, listing.stderr
    assert all(task in listing.stdout for task in TASK_IDS)
    unknown = run("--grade", "evals/answers/_reference", "--task", "no-such-task")
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: no such task: no-such-task")


def _answers(tmp_path: Path, name: str, prefix: str = "", suffix: str = "") -> Path:
    """An answers folder with the example task's reference answer, with lines added before and after."""
    folder = tmp_path / name / EXAMPLE
    folder.mkdir(parents=True)
    source = (ANSWERS / "_reference" / EXAMPLE / "history.py").read_text(encoding="utf-8")
    (folder / "history.py").write_text(prefix + source + suffix, encoding="utf-8")
    return folder.parent


@pytest.mark.parametrize(
    ("prefix", "suffix", "status", "message"),
    [
        ("", "", "passed", ""),
        ("", "\nimport warnings\nwarnings.warn('old API', DeprecationWarning)\n", "error", "DeprecationWarning: old API"),
        ("import warnings\nwarnings.simplefilter('ignore')\n", "", "error", "adds warning filters that silence warnings"),
        ("import warnings\nwarnings.resetwarnings()\n", "", "error", "DeprecationWarning no longer fails"),
        ("", "\ndef descend(x0, num_steps, learning_rate):\n    raise NotImplementedError\n", "failed", "NotImplementedError"),
        ("def descend(:\n", "", "error", "SyntaxError"),
    ],
    ids=["reference", "deprecation", "silenced", "reset-filters", "raises", "syntax"],
)
def test_grading_rejects_deprecations_silenced_warnings_and_broken_answers(tmp_path: Path, prefix: str, suffix: str,
                                                                         status: str, message: str):
    answers = _answers(tmp_path, "answers", prefix, suffix)
    result = run("--grade", str(answers), "--task", EXAMPLE, "--json", "--workers", "1")
    (grade,) = json.loads(result.stdout)
    assert grade["status"] == status and message in grade["message"], grade
    assert result.returncode == (0 if status == "passed" else 1)
    assert not list(answers.rglob("__pycache__")), "grading leaves no bytecode in the answers folder"


def test_a_missing_answer_is_no_answer_and_expect_fail_does_not_count_it(tmp_path: Path):
    result = run("--grade", str(tmp_path), "--task", EXAMPLE)
    assert result.returncode == 1 and "no-answer" in result.stdout and "history.py is missing" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    result = run("--grade", str(tmp_path), "--task", EXAMPLE, "--expect", "fail")
    assert result.returncode == 1 and f"these did not: {EXAMPLE}" in result.stdout


def test_record_holds_every_grade_with_versions(tmp_path: Path):
    record = tmp_path / "grades.json"
    result = run("--grade", str(tmp_path), "--task", EXAMPLE, "--record", str(record))
    data = json.loads(record.read_text(encoding="utf-8"))
    assert result.returncode == 1 and data["versions"]["jax"] == "0.12.0.1"
    assert [g["task"] for g in data["grades"]] == [EXAMPLE] and data["grades"][0]["status"] == "no-answer"


def test_the_real_client_sets_up_both_arms_and_both_modes_as_intended():
    """The exact command lines of a live run, run offline: the plugin only with the bundle, Bash only agentic."""
    claude_binary()  # skips under JAXPRO_SKIP_CLAUDE=1 when the CLI is not installed
    result = run("--check-client")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    assert all("jax-pro:python-jax" in line for line in lines if line.startswith("bundle"))
    assert all("plugin skills: none" in line for line in lines if line.startswith("baseline"))
    assert all(("Bash allowed" in line) == (" agentic " in line) for line in lines)


def test_without_credentials_the_live_run_stops_with_one_line(tmp_path: Path):
    claude_binary()
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    result = run("--task", EXAMPLE, env=env)
    assert result.returncode == 2 and result.stderr.strip().startswith("error: no credentials")
    # A HOME where the client is not logged in: the real client refuses at the API, and the runner says so,
    # having kept the transcript of each arm.
    home, out = tmp_path / "home", tmp_path / "out"
    home.mkdir()
    result = run("--task", EXAMPLE, "--home", str(home), "--out", str(out), env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error: the client could not call the API: Not logged in" in result.stderr
    transcripts = list((out / "transcripts").rglob("*.jsonl"))
    assert transcripts and all('"subtype":"init"' in t.read_text(encoding="utf-8") for t in transcripts)


@live_run_only("JAX_PRO_LIVE_ANSWERS", "the live answer eval", "every task is two paid client sessions")
@pytest.mark.timeout(7200)
def test_live_answer_eval_runs_both_arms_and_reports_the_difference(tmp_path: Path):
    args = ["--out", str(tmp_path / "run")]
    if os.environ.get("JAX_PRO_CLAUDE_HOME"):
        args += ["--home", os.environ["JAX_PRO_CLAUDE_HOME"]]
    if os.environ.get("JAX_PRO_LIVE_MODEL"):
        args += ["--model", os.environ["JAX_PRO_LIVE_MODEL"]]
    result = run(*args, timeout=7000)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pass rate with the bundle" in result.stdout and "tasks the baseline fails" in result.stdout
    shutil.rmtree(tmp_path / "run" / "answers", ignore_errors=True)


def test_a_section_runs_to_the_next_heading_of_its_level_or_higher(tmp_path: Path):
    """The span docsite/tests checks for executed blocks, and the anchors [bundle].section may name."""
    from jaxpro.anchors import headings

    page = tmp_path / "page.md"
    page.write_text("# Top\n\n## A: one\n\ntext\n\n### A.1\n\n```python\n# not a heading\n```\n\n## A: one\n\nend\n",
                    encoding="utf-8")
    found = [(h.level, h.line, h.end, h.anchor) for h in headings(page)]
    assert found == [(1, 1, 15, "top"), (2, 3, 12, "a-one"), (3, 7, 12, "a1"), (2, 13, 15, "a-one-1")]


FAKE_CLIENT = '''#!{python}
"""Stands in for the CLI: writes the reference answer with the plugin, the wrong one without."""
import json, shutil, sys
if sys.argv[1:] == ["--version"]:
    sys.exit(print("0.0.0 (stand-in client)"))
answers = "{answers}"
bundle = "--plugin-dir" in sys.argv
print(json.dumps({{"type": "system", "subtype": "init", "tools": ["Write"]}}))
if bundle:
    print(json.dumps({{"type": "assistant", "message": {{"content": [
        {{"type": "tool_use", "name": "Skill", "input": {{"skill": "jax-pro:python-jax"}}}}]}}}}))
shutil.copy(f"{{answers}}/{{'_reference' if bundle else '_wrong'}}/{example}/history.py", "history.py")
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False}}))
'''


def test_the_live_pipeline_with_a_stand_in_client_reports_the_difference(tmp_path: Path):
    """Everything after the client: sessions, transcripts, collecting and grading answers, the table, summary.json."""
    fake = tmp_path / "claude"
    fake.write_text(FAKE_CLIENT.format(python=sys.executable, answers=ANSWERS, example=EXAMPLE), encoding="utf-8")
    fake.chmod(0o755)
    (tmp_path / "home").mkdir()
    result = run("--task", EXAMPLE, "--home", str(tmp_path / "home"), "--out", str(tmp_path / "out"),
                 env={**os.environ, "JAXPRO_CLAUDE": str(fake)})
    assert result.returncode == 0, result.stdout + result.stderr
    printed = result.stdout
    assert "pass rate with the bundle 100%, without 0%, difference +100 points (1 task)" in printed
    assert f"tasks the baseline fails: {EXAMPLE}" in printed
    assert "clean-pass rate with the bundle 100%, without 0%, difference +100 points (1 task)" in printed
    assert [line.split() for line in printed.splitlines() if line.startswith(EXAMPLE)] == [
        [EXAMPLE, "python-jax", "passed,", "clean", "failed", "yes"]]
    assert ["python-jax", "1", "1", "0", "+1", "1", "0", "+1"] in [line.split() for line in printed.splitlines()]
    assert "client: Claude Code 0.0.0, model default, mode oneshot" in printed
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["pass_rate"] == {"bundle": 1.0, "baseline": 0.0} and summary["baseline_fails"] == [EXAMPLE]
    assert summary["clean_pass_rate"] == {"bundle": 1.0, "baseline": 0.0}
    (row,) = summary["tasks"]
    assert row["bundle"]["status"] == "passed" and row["baseline"]["status"] == "failed"
    assert row["sessions"]["bundle"]["invoked"] == ["jax-pro:python-jax"] and row["sessions"]["baseline"]["invoked"] == []
    for arm in ARMS:
        assert (tmp_path / "out" / "transcripts" / arm / f"{EXAMPLE}.jsonl").is_file()
        assert (tmp_path / "out" / "answers" / arm / EXAMPLE / "history.py").is_file()


def test_prepare_lays_out_blind_arms(tmp_path: Path):
    """The baseline arm gets the tasks and a brief only; the bundle arm also the plugin, without anything
    that holds or grades an answer."""
    for arm in ("baseline", "bundle"):
        out = tmp_path / arm
        result = run("--prepare", arm, "--out", str(out), "--task", EXAMPLE, "--task", "hessian-diagonal")
        assert result.returncode == 0, result.stderr
        (task,) = load_tasks([EXAMPLE])
        assert (out / "tasks" / EXAMPLE / "PROMPT.md").read_text(encoding="utf-8") == task.prompt()
        brief = (out / "BRIEF.md").read_text(encoding="utf-8")
        assert "Do not run any code" in brief and "Answer every task" in brief
        assert json.loads((out / "arm.json").read_text(encoding="utf-8"))["tasks"] == ["hessian-diagonal", EXAMPLE]
    assert not (tmp_path / "baseline" / "plugin").exists() and "SKILL.md" not in (tmp_path / "baseline" / "BRIEF.md").read_text()
    plugin = tmp_path / "bundle" / "plugin"
    assert (plugin / "skills" / "python-jax" / "SKILL.md").is_file() and (plugin / "references").is_dir()
    assert not any((plugin / name).exists() for name in ("evals", "tests", "dev", "docsite", "jaxpro", ".git"))
    reference = (ANSWERS / "_reference" / EXAMPLE / "history.py").read_text(encoding="utf-8")
    assert not [p for p in plugin.rglob("*.py") if p.read_text(encoding="utf-8") == reference]
    brief = (tmp_path / "bundle" / "BRIEF.md").read_text(encoding="utf-8")
    assert all(f"**{name} (skill)**" in brief for name in SKILLS[:-1]) and "**jax-pro (agent)**" in brief
    again = run("--prepare", "bundle", "--out", str(tmp_path / "bundle"), "--task", EXAMPLE)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_agentic_bundle_arm_runs_the_hook_after_a_write_and_counts_runs_and_reads(tmp_path: Path):
    """An agentic arm's brief allows runs with the pinned interpreter; the bundle arm's after_write.sh runs the
    plugin's hook as the client does and prints its context; `usage` counts the LOG.md lines."""
    out = tmp_path / "bundle"
    assert run("--prepare", "bundle", "--mode", "agentic", "--out", str(out), "--task", EXAMPLE).returncode == 0
    brief = (out / "BRIEF.md").read_text(encoding="utf-8")
    assert "Do not run any code" not in brief and "after_write.sh" in brief and "LOG.md" in brief
    answer = out / "tasks" / EXAMPLE / "history.py"
    answer.write_text("import optax\n\nnorm = optax.global_norm({})\n", encoding="utf-8")  # deprecated: reported
    shown = subprocess.run(["sh", str(out / "after_write.sh"), str(answer)], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert "optax.global_norm" in shown.stdout and "line 3" in shown.stdout, shown.stdout + shown.stderr
    skill = out / "plugin" / "skills" / "python-jax" / "SKILL.md"
    (out / "tasks" / EXAMPLE / "LOG.md").write_text(f"RUN python history.py\nREAD {skill} 1-3\nRUN python -c 1\n",
                                                     encoding="utf-8")
    counted = arms.usage(out / "tasks")[EXAMPLE]
    head = skill.read_text(encoding="utf-8").splitlines()[:3]
    assert counted == {"runs": 2, "lines_read": 3, "chars_read": sum(len(line) + 1 for line in head)}
    baseline = tmp_path / "baseline"
    assert run("--prepare", "baseline", "--mode", "agentic", "--out", str(baseline), "--task", EXAMPLE).returncode == 0
    assert "after_write" not in (baseline / "BRIEF.md").read_text(encoding="utf-8")
    assert not (baseline / "after_write.sh").exists()


def test_compare_reports_both_arms_per_task_and_in_total(tmp_path: Path):
    arms = {}
    for name, answers in (("first", "_wrong"), ("second", "_reference")):
        arms[name] = tmp_path / name
        assert run("--prepare", "baseline", "--out", str(arms[name]), "--task", EXAMPLE).returncode == 0
        shutil.copy(ANSWERS / answers / EXAMPLE / "history.py", arms[name] / "tasks" / EXAMPLE / "history.py")
        graded = run("--grade", str(arms[name] / "tasks"), "--task", EXAMPLE, "--record", str(arms[name] / "grades.json"))
        assert graded.returncode == (1 if answers == "_wrong" else 0), graded.stdout + graded.stderr
    result = run("--compare", str(arms["first"]), str(arms["second"]), "--task", EXAMPLE)
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert [EXAMPLE, "python-jax", "failed", "clean", "pass"] in lines
    assert ["all", "1", "0", "→", "1", "(+1)", "0", "→", "1", "(+1)", "0%", "→", "100%"] in lines
    assert result.stdout.rstrip().endswith("tasks baseline clean-passes and baseline does not: none")
    missing = run("--compare", str(arms["first"]), str(tmp_path), "--task", EXAMPLE)
    assert missing.returncode == 2 and "grades.json: missing" in missing.stderr
