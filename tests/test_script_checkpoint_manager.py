"""Tests of scripts/checkpoint_manager.py on real Orbax checkpoints.

The checkpoints are written by `ocp.CheckpointManager` into a temporary directory. The incomplete step
is a real interrupted save: Orbax writes step 50 into `50.orbax-checkpoint-tmp`, and the commit (the
rename to `50`) never happens because the post-finalization callback, which Orbax runs just before the
commit, raises. `examples/orbax_checkpointing.py --crash-at-step` stalls a save at the same point.

Each command's normal output is checked in a fresh interpreter, as an assistant runs the tool
(`run_tool`), and so is the one error whose failed Orbax reads leave work in background threads. The
other bad inputs run the tool's entry point, `run_cli(main, argv)`, in this process (`run_here`): the
same parsing, messages and exit codes, without paying for the JAX and Orbax imports per case (about
1.7 s of CPU each on a 2-core x86_64 Intel Xeon, measured with `/usr/bin/time`).
"""

from __future__ import annotations

import json
import os
import shutil
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

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "checkpoint_manager.py"
sys.path.insert(0, str(TOOL.parent))
import checkpoint_manager  # noqa: E402
from _cli import run_cli  # noqa: E402

STEPS = (10, 20, 30, 40)
INCOMPLETE = 50
INCOMPLETE_FOLDER = f"{INCOMPLETE}.orbax-checkpoint-tmp"  # Orbax 0.12.8 names a step that was never committed so

Run = Callable[..., subprocess.CompletedProcess[str]]


def run_tool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run the tool in a fresh interpreter, without XLA_FLAGS (only --devices sets devices)."""
    return run_script(TOOL, *args)


@pytest.fixture
def run_here(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """Run `run_cli(main, argv)` in this process; capture stdout and stderr at the file-descriptor level."""
    from absl import logging

    monkeypatch.delenv("JAX_PRO_TRACEBACK", raising=False)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # the tool replaces it; restore it after
    verbosity = logging.get_verbosity()

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        capfd.readouterr()
        with pytest.raises(SystemExit) as exited:
            run_cli(checkpoint_manager.main, [str(a) for a in args])
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), exited.value.code, out, err)

    yield run
    logging.set_verbosity(verbosity)


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def state_at(step: int, *, poison: bool = False) -> dict:
    """The saved pytree: float32, bfloat16 and int32 leaves whose values depend on the step.

    `embed` is random (incompressible) and large enough (8 KiB) for Orbax to store its chunk in a
    data file of its own."""
    w = jnp.full((4, 3), float(step), jnp.float32)
    if poison:
        w = w.at[0, 0].set(jnp.nan)
    params = {"w": w, "b": jnp.arange(3, dtype=jnp.bfloat16), "embed": jax.random.normal(jax.random.key(step), (32, 64))}
    return {"params": params, "step": jnp.array(step, jnp.int32)}


def write_checkpoints(root: Path, steps=STEPS, *, poison_last: bool = False) -> Path:
    with ocp.CheckpointManager(root, metadata={"run": "unit-test"}) as manager:
        for step in steps:
            state = state_at(step, poison=poison_last and step == steps[-1])
            manager.save(step, args=ocp.args.StandardSave(state))
        manager.wait_until_finished()
    return root


def interrupt_save(root: Path, step: int) -> None:
    """Save `step` with Orbax, but fail just before the commit, as a job killed at that moment would."""

    def crash_before_commit() -> None:
        raise RuntimeError("simulated crash before the commit")

    options = ocp.CheckpointManagerOptions(async_options=ocp.AsyncOptions(post_finalization_callback=crash_before_commit))
    with ocp.CheckpointManager(root, options=options) as manager:
        manager.save(step, args=ocp.args.StandardSave(state_at(step)))
        with pytest.raises(RuntimeError, match="simulated crash"):
            manager.wait_until_finished()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_checkpoints(tmp_path_factory.mktemp("pristine") / "ckpts")
    interrupt_save(root, INCOMPLETE)
    assert sorted(p.name for p in root.iterdir()) == ["10", "20", "30", "40", INCOMPLETE_FOLDER, "metadata"]
    return root


@pytest.fixture
def ckpts(pristine: Path, tmp_path: Path) -> Path:
    """A private copy of the checkpoints: steps 10 to 40 complete, step 50 incomplete."""
    return shutil.copytree(pristine, tmp_path / "ckpts", symlinks=True)


def folders(root: Path) -> set[str]:
    return {p.name for p in root.iterdir()}


def test_help_names_every_command_and_the_dry_run():
    result = run_tool("--help")
    assert result.returncode == 0
    for text in ("list", "inspect", "verify", "prune", "DRY RUN", "--yes", "orbax-checkpoint-tmp", "exit codes:"):
        assert text in result.stdout, text
    prune_help = run_tool("prune", "--help").stdout
    assert "--keep" in prune_help and "--execute" in prune_help


def test_list_shows_complete_and_incomplete_steps_with_sizes(ckpts: Path):
    result = run_tool("list", ckpts, "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)["steps"]
    assert [(s["step"], s["complete"]) for s in listed] == [(s, True) for s in STEPS] + [(INCOMPLETE, False)]
    assert Path(listed[-1]["path"]).name == INCOMPLETE_FOLDER
    for entry in listed:
        on_disk = sum(f.stat().st_size for f in Path(entry["path"]).rglob("*") if f.is_file())
        assert entry["bytes"] == on_disk > 0
    table = run_tool("list", ckpts)
    assert "INCOMPLETE" in table.stdout and INCOMPLETE_FOLDER in table.stdout
    assert f"4 complete, 1 incomplete; newest complete step: {STEPS[-1]}" in table.stdout


def test_inspect_reads_shapes_and_dtypes_without_restoring(ckpts: Path, run_here: Run):
    result = run_tool("inspect", ckpts, "20", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    saved = state_at(20)
    leaves = {c["name"]: c for c in report["tree"]["children"][0]["children"]}  # the "params" subtree
    assert leaves["w"]["shape"] == list(saved["params"]["w"].shape) and leaves["w"]["dtype"] == "float32"
    assert leaves["b"]["shape"] == list(saved["params"]["b"].shape) and leaves["b"]["dtype"] == "bfloat16"
    assert report["total"]["params"] == sum(np.size(x) for x in jax.tree.leaves(saved))
    assert report["step_metadata"]["item_handlers"] == {"default": "StandardCheckpointHandler"}
    table = run_here("inspect", ckpts, "latest")
    assert table.returncode == 0, table.stderr
    assert "Step 40" in table.stdout and "ArrayMetadata float32[4,3]" in table.stdout


def test_verify_restores_and_checks_every_leaf(ckpts: Path):
    result = run_tool("verify", ckpts, "latest", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["step"] == STEPS[-1]
    saved = jax.tree.leaves_with_path(state_at(STEPS[-1]))
    assert {row["leaf"] for row in report["leaves"]} == {jax.tree_util.keystr(path) for path, _ in saved}
    assert all(row["finite"] and row["ok"] for row in report["leaves"])


def test_verify_fails_with_exit_3_on_a_non_finite_leaf(tmp_path: Path, run_here: Run):
    root = write_checkpoints(tmp_path / "nan", steps=(1, 2), poison_last=True)
    result = run_here("verify", root, "2")
    assert "not finite" in result.stdout
    assert_one_line_error(result, 3, "1 of 4 leaves failed", "['params']['w']")


SAVE_SHARDED = """
import sys
import jax, jax.numpy as jnp, orbax.checkpoint as ocp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2, 2), ("data", "model"))
x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data", "model")))
with ocp.CheckpointManager(sys.argv[1]) as manager:
    manager.save(1, args=ocp.args.StandardSave({"x": x}))
"""


def test_verify_a_sharded_checkpoint_needs_its_device_count(tmp_path: Path):
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    subprocess.run([sys.executable, "-c", SAVE_SHARDED, str(tmp_path / "sharded")], env=env, check=True, timeout=300)
    assert_one_line_error(run_tool("verify", tmp_path / "sharded", "1"), 1, "Topology mismatch", "--devices N")
    result = run_tool("verify", tmp_path / "sharded", "1", "--devices", "4", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["leaves"][0]["shape"] == [8, 4]


def test_prune_is_a_dry_run_by_default(ckpts: Path, run_here: Run):
    before = folders(ckpts)
    result = run_here("prune", ckpts, "--keep", "2")
    assert result.returncode == 0, result.stderr
    assert "dry run: nothing deleted; run again with --yes to delete 2 steps" in result.stdout
    assert result.stdout.count("would delete") == 2
    assert folders(ckpts) == before


def test_prune_execute_keeps_the_newest_steps_and_leaves_incomplete_ones(ckpts: Path, pristine: Path):
    result = run_tool("prune", ckpts, "--keep", "1", "--execute", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {"root": str(ckpts.resolve()), "dry_run": False, "kept": [40], "deleted": [10, 20, 30],
                      "incomplete_untouched": [INCOMPLETE]}
    assert folders(ckpts) == {"40", INCOMPLETE_FOLDER, "metadata"}
    for kept in ("40", INCOMPLETE_FOLDER):  # byte for byte what Orbax wrote
        files = sorted(p.relative_to(pristine / kept) for p in (pristine / kept).rglob("*") if p.is_file())
        assert files and all((ckpts / kept / f).read_bytes() == (pristine / kept / f).read_bytes() for f in files)


def test_prune_refuses_a_step_that_is_a_symlink_out_of_the_root(ckpts: Path, tmp_path: Path, run_here: Run):
    outside = write_checkpoints(tmp_path / "elsewhere", steps=(5,)) / "5"
    (ckpts / "5").symlink_to(outside, target_is_directory=True)
    before = folders(ckpts)
    result = run_here("prune", ckpts, "--keep", "1", "--yes")
    assert_one_line_error(result, 1, "refusing to prune", "symbolic link", "OUTSIDE", "nothing was deleted")
    assert folders(ckpts) == before and outside.is_dir() and any(outside.iterdir())


def _corrupt_tree_metadata(root: Path, step: str) -> None:
    (root / step / "default" / "_METADATA").write_text("not json", encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "code", "fragments"),
    [
        (["list", "{root}/missing"], 2, ["does not exist", "ocp.CheckpointManager"]),
        (["list", "{root}/40/_CHECKPOINT_METADATA"], 2, ["is a file, not a checkpoint directory"]),
        (["list", "{root}/metadata"], 1, ["is not an Orbax checkpoint directory"]),
        (["inspect", "{root}/40", "latest"], 1, ["is not an Orbax checkpoint directory", "pass its parent"]),
        (["inspect", "{root}", "7"], 2, ["no step 7", "complete steps are [10, 20, 30, 40]"]),
        (["verify", "{root}", "50"], 1, ["step 50", "is incomplete"]),
        (["verify", "{root}", "newest"], 2, ["STEP: must be a step number or `latest`"]),
        (["prune", "{root}"], 2, ["--keep"]),
        (["prune", "{root}", "--keep", "0", "--yes"], 2, ["never removes the newest", "step 40"]),
        (["inspect", "{root}", "20"], 1, ["cannot read the metadata of", "/20", "corrupt"]),
    ],
)
def test_bad_input_gives_one_error_line_and_no_traceback(
    ckpts: Path, run_here: Run, args: list[str], code: int, fragments: list[str]
):
    _corrupt_tree_metadata(ckpts, "20")
    before = folders(ckpts)
    assert_one_line_error(run_here(*(a.format(root=ckpts) for a in args)), code, *fragments)
    assert folders(ckpts) == before


def test_unreadable_array_data_is_one_error_line_in_a_real_process(ckpts: Path):
    # The largest OCDBT data file of the step holds the `embed` chunk; cutting it in half breaks the
    # restore while the tree metadata (in other files) still reads. The other leaves' reads then fail
    # in background threads, which only a real process exit shows.
    data = max((ckpts / "30" / "default").glob("ocdbt.process_*/d/*"), key=lambda p: p.stat().st_size)
    with open(data, "r+b") as handle:
        handle.truncate(data.stat().st_size // 2)
    assert_one_line_error(run_tool("verify", ckpts, "30"), 1, "cannot restore", "/30", "corrupt")
