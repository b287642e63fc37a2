"""The currency checker where JAX projects run their linters: this repository's pre-commit hook, run by the
pinned pre-commit on a scratch project, and the `jax-currency-check` command's GitHub annotation format.

No network and no install: pre-commit clones a scratch copy of the hook's files (its `unsupported_script`
hook installs nothing), and both run with this virtualenv's Python first on the PATH, as a project's
activated environment would be.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from bundle import REPO

BIN = Path(sys.executable).parent
OLD_FORM = "import jax\n\nsquares = jax.tree_map(lambda x: x * x, {'a': 2.0})\n"  # removed alias, line 3, col 11
HOOK_FILES = [".pre-commit-hooks.yaml", "jaxpro/currency_check.py", "api_changes.toml",
              *(p.relative_to(REPO).as_posix() for p in sorted((REPO / "scripts").glob("*.py")))]


def run(*args: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def environment(tmp_path: Path) -> dict[str, str]:
    """This virtualenv first on the PATH, pre-commit's cache and git's identity in the scratch folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "PRE_COMMIT_HOME": str(tmp_path / "cache"),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull}


def git_repo(folder: Path, env: dict[str, str]) -> str:
    """Commit everything in `folder` as a new repository; return the commit."""
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "scratch")):
        assert run("git", *args, cwd=folder, env=env).returncode == 0, args
    return run("git", "rev-parse", "HEAD", cwd=folder, env=env).stdout.strip()


def test_pre_commit_runs_the_hook_on_a_project_and_names_the_old_form(tmp_path: Path):
    env = environment(tmp_path)
    hook = tmp_path / "jax-pro"
    for name in HOOK_FILES:
        (hook / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, hook / name)
    rev = git_repo(hook, env)
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(OLD_FORM, encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook}\n    rev: {rev}\n    hooks:\n      - id: jax-currency-check\n", encoding="utf-8")
    git_repo(project, env)
    failed = run(BIN / "pre-commit", "run", "--all-files", cwd=project, env=env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "jax-currency-check" in failed.stdout and "Failed" in failed.stdout, failed.stdout
    assert "train.py:3:11: removed jax.tree_map" in failed.stdout, failed.stdout


def test_the_command_writes_github_annotations(tmp_path: Path):
    (tmp_path / "a,b.py").write_text(OLD_FORM, encoding="utf-8")
    (tmp_path / "broken.py").write_text("def f(:\n", encoding="utf-8")
    done = run(BIN / "jax-currency-check", "--format", "github", "a,b.py", "broken.py", cwd=tmp_path,
               env=environment(tmp_path))
    assert done.returncode == 1, done.stderr
    error, warning = sorted(done.stdout.splitlines())
    assert error.startswith("::error file=a%2Cb.py,line=3,col=11,title=jax-currency-check removed::removed jax.tree_map -> ")
    assert warning.startswith("::warning file=broken.py,") and "title=jax-currency-check unparsable::" in warning
    assert "cannot parse (SyntaxError" in warning


def test_the_readme_shows_what_the_command_prints(tmp_path: Path):
    """The README's example output, in both formats, is the command's on the README's example file, up to
    the detail in parentheses at the end of the line."""
    (tmp_path / "train.py").write_text(OLD_FORM, encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8").split("```text\n")[1:]
    shown = [block.split("\n```", 1)[0].split(" (", 1)[0] for block in readme]
    for options in ((), ("--format", "github")):
        done = run(BIN / "jax-currency-check", *options, "train.py", cwd=tmp_path, env=environment(tmp_path))
        (line,) = done.stdout.splitlines()
        assert line.split(" (", 1)[0] in shown, line
