"""The currency checker's cache of answers about the installed libraries (scripts/_installed.py).

A cold run imports the libraries and stores what they answered; a warm run gives the same findings and
imports none of them (checked with `python -X importtime`, which lists every module imported).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bundle import REPO

CHECKER = REPO / "scripts" / "jax_currency_check.py"
SOURCE = ("import jax\nimport optax\nfrom flax import nnx\n\n"
          "x = jax.tree_map(lambda a: a, {})\nopt = optax.adamw(1e-3, b1=0.9, bogus=1)\nlayer = nnx.Linear(2, 3, rngs=nnx.Rngs(0))\n")


LIBRARIES = {"jax", "jaxlib", "flax", "optax", "orbax", "numpyro"}
# Runs the checker as its command line does, then writes which of the libraries the process had imported.
DRIVER = """
import runpy, sys
out, sys.argv = sys.argv[1], sys.argv[2:]
sys.path.insert(0, sys.argv[0].rpartition("/")[0])  # as `python scripts/jax_currency_check.py` has it
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    open(out, "w").write(" ".join(sorted({m.split(".")[0] for m in sys.modules} & LIBRARIES)))
"""


def check(path: Path, cache: str, modules: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_PRO_CACHE": cache}
    driver = ["-c", f"LIBRARIES = {LIBRARIES!r}\n{DRIVER}", str(modules)] if modules else []
    return subprocess.run([sys.executable, *driver, str(CHECKER), str(path)], capture_output=True, text=True, env=env,
                          timeout=300)


def test_warm_runs_import_no_library_and_a_damaged_or_disabled_cache_changes_nothing(tmp_path: Path):
    code, cache = tmp_path / "train.py", tmp_path / "cache"
    code.write_text(SOURCE, encoding="utf-8")
    cold = check(code, str(cache), tmp_path / "cold.txt")
    warm = check(code, str(cache), tmp_path / "warm.txt")
    assert cold.returncode == warm.returncode == 1 and cold.stdout == warm.stdout and cold.stderr == warm.stderr
    assert "jax.tree_map" in cold.stdout and "bogus" in cold.stdout, cold.stdout
    assert {"jax", "flax", "optax"} <= set((tmp_path / "cold.txt").read_text().split())
    assert (tmp_path / "warm.txt").read_text() == ""
    assert sorted(p.suffix for p in (cache / "checker").iterdir()) == [".json", ".pickle"]
    for stored in (cache / "checker").iterdir():
        stored.write_bytes(b"\x80 not json, not a pickle")
    disabled_and_damaged = check(code, "off")  # stores nothing, so the damaged files stay as they are
    assert (disabled_and_damaged.returncode, disabled_and_damaged.stdout) == (1, cold.stdout)
    assert not (tmp_path / "off").exists() and all(p.read_bytes().startswith(b"\x80") for p in (cache / "checker").iterdir())
    damaged = check(code, str(cache))
    assert (damaged.returncode, damaged.stdout, damaged.stderr) == (1, cold.stdout, cold.stderr)
