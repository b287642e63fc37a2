"""Codebase-upgrade tasks (issue 28): old PyPI releases of JAX packages, to be made to run on the pins.

A task is one release pinned in evals/upgrade/tasks.toml (name, version, sha256 of its wheel, first
upload date, the jax of that day). The job: make the package's own tests pass on the pins with
DeprecationWarning as an error, keeping its behaviour. The grader runs the tests that passed on the
package's own JAX (recorded once in evals/upgrade/passing/<id>.txt), runs the currency checker over the
package and counts the changed lines against the untouched release.

Nothing of a package is kept in this repository: its wheel is fetched with `pip download` into a cache,
and only the reference upgrade (evals/upgrade/reference/<id>.patch, a unified diff) is committed.

THE SPLIT (fixed before any task was graded): a task is in the test half when sha256(its id) is odd,
else in the tuning half. A test-half task someone looked at to change the bundle moves to the tuning
half (`moved` in tasks.toml says why).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from jaxpro.evals import EvalError
from jaxpro.repo import REPO

UPGRADE = REPO / "evals" / "upgrade"
TASKS_FILE = UPGRADE / "tasks.toml"
CHECKER = REPO / "scripts" / "jax_currency_check.py"
DEFAULT_HOME = Path.home() / ".cache" / "jax-pro" / "upgrade"
# Warnings that make a test fail on the pins: the job says "no DeprecationWarning".
WARNINGS_AS_ERRORS = ("error::DeprecationWarning",)


@dataclass(frozen=True)
class UpgradeTask:
    """One pinned release. `jax_then` is the newest jax uploaded before `released` (with a wheel for
    `python_then`); `test_deps` are what its tests import beyond the package's own requirements.
    `then_date`, when set, is the day the then environment is resolved as of instead of `released`: PyPI
    no longer serves jaxlib wheels older than 0.4.18 (2023-10-07), so older releases run on that one."""

    id: str
    package: str
    version: str
    sha256: str
    released: str
    python_then: str
    jax_then: str
    import_name: str
    test_deps: tuple[str, ...] = ()
    then_date: str = ""
    moved: str = ""

    @property
    def half(self) -> str:
        if self.moved:
            return "tuning"
        return "test" if int(hashlib.sha256(self.id.encode()).hexdigest(), 16) % 2 else "tuning"

    @property
    def spec(self) -> str:
        return f"{self.package}=={self.version}"

    @property
    def passing_file(self) -> Path:
        return UPGRADE / "passing" / f"{self.id}.txt"

    @property
    def reference_patch(self) -> Path:
        return UPGRADE / "reference" / f"{self.id}.patch"

    def passing_tests(self) -> list[str]:
        """Node ids that passed on the package's own JAX (recorded by `record`)."""
        if not self.passing_file.is_file():
            raise EvalError(f"{self.passing_file}: missing; run `dev/upgrade_tasks.py record {self.id}`")
        return [line for line in self.passing_file.read_text().splitlines() if line and not line.startswith("#")]


@dataclass(frozen=True)
class NowEnv:
    """The grading interpreter's packages: the pins plus what the tasks' tests import."""

    python: str
    packages: tuple[str, ...]


def load(path: Path = TASKS_FILE) -> tuple[NowEnv, list[UpgradeTask]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise EvalError(f"{path}: {error}; fix the file") from None
    now = NowEnv(python=data["now"]["python"], packages=tuple(data["now"]["packages"]))
    tasks = []
    for row in data.get("task", []):
        try:
            tasks.append(UpgradeTask(**{key: tuple(value) if isinstance(value, list) else value
                                        for key, value in row.items()}))
        except TypeError as error:
            raise EvalError(f"{path}: task {row.get('id', '?')}: {error}") from None
    return now, tasks


def find(task_id: str, tasks: list[UpgradeTask]) -> UpgradeTask:
    for task in tasks:
        if task.id == task_id:
            return task
    raise EvalError(f"no task {task_id!r}; known: {', '.join(t.id for t in tasks)}")


# --- fetching ---------------------------------------------------------------------------------------------

def wheel(task: UpgradeTask, home: Path) -> Path:
    """The release's wheel in HOME/dist, downloaded by pip if missing, its sha256 checked."""
    dist = home / "dist"
    dist.mkdir(parents=True, exist_ok=True)
    found = [p for p in dist.glob("*.whl") if _wheel_matches(p, task)]
    if not found:
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                                 "--ignore-requires-python", "--disable-pip-version-check", "--quiet",
                                 task.spec, "-d", str(dist)], capture_output=True, text=True)
        if result.returncode:
            tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise EvalError(f"pip download {task.spec} failed: {tail}")
        found = [p for p in dist.glob("*.whl") if _wheel_matches(p, task)]
    if not found:
        raise EvalError(f"pip download {task.spec} gave no wheel in {dist}")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != task.sha256:
        raise EvalError(f"{found[0]}: sha256 {digest} is not the pinned {task.sha256}; delete it and fetch again")
    return found[0]


def _wheel_matches(path: Path, task: UpgradeTask) -> bool:
    name, version = path.name.split("-")[:2]
    return name.lower().replace("_", "-") == task.package.lower() and version == task.version


def extract(task: UpgradeTask, home: Path, into: Path) -> Path:
    """Unpack the release's files (not its .dist-info) into INTO, which must not exist yet."""
    if into.exists():
        raise EvalError(f"{into} exists; remove it or pick another folder")
    with zipfile.ZipFile(wheel(task, home)) as archive:
        members = [m for m in archive.namelist() if ".dist-info/" not in m]
        archive.extractall(into, members)
    return into


# --- environments -----------------------------------------------------------------------------------------

def now_python(home: Path) -> Path:
    return home / "now" / "bin" / "python"


def then_python(task: UpgradeTask, home: Path) -> Path:
    return home / "then" / task.id / "bin" / "python"


def make_now_env(now: NowEnv, home: Path, python: str) -> Path:
    """A virtualenv with the pins and the tasks' test imports (pip, from PyPI)."""
    target = home / "now"
    if not now_python(home).exists():
        _run([python, "-m", "venv", str(target)])
    _run([str(now_python(home)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          *now.packages])
    return now_python(home)


def make_then_env(task: UpgradeTask, home: Path, uv: str, python: str) -> Path:
    """A virtualenv as on the release's day: uv resolves with --exclude-newer its upload date."""
    target = home / "then" / task.id
    if not then_python(task, home).exists():
        _run([uv, "venv", "--quiet", "-p", python, str(target)])
    _run([uv, "pip", "install", "--quiet", "-p", str(then_python(task, home)), "--exclude-newer", task.then_date or task.released,
          task.spec, f"jax=={task.jax_then}", "jaxlib", *task.test_deps,
          "pytest"])
    return then_python(task, home)


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise EvalError(f"{' '.join(command[:4])} ... failed: {tail}")


# --- running the package's tests ---------------------------------------------------------------------------

@dataclass
class TestRun:
    """Outcome per node id of one pytest run."""

    outcomes: dict[str, str] = field(default_factory=dict)  # node id -> passed|failed|error|skipped
    collection_errors: list[str] = field(default_factory=list)
    returncode: int = 0

    def passed(self) -> list[str]:
        return sorted(node for node, outcome in self.outcomes.items() if outcome == "passed")


def run_tests(python: Path, tree: Path, nodes: list[str] | None, *, warnings_as_errors: bool,
              timeout: float = 1800) -> TestRun:
    """Run pytest in TREE (first on sys.path, so the package there shadows any installed copy) on NODES
    (all tests when None), 8 virtual CPU devices, and read each outcome from its JUnit XML report."""
    report = tree.parent / f".{tree.name}-junit.xml"
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--continue-on-collection-errors", f"--junitxml={report}", "--rootdir", str(tree)]
    for spec in WARNINGS_AS_ERRORS if warnings_as_errors else ():
        args += ["-W", spec]
    argfile = tree.parent / f".{tree.name}-nodes.txt"
    if nodes is not None:
        argfile.write_text("\n".join(nodes) + "\n")
        args.append(f"@{argfile}")
    else:
        args.append(".")
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1",
           "XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    try:
        result = subprocess.run([str(python), "-m", "pytest", *args], cwd=tree, env=env, capture_output=True,
                                text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise EvalError(f"the tests in {tree} ran over {timeout:.0f} s") from None
    finally:
        argfile.unlink(missing_ok=True)
    run = TestRun(returncode=result.returncode)
    if not report.is_file():
        raise EvalError(f"pytest wrote no report in {tree}: {(result.stdout + result.stderr)[-300:]}")
    _read_junit(report, tree, run)
    report.unlink()
    return run


def _read_junit(report: Path, tree: Path, run: TestRun) -> None:
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        children = {child.tag for child in case}
        if not case.get("classname"):  # a file that failed to import
            run.collection_errors.append(case.get("name", ""))
            continue
        node = _node_id(case.get("classname", ""), case.get("name", ""), tree)
        outcome = ("error" if "error" in children else "failed" if "failure" in children
                   else "skipped" if "skipped" in children else "passed")
        if run.outcomes.get(node) in ("failed", "error"):  # a teardown error after a pass stays an error
            continue
        run.outcomes[node] = outcome


def _node_id(classname: str, name: str, tree: Path) -> str:
    """pytest's node id from JUnit's dotted classname: the longest prefix that names a file in TREE."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = Path(*parts[:cut]).with_suffix(".py")
        if (tree / path).is_file():
            return "::".join([path.as_posix(), *parts[cut:], name])
    return "::".join([classname, name])


# --- grading ----------------------------------------------------------------------------------------------

@dataclass
class Grade:
    task: str
    tests: int
    passed: int
    failing: list[str]
    old_forms: int
    old_form_lines: list[str]
    changed_lines: int
    solved: bool

    def as_dict(self) -> dict:
        return {**self.__dict__, "failing": self.failing[:20]}


def pristine(task: UpgradeTask, home: Path) -> Path:
    """The untouched release, unpacked once into HOME/pristine/<id>."""
    path = home / "pristine" / task.id
    if not path.exists():
        extract(task, home, path)
    return path


def _changed_files(base: Path, root: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    """(relative path, lines in BASE, lines in ROOT) of each .py file that differs between the two."""
    relative = {path.relative_to(top) for top in (root, base) for path in top.rglob("*.py")}
    for rel in sorted(rel for rel in relative if "__pycache__" not in rel.parts):
        old, new = _lines(base / rel), _lines(root / rel)
        if old != new:
            yield rel, old, new


def changed_lines(task: UpgradeTask, home: Path, tree: Path) -> int:
    """Lines added plus removed in the package's .py files, against the untouched release."""
    base = pristine(task, home) / task.import_name
    return sum(1 for _, old, new in _changed_files(base, tree / task.import_name)
               for line in difflib.unified_diff(old, new, n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---")))


def unified_diff(task: UpgradeTask, home: Path, tree: Path) -> str:
    """TREE's changes to the release's .py files as one unified diff with a/ and b/ prefixes, which
    `patch -p1` applies to an untouched copy."""
    chunks = []
    for rel, old, new in _changed_files(pristine(task, home), tree):
        chunks.extend(difflib.unified_diff(old, new, f"a/{rel.as_posix()}", f"b/{rel.as_posix()}", lineterm=""))
    return "\n".join(chunks) + ("\n" if chunks else "")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []


def old_forms(python: Path, tree: Path, task: UpgradeTask) -> list[str]:
    """The currency checker's findings over the package (not its tests' helpers outside it)."""
    result = subprocess.run([str(python), str(CHECKER), "--format", "json", str(tree / task.import_name)],
                            capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise EvalError(f"the checker failed on {tree}: {result.stderr.strip()[-300:]}")
    findings = json.loads(result.stdout or "[]")
    return [f"{Path(f['path']).relative_to(tree).as_posix()}:{f['line']}: {f['kind']} {f['old']}" for f in findings]


def grade(task: UpgradeTask, tree: Path, home: Path, python: Path | None = None) -> Grade:
    python = python or now_python(home)
    nodes = task.passing_tests()
    run = run_tests(python, tree, nodes, warnings_as_errors=True)
    failing = [node for node in nodes if run.outcomes.get(node) != "passed"]
    forms = old_forms(python, tree, task)
    return Grade(task=task.id, tests=len(nodes), passed=len(nodes) - len(failing), failing=failing,
                 old_forms=len(forms), old_form_lines=forms, changed_lines=changed_lines(task, home, tree),
                 solved=not failing)


def apply_patch(patch: Path, tree: Path) -> None:
    """Apply a unified diff (paths relative to the release's root, `a/` and `b/` prefixes) to TREE."""
    if shutil.which("patch") is None:
        raise EvalError("`patch` is not installed (Debian: apt-get install patch)")
    result = subprocess.run(["patch", "-p1", "--quiet", "--no-backup-if-mismatch", "-d", str(tree), "-i",
                             str(patch)], capture_output=True, text=True)
    if result.returncode:
        raise EvalError(f"{patch} does not apply to {tree}: {(result.stdout + result.stderr).strip()[-300:]}")
