"""Answer-eval tasks: each folder under evals/answers/<id>/ is a real user's request, the interface the
answer must provide (task.toml) and a grader (grader.py); see evals/answers/README.md."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import tomllib
from pathlib import Path
from urllib.parse import urlparse

from jaxpro import api_changes
from jaxpro.anchors import anchors
from jaxpro.evals import EvalError
from jaxpro.repo import REPO, pins

ANSWERS = REPO / "evals" / "answers"
AGENT = "jax-pro"  # the plugin's agent, which an agent-kind task may name as what should load
SKILLS = ("python-jax", "jax-core-programming", "jax-optimization-pro", "jax-optimization", "agent")
REQUIRED_KEYS = ("id", "skill", "libraries", "module", "request", "interface", "source", "bundle", "grading")
TABLE_KEYS = {"source": ("url", "title", "maintainers_answer"), "bundle": ("skill", "section"), "grading": ("checks", "wrong")}
SOURCE_HOSTS = ("github.com", "stackoverflow.com", "forum.pyro.ai")  # and any *.stackexchange.com
LIBRARIES = ("jax", "flax", "optax", "orbax-checkpoint", "numpyro")  # the pins the prompt states
SHARED = ("conftest.py", "grading.py", "pytest.ini")  # every grading depends on these
PORT_SOURCES = ("pytorch", "numpy", "tensorflow")  # `port = "..."`: the framework a porting task starts from


@dataclasses.dataclass(frozen=True)
class Task:
    """One task folder and its parsed task.toml; `error` says why a task cannot be graded at all."""

    path: Path
    meta: dict
    error: str = ""

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def module(self) -> str:
        return str(self.meta.get("module", ""))

    @property
    def skill(self) -> str:
        return str(self.meta.get("skill", "?"))

    def prompt(self) -> str:
        """What the client is asked: the user's request, the pinned versions, the file and its interface."""
        versions = ", ".join(f"{name} {pins()[name]}" for name in LIBRARIES)
        return (
            f"{self.meta['request'].strip()}\n\n"
            f"I use Python 3.12 with {versions}.\n\n"
            f"Write the answer as `{self.module}.py` in the current directory. It must provide:\n\n"
            f"{self.meta['interface'].strip()}\n"
        )

    def digest(self, answer: Path) -> str:
        """A hash of everything a grading of `answer` depends on: the task, the shared files, the answer."""
        files = [*sorted(self.path.rglob("*")), *(ANSWERS / name for name in SHARED)]
        files += sorted(answer.rglob("*")) if answer.is_dir() else []
        sha = hashlib.sha256()
        for file in files:
            if file.is_file() and "__pycache__" not in file.parts:
                sha.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
        return sha.hexdigest()


def task_folders() -> list[Path]:
    """Every task folder: the sub-folders of evals/answers/ not starting with `_` or `.`."""
    return sorted(p for p in ANSWERS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def load_tasks(ids: list[str] | None = None) -> list[Task]:
    """The tasks, all or the named ones, in id order."""
    folders = {folder.name: folder for folder in task_folders()}
    unknown = sorted(set(ids or []) - set(folders))
    if unknown:
        raise EvalError(f"no such task: {', '.join(unknown)} (see --list)")
    chosen = sorted(set(ids)) if ids else sorted(folders)
    tasks = []
    for name in chosen:
        meta, unusable = read_meta(folders[name])
        tasks.append(Task(folders[name], meta, "; ".join(unusable)))
    return tasks


def read_meta(folder: Path) -> tuple[dict, list[str]]:
    """A task folder's parsed task.toml, and what keeps it from being used at all (unreadable, keys missing)."""
    name = f"evals/answers/{folder.name}/task.toml"
    try:
        meta = tomllib.loads((folder / "task.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        return {}, [f"{name}: {error}"]
    return meta, [f"{name}: no `{key}`" for key in REQUIRED_KEYS if key not in meta]


def readable(tasks: list[Task]) -> list[Task]:
    """The tasks, or an EvalError naming each one whose task.toml cannot be used."""
    broken = [task.error for task in tasks if task.error]
    if broken:
        raise EvalError("; ".join(broken))
    return tasks


def problems(folder: Path) -> list[str]:
    """What is wrong with a task folder's metadata and files; empty when it is complete."""
    name = f"evals/answers/{folder.name}"
    meta, found = read_meta(folder)
    if not meta:
        return found
    for table, keys in TABLE_KEYS.items():
        value = meta.get(table, {})
        found += [f"{name}/task.toml: no `[{table}].{key}`" for key in keys if not str(value.get(key, "")).strip()]
    if found:
        return found
    if meta["id"] != folder.name:
        found.append(f"{name}/task.toml: id {meta['id']!r} is not the folder name")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", folder.name):
        found.append(f"{name}: the id is not kebab-case")
    if meta["skill"] not in SKILLS:
        found.append(f"{name}/task.toml: skill {meta['skill']!r} is not one of {', '.join(SKILLS)}")
    if meta["bundle"]["skill"] not in (*SKILLS[:-1], AGENT):
        found.append(f"{name}/task.toml: [bundle].skill {meta['bundle']['skill']!r} is not one of the four skills or {AGENT}")
    if not re.fullmatch(r"[A-Za-z_]\w*", str(meta["module"])):
        found.append(f"{name}/task.toml: module {meta['module']!r} is not a Python module name")
    if not isinstance(meta["libraries"], list) or not meta["libraries"]:
        found.append(f"{name}/task.toml: libraries must be a non-empty list of import names")
    url = urlparse(str(meta["source"]["url"]))
    host = url.hostname or ""
    if url.scheme != "https" or not (host in SOURCE_HOSTS or host.endswith(".stackexchange.com")) or len(url.path) < 2:
        found.append(f"{name}/task.toml: [source].url {meta['source']['url']!r} is not an https URL of a thread "
                     f"on {', '.join(SOURCE_HOSTS)} or *.stackexchange.com")
    found += section_problems(name, str(meta["bundle"]["section"]))
    found += delta_problems(name, meta.get("delta"))
    if "port" in meta and meta["port"] not in PORT_SOURCES:
        found.append(f"{name}/task.toml: port {meta['port']!r} is not one of {', '.join(PORT_SOURCES)}")
    if not (folder / "grader.py").is_file():
        found.append(f"{name}/grader.py: missing")
    found += [f"{name}/{p.name}: a grader must not be named test_*.py" for p in folder.glob("test_*.py")]
    for answers in ("_reference", "_wrong"):
        if not (ANSWERS / answers / folder.name / f"{meta['module']}.py").is_file():
            found.append(f"evals/answers/{answers}/{folder.name}/{meta['module']}.py: missing")
    return found


def delta_problems(name: str, delta: object) -> list[str]:
    """An optional [delta] table names the api_changes.toml entry a task rests on: library, kind, old."""
    if delta is None:
        return []
    if not isinstance(delta, dict) or set(delta) != {"library", "kind", "old"}:
        return [f"{name}/task.toml: [delta] must have exactly library, kind and old (an entry of api_changes.toml)"]
    if delta["kind"] == "added":
        return [f"{name}/task.toml: [delta] must rest on a change of an existing API, not an addition"]
    known = {(c.library, c.kind, c.old) for c in api_changes.load()[1]}
    if (delta["library"], delta["kind"], delta["old"]) not in known:
        return [f"{name}/task.toml: [delta] {delta['library']} {delta['kind']} {delta['old']!r} is not in api_changes.toml"]
    return []


def section_problems(name: str, section: str) -> list[str]:
    """A [bundle].section must be `references/<file>.md#<anchor>` naming an existing heading."""
    file, _, anchor = section.partition("#")
    if not re.fullmatch(r"references/\w+\.md", file) or not anchor:
        return [f"{name}/task.toml: [bundle].section {section!r} is not references/<file>.md#<anchor>"]
    if not (REPO / file).is_file():
        return [f"{name}/task.toml: [bundle].section names {file}, which does not exist"]
    if anchor not in anchors(REPO / file):
        return [f"{name}/task.toml: [bundle].section: {file} has no heading with anchor #{anchor}"]
    return []
