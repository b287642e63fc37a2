"""Record what each block did, one JSON file per Markdown file, for tools that show the results.

`--mdexec-record DIR` (or the `mdexec_record` ini option) writes `DIR/<path>.md.json` when a file's
last block has run: each block's line, status, captured stdout, error type and message, plus the
versions of the packages named by the `mdexec_record_packages` ini option and the date. Each file
runs on one worker, so the records need no merging under pytest-xdist.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import importlib.metadata
import io
import json
import os
import platform
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORMAT = 1
PASSED, RAISED, SKIPPED, FAILED = "passed", "raised", "skipped", "failed"


@dataclass
class BlockRecord:
    """The outcome of one block. `error_*` is set for RAISED and FAILED, `reason` for SKIPPED."""

    line: int
    status: str
    stdout: str = ""
    error_type: str | None = None
    error_message: str | None = None
    reason: str | None = None


def error_fields(error: BaseException) -> dict[str, str]:
    """The error's qualified type name (builtins unqualified) and its message."""
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return {"error_type": name, "error_message": str(error)}


@dataclass
class FileRecorder:
    """Collects the records of one Markdown file's blocks and writes them as one JSON file."""

    path: Path
    relative: str
    target: Path
    packages: list[str]
    blocks: list[BlockRecord] = field(default_factory=list)

    @classmethod
    def for_file(cls, path: Path, rootpath: Path, directory: Path, packages: list[str]) -> FileRecorder:
        try:
            relative = path.resolve().relative_to(rootpath.resolve()).as_posix()
        except ValueError:
            relative = f"_outside_rootdir/{path.name}"
        return cls(path=path, relative=relative, target=directory / f"{relative}.json", packages=packages)

    def add(self, record: BlockRecord) -> None:
        self.blocks.append(record)

    def write(self) -> None:
        """Write the record atomically, so a reader never sees half a file."""
        now = datetime.datetime.now(datetime.timezone.utc)
        data = {
            "format": FORMAT,
            "file": self.relative,
            "sha256": hashlib.sha256(self.path.read_bytes()).hexdigest(),
            "date": now.date().isoformat(),
            "time": now.isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "versions": {name: _version(name) for name in self.packages},
            "passed": all(block.status != FAILED for block in self.blocks),
            "blocks": [asdict(block) for block in self.blocks],
        }
        self.target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.target.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=1, ensure_ascii=False)
        os.replace(temporary, self.target)


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


class _Tee:
    """A stdout that also keeps a copy of everything written to it."""

    def __init__(self, target) -> None:  # noqa: ANN001 - any text stream
        self.target = target
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.target.write(text)

    def __getattr__(self, name: str):  # flush, isatty, encoding, fileno... of the real stream
        return getattr(self.target, name)


@contextlib.contextmanager
def tee_stdout() -> Iterator[io.StringIO]:
    """Let output through to pytest's capture as usual, and keep a copy for the record."""
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):  # type: ignore[type-var]
        yield tee.copy
