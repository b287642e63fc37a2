"""Put each executed block's recorded outcome under it, and a "verified with" line under the title."""

from __future__ import annotations

import html
import re

import yaml

from markdown_it import MarkdownIt

from docsite import REPO
from docsite.records import PageRecord

MAX_LINES = 120  # longer outputs are cut, with a note saying how much


def render_page(text: str, record: PageRecord | None) -> str:
    """`text` with the outcome of each recorded block after its fence and the verified-with line.

    A YAML front matter is dropped: its description is shown as text instead, since MkDocs would put
    it, quotes and `<example>` tags included, into an HTML attribute.
    """
    lines = text.splitlines()
    body_start = _front_matter_end(lines)
    inserts: dict[int, list[str]] = {}  # insert after this 0-based line index
    if record is not None:
        for start, end in _fences(lines, body_start):
            block = record.blocks.get(start + 1)
            if block is not None:
                indent = re.match(r"[ ]*", lines[start]).group(0)
                inserts[end - 1] = [indent + row if row else row for row in outcome(block)]
    title = _title_index(lines, body_start)
    head = inserts.setdefault(title if title is not None else body_start - 1, [])
    if record is not None:
        head.extend([verified_line(record), ""])
    description = _description(lines[:body_start])
    if description:
        head.extend(['!!! abstract "When it is used (its description, from the front matter)"', "", *_indent(description), ""])
    out: list[str] = []
    for index in range(-1, len(lines)):
        if index >= body_start:  # the front matter is shown above, not passed to MkDocs' page meta
            out.append(lines[index])
        if index in inserts:
            out.extend(["", *inserts[index]] if index >= 0 else [*inserts[index]])
    return "\n".join(out) + "\n"


def verified_line(record: PageRecord) -> str:
    """One line: the pinned versions the page ran with and the date it last passed."""
    versions = ", ".join(f"{name} {version}" for name, version in record.versions.items())
    run, skipped = record.counts
    blocks = f"{run} block{'s' * (run != 1)} run" + (f", {skipped} skipped with a reason" if skipped else "")
    return (
        f"Verified with Python {record.python}, {versions} on CPU: every code block on this page last "
        f"passed on {record.date} ({blocks}).\n{{ .mdexec-verified }}"
    )


def outcome(block: dict) -> list[str]:
    """Markdown for one block's outcome: its output, the error it raises, or why it did not run."""
    rows: list[str] = []
    if block["stdout"].strip():
        rows += _admonition("success mdexec-output", "Output", block["stdout"])
    if block["status"] == "raised":
        name = block["error_type"].rpartition(".")[2]
        text = f"{name}: {block['error_message']}".rstrip()
        rows += _admonition("failure mdexec-error", f"Expected error: {name}", text)
    elif block["status"] == "skipped":
        rows += [f'!!! note mdexec-skipped "Not run here: {_title(block["reason"])}"', ""]
    return rows


def _admonition(kind: str, title: str, text: str) -> list[str]:
    text = text.replace(str(REPO) + "/", "")
    shown = text.rstrip("\n").splitlines()
    if len(shown) > MAX_LINES:
        shown = shown[:MAX_LINES] + [f"... ({len(shown) - MAX_LINES} more lines)"]
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    body = [fence + "text", *shown, fence]
    return [f'!!! {kind} "{_title(title)}"', "", *("    " + row if row else row for row in body), ""]


def _description(front_matter: list[str]) -> str:
    """A skill's or agent's `description`, HTML-escaped so `<example>` tags show as text."""
    if len(front_matter) < 2:
        return ""
    meta = yaml.safe_load("\n".join(front_matter[1:-1])) or {}
    return html.escape(str(meta.get("description", "")).strip(), quote=False)


def _indent(text: str) -> list[str]:
    return ["    " + row if row.strip() else "" for row in text.splitlines()]


def _title(text: str) -> str:
    return " ".join(text.split()).replace('"', "'")


def _front_matter_end(lines: list[str]) -> int:
    """Index of the first line after a leading YAML front matter (0 if there is none)."""
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() == "---":
                return index + 1
    return 0


def _fences(lines: list[str], body_start: int) -> list[tuple[int, int]]:
    """(start, end) line indices of each fenced block, as markdown-it maps them."""
    text = "\n" * body_start + "\n".join(lines[body_start:]) + "\n"
    tokens = MarkdownIt("commonmark").parse(text)
    return [tuple(token.map) for token in tokens if token.type == "fence" and token.map]


def _title_index(lines: list[str], body_start: int) -> int | None:
    """Index of the page's `# Title` line, if it has one."""
    text = "\n" * body_start + "\n".join(lines[body_start:]) + "\n"
    for token in MarkdownIt("commonmark").parse(text):
        if token.type == "heading_open" and token.tag == "h1" and token.map:
            return token.map[1] - 1
    return None
