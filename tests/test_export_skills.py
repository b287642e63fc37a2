"""The export for other Agent Skills clients: each folder stands alone, validates, has no broken link, runs.

The export is generated, not committed (`python dev/export_skills.py --out DIR`), so it cannot be stale;
this test builds it with the standard library only (`python -S`), copies each skill folder alone to
another place, and checks it there as a client would see it: validated, links resolved, scripts
answering --help, and every Python block of its Markdown executed by mdexec from that copy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bundle import REPO, SKILLS
from test_bundle import _unresolved

EXPORTER = REPO / "dev" / "export_skills.py"
# Commands and paths that only mean something in a checkout of this repository, never in a user's project:
# pytest on the bundle's own files, its tests/ and dev/ folders, "this repository", the harness by name.
REPOSITORY_ONLY = re.compile(r"\bpytest(?:\s+-\S+)*\s+\S*?(?:tests|references|skills|agents|examples)/|(?<![\w./-])(?:tests|dev)/"
                             r"|\b[Tt]his repository\b|\bthe repo\b|\bmdexec\b(?!: )")
CODE = re.compile(r"(?ms)^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$|^<!-- mdexec:.*?-->$")
PYTHON_FENCE = re.compile(r" {0,3}(```|~~~) *(python3?|py|pycon)\b")  # the blocks mdexec runs


def code_of(markdown: Path) -> tuple[str, ...]:
    """The fenced blocks and mdexec directives of a Markdown file: all that decides how its blocks run."""
    return tuple(m.group(0) for m in CODE.finditer(markdown.read_text(encoding="utf-8")))


def repository_only(text: str) -> list[str]:
    """Contributor instructions in text that ships to users (`line N: match`), none expected."""
    flat = text.replace("\n", " ")  # a command may wrap onto the next line
    return [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in REPOSITORY_ONLY.finditer(flat)]


def to_execute(folders: dict[str, Path]) -> dict[str, list[Path]]:
    """For each exported folder, its Markdown files with blocks, minus those whose run would repeat one
    that the test suite already makes.

    mdexec gives each file a fresh working directory, so a block can see which folder it is in only
    through `__file__`. A file that never reads `__file__` and whose blocks and directives are identical
    to those of the repository file it was exported from (which the main run executes: the export
    rewrites only links and prose), or to a file of an earlier folder (the same reference exported
    twice), runs the same code the same way; it is not run again.
    """
    seen, plan = set(), {}
    for skill, folder in folders.items():
        plan[skill] = []
        for path in sorted(folder.rglob("*.md")):
            code = code_of(path)
            key = (path.relative_to(folder).as_posix(), code)
            source = REPO / "skills" / skill / "SKILL.md" if path.name == "SKILL.md" else REPO / key[0]
            unchanged = source.is_file() and code_of(source) == code
            reads_location = "__file__" in str(code)
            if any(PYTHON_FENCE.match(block) for block in code) and (reads_location or not (unchanged or key in seen)):
                plan[skill].append(path)
                seen.add(key)
    return plan


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Export every skill, then copy each folder on its own to a separate directory."""
    out = tmp_path_factory.mktemp("export")
    done = subprocess.run([sys.executable, "-S", str(EXPORTER), "--out", str(out)], capture_output=True, text=True,
                          timeout=120)  # -S: no site-packages, so the exporter needs only the standard library
    assert done.returncode == 0, done.stderr
    folders = {}
    for skill in SKILLS:
        folders[skill.name] = tmp_path_factory.mktemp(f"alone-{skill.name}") / skill.name
        shutil.copytree(out / skill.name, folders[skill.name])
    return folders


def test_every_skill_is_exported(alone: dict[str, Path]):
    assert sorted(alone) == sorted(s.name for s in SKILLS)
    for folder in alone.values():
        assert {p.name for p in folder.iterdir()} <= {"SKILL.md", "references", "scripts", "examples", "api_changes.toml"}


@pytest.mark.parametrize("skill", [s.name for s in SKILLS])
def test_exported_folder_validates_and_has_no_broken_link(skill: str, alone: dict[str, Path]):
    folder = alone[skill]
    validator = Path(sys.executable).parent / "agentskills"
    done = subprocess.run([str(validator), "validate", str(folder)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    markdown = sorted(folder.rglob("*.md"))
    assert len(markdown) > 1, "SKILL.md and the references it routes to"
    for path in markdown:
        text = path.read_text(encoding="utf-8")
        assert "${CLAUDE_" not in text, f"{path.relative_to(folder)}: a variable only Claude Code fills in"
        problems = _unresolved(path, root=folder)
        assert not problems, f"{path.relative_to(folder)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("skill", [s.name for s in SKILLS])
def test_exported_markdown_has_no_contributor_instructions(skill: str, alone: dict[str, Path]):
    found = {p.relative_to(alone[skill]).as_posix(): repository_only(p.read_text(encoding="utf-8"))
             for p in sorted(alone[skill].rglob("*.md"))}
    assert not {name: hits for name, hits in found.items() if hits}, found


def test_contributor_instructions_are_found():
    text = "Re-run with `pytest -n0\nreferences/x.md`. In this repository: tests/test_a.py, `dev/setup.sh`.\n"
    assert repository_only(text) == ["line 1: pytest -n0 references/", "line 2: this repository",
                                      "line 2: tests/", "line 2: dev/"]
    assert repository_only("<!-- mdexec: skip=\"GPU\" -->\nRun your tests with `pytest -n0 -k slow`.\n") == []


@pytest.mark.parametrize("skill", [s.name for s in SKILLS])
def test_exported_scripts_run_from_the_folder(skill: str, alone: dict[str, Path], tmp_path: Path):
    """Each copied script answers --help on its own: everything it imports was copied with it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for script in sorted((alone[skill] / "scripts").glob("[!_]*.py")):
        done = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.startswith("usage: "), f"{script.name}: {done.stderr[-2000:]}"


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("skill", [s.name for s in SKILLS])
def test_exported_markdown_runs_from_the_folder(skill: str, alone: dict[str, Path]):
    """mdexec executes the folder's Markdown from the copy alone, with this checkout nowhere on its path."""
    folder, files = alone[skill], to_execute(alone)[skill]
    if not files:
        pytest.skip("every Markdown file of this folder has the code of a file the main run or an earlier folder executes, and none reads __file__")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XLA_FLAGS")}
    command = [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", "--rootdir", str(folder),
               *(str(f.relative_to(folder)) for f in files)]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=1100)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    for path in files:
        assert re.search(rf"^{re.escape(path.relative_to(folder).as_posix())}: [1-9]\d* executed, \d+ skipped$",
                         done.stdout, re.M), done.stdout[-3000:]


def test_a_reference_exported_twice_runs_once(tmp_path: Path):
    block = "```python\nx = 1\n```\n"
    files = {"a/SKILL.md": "a\n" + block, "a/references/r.md": "[link](x.md)\n" + block,
             "a/references/f.md": "```python\nprint(__file__)\n```\n", "a/references/prose.md": "no code\n",
             "a/references/shell.md": "```bash\nls\n```\n",
             "b/SKILL.md": "```python\ny = 2\n```\n", "b/references/r.md": "other prose\n" + block,
             "b/references/f.md": "```python\nprint(__file__)\n```\n",
             "b/references/d.md": "<!-- mdexec: raises=ValueError -->\n" + block}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    plan = to_execute({"a": tmp_path / "a", "b": tmp_path / "b"})
    names = {skill: sorted(p.relative_to(tmp_path).as_posix() for p in paths) for skill, paths in plan.items()}
    assert names == {"a": ["a/SKILL.md", "a/references/f.md", "a/references/r.md"],
                     "b": ["b/SKILL.md", "b/references/d.md", "b/references/f.md"]}


def test_existing_output_is_kept_unless_forced(tmp_path: Path):
    (tmp_path / "python-jax").mkdir()
    done = subprocess.run([sys.executable, str(EXPORTER), "--out", str(tmp_path), "--skill", "python-jax"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("error: ") and "--force" in done.stderr
    assert not any((tmp_path / "python-jax").iterdir())
    done = subprocess.run([sys.executable, str(EXPORTER), "--out", str(tmp_path), "--skill", "python-jax", "--force"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and (tmp_path / "python-jax" / "SKILL.md").is_file()


@pytest.mark.parametrize("skill", [s.name for s in SKILLS])
def test_the_exported_currency_checker_reads_its_data_beside_skill_md(skill: str, alone: dict[str, Path], tmp_path: Path):
    folder = alone[skill]
    checker = folder / "scripts" / "jax_currency_check.py"
    assert checker.is_file() and (folder / "api_changes.toml").is_file()
    code = tmp_path / "old.py"
    code.write_text("import jax.numpy as jnp\n\nx = jnp.fix(jnp.ones(3))\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(checker), str(code)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1 and "jax.numpy.fix -> jax.numpy.trunc" in done.stdout, done.stdout + done.stderr


def test_a_reference_with_the_repository_code_is_not_run_again(tmp_path: Path):
    """The main run executes references/sharp_bits.md; the same blocks exported need no second run,
    but a changed block or a block that reads __file__ does."""
    folder = tmp_path / "python-jax"
    (folder / "references").mkdir(parents=True)
    text = (REPO / "references" / "sharp_bits.md").read_text(encoding="utf-8")
    (folder / "references" / "sharp_bits.md").write_text(text.replace("](", "](../"), encoding="utf-8")  # links only
    (folder / "references" / "migration.md").write_text("```python\nx = 1\n```\n", encoding="utf-8")  # other code
    (folder / "SKILL.md").write_text((REPO / "skills/python-jax/SKILL.md").read_text(encoding="utf-8")
                                     + "\n```python\nprint(__file__)\n```\n", encoding="utf-8")
    plan = to_execute({"python-jax": folder})["python-jax"]
    assert sorted(p.relative_to(folder).as_posix() for p in plan) == ["SKILL.md", "references/migration.md"]
