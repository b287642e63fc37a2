"""Helpers that graders share: count XLA compilations, and load a task's metadata."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import jax

ANSWERS = Path(__file__).resolve().parent
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@dataclass
class CompileCount:
    """How many XLA backend compilations ran inside a `count_compilations()` block."""

    count: int = 0
    events: list[float] = field(default_factory=list)


@contextmanager
def count_compilations() -> Iterator[CompileCount]:
    """Count XLA compilations (not traces, not cache hits) through `jax.monitoring`."""
    counter = CompileCount()

    def listener(event: str, duration: float, **_: object) -> None:
        if event == BACKEND_COMPILE_EVENT:
            counter.count += 1
            counter.events.append(duration)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield counter
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def load_task(task_dir: Path) -> dict:
    """The parsed `task.toml` of one task folder."""
    return tomllib.loads((task_dir / "task.toml").read_text(encoding="utf-8"))
