"""Sharded initialisation of an annotation-free Flax NNX MLP from path -> PartitionSpec rules.

The model class carries no sharding metadata. The layout comes from a config dict such as::

    rules = {
        ("hidden", "kernel"): P(None, "model"),
        ("hidden", "bias"):   P("model"),
        ("out", "kernel"):    P("model", None),
        ("out", "bias"):      P(),
    }

``create_sharded_mlp`` constructs the model *inside* one ``nnx.jit``-compiled function and
constrains every parameter with ``jax.lax.with_sharding_constraint`` right after it is created.
Because construction happens under jit, the parameters are never concrete arrays on one device:
XLA sees "random init -> sharding constraint -> output", propagates the sharding back into the
RNG/initialiser computation, and each device only materialises its own shard. The jitted
function's outputs keep those shardings, so the returned model's parameters are already laid out
as ``NamedSharding(mesh, rules[path])``.

The values equal an eager ``MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))``: the same seed, the
same key-splitting order and the same initialisers are used, and JAX's random bits don't depend
on whether the computation is jitted or sharded.
"""

from __future__ import annotations

from typing import Mapping

import jax
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec

__all__ = ["MLP", "create_sharded_mlp"]


class MLP(nnx.Module):
    """out(relu(hidden(x))) - no sharding annotations, shared with other code."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(nnx.relu(self.hidden(x)))


def _param_paths(model: nnx.Module) -> set[tuple[str, ...]]:
    """Paths (as tuples of str) of all nnx.Param variables in the model graph."""
    paths = set()
    for path, node in nnx.iter_graph(model):
        if isinstance(node, nnx.Param):
            paths.add(tuple(str(p) for p in path))
    return paths


def _get_variable(model: nnx.Module, path: tuple[str, ...]) -> nnx.Variable:
    node = model
    for name in path:
        node = getattr(node, name)
    if not isinstance(node, nnx.Variable):
        raise TypeError(f"rule path {path} does not point at a Variable (got {type(node)})")
    return node


def _apply_rules(
    model: nnx.Module,
    mesh: jax.sharding.Mesh,
    rules: Mapping[tuple[str, ...], PartitionSpec],
) -> None:
    """Constrain every parameter (in place, inside the current trace) to its rule's sharding."""
    rule_paths = {tuple(k): v for k, v in rules.items()}

    # Every parameter must have a rule (and every rule must name a parameter), so nothing is
    # silently left to the compiler's choice, e.g. replicated on every device.
    param_paths = _param_paths(model)
    missing = sorted(param_paths - set(rule_paths))
    if missing:
        raise KeyError(f"no partition rule for parameter path(s) {missing}")

    for path, spec in rule_paths.items():
        var = _get_variable(model, path)
        if not isinstance(var, nnx.Param):
            raise TypeError(f"rule path {path} points at {type(var).__name__}, not an nnx.Param")
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        var.value = jax.lax.with_sharding_constraint(var.value, NamedSharding(mesh, spec))


def create_sharded_mlp(
    din: int,
    dhidden: int,
    dout: int,
    seed: int,
    mesh: jax.sharding.Mesh,
    rules: dict[tuple[str, str], PartitionSpec],
) -> MLP:
    """Build ``MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))`` sharded by ``rules`` on ``mesh``.

    The whole construction runs inside one jitted function; each parameter leaves it with
    sharding ``NamedSharding(mesh, rules[path])``.
    """
    din, dhidden, dout, seed = int(din), int(dhidden), int(dout), int(seed)

    @nnx.jit
    def _create() -> MLP:
        model = MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))
        _apply_rules(model, mesh, rules)
        return model

    return _create()
