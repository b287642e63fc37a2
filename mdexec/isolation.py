"""Keep one Markdown file from affecting the next: XLA_FLAGS, working directory and `jax.config`."""

from __future__ import annotations

import gc
import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass

DEVICE_FLAG = "--xla_force_host_platform_device_count"
DEFAULT_DEVICES = 8


def ensure_virtual_devices(count: int = DEFAULT_DEVICES) -> None:
    """Ask XLA for `count` CPU devices; only effective before jax initialises its backends."""
    if "jax" in sys.modules:
        return
    flags = os.environ.get("XLA_FLAGS", "")
    if DEVICE_FLAG not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {DEVICE_FLAG}={count}".strip()


@dataclass
class FileSandbox:
    """Entered before a file's first block and exited after its last one."""

    label: str
    _old_cwd: str = ""
    _workdir: str = ""
    _jax_config: dict | None = None

    def enter(self) -> None:
        self._old_cwd = os.getcwd()
        self._workdir = tempfile.mkdtemp(prefix=f"mdexec-{self.label}-")
        os.chdir(self._workdir)
        self._jax_config = _jax_config_snapshot()
        freeze_heap()

    def exit(self) -> None:
        os.chdir(self._old_cwd)
        shutil.rmtree(self._workdir, ignore_errors=True)
        if self._jax_config is not None:
            _restore_jax_config(self._jax_config)


def freeze_heap() -> None:
    """Collect garbage, then move every object still alive (the imported libraries, above all jax) out
    of the collector's reach.

    pytest allocates many small objects per item, which sets off full collections; each full pass would
    otherwise walk jax's whole module state again. Frozen objects stay alive, which they would anyway.
    """
    gc.collect()
    gc.freeze()


def _jax_config_snapshot() -> dict | None:
    if importlib.util.find_spec("jax") is None:
        return None
    import jax

    return dict(jax.config.values)


def _restore_jax_config(snapshot: dict) -> None:
    import jax

    for name, value in jax.config.values.items():
        if name in snapshot and snapshot[name] != value:
            jax.config.update(name, snapshot[name])
