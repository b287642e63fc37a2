"""Sharded initialisation of an unannotated Flax NNX MLP from path -> PartitionSpec rules.

The model class carries no sharding metadata. The layout comes from `rules`, a dict from parameter
path (as `nnx.to_flat_state` writes it, e.g. ("hidden", "kernel")) to a PartitionSpec.

How it stays sharded from the start: the model is constructed *inside* one `nnx.jit`-compiled
function, and each parameter is passed through `jax.lax.with_sharding_constraint` with its
NamedSharding before the function returns. On Auto axes the XLA partitioner propagates those
constraints back into the random-number generation, so every device computes only its own shard of
each parameter; no full parameter is ever built on one device. `nnx.jit` returns the new module
with its arrays laid out as constrained.

The values equal those of `MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))` built eagerly: the PRNG
(threefry, partitionable by default) gives the same numbers whether or not it runs under jit and
however its output is sharded.

Note: on an all-Explicit mesh (jax.make_mesh's default) `with_sharding_constraint` only asserts;
there, constrain with `jax.sharding.reshard` instead. The mesh here is Auto on both axes.
"""

import jax
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec


class MLP(nnx.Module):
    """out(relu(hidden(x))); no sharding annotations."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(nnx.relu(self.hidden(x)))


def create_sharded_mlp(
    din: int,
    dhidden: int,
    dout: int,
    seed: int,
    mesh: jax.sharding.Mesh,
    rules: dict[tuple[str, str], PartitionSpec],
) -> MLP:
    """MLP(din, dhidden, dout, rngs=nnx.Rngs(seed)), built inside one jit with every Param sharded by `rules`.

    Args:
        mesh: 2 x 4 mesh, axes ("data", "model"), both AxisType.Auto.
        rules: one PartitionSpec per parameter path: ("hidden", "kernel"), ("hidden", "bias"),
            ("out", "kernel"), ("out", "bias").

    Returns:
        The model; each parameter's array has sharding NamedSharding(mesh, rules[path]) and the same
        values as the eagerly built model.
    """
    shardings = {tuple(path): NamedSharding(mesh, spec) for path, spec in rules.items()}

    @nnx.jit
    def create() -> MLP:
        model = MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))
        for path, param in nnx.to_flat_state(nnx.state(model, nnx.Param)):
            key = tuple(path)
            if key not in shardings:
                raise KeyError(f"no partition rule for parameter {key}; rules cover {sorted(shardings)}")
            param[...] = jax.lax.with_sharding_constraint(param[...], shardings[key])
        return model

    model = create()

    # The compiled function already produced these layouts; this makes each array's `.sharding`
    # the exact NamedSharding object of the rule (JAX rebuilds specs from XLA's choice, dropping
    # trailing Nones, e.g. P('data',) for P('data', None)). Shard-to-shard, no gathering.
    for path, param in nnx.to_flat_state(nnx.state(model, nnx.Param)):
        param[...] = jax.device_put(param[...], shardings[tuple(path)])
    return model
