"""Each script and example says what it needs (a PEP 723 header), and needs nothing it does not say."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

from bundle import REPO, pins

FILES = sorted([*(REPO / "scripts").glob("*.py"), *(REPO / "examples").glob("*.py")])
# The PEP 723 reference regex: a `# /// script` block of comment lines closed by `# ///`.
BLOCK = re.compile(r"(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$")
# Top-level import name -> the distribution that provides it, directly or as a dependency.
PROVIDED_BY = {
    "jax": "jax", "jaxlib": "jax", "numpy": "jax",
    "flax": "flax", "optax": "optax", "numpyro": "numpyro",
    "orbax": "orbax-checkpoint", "absl": "orbax-checkpoint",
}


def metadata(path: Path) -> dict:
    """The script's inline metadata, parsed as PEP 723 says."""
    blocks = [m for m in BLOCK.finditer(path.read_text(encoding="utf-8")) if m.group("type") == "script"]
    assert len(blocks) == 1, f"{path.name}: expected one '# /// script' block, found {len(blocks)}"
    content = "".join(line[2:] if line.startswith("# ") else line[1:]
                      for line in blocks[0].group("content").splitlines(keepends=True))
    return tomllib.loads(content)


def declared(path: Path) -> set[str]:
    return {re.split(r"[=<>!~ \[]", dep, maxsplit=1)[0].lower() for dep in metadata(path)["dependencies"]}


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
        sibling = path.parent / f"{module}.py"
        if sibling.is_file():
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
