"""The export for other Agent Skills clients: each folder stands alone, validates and has no broken link.

The export is generated, not committed (`python dev/export_skills.py --out DIR`), so it cannot be stale;
this test builds it with the standard library only (`python -S`), copies each skill folder alone to
another place, and checks it there as a client would see it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bundle import REPO, SKILLS
from test_bundle import _unresolved

EXPORTER = REPO / "dev" / "export_skills.py"


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
        assert {p.name for p in folder.iterdir()} <= {"SKILL.md", "references", "scripts", "examples"}


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
def test_exported_scripts_run_from_the_folder(skill: str, alone: dict[str, Path], tmp_path: Path):
    """Each copied script answers --help on its own: everything it imports was copied with it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for script in sorted((alone[skill] / "scripts").glob("[!_]*.py")):
        done = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.startswith("usage: "), f"{script.name}: {done.stderr[-2000:]}"


def test_existing_output_is_kept_unless_forced(tmp_path: Path):
    (tmp_path / "python-jax").mkdir()
    done = subprocess.run([sys.executable, str(EXPORTER), "--out", str(tmp_path), "--skill", "python-jax"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("error: ") and "--force" in done.stderr
    assert not any((tmp_path / "python-jax").iterdir())
    done = subprocess.run([sys.executable, str(EXPORTER), "--out", str(tmp_path), "--skill", "python-jax", "--force"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and (tmp_path / "python-jax" / "SKILL.md").is_file()
