"""Tests of scripts/pytree_visualizer.py.

Targets are small modules written into `tmp_path`; checkpoints are written there by `ocp.CheckpointManager`.
Each kind of output is checked in a fresh interpreter, as an assistant runs the tool (`run_tool`). The
bad inputs, and variations of an output already checked that way, run the tool's entry point,
`run_cli(main, argv)`, in this process (`run_here`): the same parsing, messages and exit codes, without
paying for the JAX, Flax and Orbax imports per case (about 3 s of CPU together on a 2-core x86_64 Intel
Xeon, measured with `/usr/bin/time`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp
import pytest

from script_runner import run_script
from flax import nnx

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "pytree_visualizer.py"
sys.path.insert(0, str(TOOL.parent))
import pytree_visualizer  # noqa: E402
from _cli import run_cli  # noqa: E402

Run = Callable[..., subprocess.CompletedProcess[str]]

TARGETS = '''
import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P


class Classifier(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.encoder = nnx.Linear(6, 16, rngs=rngs)
        self.norm = nnx.BatchNorm(16, rngs=rngs)
        self.heads = nnx.List([nnx.Linear(16, 3, rngs=rngs) for _ in range(2)])


def make_model():
    return Classifier(nnx.Rngs(0))


MODEL = Classifier(nnx.Rngs(1))
PARAMS = {"w": jnp.ones((5, 7)), "b": jnp.zeros(7, jnp.bfloat16), "config": {"name": "demo", "lr": 0.5}}


def sharded():
    mesh = jax.make_mesh((4,), ("data",))
    return {"x": jax.device_put(jnp.ones((8, 2)), NamedSharding(mesh, P("data")))}


def broken():
    raise RuntimeError("cannot build the model")
'''


class Classifier(nnx.Module):
    """The same model as in TARGETS, to count its parameters independently of the tool."""

    def __init__(self, rngs: nnx.Rngs):
        self.encoder = nnx.Linear(6, 16, rngs=rngs)
        self.norm = nnx.BatchNorm(16, rngs=rngs)
        self.heads = nnx.List([nnx.Linear(16, 3, rngs=rngs) for _ in range(2)])


@pytest.fixture
def targets(tmp_path: Path) -> Path:
    path = tmp_path / "targets.py"
    path.write_text(TARGETS, encoding="utf-8")
    return path


def run_tool(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


@pytest.fixture
def run_here(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """Run `run_cli(main, argv)` in this process; capture stdout and stderr at the file-descriptor level."""
    from absl import logging

    monkeypatch.delenv("JAX_PRO_TRACEBACK", raising=False)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # --checkpoint replaces it; restore it after
    monkeypatch.setattr(sys, "path", list(sys.path))  # a target file's folder goes on sys.path
    verbosity = logging.get_verbosity()

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        capfd.readouterr()
        with pytest.raises(SystemExit) as exited:
            run_cli(pytree_visualizer.main, [str(a) for a in args])
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), exited.value.code, out, err)

    yield run
    logging.set_verbosity(verbosity)


def as_json(result: subprocess.CompletedProcess[str]) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def run_json(*args: str | Path, cwd: Path = REPO) -> dict:
    return as_json(run_tool(*args, "--json", cwd=cwd))


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def child(node: dict, name: str) -> dict:
    return next(c for c in node["children"] if c["name"] == name)


def test_help_describes_inputs_and_exit_codes():
    result = run_tool("--help")
    assert result.returncode == 0
    for text in ("MODULE:NAME", "--checkpoint", "--step", "--depth", "--json", "--devices", "nnx.state", "exit codes:"):
        assert text in result.stdout, text


def test_nnx_model_counts_per_subtree_and_by_variable_type(targets: Path):
    report = run_json(f"{targets}:make_model")
    model = Classifier(nnx.Rngs(0))
    sizes = {kind: sum(np.size(x) for x in jax.tree.leaves(nnx.state(model, kind))) for kind in (nnx.Param, nnx.BatchStat)}
    assert report["by_kind"]["Param"]["params"] == sizes[nnx.Param]
    assert report["by_kind"]["BatchStat"]["params"] == sizes[nnx.BatchStat]
    assert report["total"]["params"] == sum(sizes.values())
    encoder = child(report["tree"], "encoder")
    assert encoder["params"] == 6 * 16 + 16 and encoder["bytes"] == 4 * encoder["params"]
    kernel = child(encoder, "kernel")
    assert (kernel["kind"], kernel["shape"], kernel["dtype"]) == ("Param", [6, 16], "float32")
    assert child(child(report["tree"], "heads"), "1")["params"] == 16 * 3 + 3


def test_module_attribute_tree_output_and_depth(targets: Path, run_here: Run):
    # A module name (not a path) is imported from the working directory, as `python -c "import targets"` would.
    result = run_tool("targets:PARAMS", cwd=targets.parent)
    assert result.returncode == 0, result.stderr
    assert "w: Array float32[5,7]" in result.stdout and "b: Array bfloat16[7]" in result.stdout
    assert "name: str = 'demo'" in result.stdout
    assert f"{5 * 7 + 7:,} params" in result.stdout
    shallow = run_here(f"{targets}:MODEL", "--depth", "1")
    assert "children not shown (--depth)" in shallow.stdout and "kernel" not in shallow.stdout
    report = as_json(run_here(f"{targets}:MODEL", "--depth", "1", "--json"))
    assert {c["name"] for c in report["tree"]["children"]} == {"encoder", "norm", "heads"}
    assert not any("children" in c for c in report["tree"]["children"])


def test_sharding_is_shown_on_virtual_devices(targets: Path):
    report = run_json(f"{targets}:sharded", "--devices", "4")
    leaf = child(report["tree"], "x")
    assert leaf["sharding"] == "P('data',) over mesh {'data': 4}"


@pytest.fixture(scope="module")
def checkpoint_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("viz") / "ckpts"
    with ocp.CheckpointManager(root) as manager:
        for step in (1, 2):
            state = {"params": {"w": jnp.full((3, 2 * step), step, jnp.float32)}, "count": jnp.array(step)}
            manager.save(step, args=ocp.args.StandardSave(state))
        manager.wait_until_finished()
    return root


def test_checkpoint_metadata_of_the_newest_step_a_chosen_step_and_a_step_folder(checkpoint_root: Path, run_here: Run):
    newest = run_json("--checkpoint", checkpoint_root)
    assert newest["step"] == 2
    w = child(child(newest["tree"], "params"), "w")
    assert (w["kind"], w["shape"], w["dtype"], w["sharding"]) == ("ArrayMetadata", [3, 4], "float32", "cpu:0")
    assert newest["total"]["params"] == 3 * 4 + 1
    chosen = as_json(run_here("--checkpoint", checkpoint_root, "--step", "1", "--json"))
    assert child(child(chosen["tree"], "params"), "w")["shape"] == [3, 2]
    folder = as_json(run_here("--checkpoint", checkpoint_root / "1", "--json"))
    assert folder["step"] == 1 and folder["tree"] == chosen["tree"]


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["no_such_module:tree"], 2, "unknown module 'no_such_module'"),
        (["{targets}:NO_SUCH_NAME"], 2, "has no attribute 'NO_SUCH_NAME'"),
        (["{targets}:broken"], 1, "RuntimeError: cannot build the model"),
        (["missing/model.py:tree"], 2, "no such file: missing/model.py"),
        ([], 2, "give either TARGET"),
        (["{targets}:PARAMS", "--step", "1"], 2, "--step needs --checkpoint"),
        (["--checkpoint", "{tmp}/missing"], 2, "does not exist"),
        (["--checkpoint", "{tmp}"], 1, "is not an Orbax checkpoint directory"),
        (["--checkpoint", "{ckpt}", "--step", "9"], 2, "no step 9"),
        (["--checkpoint", "{ckpt}/1", "--step", "2"], 2, "--step 2 names another step"),
    ],
)
def test_bad_input_gives_one_error_line_and_no_traceback(
    targets: Path, tmp_path: Path, checkpoint_root: Path, run_here: Run, args: list[str], code: int, fragment: str
):
    paths = {"targets": targets, "tmp": tmp_path, "ckpt": checkpoint_root}
    assert_one_line_error(run_here(*(a.format(**paths) for a in args)), code, fragment)


def test_unreadable_checkpoint_gives_one_error_line_in_a_real_process(tmp_path: Path):
    with ocp.CheckpointManager(tmp_path / "ckpts") as manager:
        manager.save(1, args=ocp.args.StandardSave({"w": jnp.ones(3)}))
    (tmp_path / "ckpts" / "1" / "default" / "_METADATA").write_text("{not json", encoding="utf-8")
    result = run_tool("--checkpoint", tmp_path / "ckpts")
    assert_one_line_error(result, 1, "cannot read the metadata of", "corrupt")
