# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Pure functional JAX: explicit state, pytrees, explicit random keys and a lax.scan training loop.

Trains a tiny linear regression with minibatch SGD twice: once with a Python loop that calls a
jitted step function, once with the whole loop inside `lax.scan` under one `jax.jit`. Both run the
same pure step function on the same explicit state (a registered dataclass holding a params dict, the
step counter and the random key, which is split at every step), so they must agree. The script
asserts that they agree within `--tolerance`, that the fit recovers the true weights (given enough
steps), and how many times each version was traced and how many times XLA compiled it. The two counts
differ: the scan traces `train_step` a second time, inside its own trace, but compiles only one
program.

Run: python examples/pure_functional_patterns.py [--steps 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax import lax

from _report import print_results

TRACES: Counter[str] = Counter()  # Python side effect: runs once per trace, so it counts traces
COMPILES: Counter[str] = Counter()  # XLA compilations by function name, from jax.monitoring
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

Params = dict[str, jax.Array]


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class TrainState:
    """Everything that changes during training. A pytree: `params`, `step` and `key` are leaves."""

    params: Params
    step: jax.Array
    key: jax.Array
    learning_rate: float = jax.tree.static(default=0.1)  # static: part of the compiled program


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Dataset:
    """Inputs and targets; `batch_size` is static because it decides a shape."""

    inputs: jax.Array
    targets: jax.Array
    batch_size: int = jax.tree.static(default=16)


def make_dataset(key: jax.Array, samples: int, features: int, batch_size: int) -> tuple[Dataset, Params]:
    """Synthetic data y = x @ w + b + noise, with the true parameters returned for checking."""
    w_key, b_key, x_key, noise_key = jax.random.split(key, 4)
    true_params = {"w": jax.random.normal(w_key, (features,)), "b": jax.random.normal(b_key, ())}
    inputs = jax.random.normal(x_key, (samples, features))
    noise = 0.01 * jax.random.normal(noise_key, (samples,))
    targets = predict(true_params, inputs) + noise
    return Dataset(inputs, targets, batch_size), true_params


def init_state(key: jax.Array, features: int, learning_rate: float) -> TrainState:
    """Zero-initialised parameters and a fresh key for the training loop."""
    params = {"w": jnp.zeros(features), "b": jnp.zeros(())}
    return TrainState(params, jnp.zeros((), jnp.int32), key, learning_rate)


def predict(params: Params, inputs: jax.Array) -> jax.Array:
    """The linear model: inputs @ w + b."""
    return inputs @ params["w"] + params["b"]


def mse(params: Params, inputs: jax.Array, targets: jax.Array) -> jax.Array:
    """Mean squared error of the linear model."""
    return jnp.mean((predict(params, inputs) - targets) ** 2)


def train_step(state: TrainState, data: Dataset) -> tuple[TrainState, jax.Array]:
    """One SGD step on a random minibatch. Pure: the new key and params are returned, not stored."""
    TRACES["train_step"] += 1
    key, batch_key = jax.random.split(state.key)  # split per step; `batch_key` is used once
    index = jax.random.choice(batch_key, data.inputs.shape[0], (data.batch_size,), replace=False)
    loss, grads = jax.value_and_grad(mse)(state.params, data.inputs[index], data.targets[index])
    params = jax.tree.map(lambda p, g: p - state.learning_rate * g, state.params, grads)
    return dataclasses.replace(state, params=params, step=state.step + 1, key=key), loss


jitted_step = jax.jit(train_step)


def train_python_loop(state: TrainState, data: Dataset, steps: int) -> tuple[TrainState, jax.Array]:
    """A Python loop calling the jitted step: one dispatch per step."""
    losses = []
    for _ in range(steps):
        state, loss = jitted_step(state, data)
        losses.append(loss)
    return state, jnp.stack(losses)


@jax.jit(static_argnames="steps")
def train_scan(state: TrainState, data: Dataset, steps: int) -> tuple[TrainState, jax.Array]:
    """The same loop as one compiled program: `lax.scan` carries the state and stacks the losses."""
    TRACES["train_scan"] += 1
    return lax.scan(lambda carry, _: train_step(carry, data), state, xs=None, length=steps)


def max_param_difference(a: Params, b: Params) -> float:
    """Largest absolute difference between matching leaves of two parameter dicts."""
    differences = jax.tree.map(lambda x, y: jnp.max(jnp.abs(x - y)), a, b)
    return float(max(jax.tree.leaves(differences)))


def count_compile(event: str, duration_secs: float, **kwargs: object) -> None:
    """A jax.monitoring listener: counts the XLA compilations of the two training programs."""
    name = str(kwargs.get("fun_name"))
    if event == COMPILE_EVENT and name in ("jit(train_step)", "jit(train_scan)"):
        COMPILES[name] += 1


def timed(
    fn: Callable[..., tuple[TrainState, jax.Array]], *args, **kwargs
) -> tuple[tuple[TrainState, jax.Array], float, int, int]:
    """Runs fn and waits for the result; returns (result, seconds, new traces, new compilations)."""
    traces_before, compiles_before = TRACES.total(), COMPILES.total()
    start = time.perf_counter()
    result = jax.block_until_ready(fn(*args, **kwargs))
    seconds = time.perf_counter() - start
    return result, seconds, TRACES.total() - traces_before, COMPILES.total() - compiles_before


def parse_args() -> argparse.Namespace:
    """Command-line flags; a bad value exits with a one-line message naming the flag."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="SGD steps (default: 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed for jax.random.key (default: 0)")
    parser.add_argument("--samples", type=int, default=128, help="dataset size (default: 128)")
    parser.add_argument("--features", type=int, default=3, help="input features (default: 3)")
    parser.add_argument("--batch-size", type=int, default=16, help="minibatch size (default: 16)")
    parser.add_argument("--learning-rate", type=float, default=0.1, help="SGD step size (default: 0.1)")
    parser.add_argument(
        "--tolerance", type=float, default=1e-5, help="max |scan - loop| for params (default: 1e-5)"
    )
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    if args.features < 1:
        parser.error(f"--features must be at least 1, got {args.features}")
    if not 1 <= args.batch_size <= args.samples:
        parser.error(f"--batch-size must be between 1 and --samples ({args.samples}), got {args.batch_size}")
    if not 0.0 < args.learning_rate < 1.0:
        parser.error(f"--learning-rate must be in (0, 1) for this problem, got {args.learning_rate}")
    return args


def main() -> None:
    args = parse_args()
    data_key, train_key = jax.random.split(jax.random.key(args.seed))
    data, true_params = make_dataset(data_key, args.samples, args.features, args.batch_size)
    state = init_state(train_key, args.features, args.learning_rate)
    jax.monitoring.register_event_duration_secs_listener(count_compile)

    (loop_state, loop_losses), loop_seconds, loop_traces, loop_compiles = timed(
        train_python_loop, state, data, args.steps
    )
    (scan_state, scan_losses), scan_seconds, scan_traces, scan_compiles = timed(
        train_scan, state, data, steps=args.steps
    )
    # A second scan run with new data of the same shapes reuses the compiled program.
    other_data, _ = make_dataset(jax.random.key(args.seed + 1), args.samples, args.features, args.batch_size)
    (_, rerun_losses), rerun_seconds, rerun_traces, rerun_compiles = timed(
        train_scan, state, other_data, steps=args.steps
    )

    difference = max_param_difference(loop_state.params, scan_state.params)
    assert difference <= args.tolerance, f"scan and Python loop differ by {difference:.3g}"
    assert int(loop_state.step) == int(scan_state.step) == args.steps
    assert jnp.array_equal(jax.random.key_data(loop_state.key), jax.random.key_data(scan_state.key))
    assert scan_losses.shape == (args.steps,)
    initial_loss = mse(state.params, data.inputs, data.targets)
    assert mse(scan_state.params, data.inputs, data.targets) < initial_loss, "training did not reduce the loss"
    loop_fit = max_param_difference(loop_state.params, true_params)
    scan_fit = max_param_difference(scan_state.params, true_params)
    if args.steps * args.learning_rate >= 30:  # enough total step length to converge (the defaults give 30)
        assert scan_fit < 0.05, f"did not recover the true parameters: max error {scan_fit:.3g}"
    # The loop traces train_step once (for jitted_step); the scan traces train_scan and, inside it,
    # train_step once; the rerun with new data traces nothing.
    assert (loop_traces, scan_traces, rerun_traces) == (1, 2, 0), (loop_traces, scan_traces, rerun_traces)
    assert TRACES == {"train_step": 2, "train_scan": 1}, dict(TRACES)
    # Compilations: one program per jitted entry point. The scan's second trace of train_step is
    # part of the train_scan program, not a compilation of its own.
    assert (loop_compiles, scan_compiles, rerun_compiles) == (1, 1, 0), (loop_compiles, scan_compiles, rerun_compiles)
    assert COMPILES == {"jit(train_step)": 1, "jit(train_scan)": 1}, dict(COMPILES)

    print_results(
        f"Linear regression, {args.steps} SGD steps, batch {args.batch_size} of {args.samples}",
        ["loop", "new traces", "new compiles", "final minibatch loss", "max |params - true|", "wall time incl. compiles (s)"],
        [
            ["Python loop + jit(step)", loop_traces, loop_compiles, float(loop_losses[-1]), loop_fit, loop_seconds],
            ["jit(lax.scan), first call", scan_traces, scan_compiles, float(scan_losses[-1]), scan_fit, scan_seconds],
            ["jit(lax.scan), new data", rerun_traces, rerun_compiles, float(rerun_losses[-1]), "-", rerun_seconds],
        ],
    )
    print(f"max |scan params - loop params| = {difference:.3g} (tolerance {args.tolerance:g})")


if __name__ == "__main__":
    main()
