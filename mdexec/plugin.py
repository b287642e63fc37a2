"""pytest integration: each Markdown file is a test module and each Python block one item.

Registered through the `pytest11` entry point, so `pytest path/to/docs` works wherever this package
is installed. Disable with `-p no:mdexec`.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from mdexec.document import Block, read_blocks
from mdexec.errors import MarkdownError
from mdexec.isolation import FileSandbox, ensure_virtual_devices
from mdexec.output import DoctestMismatch, OutputMismatch
from mdexec.record import FAILED, PASSED, RAISED, SKIPPED, BlockRecord, FileRecorder, error_fields, tee_stdout
from mdexec.runner import BlockFailed, Namespace, execute

_SHORT_FAILURES = (MarkdownError, BlockFailed, OutputMismatch, DoctestMismatch)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mdexec", "Markdown code blocks")
    group.addoption(
        "--mdexec-record",
        metavar="DIR",
        default=None,
        help="write each Markdown file's block outcomes, stdout, errors, package versions and date "
        "to DIR/<path>.md.json (default: the mdexec_record ini option; '' turns recording off)",
    )
    parser.addini("mdexec_record", "default for --mdexec-record, relative to the rootdir", default="")
    parser.addini(
        "mdexec_record_packages",
        "distributions whose installed versions each record names",
        type="linelist",
        default=["jax", "jaxlib"],
    )


def _record_dir(config: pytest.Config) -> Path | None:
    option = config.getoption("mdexec_record")
    if option is not None:
        return Path(option).resolve() if option else None
    ini = config.getini("mdexec_record")
    return config.rootpath / ini if ini else None


def pytest_configure(config: pytest.Config) -> None:
    ensure_virtual_devices()
    # A file's blocks share one namespace, so under pytest-xdist a whole file must stay on one worker.
    # (xdist's `loadgroup` cannot group here: with pytest 9 it no longer re-keys items.)
    if getattr(config.option, "dist", "no") in ("load", "worksteal"):
        config.option.dist = "loadfile"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> MarkdownFile | None:
    if file_path.suffix.lower() == ".md":
        return MarkdownFile.from_parent(parent, path=file_path)
    return None


class MarkdownFile(pytest.File):
    """One Markdown file: its blocks share a namespace, a working directory and a jax.config."""

    def collect(self):  # type: ignore[override]
        for block in read_blocks(self.path):
            item = MarkdownBlock.from_parent(self, name=block.name, block=block)
            if block.directives.timeout is not None:
                item.add_marker(pytest.mark.timeout(block.directives.timeout))
            yield item

    def setup(self) -> None:
        directory = _record_dir(self.config)
        self.recorder = (
            FileRecorder.for_file(self.path, self.config.rootpath, directory, self.config.getini("mdexec_record_packages"))
            if directory is not None
            else None
        )
        self.namespace = Namespace.fresh(str(self.path))
        self.sandbox = FileSandbox(label=self.path.stem)
        self.sandbox.enter()

    def teardown(self) -> None:
        try:
            self.sandbox.exit()
        finally:
            self.namespace = Namespace.fresh(str(self.path))  # free the file's arrays before the next file
            if self.recorder is not None:
                self.recorder.write()

    def repr_failure(self, excinfo):  # type: ignore[override]
        error = excinfo.value
        if isinstance(error, MarkdownError):
            return f"{self.nodeid}:{error.line}: {error.message}"
        return super().repr_failure(excinfo)


class MarkdownBlock(pytest.Item):
    """One fenced Python block, run in its file's namespace."""

    def __init__(self, *, block: Block, **kwargs) -> None:
        super().__init__(**kwargs)
        self.block = block

    @property
    def file(self) -> MarkdownFile:
        assert isinstance(self.parent, MarkdownFile)
        return self.parent

    def runtest(self) -> None:
        recorder = self.file.recorder
        if recorder is None:
            self._run()
            return
        line = self.block.line
        with tee_stdout() as stdout:
            try:
                raised = self._run()
            except pytest.skip.Exception as skip:
                recorder.add(BlockRecord(line, SKIPPED, stdout.getvalue(), reason=skip.msg))
                raise
            except BaseException as error:
                recorder.add(BlockRecord(line, FAILED, stdout.getvalue(), **error_fields(error)))
                raise
        if raised is None:
            recorder.add(BlockRecord(line, PASSED, stdout.getvalue()))
        else:
            recorder.add(BlockRecord(line, RAISED, stdout.getvalue(), **error_fields(raised)))

    def _run(self) -> BaseException | None:
        """Run the block as its directives say; return the exception it raised as declared."""
        directives = self.block.directives
        if directives.fresh:
            self.file.namespace = Namespace.fresh(str(self.path))
        if directives.skip:
            _skip(directives.skip)
        if directives.min_devices is not None:
            _require_devices(directives.min_devices)
        failed = self.file.namespace.failed_block
        if failed is not None:
            _skip(f"{failed.name} failed earlier in this namespace")
        try:
            return execute(self.block, self.file.namespace)
        except BaseException:
            self.file.namespace.failed_block = self.block
            raise

    def repr_failure(self, excinfo):  # type: ignore[override]
        if isinstance(excinfo.value, _SHORT_FAILURES):
            return f"{excinfo.value}\n  in the block at {self.file.nodeid}:{self.block.line}"
        return super().repr_failure(excinfo)

    def _traceback_filter(self, excinfo: pytest.ExceptionInfo[BaseException]):  # noqa: ANN202 - pytest's Traceback
        """Keep the frames in the Markdown file, then the frame that raised, one line each.

        pytest formats them as usual, so the short summary shows the error's type and message (its
        `reprcrash`), under pytest-xdist too. `_traceback_filter` is a private pytest method (pytest
        is pinned); its result has the type of `excinfo.traceback`, a list of entries.
        """
        entries = list(excinfo.traceback)
        shown = [entry for entry in entries if Path(entry.path) == self.path]
        if entries and (not shown or shown[-1] is not entries[-1]):
            shown.append(entries[-1])
        return type(excinfo.traceback)(entry.with_repr_style("short") for entry in shown)

    def reportinfo(self):  # type: ignore[override]
        return self.path, self.block.line - 1, self.name


def _skip(reason: str) -> None:
    """Skip the current block, reported at the block's Markdown line rather than in the harness."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


def _require_devices(count: int) -> None:
    import jax

    available = jax.device_count()
    if available < count:
        _skip(
            f"needs {count} devices, {available} available; "
            f"set XLA_FLAGS=--xla_force_host_platform_device_count={count} before jax is imported"
        )


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """Per Markdown file: blocks executed and skipped, and why each skip happened."""
    per_file: dict[str, dict] = defaultdict(lambda: {"executed": 0, "skipped": []})
    for outcome in ("passed", "failed", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            nodeid = getattr(report, "nodeid", "")
            if ".md::L" not in nodeid:
                continue
            path, _, name = nodeid.partition("::")
            if outcome == "skipped":
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
                per_file[path]["skipped"].append(f"{name}: {reason.removeprefix('Skipped: ')}")
            elif report.when == "call":
                per_file[path]["executed"] += 1
    if not per_file:
        return
    terminalreporter.section("mdexec: Markdown blocks per file")
    for path in sorted(per_file):
        counts = per_file[path]
        terminalreporter.write_line(f"{path}: {counts['executed']} executed, {len(counts['skipped'])} skipped")
        for reason in counts["skipped"]:
            terminalreporter.write_line(f"    skipped {reason}")
