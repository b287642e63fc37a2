"""The field corpus of the currency checker (dev/field_corpus.py) and its labels (evals/field/): cheap checks
with no network and no checker run. The split rule is recomputed here, independently of the tool."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS_TOOL = REPO / "dev" / "field_corpus.py"
EVAL_TOOL = REPO / "dev" / "field_eval.py"
FIELD = REPO / "evals" / "field"


def run(tool: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(tool), *map(str, args)], capture_output=True, text=True, cwd=REPO,
                          timeout=60)


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    result = run(CORPUS_TOOL, "list", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def rule(name: str) -> str:
    """The split rule, written out again: test when sha256 of the PEP 503 name is odd."""
    normal = re.sub(r"[-_.]+", "-", name).lower()
    return "test" if int(hashlib.sha256(normal.encode()).hexdigest(), 16) % 2 else "tuning"


def test_the_corpus_is_big_enough_and_pinned(corpus: list[dict]):
    assert len({row["name"] for row in corpus}) >= 15
    assert sum(row["lines"] for row in corpus) >= 300_000
    assert all(re.fullmatch(r"[0-9a-f]{64}", row["sha256"]) and row["role"] in ("old", "current") for row in corpus)
    assert len({row["name"] for row in corpus if row["pair"]}) >= 4


def test_every_package_is_in_exactly_one_half_by_the_rule(corpus: list[dict]):
    moved = {m["package"] for m in tomllib.loads((FIELD / "moves.toml").read_text()).get("move", [])}
    halves: dict[str, set[str]] = {}
    for row in corpus:
        halves.setdefault(row["name"], set()).add(row["half"])
        assert row["half"] == ("tuning" if row["name"] in moved else rule(row["name"])), row["name"]
    assert all(len(found) == 1 for found in halves.values())
    assert {"tuning", "test"} == {row["half"] for row in corpus}


def test_every_labelled_release_is_in_the_corpus(corpus: list[dict]):
    pinned = {(row["name"], row["version"]) for row in corpus}
    labels = tomllib.loads((FIELD / "labels.toml").read_text())["label"]
    pairs = tomllib.loads((FIELD / "recall.toml").read_text())["pair"]
    assert {(label["package"], label["version"]) for label in labels} <= pinned
    assert {(pair["package"], version) for pair in pairs for version in (pair["old"], pair["new"])} <= pinned
    assert len(labels) >= 80 and sum(len(pair["line"]) for pair in pairs) >= 40


def test_the_results_file_agrees_with_the_labels():
    results = json.loads((FIELD / "results.json").read_text())
    assert results["half"] == "test" and results["command"].startswith(".venv/bin/python dev/field_eval.py")
    assert all({"labelled", "real", "precision"} <= set(entry) for entry in results["kinds"].values())
    result = run(EVAL_TOOL, "check")
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_check_catches_a_results_file_that_disagrees(tmp_path: Path):
    results = json.loads((FIELD / "results.json").read_text())
    kind = next(iter(results["kinds"]))
    results["kinds"][kind]["real"] += 1
    tampered = tmp_path / "results.json"
    tampered.write_text(json.dumps(results))
    result = run(EVAL_TOOL, "check", "--results", tampered)
    assert result.returncode == 1 and f"kind {kind}: labelled/real" in result.stdout


def test_the_check_catches_a_label_of_an_unpinned_release(tmp_path: Path):
    labels = tmp_path / "labels.toml"
    shutil.copy(FIELD / "labels.toml", labels)
    with labels.open("a") as out:
        out.write('\n[[label]]\npackage = "chex"\nversion = "9.9"\npath = "x.py"\nline = 1\ntext = "0"\n'
                  'kind = "removed"\nold = "jax.x"\nreal = true\nwhy = "w"\nevidence = "jax-tree_map"\n')
    result = run(EVAL_TOOL, "check", "--labels", labels)
    assert result.returncode == 1 and "chex==9.9 is not pinned" in result.stdout


def test_a_moved_test_package_goes_to_tuning_and_draws_a_reserve(tmp_path: Path, corpus: list[dict]):
    """One more move (brax, a test-half package not moved yet) on top of the recorded ones draws one more."""
    assert next(row for row in corpus if row["name"] == "brax")["half"] == "test"
    moves = tmp_path / "moves.toml"
    moves.write_text((FIELD / "moves.toml").read_text() +
                     '\n[[move]]\npackage = "brax"\nreason = "looked at"\ndate = "2026-11-27"\n')
    result = run(CORPUS_TOOL, "--moves", moves, "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["brax"]["half"] == "tuning" and rows["brax"]["moved"]
    drawn = set(rows) - {row["name"] for row in corpus}
    assert len(drawn) == 1 and all(rows[name]["half"] == "test" for name in drawn)


def test_the_readme_quotes_the_recorded_held_out_figures(corpus: list[dict]):
    """README's "How well it finds old forms" states what evals/field/results.json and the corpus list hold."""
    results = json.loads((FIELD / "results.json").read_text())
    section = (REPO / "README.md").read_text().split("### How well it finds old forms", 1)[1].split("\n## ", 1)[0]
    section = " ".join(section.split())

    def share(row: dict) -> str:
        return f"{100 * row['precision']:.1f}% ({row['real']} of {row['labelled']})"

    test = [row for row in corpus if row["half"] == "test"]
    recall = results["recall"]
    expected = [
        f"{len({row['name'] for row in corpus})} JAX packages from PyPI ({sum(row['lines'] for row in corpus):,} lines "
        f"in {len(corpus)} pinned releases)",
        f"({len({row['name'] for row in test})} packages, {sum(row['lines'] for row in test):,} lines",
        f"| precision, all kinds (labelled sample) | {share(results['all'])}; "
        f"{100 * results['all']['precision_weighted']:.1f}% weighting",
        f"{100 * recall['recall']:.1f}% ({recall['flagged']} of {recall['labelled']})",
        f"checker at commit {results['checker_commit']}",
    ]
    for text in expected:
        assert text in section, text
