"""Read the test run's mdexec records for a page and refuse ones that are missing, stale or failed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from docsite import RECORDS, REPO, TEST_COMMAND
from jaxpro.repo import pins
from mdexec.document import read_blocks

RUN_TESTS = f"run the test command first: {TEST_COMMAND}"


class RecordProblem(Exception):
    """A page's record cannot be shown; the message names the file and says what to do."""


@dataclass(frozen=True)
class PageRecord:
    """The recorded outcome of every block of one Markdown file."""

    file: str
    date: str
    python: str
    versions: dict[str, str]
    blocks: dict[int, dict]  # fence line -> the block's record

    @property
    def counts(self) -> tuple[int, int]:
        """(blocks run, blocks skipped)."""
        skipped = sum(1 for block in self.blocks.values() if block["status"] == "skipped")
        return len(self.blocks) - skipped, skipped


def load(source: Path, records: Path = RECORDS) -> PageRecord:
    """The record of `source`, checked against the file, its blocks and the pins."""
    relative = source.relative_to(REPO).as_posix()
    path = records / f"{relative}.json"
    if not path.is_file():
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        raise RecordProblem(f"{relative}: no record of its blocks ({shown} is missing); {RUN_TESTS}")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("sha256") != hashlib.sha256(source.read_bytes()).hexdigest():
        raise RecordProblem(f"{relative}: the record is stale (the file changed after the run of {data.get('time')}); {RUN_TESTS}")
    for name, version in data["versions"].items():
        if pins().get(name, version) != version:
            raise RecordProblem(
                f"{relative}: recorded with {name} {version}, but pyproject.toml pins {pins()[name]}; {RUN_TESTS}"
            )
    blocks = {block["line"]: block for block in data["blocks"]}
    missing = [block.line for block in read_blocks(source) if block.line not in blocks]
    if missing:
        lines = ", ".join(f"L{line}" for line in missing)
        raise RecordProblem(f"{relative}: the record has no outcome for {lines} (a partial run?); {RUN_TESTS}")
    for line, block in sorted(blocks.items()):
        if block["status"] == "failed":
            raise RecordProblem(
                f"{relative}:{line}: this block failed in the recorded run ({block['error_type']}: "
                f"{_first_line(block['error_message'])}); fix it, then {RUN_TESTS}"
            )
    return PageRecord(relative, data["date"], data["python"], data["versions"], blocks)


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""
