"""The repository's Python imports form layers: `jaxpro` at the bottom, then `mdexec` and `docsite`, then
the command-line entry points in dev/ and the tests. Nothing loads a module by its file path."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bundle import REPO

# Which top-level packages each layer may import from this repository.
ALLOWED = {
    "jaxpro": {"jaxpro"},
    "mdexec": {"mdexec"},
    "docsite": {"docsite", "jaxpro", "mdexec"},
    "dev": {"docsite", "jaxpro", "mdexec"},
}
OURS = {"jaxpro", "mdexec", "docsite", "dev", "tests", "bundle", "answer_evals", "run_examples", "trigger_eval",
        "answer_eval"}


def local_imports(path: Path) -> set[str]:
    """The top-level names of the repository's own modules that `path` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & OURS


def layer_files() -> list[tuple[str, Path]]:
    return [(layer, path) for layer in ALLOWED for path in sorted((REPO / layer).rglob("*.py"))
            if "tests" not in path.relative_to(REPO).parts]


@pytest.mark.parametrize(("layer", "path"), layer_files(), ids=lambda v: str(v.relative_to(REPO)) if isinstance(v, Path) else v)
def test_imports_go_only_down(layer: str, path: Path):
    above = local_imports(path) - ALLOWED[layer]
    assert not above, f"{path.relative_to(REPO)} ({layer}) imports {sorted(above)}, which it may not"


def test_the_evaluation_package_is_what_the_runners_and_the_site_use():
    users = {"dev/answer_eval.py", "dev/trigger_eval.py", "docsite/answers.py"}
    for name in users:
        assert "jaxpro" in local_imports(REPO / name), name


def test_no_module_is_loaded_by_its_file_path():
    """importlib's spec_from_file_location is left only to the graders, which import an answer from its folder."""
    offenders = []
    for folder in ("jaxpro", "mdexec", "docsite", "dev", "tests"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "spec_from_file_location" in text and path != Path(__file__):
                offenders.append(str(path.relative_to(REPO)))
            if 'sys.path.insert(0, str(REPO / "dev"))' in text and path != Path(__file__):
                offenders.append(str(path.relative_to(REPO)))
    assert not offenders, offenders
