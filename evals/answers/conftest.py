"""Fixtures for every grader: `answer` imports the answer under test; warnings it causes or hides fail.

A grader is `evals/answers/<task>/grader.py`. It takes the `answer` fixture (the imported module named
by `module` in the task's `task.toml`) and checks behaviour. The answer's folder comes from
JAXPRO_ANSWER_DIR, which `dev/answer_eval.py --grade` sets for each task.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest

from grading import load_task

ANSWER_DIR_ENV = "JAXPRO_ANSWER_DIR"
SILENCING_ACTIONS = {"ignore"}


@pytest.fixture(scope="module")
def task(request: pytest.FixtureRequest) -> dict:
    """The task.toml beside the grader."""
    return load_task(Path(request.path).parent)


@pytest.fixture(scope="module")
def answer_dir() -> Path:
    """The folder holding the answer under test."""
    value = os.environ.get(ANSWER_DIR_ENV)
    if not value:
        pytest.fail(f"{ANSWER_DIR_ENV} is not set: grade answers with `python dev/answer_eval.py --grade DIR`")
    return Path(value).resolve()


class SilencingRecorder:
    """Records calls from the answer's own files that turn warnings off."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.calls: list[str] = []
        self._originals = (warnings.filterwarnings, warnings.simplefilter)

    def _wrap(self, original):
        def wrapper(action, *args, **kwargs):
            caller = Path(sys._getframe(1).f_code.co_filename).resolve()
            if action in SILENCING_ACTIONS and caller.is_relative_to(self.root):
                self.calls.append(f"{caller.name}:{sys._getframe(1).f_lineno}: warnings.{original.__name__}({action!r}, ...)")
            return original(action, *args, **kwargs)

        return wrapper

    def __enter__(self) -> "SilencingRecorder":
        warnings.filterwarnings = self._wrap(self._originals[0])
        warnings.simplefilter = self._wrap(self._originals[1])
        return self

    def __exit__(self, *exc: object) -> None:
        warnings.filterwarnings, warnings.simplefilter = self._originals


@pytest.fixture(scope="session")
def silencing(request: pytest.FixtureRequest) -> SilencingRecorder:
    """Active for the whole grading session; the answer's folder is known from the environment."""
    value = os.environ.get(ANSWER_DIR_ENV, ".")
    recorder = SilencingRecorder(Path(value).resolve())
    recorder.__enter__()
    request.addfinalizer(lambda: recorder.__exit__(None, None, None))
    return recorder


def deprecations_still_fail() -> bool:
    """Whether a DeprecationWarning still raises (pytest.ini makes it an error; an answer may have undone that)."""
    try:
        warnings.warn("probe: are deprecations still errors?", DeprecationWarning, stacklevel=1)
    except DeprecationWarning:
        return True
    return False


@pytest.fixture(autouse=True)
def no_silenced_warnings(silencing: SilencingRecorder):
    """Fail a test during which the answer turned warnings off, by a call or by editing the filters."""
    yield
    if silencing.calls:
        pytest.fail("the answer silences warnings instead of fixing them: " + "; ".join(silencing.calls))
    if not deprecations_still_fail():
        pytest.fail("the answer changed the warning filters so that DeprecationWarning no longer fails")


@pytest.fixture(scope="module")
def answer(task: dict, answer_dir: Path, silencing: SilencingRecorder) -> ModuleType:
    """Import the answer's module (`<module>.py` in the answer folder); its folder goes on sys.path."""
    for library in task.get("libraries", ["jax"]):
        importlib.import_module(library)  # import warnings of the libraries themselves are not the answer's
    file = answer_dir / f"{task['module']}.py"
    if not file.is_file():
        pytest.fail(f"{file}: missing; the task asks for {task['module']}.py in the answer folder")
    sys.path.insert(0, str(answer_dir))
    spec = importlib.util.spec_from_file_location(task["module"], file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[task["module"]] = module
    filters_before = list(warnings.filters)
    spec.loader.exec_module(module)
    added = [entry for entry in warnings.filters if entry not in filters_before and entry[0] in SILENCING_ACTIONS]
    if added:
        pytest.fail(f"importing {file.name} adds warning filters that silence warnings: {added}")
    return module
