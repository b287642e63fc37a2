"""The documentation site's pieces, without building it: records, rendering, links, task tables.

The strict build and the browser check run after the main test run, from docsite/tests/.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docsite import REPO, TEST_COMMAND
from docsite.hooks import rewrite
from docsite.records import RecordProblem, load
from docsite.render import render_page
from docsite.tasks import routing_tables, skills, split_row

BASIC = REPO / "tests/fixtures/md/basic.md"


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real records of a real harness run on the basic fixture."""
    directory = tmp_path_factory.mktemp("records")
    command = [sys.executable, "-m", "pytest", "-n0", "-q", "-p", "no:randomly", f"--mdexec-record={directory}", str(BASIC)]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return directory


def _edit(records: Path, tmp_path: Path, change) -> Path:  # noqa: ANN001 - a callable on the record
    data = json.loads((records / "tests/fixtures/md/basic.md.json").read_text(encoding="utf-8"))
    change(data)
    target = tmp_path / "tests/fixtures/md/basic.md.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_record_of_a_real_run_loads(records: Path):
    record = load(BASIC, records)
    assert sorted(record.blocks) == [3, 11, 15, 21, 25]
    assert record.counts == (4, 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(sha256="0" * 64), "basic.md: the record is stale (the file changed after the run of"),
        (lambda d: d["versions"].update(jax="0.4.0"), "basic.md: recorded with jax 0.4.0, but pyproject.toml pins"),
        (lambda d: d["blocks"].pop(1), "basic.md: the record has no outcome for L11 (a partial run?)"),
        (
            lambda d: d["blocks"][4].update(status="failed", error_type="AssertionError", error_message="boom\nmore"),
            "basic.md:25: this block failed in the recorded run (AssertionError: boom); fix it",
        ),
    ],
    ids=["stale", "other-versions", "partial", "failed"],
)
def test_unusable_records_are_named_with_what_to_do(records: Path, tmp_path: Path, change, message: str):
    with pytest.raises(RecordProblem) as problem:
        load(BASIC, _edit(records, tmp_path, change))
    assert message in str(problem.value)
    assert str(problem.value).endswith(f"run the test command first: {TEST_COMMAND}")


def test_missing_records_stop_the_build_with_one_line_per_page(tmp_path: Path):
    result = subprocess.run(
        [sys.executable, "dev/build_site.py", "--records", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines and all(line.startswith("build_site: error: ") for line in lines), result.stderr
    assert any(line.startswith("build_site: error: references/sharp_bits.md: no record of its blocks") for line in lines)
    assert "Traceback" not in result.stderr


def test_outputs_errors_and_skips_go_under_their_blocks(records: Path):
    page = render_page(BASIC.read_text(encoding="utf-8"), load(BASIC, records))
    lines = page.splitlines()
    assert lines[0] == "# Basic" and lines[2].startswith("Verified with Python 3.12")
    assert "jax 0.12.0.1" in lines[2] and "(4 blocks run, 1 skipped with a reason)" in lines[2]
    output = page.index('!!! success mdexec-output "Output"')
    assert page.index("print(math.pi)") < output < page.index("1 / 0")
    assert "    3\n    3.141592653589793\n" in page[output:]
    error = page.index('!!! failure mdexec-error "Expected error: ZeroDivisionError"')
    assert page.index("1 / 0") < error < page.index(">>> x * 21")
    assert "    ZeroDivisionError: division by zero" in page[error:]
    assert '!!! note mdexec-skipped "Not run here: only shown, needs a TPU"' in page


def test_outcome_inside_a_list_item_keeps_its_indentation():
    from docsite.records import PageRecord

    text = "# T\n\n- step:\n\n  ```python\n  print(1)\n  ```\n"
    block = {"line": 5, "status": "passed", "stdout": "1\n", "error_type": None, "error_message": None, "reason": None}
    page = render_page(text, PageRecord("t.md", "2026-01-01", "3.12.1", {"jax": "0.12.0.1"}, {5: block}))
    assert '  ```\n\n  !!! success mdexec-output "Output"\n\n      ```text\n      1\n      ```\n' in page


def test_links_to_programs_and_paths_in_code_point_to_site_pages():
    sources = {"scripts/hlo_report.md", "examples/remat_memory.md", "references/migration.md", "skills/x/SKILL.md"}
    text = "\n".join(
        [
            "[example](../../examples/remat_memory.py#L3) and [gone](../../examples/nope.py)",
            "run `python ${CLAUDE_PLUGIN_ROOT}/scripts/hlo_report.py --help` or `python scripts/hlo_report.py`",
            "read [`references/migration.md`](../../references/migration.md) and `references/migration.md`",
            "```bash",
            "python scripts/hlo_report.py `scripts/hlo_report.py`",
            "```",
            "`scripts/unknown.py` stays",
        ]
    )
    out = rewrite(text, "skills/x", sources).splitlines()
    assert out[0] == "[example](../../examples/remat_memory.md#L3) and [gone](../../examples/nope.py)"
    assert out[1] == (
        'run [`python ${CLAUDE_PLUGIN_ROOT}/scripts/hlo_report.py --help`](../../scripts/hlo_report.md '
        '"${CLAUDE_PLUGIN_ROOT} is the folder where the plugin is installed") '
        "or [`python scripts/hlo_report.py`](../../scripts/hlo_report.md)"
    )
    assert out[2] == (
        "read [`references/migration.md`](../../references/migration.md) and "
        "[`references/migration.md`](../../references/migration.md)"
    )
    assert out[4] == "python scripts/hlo_report.py `scripts/hlo_report.py`"  # fences are left alone
    assert out[6] == "`scripts/unknown.py` stays"


def test_every_skill_has_a_routing_table_for_the_task_nav():
    for skill in skills():
        tables = routing_tables((skill / "SKILL.md").read_text(encoding="utf-8"))
        assert tables and all(len(table) > 1 for table in tables), f"{skill.name}: no routing table with rows"
    assert split_row("| `a|b` | c \\| d |") == ["`a|b`", "c \\| d"]


def test_ci_runs_the_readme_test_command_and_it_ends_with_the_site_check():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.startswith("bash dev/setup.sh &&") and "-m pytest" in line)
    assert TEST_COMMAND == command, "the last line of .ci/run must be the README's test command"
    assert command.endswith("-m pytest docsite/tests"), "the site check runs after the main run"


def test_front_matter_description_is_shown_as_text_not_passed_to_page_meta():
    text = '---\nname: a\ndescription: |-\n  Use it when "x". <example>hi</example>\n---\n\nBody.\n'
    page = render_page(text, None)
    assert not page.startswith("---") and "name: a" not in page
    assert '    Use it when "x". &lt;example&gt;hi&lt;/example&gt;' in page
    assert page.rstrip().endswith("Body.")
