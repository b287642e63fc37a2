# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "flax==0.12.12", "optax==0.2.8"]
# ///
"""Train a small MLP with Flax NNX and Optax on synthetic regression data, three ways.

The data come from a fixed random "teacher" network, generated from `--seed`. The student is an NNX
MLP trained with `nnx.Optimizer(model, tx, wrt=nnx.Param)` and `optimizer.update(model, grads)`; the
Optax transformation clips the global gradient norm and runs AdamW with a warmup-cosine schedule and a
weight-decay mask that skips biases.

The same training run (same initial weights, same batches) is compiled three ways:

- `nnx.jit` on a step that takes the model and optimizer objects;
- `nnx.cached_partial` of that step, which caches the walk over the module graph;
- `jax.jit` on a pure function of the `nnx.split` state that merges, steps and returns the new state.

The script asserts that the three runs end with the same parameters, that each step function is traced
exactly once, and that the evaluation loss falls by at least `--min-factor`; it then prints the losses,
the per-step time of each form after compilation, and that time as a ratio to the `jax.jit` form (the
ratio is the figure to quote: absolute times move with the load on the machine).

    python examples/flax_nnx_training.py                 # defaults: --steps 400 --batch-size 64
    python examples/flax_nnx_training.py --steps 50 --min-factor 2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import print_results, requirements_of  # noqa: E402 - needs the path above when imported from elsewhere

with requirements_of(__file__):  # a missing package ends the run with one line: what to pip install
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

FEATURES, HIDDEN, SAMPLES = 8, 64, 2048
PARAM_ATOL = 1e-5


class MLP(nnx.Module):
    """features -> hidden -> hidden -> 1, with GELU activations."""

    def __init__(self, features: int, hidden: int, *, rngs: nnx.Rngs):
        self.layer1 = nnx.Linear(features, hidden, rngs=rngs)
        self.layer2 = nnx.Linear(hidden, hidden, rngs=rngs)
        self.out = nnx.Linear(hidden, 1, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = nnx.gelu(self.layer1(x))
        h = nnx.gelu(self.layer2(h))
        return self.out(h)[:, 0]


@dataclass(frozen=True)
class Data:
    """A regression data set and the batches of one training run, all on device."""

    x: jax.Array  # (samples, features): the evaluation set
    y: jax.Array  # (samples,)
    batch_x: jax.Array  # (steps, batch, features)
    batch_y: jax.Array  # (steps, batch)


def make_data(seed: int, steps: int, batch_size: int) -> Data:
    """Targets from a random tanh teacher network, plus `steps` batches sampled with replacement."""
    k_x, k_w1, k_w2, k_batches = jax.random.split(jax.random.key(seed), 4)
    x = jax.random.normal(k_x, (SAMPLES, FEATURES))
    w1 = jax.random.normal(k_w1, (FEATURES, 16)) / FEATURES**0.5
    w2 = jax.random.normal(k_w2, (16,)) / 16**0.5
    y = jnp.tanh(x @ w1) @ w2
    index = jax.random.randint(k_batches, (steps, batch_size), 0, SAMPLES)
    return Data(x=x, y=y, batch_x=x[index], batch_y=y[index])


def decay_mask(params: nnx.State) -> nnx.State:
    """Weight decay on kernels (ndim 2) only, not on biases."""
    return jax.tree.map(lambda p: p.ndim > 1, params)


def make_optimizer(model: MLP, learning_rate: float, steps: int) -> nnx.Optimizer:
    """Clip to global norm 1, then AdamW with a 10% warmup and cosine decay to 1% of the peak."""
    schedule = optax.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=learning_rate,
        warmup_steps=max(1, steps // 10),
        decay_steps=steps,
        end_value=learning_rate / 100,
    )
    tx = optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adamw(schedule, weight_decay=1e-4, mask=decay_mask),
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)


def mse(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    """Mean squared error of `model` on (x, y)."""
    return jnp.mean((model(x) - y) ** 2)


eval_loss = nnx.jit(mse)


@dataclass
class Run:
    """One way of compiling the training step: `step(i)` trains on batch `i` and returns its loss.

    The step functions take the whole stack of batches and the index, and slice inside the compiled
    code, so that the per-step time measures the call overhead of each form, not eager slicing.
    """

    name: str
    model: MLP
    step: Callable[[int], jax.Array]
    finish: Callable[[], None]
    traces: list[int]


def nnx_jit_run(model: MLP, optimizer: nnx.Optimizer, data: Data, cached: bool) -> Run:
    """Step with `nnx.jit`, passing the objects each call (or bound once with `nnx.cached_partial`)."""
    traces: list[int] = []

    @nnx.jit
    def train_step(model: MLP, optimizer: nnx.Optimizer, xs: jax.Array, ys: jax.Array, i: int) -> jax.Array:
        traces.append(1)  # runs only while tracing
        loss, grads = nnx.value_and_grad(mse)(model, xs[i], ys[i])
        optimizer.update(model, grads)
        return loss

    bound = nnx.cached_partial(train_step, model, optimizer) if cached else None

    def step(i: int) -> jax.Array:
        if bound is not None:
            return bound(data.batch_x, data.batch_y, i)
        return train_step(model, optimizer, data.batch_x, data.batch_y, i)

    name = "nnx.cached_partial" if cached else "nnx.jit"
    return Run(name, model, step, finish=lambda: None, traces=traces)


def split_merge_run(model: MLP, optimizer: nnx.Optimizer, data: Data) -> Run:
    """Step with `jax.jit` on the split state; write the state back into the objects at the end."""
    traces: list[int] = []
    graphdef, state = nnx.split((model, optimizer))

    @jax.jit
    def pure_step(state: nnx.State, xs: jax.Array, ys: jax.Array, i: int) -> tuple[jax.Array, nnx.State]:
        traces.append(1)  # runs only while tracing
        model, optimizer = nnx.merge(graphdef, state)
        loss, grads = nnx.value_and_grad(mse)(model, xs[i], ys[i])
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    holder = {"state": state}

    def step(i: int) -> jax.Array:
        loss, holder["state"] = pure_step(holder["state"], data.batch_x, data.batch_y, i)
        return loss

    def finish() -> None:
        nnx.update((model, optimizer), holder["state"])

    return Run("jax.jit + split/merge", model, step, finish, traces)


@dataclass(frozen=True)
class Result:
    """Measured outcome of one run."""

    name: str
    initial_loss: float
    final_loss: float
    first_step_s: float
    step_ms: float
    traces: int


def train(run: Run, data: Data, steps: int) -> Result:
    """Run `steps` steps; time the first (trace + compile + run) apart from the rest."""
    initial = float(eval_loss(run.model, data.x, data.y))
    start = time.perf_counter()
    run.step(0).block_until_ready()
    first = time.perf_counter() - start
    loss = None
    for i in range(1, steps):
        loss = run.step(i)
    if loss is not None:
        loss.block_until_ready()
    total = time.perf_counter() - start
    run.finish()
    final = float(eval_loss(run.model, data.x, data.y))
    per_step_ms = 1e3 * (total - first) / max(1, steps - 1)
    return Result(run.name, initial, final, first, per_step_ms, len(run.traces))


def fresh(seed: int, learning_rate: float, steps: int) -> tuple[MLP, nnx.Optimizer]:
    """A model and optimizer with the same initial weights for every run."""
    model = MLP(FEATURES, HIDDEN, rngs=nnx.Rngs(seed))
    return model, make_optimizer(model, learning_rate, steps)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line flags; a bad value exits with a one-line message naming the flag."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400, help="training steps per run (default 400)")
    parser.add_argument("--batch-size", type=int, default=64, help="examples per step (default 64)")
    parser.add_argument("--learning-rate", type=float, default=3e-3, help="peak AdamW learning rate (default 3e-3)")
    parser.add_argument("--seed", type=int, default=0, help="seed for data, batches and weights (default 0)")
    parser.add_argument(
        "--min-factor",
        type=float,
        default=30.0,
        help="assert final loss <= initial loss / this (default 30; seeds 0-3 measured 93x-145x)",
    )
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error(f"--steps must be at least 2, got {args.steps}")
    if not 1 <= args.batch_size <= SAMPLES:
        parser.error(f"--batch-size must be between 1 and {SAMPLES}, got {args.batch_size}")
    if args.learning_rate <= 0:
        parser.error(f"--learning-rate must be positive, got {args.learning_rate}")
    if args.min_factor < 1:
        parser.error(f"--min-factor must be at least 1, got {args.min_factor}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Train three times, check the claims, print the table."""
    args = parse_args(argv)
    data = make_data(args.seed, args.steps, args.batch_size)

    runs = [
        nnx_jit_run(*fresh(args.seed, args.learning_rate, args.steps), data, cached=False),
        nnx_jit_run(*fresh(args.seed, args.learning_rate, args.steps), data, cached=True),
        split_merge_run(*fresh(args.seed, args.learning_rate, args.steps), data),
    ]
    results = [train(run, data, args.steps) for run in runs]

    reference = nnx.state(runs[0].model, nnx.Param)
    for run, result in zip(runs, results):
        assert result.traces == 1, f"{run.name}: traced {result.traces} times, expected once"
        same = jax.tree.map(
            lambda a, b: bool(jnp.allclose(a, b, atol=PARAM_ATOL)), reference, nnx.state(run.model, nnx.Param)
        )
        assert all(jax.tree.leaves(same)), f"{run.name}: parameters differ from the nnx.jit run"
        factor = result.initial_loss / result.final_loss
        assert factor >= args.min_factor, (
            f"{run.name}: loss fell by {factor:.1f}x ({result.initial_loss:.4g} -> {result.final_loss:.4g}), "
            f"expected at least {args.min_factor}x"
        )

    baseline_ms = results[-1].step_ms  # the jax.jit + split/merge run
    print_results(
        f"NNX + Optax training: {args.steps} steps, batch {args.batch_size}, peak lr {args.learning_rate}, "
        f"initial loss {results[0].initial_loss:.4g}",
        ["step compiled with", "final loss", "loss factor", "traces", "first step (s)", "per step (ms)",
         "per step / jax.jit"],
        [
            [r.name, r.final_loss, r.initial_loss / r.final_loss, r.traces, r.first_step_s, r.step_ms,
             r.step_ms / baseline_ms]
            for r in results
        ],
    )

if __name__ == "__main__":
    main()
