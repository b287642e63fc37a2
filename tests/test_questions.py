"""The question set of evals/questions/: real 2025-2026 threads judged against the bundle.

Checks the data only (the Markdown harness executes the sections' blocks): the set parses and is big
enough, each entry sits in the half its sha256 rule gives (or is a recorded move to the write half),
no thread is the source of an answer-eval task, every mapped section exists, and the README's
coverage table is the one the data gives.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from jaxpro.anchors import anchors

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evals" / "questions"
MIN_QUESTIONS = 60
LIBRARIES = ("jax", "flax", "optax", "orbax", "numpyro")
VERDICTS = ("covered", "partial", "missing", "wrong")
SOURCES = ("maintainer", "fix", "pins")
THREAD = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+")
TEXT_FIELDS = ("question", "answer", "check")
STAGES = (("section_before", "verdict_before"), ("section", "verdict"))


def load() -> dict:
    """The parsed questions.toml."""
    with open(QUESTIONS / "questions.toml", "rb") as handle:
        return tomllib.load(handle)


def questions() -> list[dict]:
    """The entries of the set."""
    return load()["question"]


def rule_half(url: str) -> str:
    """The half the split rule gives: even sha256 of the URL writes, odd measures."""
    return "write" if int(hashlib.sha256(url.encode()).hexdigest(), 16) % 2 == 0 else "measure"


def answer_eval_sources() -> set[str]:
    """Every URL named in an answer-eval task.toml."""
    found: set[str] = set()
    for task in (REPO / "evals" / "answers").glob("*/task.toml"):
        found.update(re.findall(r"https://github\.com/[^\s\"')\]]+", task.read_text(encoding="utf-8")))
    return {url.rstrip("/.") for url in found}


def coverage_rows(entries: list[dict], verdict_key: str, as_split: bool = False) -> list[str]:
    """Markdown rows of a coverage table: per library, then all, for each half and both halves.

    With `as_split`, entries count in the half the rule gave them, before any move.
    """
    rows = []
    for half in ("write", "measure", "both"):
        chosen = [e for e in entries if half in ("both", rule_half(e["url"]) if as_split else e["half"])]
        for library in (*LIBRARIES, "all"):
            group = [e for e in chosen if library == "all" or e["library"] == library]
            counts = Counter(e[verdict_key] for e in group)
            share = f"{100 * counts['covered'] / len(group):.0f}%" if group else "-"
            cells = [half, library, str(len(group)), *(str(counts[v]) for v in VERDICTS), share]
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def test_the_set_parses_and_is_big_enough():
    data = load()
    assert "rule" in data["split"]
    assert len(data["question"]) >= MIN_QUESTIONS, f"{len(data['question'])} questions; at least {MIN_QUESTIONS}"
    urls = [entry["url"] for entry in data["question"]]
    assert len(urls) == len(set(urls)), f"repeated: {[u for u, n in Counter(urls).items() if n > 1]}"


@pytest.mark.parametrize("entry", questions(), ids=lambda e: e["url"].removeprefix("https://github.com/"))
def test_entry_is_complete(entry: dict):
    assert THREAD.fullmatch(entry["url"]), entry["url"]
    assert entry["library"] in LIBRARIES
    assert re.fullmatch(r"202[56]-(0[1-9]|1[0-2])", entry["date"]), entry["date"]
    assert entry["answer_source"] in SOURCES
    assert all(entry[field].strip() for field in TEXT_FIELDS)
    for section_key, verdict_key in STAGES:
        verdict, section = entry[verdict_key], entry[section_key]
        assert verdict in VERDICTS
        assert bool(section) == (verdict != "missing"), f"{verdict_key}={verdict} with section {section!r}"


def test_every_entry_is_in_the_half_its_rule_gives():
    wrong = []
    for entry in questions():
        expected = rule_half(entry["url"])
        moved = expected == "measure" and entry["half"] == "write" and entry.get("moved", "").strip()
        if entry["half"] != expected and not moved:
            wrong.append(f"{entry['url']}: half {entry['half']}, rule {expected}")
        if entry.get("moved") and not moved:
            wrong.append(f"{entry['url']}: a move is recorded but the entry is not a measure-to-write move")
    assert not wrong, "\n".join(wrong)


def test_no_question_is_an_answer_eval_source():
    sources = answer_eval_sources()
    assert len(sources) > 30  # the reader found the tasks' sources
    shared = [entry["url"] for entry in questions() if entry["url"] in sources]
    assert not shared, f"answer-eval sources in the question set: {shared}"


def test_every_mapped_section_exists():
    missing, cache = [], {}
    for entry in questions():
        for section_key, _ in STAGES:
            target = entry.get(section_key, "")
            if not target:
                continue
            path, _, anchor = target.partition("#")
            page = REPO / path
            if not path.startswith("references/") or not page.is_file():
                missing.append(f"{entry['url']}: {section_key} {target}: no such reference")
                continue
            if page not in cache:
                cache[page] = anchors(page)
            if anchor not in cache[page]:
                missing.append(f"{entry['url']}: {section_key} {target}: no heading with that anchor")
    assert not missing, "\n".join(missing)


def test_the_readme_tables_are_the_ones_the_data_gives():
    """Before teaching as split; before and after with the moves; after as split: four tables, in order."""
    readme = (QUESTIONS / "README.md").read_text(encoding="utf-8")
    entries = questions()
    tables = [
        coverage_rows(entries, "verdict_before", as_split=True),
        coverage_rows(entries, "verdict_before"),
        coverage_rows(entries, "verdict"),
        coverage_rows(entries, "verdict", as_split=True),
    ]
    position = 0
    for table in tables:
        block = "\n".join(table)
        assert block in readme[position:], "a table missing from evals/questions/README.md, or out of order:\n" + block
        position = readme.index(block, position) + len(block)


def test_the_table_counts_what_it_should():
    """A made-up pair of entries gives the rows the README shows for them."""
    entries = [
        {"half": "write", "library": "jax", "verdict_before": "covered"},
        {"half": "measure", "library": "jax", "verdict_before": "missing"},
    ]
    rows = coverage_rows(entries, "verdict_before")
    assert "| write | jax | 1 | 1 | 0 | 0 | 0 | 100% |" in rows
    assert "| both | all | 2 | 1 | 0 | 1 | 0 | 50% |" in rows
    assert "| measure | optax | 0 | 0 | 0 | 0 | 0 | - |" in rows
    moved_url = next(u for u in (f"https://github.com/x/y/issues/{n}" for n in range(1, 99)) if rule_half(u) == "measure")
    moved = [{"url": moved_url, "half": "write", "library": "optax", "verdict_before": "partial"}]
    assert "| write | optax | 1 | 0 | 1 | 0 | 0 | 0% |" in coverage_rows(moved, "verdict_before")
    assert "| measure | optax | 1 | 0 | 1 | 0 | 0 | 0% |" in coverage_rows(moved, "verdict_before", as_split=True)
