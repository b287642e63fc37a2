"""The one error type the harness raises about a Markdown file's own content."""

from __future__ import annotations

from pathlib import Path


class MarkdownError(Exception):
    """A problem in a Markdown file, reported as `path:line: message` with no harness traceback."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = Path(path)
        self.line = line
        self.message = message
