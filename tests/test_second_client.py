"""Two more Agent Skills clients, run for real on the exported skill folders, with a fresh HOME.

The folders are the ones tests/test_export_skills.py builds and copies alone. Gemini CLI installs each
with its own command (`gemini skills install <folder> --scope user --consent`) and lists what it
discovers (`gemini skills list`); OpenCode reads folders copied into `~/.config/opencode/skills/` and
prints what it discovers as JSON (`opencode debug skill`). Neither needs a login or the network for
this. Both are pinned in dev/setup.sh, which installs them under .tools/ next to Claude Code's CLI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bundle import REPO, SKILLS, front_matter
from test_export_skills import alone  # noqa: F401  (the fixture: each exported folder, copied alone)

NAMES = [s.name for s in SKILLS]


def client(name: str, skip_variable: str) -> Path:
    """A client's launcher under .tools/ (dev/setup.sh); skipped when its skip variable is set."""
    binary = REPO / ".tools/node_modules/.bin" / name
    if not binary.is_file():
        if os.environ.get(skip_variable) == "1":
            pytest.skip(f"{skip_variable}=1: {name} is not installed")
        raise FileNotFoundError(f"{binary} not found: run `bash dev/setup.sh` (it needs npm), or set {skip_variable}=1")
    return binary


def run(binary: Path, *args: str, home: Path) -> str:
    """Run a client with only PATH and a fresh HOME in its environment, from a project inside HOME."""
    project = home / "project"
    project.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run([str(binary), *args], cwd=project, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"{binary.name} {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def description(skill: str) -> str:
    return " ".join(front_matter(REPO / "skills" / skill / "SKILL.md")["description"].split())


def gemini_listing(output: str) -> dict[str, dict[str, str]]:
    """`gemini skills list` as {name: {"state": ..., "Description": ..., "Location": ...}}."""
    skills: dict[str, dict[str, str]] = {}
    current = None
    for line in output.splitlines():
        if header := re.fullmatch(r"(\S+) \[(\w+)\]", line.strip()):
            current = skills.setdefault(header.group(1), {"state": header.group(2)})
        elif current is not None and (field := re.fullmatch(r"\s+(Description|Location):\s+(.*)", line)):
            current[field.group(1)] = field.group(2).strip()
    return skills


def test_gemini_cli_installs_and_discovers_every_exported_skill(alone: dict[str, Path], tmp_path: Path):  # noqa: F811
    gemini = client("gemini", "JAXPRO_SKIP_GEMINI")
    home = tmp_path / "home"
    home.mkdir()
    for skill in NAMES:
        output = run(gemini, "skills", "install", str(alone[skill]), "--scope", "user", "--consent", home=home)
        assert f"Successfully installed skill: {skill}" in output, output
        installed = home / ".gemini/skills" / skill
        copied = sorted(p.relative_to(installed) for p in installed.rglob("*") if p.is_file())
        assert copied == sorted(p.relative_to(alone[skill]) for p in alone[skill].rglob("*") if p.is_file())
    listing = gemini_listing(run(gemini, "skills", "list", home=home))
    assert set(NAMES) <= set(listing), listing
    for skill in NAMES:
        assert listing[skill]["state"] == "Enabled", listing[skill]
        assert listing[skill]["Description"] == description(skill)
        assert listing[skill]["Location"] == str(home / ".gemini/skills" / skill / "SKILL.md")


def test_opencode_discovers_every_exported_skill(alone: dict[str, Path], tmp_path: Path):  # noqa: F811
    opencode = client("opencode", "JAXPRO_SKIP_OPENCODE")
    home = tmp_path / "home"
    for skill in NAMES:
        shutil.copytree(alone[skill], home / ".config/opencode/skills" / skill)
    output = run(opencode, "debug", "skill", "--pure", home=home)  # --pure: no external plugins fetched
    found = {s["name"]: s for s in json.loads(output[output.index("["):output.rindex("]") + 1])}
    assert set(NAMES) <= set(found), sorted(found)
    for skill in NAMES:
        skill_md = home / ".config/opencode/skills" / skill / "SKILL.md"
        assert found[skill]["location"] == str(skill_md)
        assert " ".join(found[skill]["description"].split()) == description(skill)
        assert found[skill]["content"].strip() == skill_md.read_text(encoding="utf-8").split("---\n", 2)[2].strip()
