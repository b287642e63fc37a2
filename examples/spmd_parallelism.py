# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Data-parallel, FSDP and tensor-parallel training steps of one tiny MLP on 8 CPU devices.

The unsharded step `sgd_step` is the reference. Each parallel version must return the same loss and
the same updated parameters (within --atol), and its compiled HLO must contain the collective that the
parallelism is built on:

- data parallel (mesh ('data': 8), jit + explicit sharding): the batch is split, parameters are
  replicated; the gradients are summed with an all-reduce whose operands are parameter-shaped.
- data parallel with `jax.shard_map` (mesh ('data': 8)): the same split, written per device. The
  gradient is taken of the global (pmean'd) loss: inside shard_map the gradient of a replicated input
  is already summed over devices, so the pmap habit (grad inside, then pmean) would be 8x too large.
- FSDP (mesh ('data': 8), `jax.shard_map`): the batch and every parameter are split; each parameter is
  all-gathered before use, and autodiff turns that all-gather into a reduce-scatter of its gradient:
  one all-gather and one reduce-scatter per parameter.
- tensor parallel (mesh ('model': 8), jit + explicit sharding, Megatron layout): W1 is split by columns
  and W2 by rows; the partial products of the second layer are summed with an all-reduce whose operand
  is activation-shaped (batch x outputs).

Run it from any directory (the paths below are relative to the folder that holds `examples/`)
(about 9 s wall, 2.5 s of CPU time, on 2 shared cores):

    python examples/spmd_parallelism.py
    python examples/spmd_parallelism.py --batch 128 --hidden 64

`multihost.py` runs the data-parallel step across two processes and imports the model from here.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

Params = dict[str, jax.Array]
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute")
NUM_DEVICES = 8


def make_problem(
    seed: int, batch: int, d_in: int, hidden: int, d_out: int
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Parameters and one regression batch as NumPy arrays, identical in every process for a seed."""
    rng = np.random.default_rng(seed)
    params = {
        "w1": rng.normal(size=(d_in, hidden)).astype(np.float32) / np.sqrt(d_in),
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.normal(size=(hidden, d_out)).astype(np.float32) / np.sqrt(hidden),
        "b2": np.zeros(d_out, np.float32),
    }
    x = rng.normal(size=(batch, d_in)).astype(np.float32)
    y = rng.normal(size=(batch, d_out)).astype(np.float32)
    return params, x, y


def mlp(params: Params, x: jax.Array) -> jax.Array:
    return jnp.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]


def loss_fn(params: Params, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((mlp(params, x) - y) ** 2)


def sgd(params: Params, grads: Params, lr: float) -> Params:
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def sgd_step(params: Params, x: jax.Array, y: jax.Array, lr: float = 0.1) -> tuple[jax.Array, Params]:
    """One SGD step of the MLP: (loss before the step, updated parameters). The unsharded reference."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return loss, sgd(params, grads, lr)


def tensor_parallel_loss(params: Params, x: jax.Array, y: jax.Array) -> jax.Array:
    """The MLP loss with W1 split by columns and W2 by rows over 'model'.

    The hidden activations stay split over 'model'; the second matmul contracts over the split
    dimension, so explicit sharding asks where the sum should live: `out_sharding=P()` replicates it,
    which is one all-reduce.
    """
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    out = jnp.einsum("bh,ho->bo", hidden, params["w2"], out_sharding=P()) + params["b2"]
    return jnp.mean((out - y) ** 2)


def tensor_parallel_step(params: Params, x: jax.Array, y: jax.Array, lr: float = 0.1) -> tuple[jax.Array, Params]:
    loss, grads = jax.value_and_grad(tensor_parallel_loss)(params, x, y)
    return loss, sgd(params, grads, lr)


def data_parallel_step_per_device(
    params: Params, x: jax.Array, y: jax.Array, lr: float = 0.1
) -> tuple[jax.Array, Params]:
    """The body of the shard_map data-parallel step: parameters replicated, this device's rows of the batch.

    `jax.grad` differentiates the global loss (the pmean of the per-device losses), which autodiff
    turns into one all-reduce of the gradients.
    """

    def global_loss(p: Params) -> jax.Array:
        return jax.lax.pmean(loss_fn(p, x, y), "data")

    loss, grads = jax.value_and_grad(global_loss)(params)
    return loss, sgd(params, grads, lr)


def fsdp_step_per_device(
    params: Params, x: jax.Array, y: jax.Array, lr: float = 0.1
) -> tuple[jax.Array, Params]:
    """The body of the FSDP step, run by `jax.shard_map` on each device's shard of params and batch."""

    def local_loss(shards: Params) -> jax.Array:
        full = jax.tree.map(lambda s: jax.lax.all_gather(s, "data", axis=0, tiled=True), shards)
        squared_error = jnp.sum((mlp(full, x) - y) ** 2)
        global_count = x.shape[0] * jax.lax.axis_size("data") * y.shape[1]
        return jax.lax.psum(squared_error, "data") / global_count

    loss, grads = jax.value_and_grad(local_loss)(params)
    return loss, sgd(params, grads, lr)


@dataclass(frozen=True)
class Layout:
    """How one parallelism places parameters and batch, and which collective it must produce."""

    name: str
    mesh_axis: str
    param_specs: dict[str, P]
    batch_spec: P
    step: Callable[..., tuple[jax.Array, Params]]
    required: tuple[str, ...]


def layouts() -> list[Layout]:
    fsdp_specs = {"w1": P("data", None), "b1": P("data"), "w2": P("data", None), "b2": P("data")}
    fsdp = jax.shard_map(
        fsdp_step_per_device,
        in_specs=(fsdp_specs, P("data"), P("data")),
        out_specs=(P(), fsdp_specs),
    )
    replicated = {name: P() for name in ("w1", "b1", "w2", "b2")}
    data_parallel_map = jax.shard_map(
        data_parallel_step_per_device,
        in_specs=(replicated, P("data"), P("data")),
        out_specs=(P(), replicated),
    )
    megatron = {"w1": P(None, "model"), "b1": P("model"), "w2": P("model", None), "b2": P()}
    return [
        Layout("data parallel", "data", replicated, P("data"), sgd_step, ("all-reduce",)),
        Layout("data parallel (shard_map)", "data", replicated, P("data"), data_parallel_map, ("all-reduce",)),
        Layout("FSDP", "data", fsdp_specs, P("data"), fsdp, ("all-gather", "reduce-scatter")),
        Layout("tensor parallel", "model", megatron, P(), tensor_parallel_step, ("all-reduce",)),
    ]


Shape = tuple[int, ...]


def collectives_in(hlo_text: str) -> dict[str, list[list[Shape]]]:
    """Each collective instruction in optimized HLO text, as the list of its result shapes.

    Shapes are returned with sorted dimensions, because XLA may transpose a buffer's layout (a
    [16,32] gradient can be all-reduced as [32,16]).
    """
    found: dict[str, list[list[Shape]]] = {name: [] for name in COLLECTIVES}
    pattern = r"=\s*(\(.*?\)|\S+)\s+(" + "|".join(COLLECTIVES) + r")(?:-start)?\("
    for result_type, name in re.findall(pattern, hlo_text):
        dims = re.findall(r"[a-z]+\d*\[([\d,]*)\]", result_type)
        found[name].append([sorted_shape(tuple(int(d) for d in shape.split(",") if d)) for shape in dims])
    return found


def sorted_shape(shape: tuple[int, ...]) -> Shape:
    return tuple(sorted(shape))


def operand_shapes(instructions: list[list[Shape]]) -> list[Shape]:
    return [shape for instruction in instructions for shape in instruction]


def max_abs_diff(a: Any, b: Any) -> float:
    """Largest absolute elementwise difference between two pytrees of arrays."""
    diffs = jax.tree.map(lambda u, v: float(np.max(np.abs(np.asarray(u) - np.asarray(v)))), a, b)
    return max(jax.tree.leaves(diffs))


@dataclass(frozen=True)
class Outcome:
    layout: Layout
    loss: float
    param_diff: float
    loss_diff: float
    collectives: dict[str, list[list[Shape]]]


def run_layout(layout: Layout, params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray,
               reference: tuple[jax.Array, Params]) -> Outcome:
    """Place the inputs as `layout` says, run its step once, compare with the reference."""
    mesh = jax.make_mesh((NUM_DEVICES,), (layout.mesh_axis,))
    with jax.set_mesh(mesh):
        sharded_params = {k: jax.device_put(v, layout.param_specs[k]) for k, v in params.items()}
        xs, ys = jax.device_put(x, layout.batch_spec), jax.device_put(y, layout.batch_spec)
        step = jax.jit(layout.step)
        loss, new_params = step(sharded_params, xs, ys)
        hlo = step.lower(sharded_params, xs, ys).compile().as_text()
        for name, spec in layout.param_specs.items():
            expected = NamedSharding(mesh, spec)
            assert new_params[name].sharding.is_equivalent_to(expected, new_params[name].ndim), (
                f"{layout.name}: {name} came back as {new_params[name].sharding.spec}, not {spec}")
    ref_loss, ref_params = reference
    return Outcome(layout, float(loss), max_abs_diff(new_params, ref_params),
                   abs(float(loss) - float(ref_loss)), collectives_in(hlo))


def check(outcome: Outcome, params: dict[str, np.ndarray], x: np.ndarray, d_out: int, atol: float) -> None:
    """Assert equality with the reference and the collectives the parallelism is made of."""
    name, found = outcome.layout.name, outcome.collectives
    assert outcome.loss_diff <= atol and outcome.param_diff <= atol, (
        f"{name}: differs from the unsharded step by {max(outcome.loss_diff, outcome.param_diff):.3g} > {atol}")
    for required in outcome.layout.required:
        assert found[required], f"{name}: no {required} in the compiled HLO"
    if name.startswith("data parallel"):
        reduced = operand_shapes(found["all-reduce"])
        missing = [k for k, v in params.items() if sorted_shape(v.shape) not in reduced]
        assert not missing, f"gradients of {missing} are not all-reduced"
        assert not found["all-gather"], "data parallelism should not gather parameters"
    elif name == "FSDP":
        per_parameter = {c: len(found[c]) for c in ("all-gather", "reduce-scatter")}
        assert per_parameter == {"all-gather": len(params), "reduce-scatter": len(params)}, (
            f"expected one all-gather and one reduce-scatter per parameter ({len(params)}), got {per_parameter}")
        w1 = params["w1"].shape
        assert sorted_shape(w1) in operand_shapes(found["all-gather"]), "W1 is not all-gathered before use"
        shard = sorted_shape((w1[0] // NUM_DEVICES, w1[1]))
        assert shard in operand_shapes(found["reduce-scatter"]), "the W1 gradient is not reduce-scattered"
    else:
        activation = [[sorted_shape((x.shape[0], d_out))]]
        assert found["all-reduce"] == activation, (
            f"expected one all-reduce of the [{x.shape[0]},{d_out}] activations, found {found['all-reduce']}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64, help="global batch size (multiple of 8)")
    parser.add_argument("--d-in", type=int, default=16, help="input features (multiple of 8)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (multiple of 8)")
    parser.add_argument("--d-out", type=int, default=8, help="outputs (multiple of 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--atol", type=float, default=1e-5, help="allowed difference from the unsharded step")
    args = parser.parse_args()
    for flag in ("batch", "d_in", "hidden", "d_out"):
        if getattr(args, flag) % NUM_DEVICES:
            parser.error(f"--{flag.replace('_', '-')} must be a multiple of {NUM_DEVICES}, "
                         f"got {getattr(args, flag)}")
    return args


def main() -> None:
    args = parse_args()
    if jax.device_count() < NUM_DEVICES:
        sys.exit(f"error: needs {NUM_DEVICES} devices, found {jax.device_count()}; "
                 "set XLA_FLAGS=--xla_force_host_platform_device_count=8 before starting Python")
    params, x, y = make_problem(args.seed, args.batch, args.d_in, args.hidden, args.d_out)
    reference = jax.jit(sgd_step)(params, x, y)
    rows = []
    for layout in layouts():
        outcome = run_layout(layout, params, x, y, reference)
        check(outcome, params, x, args.d_out, args.atol)
        counts = [len(outcome.collectives[c]) for c in COLLECTIVES]
        rows.append([layout.name, f"('{layout.mesh_axis}': {NUM_DEVICES})", outcome.loss,
                     max(outcome.loss_diff, outcome.param_diff), *counts])
    from _report import print_results

    print_results(
        f"One SGD step of a {args.d_in}-{args.hidden}-{args.d_out} MLP, batch {args.batch}: "
        f"unsharded loss {float(reference[0]):.6f}",
        ["parallelism", "mesh", "loss", "max |diff|", *COLLECTIVES],
        rows,
    )


if __name__ == "__main__":
    main()
