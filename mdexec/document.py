"""Read a Markdown file into the Python blocks the harness runs, using markdown-it-py.

Parsing is markdown-it's job; this module only walks its token stream, pairs each fence with the
directive comments just before it, and rejects malformed input with a `MarkdownError` that names the
file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from mdexec.directives import Directives, is_directive_comment, parse_directive
from mdexec.errors import MarkdownError

PYTHON_LANGS = frozenset({"python", "py", "python3", "pycon"})


@dataclass(frozen=True)
class Block:
    """One fenced Python block: where it is, what it says, and how to run it."""

    path: Path
    line: int  # 1-based line of the opening fence
    source: str
    directives: Directives = field(default_factory=Directives)

    @property
    def first_code_line(self) -> int:
        """1-based line of the block's first line of code in the Markdown file."""
        return self.line + 1

    @property
    def is_doctest(self) -> bool:
        return self.source.lstrip().startswith(">>>")

    @property
    def name(self) -> str:
        return f"L{self.line}"


def read_blocks(path: Path) -> list[Block]:
    """Return the Python blocks of a Markdown file in document order; raise MarkdownError if malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise MarkdownError(path, 1, f"not valid UTF-8 ({error.reason} at byte {error.start})") from None
    lines = text.splitlines()
    text = _blank_front_matter(path, lines)
    tokens = MarkdownIt("commonmark").parse(text)
    return _collect(path, tokens, lines)


def _blank_front_matter(path: Path, lines: list[str]) -> str:
    """Check a leading YAML front matter, then replace it by blank lines so line numbers are kept."""
    if not lines or lines[0].strip() != "---":
        return "\n".join(lines) + "\n"
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise MarkdownError(path, 1, "front matter opened with '---' is never closed; add a '---' line after it") from None
    try:
        yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise MarkdownError(path, line, f"front matter is not valid YAML: {problem}; quote values containing ': '") from None
    return "\n" * (end + 1) + "\n".join(lines[end + 1 :]) + "\n"


def _collect(path: Path, tokens: list[Token], lines: list[str]) -> list[Block]:
    blocks: list[Block] = []
    pending: Directives | None = None
    pending_line = 0
    for token in tokens:
        if token.type == "html_block" and is_directive_comment(token.content):
            line = token.map[0] + 1 if token.map else 1
            parsed = parse_directive(token.content, path, line)
            pending = parsed if pending is None else pending.merged(parsed)
            pending_line = pending_line or line
            continue
        if token.type == "fence":
            block = _fence_to_block(path, token, lines, pending or Directives())
            if block is None and pending is not None:
                raise MarkdownError(path, pending_line, "directive is not followed by a Python fence")
            if block is not None:
                blocks.append(block)
            pending, pending_line = None, 0
            continue
        if pending is not None and token.nesting >= 0 and token.type not in _TRANSPARENT:
            raise MarkdownError(path, pending_line, "directive is not followed by a Python fence")
    if pending is not None:
        raise MarkdownError(path, pending_line, "directive at the end of the file has no fence after it")
    return blocks


# Tokens that may stand between a directive and its fence without breaking the pairing:
# the closing/opening of containers such as list items.
_TRANSPARENT = frozenset({"list_item_open", "bullet_list_open", "ordered_list_open", "blockquote_open"})


def _fence_to_block(path: Path, token: Token, lines: list[str], directives: Directives) -> Block | None:
    assert token.map is not None
    start, end = token.map
    _check_closed(path, token, lines, start, end)
    lang = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
    if lang in PYTHON_LANGS:
        return Block(path=path, line=start + 1, source=token.content, directives=directives)
    if not lang and _looks_like_python(token.content):
        raise MarkdownError(
            path, start + 1, "untagged fence looks like Python; tag it ```python to run it or ```text to show it"
        )
    return None


def _check_closed(path: Path, token: Token, lines: list[str], start: int, end: int) -> None:
    """markdown-it silently closes a fence at the end of the document; we call that an error."""
    last = lines[end - 1].strip() if end - 1 < len(lines) and end - 1 > start else ""
    marker = token.markup
    closed = last.startswith(marker) and set(last) == {marker[0]}
    if not closed:
        raise MarkdownError(path, start + 1, f"fence opened here with {marker} is never closed")


def _looks_like_python(source: str) -> bool:
    if "import " not in source and "print(" not in source:
        return False
    try:
        compile(source, "<fence>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True
