"""The plugin as a user gets it: installed by the real CLI, its commands run from the user's project.

The CLI copies the folder it installs from as it is (it skips symlinks and .git but does not read
.gitignore), so the install is made from what a clone of this working tree holds (`git ls-files`,
uncommitted edits included) plus a `dist/` written by the documented export command: the size limit
must hold with that build output present. With a fresh HOME,
`claude plugin marketplace add <that folder>` and `claude plugin install` put a
copy of the plugin where Claude Code keeps it; the install path is read from the client's own
`installed_plugins.json`. Every command a skill or the agent gives (`python ${CLAUDE_PLUGIN_ROOT}/...`)
is then taken from the installed copy's text, with the variables filled in as the pinned client fills
them in (a literal replace of `${CLAUDE_PLUGIN_ROOT}` by the install path, and in skills of
`${CLAUDE_SKILL_DIR}` by the skill's folder), and run from a separate project directory in the user
environment that dev/setup.sh builds: jax, optax, numpyro and orbax-checkpoint at the pins, no rich.
The two examples that need flax run in .venv instead, because flax itself requires rich.

These runs are the plain runs of the examples; tests/test_examples.py adds only the deeper runs.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from bundle import AGENTS, REPO, SKILLS, claude_binary
from messages_server import scripted_server, texts_of, tool_use
from test_export_skills import repository_only
from test_script_headers import declared

MARKETPLACE = json.loads((REPO / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
PLUGIN_ID = f"{MARKETPLACE['plugins'][0]['name']}@{MARKETPLACE['name']}"
MAX_INSTALLED_BYTES = 12 * 2**20  # measured 9.0 MiB on 2026-11-27 with an exported dist/ (four skill folders, each with the references it routes to) and evals/ (1.1 MiB of recorded arms, the 0.34 MiB release history); the virtualenvs it guards against are 1.5 GB
COMMAND = re.compile(r"^python \$\{CLAUDE_PLUGIN_ROOT\}/(scripts|examples)/\w+\.py\b")
SOURCES = [*(s / "SKILL.md" for s in SKILLS), *AGENTS]


def body(path: Path) -> str:
    """A skill's or agent's Markdown after its front matter: what the client puts in context."""
    return path.read_text(encoding="utf-8").split("---\n", 2)[2]


def substitute(text: str, plugin_root: Path, skill_dir: Path | None) -> str:
    """Fill in the variables as Claude Code 2.1.330 does: plain replacement, skills also get the skill dir."""
    text = text.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin_root))
    return text.replace("${CLAUDE_SKILL_DIR}", str(skill_dir)) if skill_dir is not None else text


def commands(markdown: str) -> list[str]:
    """Inline-code spans that are commands running a bundled script or example."""
    found = []
    for token in MarkdownIt("commonmark").parse(markdown):
        for child in token.children or []:
            if child.type == "code_inline" and child.content.startswith("python "):
                found.append(child.content)
    return found


def source_commands() -> list[tuple[Path, str]]:
    """(file, command) for every runnable command in the repository's skills and agent, deduplicated."""
    seen: dict[str, Path] = {}
    for source in SOURCES:
        for command in commands(body(source)):
            if COMMAND.match(command) and "<" not in command:  # `<tool>` is a placeholder, not a command
                seen.setdefault(command, source)
    return [(source, command) for command, source in seen.items()]


def user_python() -> Path:
    """The no-rich user environment dev/setup.sh builds next to .venv."""
    python = (REPO / ".venv").resolve().parent / "user-venv" / "bin" / "python"
    if not python.is_file():
        pytest.fail(f"no user environment at {python}: run `bash dev/setup.sh`")
    return python


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout as a user has it: the working tree's files that git would keep, and an exported dist/."""
    folder = tmp_path_factory.mktemp("checkout") / "jax-pro"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True, timeout=60).stdout.split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    done = subprocess.run([sys.executable, str(folder / "dev/export_skills.py"), "--out", str(folder / "dist/skills")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return folder


def claude(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1", "CI": "1"}
    done = subprocess.run([str(claude_binary()), *args], cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"claude {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def install(home: Path, checkout: Path) -> Path:
    """Install the plugin with the README's two commands; return the install path the CLI records."""
    claude(home, "plugin", "marketplace", "add", str(checkout))
    claude(home, "plugin", "install", PLUGIN_ID)
    records = json.loads((home / ".claude/plugins/installed_plugins.json").read_text(encoding="utf-8"))
    (record,) = records["plugins"][PLUGIN_ID]
    path = Path(record["installPath"])
    assert path.is_dir() and path.resolve() != checkout.resolve()
    return path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, checkout: Path) -> Path:
    """Install the plugin from the checkout with the real CLI and a fresh HOME; return its install path."""
    return install(tmp_path_factory.mktemp("home"), checkout)


@pytest.fixture(scope="module")
def user_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project directory of the user's, with none of the plugin's folders in it."""
    project = tmp_path_factory.mktemp("userproj")
    (project / "train.py").write_text("print('the user project')\n", encoding="utf-8")
    return project


def test_pinned_cli_fills_in_the_variables_by_plain_replacement():
    """`substitute` copies what the pinned client does; fail if a new CLI stops doing it that way."""
    with open(claude_binary(), "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as binary:
        for variable in ("CLAUDE_PLUGIN_ROOT", "CLAUDE_SKILL_DIR"):
            assert binary.find(rb"replace(/\$\{" + variable.encode() + rb"\}/g") >= 0, variable


def test_skills_and_agent_give_no_bare_repository_paths():
    bare = [(s.relative_to(REPO), c) for s in SOURCES for c in commands(body(s))
            if re.search(r"(^|\s)(scripts|examples)/", c)]
    assert not bare, f"commands must start from ${{CLAUDE_PLUGIN_ROOT}}: {bare}"


def test_every_script_and_example_has_a_command():
    run = {m.group(0).split("/", 1)[1] for _, c in source_commands() for m in [COMMAND.match(c)]}
    bundled = {f"{d}/{p.name}" for d in ("scripts", "examples") for p in (REPO / d).glob("[!_]*.py")}
    assert bundled <= run, f"no skill or agent command runs {sorted(bundled - run)}"


def test_installed_plugin_is_small_and_complete(installed: Path, record_property):
    size = sum(p.lstat().st_size for p in installed.rglob("*") if not p.is_symlink())
    record_property("installed_bytes", size)
    print(f"installed plugin: {installed}, {size / 2**20:.2f} MiB")
    assert size <= MAX_INSTALLED_BYTES, f"the installed plugin takes {size / 2**20:.1f} MiB"
    assert not (installed / ".venv").exists() and not (installed / ".tools").exists()
    assert (installed / "dist/skills/python-jax/SKILL.md").is_file(), "the CLI copies gitignored output too"
    for source in SOURCES:
        assert (installed / source.relative_to(REPO)).is_file(), source


def test_installed_markdown_has_no_contributor_instructions(installed: Path):
    """What the client and the assistant read: the skills, the agent and the references they route to."""
    shipped = [*(installed / s.relative_to(REPO) for s in SOURCES), *sorted((installed / "references").glob("*.md"))]
    found = {p.relative_to(installed).as_posix(): repository_only(p.read_text(encoding="utf-8")) for p in shipped}
    assert len(found) > len(SOURCES)
    assert not {name: hits for name, hits in found.items() if hits}, found


def readme_block(heading: str) -> str:
    """The first bash block under a README heading."""
    section = (REPO / "README.md").read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def test_readme_uninstall_removes_every_trace(tmp_path: Path, checkout: Path):
    """Install, then run the README's uninstall block: nothing of the plugin stays under ~/.claude/plugins."""
    home = tmp_path / "home"
    home.mkdir()
    path = install(home, checkout)
    lines = [line for line in readme_block("## Uninstall").splitlines() if line.strip()]
    assert [line.split()[:3] for line in lines] == [["claude", "plugin", "uninstall"], ["claude", "plugin", "marketplace"],
                                                    ["rm", "-rf", "~/.claude/plugins/cache/jax-pro-marketplace"]], lines
    env = {"PATH": f"{claude_binary().parent}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(home),
           "NO_COLOR": "1", "CI": "1"}
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=home, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
        if line.startswith("claude plugin uninstall"):
            assert (path / ".orphaned_at").is_file(), "the pinned CLI leaves the copy, marked orphaned, behind"
    plugins = home / ".claude/plugins"
    left = [p for p in plugins.rglob("*") if "jax-pro" in p.name or (p.is_file() and "jax-pro" in p.read_text(errors="replace"))]
    assert not left, left
    settings = json.loads((home / ".claude/settings.json").read_text(encoding="utf-8"))
    assert "jax-pro" not in json.dumps(settings), settings


def test_user_environment_has_jax_but_not_rich():
    done = subprocess.run([str(user_python()), "-c", "import jax, optax, numpyro, orbax.checkpoint; import rich"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "No module named 'rich'" in done.stderr, done.stderr


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("source", "command"), source_commands(),
                         ids=[c.split("/", 1)[1] for _, c in source_commands()])
def test_command_runs_from_the_user_project(source: Path, command: str, installed: Path, user_project: Path,
                                            tmp_path: Path):
    relative = source.relative_to(REPO)
    skill_dir = installed / relative.parent if relative.parts[0] == "skills" else None
    text = substitute(body(installed / relative), installed, skill_dir)
    expected = substitute(command, installed, skill_dir)
    assert expected in commands(text), f"the installed {relative} does not give `{expected}`"

    target = COMMAND.match(command).group(0).split("/", 1)[1]
    python = user_python() if "flax" not in declared(REPO / target) else REPO / ".venv/bin/python"
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PRO_TRACEBACK", "PYTHONPATH")}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"  # `python` is that environment's
    env["TMPDIR"] = str(tmp_path)  # where the profiler and the examples put their scratch files
    done = subprocess.run(expected, shell=True, cwd=user_project, env=env, capture_output=True, text=True,
                          timeout=540)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"`{expected}` failed in {user_project}:\n{output[-4000:]}"
    if "--help" in command.split():
        assert output.startswith("usage: "), output[:500]
    else:
        assert "measured on:" in output, "bundled programs print where their numbers came from"


def converse(home: Path, project: Path, script: list) -> list[str]:
    """Run the pinned CLI in `project` against a scripted Messages API server; the texts of its requests."""
    with scripted_server(script) as server:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1", "CI": "1",
               "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "dummy-key-for-a-local-server"}
        done = subprocess.run([str(claude_binary()), "-p", "Write the training step.", "--allowedTools", "Write",
                               "--output-format", "json"], cwd=project, env=env, capture_output=True, text=True,
                              timeout=240)
        assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        return [texts_of(body) for body in server.conversation]


@pytest.mark.timeout(600)
def test_installed_hook_hands_findings_to_the_next_request(installed: Path, tmp_path: Path):
    """The real CLI, the installed plugin, a project whose .venv has jax: the model writes a file with an old
    form; the hook's findings reach the model's next request, and the Stop hook asks once for a fix. A clean
    file adds nothing."""
    home = next(p for p in installed.parents if (p / ".claude").is_dir())
    project = tmp_path / "project"
    project.mkdir()
    (project / ".venv").symlink_to(user_python().parent.parent)
    old = "import jax\nfrom jax.experimental.shard_map import shard_map\n\nstep = shard_map\n"  # a deprecated home
    requests = converse(home, project, [tool_use("Write", {"file_path": str(project / "model.py"), "content": old})])
    assert (project / "model.py").read_text(encoding="utf-8") == old
    assert len(requests) == 3, "the write, the answer, and one more turn asked for by the Stop hook"
    assert "jax-pro checked model.py" not in requests[0]
    assert "jax-pro checked model.py" in requests[1] and "-> jax.shard_map" in requests[1].split("jax-pro checked")[1]
    assert "still use forms the installed libraries removed" in requests[2]
    clean = old.replace("from jax.experimental.shard_map import", "from jax import")
    requests = converse(home, project, [tool_use("Write", {"file_path": str(project / "clean.py"), "content": clean})])
    assert len(requests) == 2 and not any("jax-pro checked" in text for text in requests)
