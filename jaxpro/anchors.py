"""Headings of a Markdown file with the anchors GitHub gives them, and the lines each section spans."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt


@dataclass(frozen=True)
class Heading:
    """One heading: its level (1 for `#`), its first and last line (1-based, inclusive), its anchor."""

    level: int
    line: int
    end: int
    anchor: str


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: lowercase, punctuation dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(path: Path) -> list[Heading]:
    """Every heading in `path`, in order; a section runs to the next heading of the same or a higher level.

    Anchors are GitHub's slugs: lowercase, punctuation dropped, spaces to `-`, `-1`, `-2` for repeats.
    """
    text = path.read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").parse(text)
    found: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            base = slug(inline.content)
            unique, n = base, 0
            while unique in seen:
                n += 1
                unique = f"{base}-{n}"
            seen.add(unique)
            found.append((int(opening.tag[1]), opening.map[0] + 1, unique))
    last_line = len(text.splitlines())
    result = []
    for index, (level, line, anchor) in enumerate(found):
        following = (other_line for other_level, other_line, _ in found[index + 1 :] if other_level <= level)
        result.append(Heading(level, line, next(following, last_line + 1) - 1, anchor))
    return result


def anchors(path: Path) -> set[str]:
    """The heading anchors of `path`."""
    return {heading.anchor for heading in headings(path)}
