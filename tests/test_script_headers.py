"""Each script and example says what it needs (a PEP 723 header), needs nothing it does not say, and
without an optional package says in one line which pinned requirement to install."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from bundle import REPO, pins

FILES = sorted([*(REPO / "scripts").glob("*.py"), *(REPO / "examples").glob("*.py")])
sys.path.insert(0, str(REPO / "scripts"))
from _cli import PROVIDED_BY, requirement_name, script_metadata  # noqa: E402 - the parser the tools use

# Each file that needs more than jax, with arguments that reach the code needing it.
OPTIONAL = {
    "scripts/checkpoint_manager.py": ["list", "."],
    "scripts/pytree_visualizer.py": ["--checkpoint", "."],
    "examples/flax_nnx_training.py": [],
    "examples/orbax_checkpointing.py": [],
    "examples/numpyro_inference.py": [],
    "examples/port_pytorch_block.py": [],
    "scripts/port_check.py": ["ref.npz", "--model", "port.py:make"],
}


def metadata(path: Path) -> dict:
    """The script's inline metadata, parsed as PEP 723 says."""
    return script_metadata(path)


def declared(path: Path) -> set[str]:
    return {requirement_name(dep) for dep in metadata(path)["dependencies"]}


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module the file imports, at any depth, absolute imports only."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - {"__future__"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_header_pins_match_pyproject(path: Path):
    meta = metadata(path)
    assert meta["requires-python"] == ">=3.12"
    for dep in meta["dependencies"]:
        name, _, version = dep.partition("==")
        assert pins().get(name.lower()) == version, f"{dep}: pyproject.toml pins {name}=={pins().get(name.lower())}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_import_is_declared(path: Path):
    have = declared(path)
    for module in sorted(imported_modules(path) - set(sys.stdlib_module_names)):
        sibling = next((d / f"{module}.py" for d in (path.parent, REPO / "scripts") if (d / f"{module}.py").is_file()), None)
        if sibling is not None:
            missing = declared(sibling) - have
            assert not missing, f"{path.name} imports {module}, which needs {missing}: declare them too"
        else:
            assert module in PROVIDED_BY, f"{path.name} imports {module!r}, which no declared dependency provides"
            assert PROVIDED_BY[module] in have, f"{path.name} imports {module}: declare {PROVIDED_BY[module]}"


def test_the_check_sees_an_undeclared_import(tmp_path: Path):
    script = tmp_path / "tool.py"
    script.write_text('# /// script\n# dependencies = ["jax"]\n# ///\nimport jax\n\n\ndef f():\n    from rich import table\n')
    assert declared(script) == {"jax"}
    assert imported_modules(script) - set(sys.stdlib_module_names) == {"jax", "rich"}


def requirement_closure(*names: str) -> list[importlib.metadata.Distribution]:
    """The installed distributions of `names` and of everything they require (no extras)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = list(names)
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        key = requirement_name(dist.metadata["Name"])
        if key in found:
            continue
        found[key] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(found.values())


@pytest.fixture(scope="module")
def jax_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with jax and jaxlib at the pins and nothing else: the installed files of jax, jaxlib and
    what they require (numpy, scipy, ml_dtypes, opt_einsum), linked from this environment, so the new one
    holds the very wheels pip would install there (in a second, where installing them took half a minute)."""
    venv = tmp_path_factory.mktemp("jax-only") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    (site,) = (venv / "lib").glob("python3*/site-packages")
    dists = requirement_closure("jax", "jaxlib")
    for dist in dists:
        for top in {Path(str(file)).parts[0] for file in dist.files or [] if not str(file).startswith("..")}:
            if not (site / top).exists():
                (site / top).symlink_to(Path(str(dist.locate_file(top))))
    versions = subprocess.run([str(python), "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"],
                              capture_output=True, text=True, timeout=300)
    assert versions.stdout.split() == [pins()["jax"], pins()["jaxlib"]], versions.stderr[-2000:]
    names = {requirement_name(d.metadata["Name"]) for d in dists}
    assert names.isdisjoint({"flax", "optax", "numpyro", "orbax-checkpoint", "rich"}), names
    return python


def run_in(python: Path, path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XLA_FLAGS", "JAX_PRO_TRACEBACK")}
    return subprocess.run([str(python), str(path), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("name", sorted(OPTIONAL))
def test_a_missing_package_is_named_with_its_pinned_line(name: str, jax_only: Path, tmp_path: Path):
    path = REPO / name
    done = run_in(jax_only, path, *OPTIONAL[name], cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    (line,) = done.stderr.strip().splitlines()
    match = re.fullmatch(rf"error: {path.name} needs (\S+) \(No module named '[\w.]+'\); "
                         r"install it with: pip install '(\S+)'", line)
    assert match, line
    assert match.group(2) in metadata(path)["dependencies"] and requirement_name(match.group(2)) == match.group(1)
    assert match.group(1) not in {"jax"}, "jax is installed; the line must name what is missing"


@pytest.mark.parametrize("name", sorted(OPTIONAL))
def test_help_works_without_the_optional_packages(name: str, jax_only: Path, tmp_path: Path):
    path = REPO / name
    done = run_in(jax_only, path, "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: "), done.stderr[-3000:]
    if name.startswith("examples/"):  # the options come from the code that needs the package: say what to install
        assert "install it with: pip install '" in done.stdout, done.stdout[-1000:]


def test_the_message_is_none_for_a_module_no_dependency_provides(tmp_path: Path):
    from _cli import missing_dependency

    script = tmp_path / "tool.py"
    script.write_text('# /// script\n# dependencies = ["jax==0.12.0.1", "optax==0.2.8"]\n# ///\n')
    assert missing_dependency(ModuleNotFoundError("No module named 'optax'", name="optax"), script) == (
        "tool.py needs optax (No module named 'optax'); install it with: pip install 'optax==0.2.8'")
    assert missing_dependency(ModuleNotFoundError("No module named 'flax'", name="flax"), script) is None
    assert missing_dependency(ModuleNotFoundError("No module named 'mypkg'", name="mypkg"), script) is None
