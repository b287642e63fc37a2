# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "flax==0.12.12", "optax==0.2.8", "orbax-checkpoint==0.12.8"]
# ///
"""Train a tiny Flax NNX model with asynchronous Orbax checkpoints, and resume from the newest one.

What it shows:
- an `ocp.CheckpointManager` that saves the model state, the optimizer state and JSON metadata as one
  `Composite` every `--save-every` steps, in the background, keeping the newest three;
- resuming: a run pointed at a directory that holds checkpoints restores the newest one into abstract
  targets from `nnx.eval_shape` and carries on, ending with the same parameters, bit for bit, as a run
  that was never interrupted (the batch of step s is a pure function of `--seed` and s);
- crash safety: `--crash-at-step K` stalls the background save of step K after its files are written and
  before Orbax commits it (renames `K.orbax-checkpoint-tmp` to `K`), prints `STALLED step K`, and waits
  to be killed. The bundle's tests send SIGKILL at that point and restart the example.

Run it from any directory (the paths below are relative to the folder that holds `examples/`):

    python examples/orbax_checkpointing.py
    python examples/orbax_checkpointing.py --ckpt-dir /tmp/run --steps 40 --save-every 10
    python examples/orbax_checkpointing.py --ckpt-dir /tmp/run --crash-at-step 20   # then kill it
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

from _report import print_results, requirements_of

with requirements_of(__file__):  # a missing package ends the run with one line: what to pip install
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    import orbax.checkpoint as ocp
    from flax import nnx

TMP_SUFFIX = ".orbax-checkpoint-tmp"  # how Orbax 0.12.8 names a step whose save is not committed
STALL_SECONDS = 300  # --crash-at-step: how long the stalled save waits to be killed
TRUE_W = jnp.array([[1.0], [-2.0], [0.5], [3.0]])
BATCH = 64


class MLP(nnx.Module):
    """Linear -> relu -> Linear."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(nnx.relu(self.hidden(x)))


def build(seed: int) -> tuple[MLP, nnx.Optimizer]:
    """A fresh model and its Adam optimizer, a pure function of the seed."""
    model = MLP(4, 32, 1, rngs=nnx.Rngs(seed))
    return model, nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)


@jax.jit
def batch_for_step(seed: int, step: int) -> tuple[jax.Array, jax.Array]:
    """The training batch of `step`: the same on every run, interrupted or not."""
    key = jax.random.fold_in(jax.random.key(seed), step)
    kx, knoise = jax.random.split(key)
    x = jax.random.normal(kx, (BATCH, 4))
    return x, x @ TRUE_W + 0.1 * jax.random.normal(knoise, (BATCH, 1))


def mse(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    """Mean squared error of the model on (x, y)."""
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One Adam step; returns the loss before the step."""
    loss, grads = nnx.value_and_grad(mse)(model, x, y)
    optimizer.update(model, grads)
    return loss


def params_digest(model: MLP) -> str:
    """SHA-256 of every parameter's bytes, in tree order: equal digests mean bitwise-equal parameters."""
    digest = hashlib.sha256()
    for leaf in jax.tree.leaves(nnx.state(model, nnx.Param)):
        digest.update(np.asarray(leaf).tobytes())
    return digest.hexdigest()


def make_manager(directory: Path, save_every: int, steps: int, crash_at_step: int | None) -> ocp.CheckpointManager:
    """Async manager: every `save_every` steps and at the last step, newest three kept."""
    async_options = None
    if crash_at_step is not None:
        async_options = ocp.AsyncOptions(post_finalization_callback=stall_commit_of(directory, crash_at_step))
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=save_every,
        save_on_steps=[steps],
        preservation_policy=ocp.checkpoint_managers.LatestN(3),  # replaces the deprecated max_to_keep=3
        enable_async_checkpointing=True,
        cleanup_tmp_directories=True,
        async_options=async_options,
    )
    return ocp.CheckpointManager(directory, options=options)


def stall_commit_of(directory: Path, step: int):
    """A post-finalization callback that stalls the commit of `step` (Orbax runs it before the rename)."""

    def callback() -> None:
        pending = directory / f"{step}{TMP_SUFFIX}"
        if pending.exists():
            print(f"STALLED step {step}: files written to {pending.name}, commit held", flush=True)
            time.sleep(STALL_SECONDS)
            print(f"error: nobody killed the process within {STALL_SECONDS} s", file=sys.stderr, flush=True)

    return callback


def save_args(model: MLP, optimizer: nnx.Optimizer, step: int, seed: int, loss: float) -> ocp.args.Composite:
    """One checkpoint: model state, optimizer state and a JSON record of the step."""
    return ocp.args.Composite(
        model=ocp.args.StandardSave(nnx.state(model)),
        optimizer=ocp.args.StandardSave(nnx.state(optimizer)),
        meta=ocp.args.JsonSave({"step": step, "seed": seed, "loss": loss}),
    )


def restore_into(mngr: ocp.CheckpointManager, step: int, seed: int, model: MLP, optimizer: nnx.Optimizer) -> dict:
    """Load checkpoint `step` into the live model and optimizer; return its JSON metadata."""
    abstract_model, abstract_optimizer = nnx.eval_shape(lambda: build(seed))
    restored = mngr.restore(
        step,
        args=ocp.args.Composite(
            model=ocp.args.StandardRestore(nnx.state(abstract_model)),
            optimizer=ocp.args.StandardRestore(nnx.state(abstract_optimizer)),
            meta=ocp.args.JsonRestore(),
        ),
    )
    if restored.meta["seed"] != seed:
        raise SystemExit(
            f"error: the checkpoints in {mngr.directory} were written with --seed {restored.meta['seed']}, "
            f"not {seed}; pass --seed {restored.meta['seed']} or a fresh --ckpt-dir"
        )
    nnx.update(model, restored.model)
    nnx.update(optimizer, restored.optimizer)
    return restored.meta


def train(args: argparse.Namespace, directory: Path) -> dict:
    """Resume from the newest checkpoint in `directory` (if any), train to `args.steps`, and report."""
    wall_start = time.perf_counter()
    mngr = make_manager(directory, args.save_every, args.steps, args.crash_at_step)
    model, optimizer = build(args.seed)
    initial_digest = params_digest(model)
    eval_x, eval_y = batch_for_step(args.seed + 1, 0)  # a held-out batch from another seed
    initial_eval = float(mse(model, eval_x, eval_y))

    start = mngr.latest_step() or 0
    if start:
        meta = restore_into(mngr, start, args.seed, model, optimizer)
        assert meta["step"] == start == int(optimizer.step[...])
        print(f"resumed from step {start}", flush=True)
    else:
        print("no checkpoint found: starting from step 0", flush=True)

    save_seconds, saved = [], []
    for step in range(start + 1, args.steps + 1):
        loss = train_step(model, optimizer, *batch_for_step(args.seed, step))
        if mngr.should_save(step):
            print(f"saving step {step}", flush=True)
            began = time.perf_counter()
            mngr.save(step, args=save_args(model, optimizer, step, args.seed, float(loss)))
            save_seconds.append(time.perf_counter() - began)
            saved.append(step)
    mngr.wait_until_finished()

    final_eval = float(mse(model, eval_x, eval_y))
    assert final_eval < 0.5 * initial_eval, (initial_eval, final_eval)
    if mngr.latest_step() == args.steps and start < args.steps:
        check_last_checkpoint(mngr, args.steps, args.seed, model)
    return {
        "start_step": start,
        "final_step": max(start, args.steps),
        "saved_steps": saved,
        "steps_on_disk": mngr.all_steps(),
        "initial_eval_mse": initial_eval,
        "final_eval_mse": final_eval,
        "mean_save_call_ms": 1e3 * float(np.mean(save_seconds)) if save_seconds else float("nan"),
        "wall_seconds": time.perf_counter() - wall_start,
        "initial_params_sha256": initial_digest,
        "params_sha256": params_digest(model),
    }


def check_last_checkpoint(mngr: ocp.CheckpointManager, step: int, seed: int, model: MLP) -> None:
    """The newest checkpoint holds exactly the parameters now in memory."""
    fresh_model, fresh_optimizer = build(seed + 1000)
    restore_into(mngr, step, seed, fresh_model, fresh_optimizer)
    assert params_digest(fresh_model) == params_digest(model)


def parse_args() -> argparse.Namespace:
    """Command-line flags, with one-line errors for values that cannot work."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ckpt-dir", type=Path, default=None, help="checkpoint directory (default: a fresh temp dir)")
    parser.add_argument("--steps", type=int, default=40, help="train up to this step (default 40)")
    parser.add_argument("--save-every", type=int, default=10, help="checkpoint interval in steps (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the initial weights and the data (default 0)")
    parser.add_argument(
        "--crash-at-step", type=int, default=None,
        help="stall the save of this step before its commit and wait to be killed (for the crash test)",
    )
    parser.add_argument(
        "--print-params-digest", action="store_true",
        help="print one JSON line with the start and final step, the steps on disk, and the SHA-256 of the "
        "initial and the final parameters",
    )
    args = parser.parse_args()
    if args.steps < 1 or args.save_every < 1:
        parser.error("--steps and --save-every must be at least 1")
    if args.crash_at_step is not None and not (
        0 < args.crash_at_step <= args.steps and args.crash_at_step % args.save_every == 0
    ):
        parser.error("--crash-at-step must be a multiple of --save-every between 1 and --steps")
    return args


def main() -> None:
    """Train (resuming if possible) and print the results table."""
    args = parse_args()
    if args.ckpt_dir is not None and args.ckpt_dir.exists() and not args.ckpt_dir.is_dir():
        raise SystemExit(f"error: --ckpt-dir {args.ckpt_dir} exists and is not a directory")
    scratch = tempfile.TemporaryDirectory(prefix="orbax-example-") if args.ckpt_dir is None else nullcontext()
    with scratch as scratch_dir:
        directory = Path(args.ckpt_dir or scratch_dir).resolve()  # Orbax needs an absolute path
        result = train(args, directory)

    print_results(
        "Orbax: asynchronous checkpoints with resume",
        ["quantity", "value"],
        [
            ["started from step", result["start_step"]],
            ["final step", result["final_step"]],
            ["steps saved by this run", result["saved_steps"]],
            ["steps on disk at exit", result["steps_on_disk"]],
            ["held-out MSE at init -> final", f"{result['initial_eval_mse']:.4g} -> {result['final_eval_mse']:.4g}"],
            ["mean time blocked in save() (ms)", result["mean_save_call_ms"]],
            ["wall time of the run (s)", result["wall_seconds"]],
            ["parameters SHA-256 (first 16 hex)", result["params_sha256"][:16]],
        ],
    )
    if args.print_params_digest:
        keys = ("start_step", "final_step", "steps_on_disk", "initial_params_sha256", "params_sha256")
        print(json.dumps({key: result[key] for key in keys}), flush=True)


if __name__ == "__main__":
    main()
