"""Parse `<!-- mdexec: ... -->` directives, the per-block instructions written before a fence."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from mdexec.errors import MarkdownError

PREFIX = "mdexec:"
KNOWN_OPTIONS = ("raises", "skip", "timeout", "min-devices", "fresh")


@dataclass(frozen=True)
class Directives:
    """What the comments before one fence ask for. The defaults mean "just run the block"."""

    raises: str | None = None
    skip: str | None = None
    timeout: float | None = None
    min_devices: int | None = None
    fresh: bool = False

    def merged(self, other: Directives) -> Directives:
        """Combine two comments before the same fence; the later one wins on a conflict."""
        return Directives(
            raises=other.raises or self.raises,
            skip=other.skip or self.skip,
            timeout=other.timeout if other.timeout is not None else self.timeout,
            min_devices=other.min_devices if other.min_devices is not None else self.min_devices,
            fresh=self.fresh or other.fresh,
        )


def is_directive_comment(html: str) -> bool:
    """True if an HTML block is meant as an mdexec directive: a comment whose first word is `mdexec`.

    Other comments are ignored. A comment that starts with `mdexec` but lacks the colon is still a
    directive, so that `parse_directive` reports it instead of the harness silently ignoring it.
    """
    body = html.strip()
    return body.startswith("<!--") and re.match(r"mdexec\b", body[4:].lstrip()) is not None


def parse_directive(html: str, path: Path, line: int) -> Directives:
    """Parse one `<!-- mdexec: key=value flag ... -->` comment; raise MarkdownError on any mistake."""
    body = html.strip()
    if not body.endswith("-->"):
        raise MarkdownError(path, line, "directive comment is not closed with '-->'")
    text = body[4:-3].strip()
    if not text.startswith(PREFIX):
        written = " ".join(text.split())
        raise MarkdownError(
            path, line, f"malformed directive <!-- {written} -->; write it with a colon: <!-- mdexec: key=value -->"
        )
    text = text[len(PREFIX) :]
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise MarkdownError(path, line, f"cannot parse directive ({error}); quote values with spaces") from None
    if not words:
        raise MarkdownError(path, line, "empty directive; expected one of: " + ", ".join(KNOWN_OPTIONS))

    values: dict[str, str | None] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if key not in KNOWN_OPTIONS:
            raise MarkdownError(
                path, line, f"unknown directive option {key!r}; expected one of: {', '.join(KNOWN_OPTIONS)}"
            )
        values[key] = value if sep else None
    return _build(values, path, line)


def _build(values: dict[str, str | None], path: Path, line: int) -> Directives:
    def require(key: str) -> str:
        value = values[key]
        if not value:
            raise MarkdownError(path, line, f"directive option {key!r} needs a value, e.g. {key}=...")
        return value

    def number(key: str, kind: type) -> float | int:
        raw = require(key)
        try:
            result = kind(raw)
        except ValueError:
            raise MarkdownError(path, line, f"directive option {key}={raw!r} is not a {kind.__name__}") from None
        if result <= 0:
            raise MarkdownError(path, line, f"directive option {key}={raw!r} must be positive")
        return result

    if "skip" in values and not (values["skip"] or "").strip():
        raise MarkdownError(path, line, 'skip needs a written reason: <!-- mdexec: skip="why this cannot run" -->')
    if "fresh" in values and values["fresh"] is not None:
        raise MarkdownError(path, line, "directive option 'fresh' takes no value")
    return Directives(
        raises=require("raises") if "raises" in values else None,
        skip=values["skip"].strip() if "skip" in values else None,  # type: ignore[union-attr]
        timeout=float(number("timeout", float)) if "timeout" in values else None,
        min_devices=int(number("min-devices", int)) if "min-devices" in values else None,
        fresh="fresh" in values,
    )
