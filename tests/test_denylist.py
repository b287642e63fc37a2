"""Removed or legacy APIs appear only where a block demonstrates their failure.

Each entry below was confirmed against the pinned versions (see references/migration.md, where every
one of them is executed and fails). In Markdown, a hit is allowed only inside a Python block that
carries a `raises=` directive; in Python files it is never allowed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bundle import REPO, repo_files
from mdexec.document import read_blocks

DENYLIST: dict[str, str] = {
    r"\bjax\.tree_(?:map|flatten|unflatten|leaves|reduce|structure|transpose|all)\(": "removed alias: use jax.tree.*",
    r"\bjax\.experimental\.maps\b": "removed module (xmap is gone): use jax.shard_map",
    r"\bjax\.experimental\.shard_map\b": "deprecated module: use jax.shard_map",
    r"\bjax\.experimental\.pjit\b": "deprecated module: use jax.jit",
    r"\bjax\.experimental\.host_callback\b": "removed module: use jax.pure_callback / jax.debug.callback",
    r"\bPositionalSharding\b": "removed: use NamedSharding with a mesh",
    r"\bjax\.device_put_replicated\b": "removed: use jax.device_put with a replicated NamedSharding",
    r"\bjax\.device_put_sharded\b": "removed: use jax.device_put with a NamedSharding",
    r"\bjax\.random\.PRNGKey\b": "legacy raw uint32 keys: use jax.random.key",
}
_COMPILED = [(re.compile(pattern), why) for pattern, why in DENYLIST.items()]
_OPTIMIZER_CALL = re.compile(r"\bnnx\.Optimizer\(")


def _hits(text: str) -> list[tuple[int, str, str]]:
    """(line, matched text, reason) for every denylisted spelling in `text`."""
    found = [(match.start(), match.group(), why) for pattern, why in _COMPILED for match in pattern.finditer(text)]
    for match in _OPTIMIZER_CALL.finditer(text):
        if not re.search(r"\bwrt\s*=", _call_arguments(text, match.end())):
            found.append((match.start(), match.group(), "nnx.Optimizer needs wrt= (flax >= 0.11)"))
    return sorted((text.count("\n", 0, start) + 1, spelling, why) for start, spelling, why in found)


def _call_arguments(text: str, start: int) -> str:
    """The text between an opening parenthesis (just before `start`) and its matching close."""
    depth = 1
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return text[start:]


def _demonstration_lines(path: Path) -> set[int]:
    """Lines inside Python blocks that declare an expected exception."""
    lines: set[int] = set()
    for block in read_blocks(path):
        if block.directives.raises:
            lines.update(range(block.first_code_line, block.first_code_line + block.source.count("\n") + 1))
    return lines


def _violations(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    allowed = _demonstration_lines(path) if path.suffix == ".md" else set()
    return [f"{path.relative_to(REPO)}:{line}: {found!r}: {why}" for line, found, why in _hits(text) if line not in allowed]


# Files whose job is to name old forms as old: the API-delta tool walks the old releases' modules by
# name, and the page rendered from its data file is a table of old form -> new form.
NAMES_OLD_FORMS = {"dev/api_delta.py", "references/api_changes.md", "scripts/jax_currency_check.py",
                   "scripts/_currency_hedges.py", "scripts/_currency_fix.py", "scripts/_currency_conditions.py"}


def _legacy_on_purpose(path: Path) -> bool:
    """Code that is old by design: answer-eval wrong answers, the legacy code a task starts from, the
    notes of the codebase-upgrade references (they name what each old release used), and the files
    that list old forms as old (NAMES_OLD_FORMS). (The measured arms under evals/runs/ are
    not scanned at all: `repo_files` leaves them out.)

    tests/test_answer_evals_wrong.py proves every wrong answer fails its grader, which is the
    demonstration of failure that the Markdown blocks give with `raises=`.
    """
    parts = path.relative_to(REPO).parts
    if "/".join(parts) in NAMES_OLD_FORMS:
        return True
    if parts[:3] == ("evals", "upgrade", "reference"):
        return True
    return parts[:2] == ("evals", "answers") and (parts[2] == "_wrong" or "start" in parts[3:-1])


@pytest.mark.parametrize(
    "path",
    [p for p in repo_files(".md", ".py") if p.parts[len(REPO.parts)] != "tests" and not _legacy_on_purpose(p)],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_no_legacy_api_outside_a_failure_demonstration(path: Path):
    violations = _violations(path)
    assert not violations, "legacy APIs taught as current:\n" + "\n".join(violations)


def test_the_denylist_catches_what_it_should():
    seed_style = (
        "doubled = jax.tree_map(lambda x: 2 * x, params)\n"
        "opt = nnx.Optimizer(model, optax.adam(1e-3))\n"
        "key = jax.random.PRNGKey(0)\n"
        "from jax.experimental.shard_map import shard_map\n"
    )
    assert [line for line, _, _ in _hits(seed_style)] == [1, 2, 3, 4]
    current = (
        "doubled = jax.tree.map(lambda x: 2 * x, params)\n"
        "opt = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)\n"
        "opt = nnx.Optimizer(model, optax.chain(optax.clip(1.0), optax.adam(1e-3)), wrt=nnx.Param)\n"
        "key = jax.random.key(0)\n"
    )
    assert _hits(current) == []


def test_only_wrong_answers_task_start_files_and_the_delta_files_are_exempt():
    answers = REPO / "evals/answers"
    assert _legacy_on_purpose(answers / "_wrong/some-task/module.py")
    assert _legacy_on_purpose(answers / "some-task/start/train.py")
    assert not _legacy_on_purpose(answers / "_reference/some-task/module.py")
    assert not _legacy_on_purpose(answers / "some-task/grader.py")
    assert not _legacy_on_purpose(REPO / "references/start/x.md")
    assert _legacy_on_purpose(REPO / "references/api_changes.md") and _legacy_on_purpose(REPO / "dev/api_delta.py")
    assert not _legacy_on_purpose(REPO / "references/migration.md")


def test_fixture_rot_is_flagged_outside_raises_blocks():
    rot = REPO / "tests/fixtures/md/rot.md"
    assert len(_violations(rot)) == 3
