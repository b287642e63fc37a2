"""Sharded initialisation of a Flax NNX MLP from a path -> PartitionSpec rule table.

The model class carries no sharding annotations. The layout comes from the config as
``rules = {("hidden", "kernel"): P(...), ("hidden", "bias"): P(...), ("out", "kernel"): P(...),
("out", "bias"): P(...)}`` and is applied while the model is built, inside one ``jax.jit``:

1. ``nnx.eval_shape`` builds an abstract model (shapes and dtypes only, no memory) to get the
   ``GraphDef``, the parameter paths and shapes; the rules are checked against them up front.
2. The jitted function builds the real model, constrains every ``nnx.Param`` to
   ``NamedSharding(mesh, rules[path])`` with ``jax.lax.with_sharding_constraint`` (on Auto axes a
   request to the XLA partitioner), and returns the state as a pure dict; ``out_shardings`` pins the
   same shardings on the outputs. XLA partitions the initialisers to match, so each device
   computes only its own shard of each parameter, and no parameter is materialised whole on one
   device. (jax's default ``jax_threefry_partitionable=True`` makes the sharded random numbers the
   same as the unsharded ones, so the values match an eager ``MLP(..., rngs=nnx.Rngs(seed))``.)
3. The arrays are written into the abstract state and merged into a live module.

Notes for jax 0.12.0.1 / flax 0.12.12: use ``jax.lax.with_sharding_constraint``
(``flax.nnx.with_sharding_constraint`` was removed in flax 0.12.12). On an all-Explicit mesh it is an
assertion instead of a request, which is why this function expects the Auto mesh described above.
"""

import math

import jax
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec

__all__ = ["MLP", "create_sharded_mlp"]


class MLP(nnx.Module):
    """Linear -> relu -> Linear. No sharding annotations: the layout is applied from outside."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(nnx.relu(self.hidden(x)))


def _nest(flat: dict[tuple, object]) -> dict:
    """{("a", "b"): v} -> {"a": {"b": v}}: the layout of ``nnx.to_pure_dict``."""
    nested: dict = {}
    for path, value in flat.items():
        node = nested
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return nested


def _check_rules(
    param_shapes: dict[tuple, tuple[int, ...]],
    rules: dict[tuple[str, str], PartitionSpec],
    mesh: jax.sharding.Mesh,
) -> None:
    """Fail early, with the path named, instead of deep inside jit or compile."""
    missing = sorted(set(param_shapes) - set(rules))
    unknown = sorted(set(rules) - set(param_shapes))
    if missing or unknown:
        raise KeyError(f"partition rules do not match the parameters: missing {missing}, unknown {unknown}")
    for path, shape in param_shapes.items():
        spec = rules[path]
        if len(spec) > len(shape):
            raise ValueError(f"{path}: spec {spec} has more entries than the parameter's rank {len(shape)}")
        for dim, entry in zip(shape, spec):
            axes = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
            ways = math.prod(mesh.shape[axis] for axis in axes)
            if dim % ways:
                raise ValueError(f"{path}: dimension {dim} of shape {shape} cannot be split {ways} ways by {spec}")


def create_sharded_mlp(
    din: int,
    dhidden: int,
    dout: int,
    seed: int,
    mesh: jax.sharding.Mesh,
    rules: dict[tuple[str, str], PartitionSpec],
) -> MLP:
    """Build MLP(din, dhidden, dout, rngs=nnx.Rngs(seed)) with every parameter already sharded.

    mesh: 2 x 4, axes ("data", "model"), both AxisType.Auto. rules maps each parameter path
    (("hidden", "kernel"), ("hidden", "bias"), ("out", "kernel"), ("out", "bias")) to a PartitionSpec.
    Each returned parameter has sharding NamedSharding(mesh, rules[path]) and the values of the
    eagerly built model.
    """

    def build() -> MLP:
        return MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))

    # Abstract model: structure, paths, shapes and dtypes, without allocating any parameter.
    abstract_model = nnx.eval_shape(build)
    graphdef, abstract_state = nnx.split(abstract_model)
    param_shapes = {
        tuple(path): tuple(param.get_value().shape)
        for path, param in nnx.to_flat_state(nnx.state(abstract_model, nnx.Param))
    }
    _check_rules(param_shapes, rules, mesh)

    # Shardings for every leaf of the state: the rule for a Param; replicated for any other
    # Variable (this MLP has none, since nnx.Linear does not keep its Rngs).
    param_shardings = {path: NamedSharding(mesh, rules[path]) for path in param_shapes}
    state_shardings = {
        tuple(path): param_shardings.get(tuple(path), NamedSharding(mesh, PartitionSpec()))
        for path, _ in nnx.to_flat_state(abstract_state)
    }

    def init_state() -> dict:
        model = build()  # traced: nothing is computed until XLA runs the partitioned program
        for path, param in nnx.to_flat_state(nnx.state(model, nnx.Param)):
            param[...] = jax.lax.with_sharding_constraint(param[...], param_shardings[tuple(path)])
        return nnx.to_pure_dict(nnx.state(model))

    pure_state = jax.jit(init_state, out_shardings=_nest(state_shardings))()

    # Write the sharded arrays into the abstract state and build the live module from it.
    nnx.replace_by_pure_dict(abstract_state, pure_state)
    return nnx.merge(graphdef, abstract_state)


if __name__ == "__main__":
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import AxisType

    P = PartitionSpec
    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    rules = {
        ("hidden", "kernel"): P(None, "model"),
        ("hidden", "bias"): P("model"),
        ("out", "kernel"): P("model", None),
        ("out", "bias"): P(),
    }
    model = create_sharded_mlp(16, 64, 8, seed=0, mesh=mesh, rules=rules)
    eager = MLP(16, 64, 8, rngs=nnx.Rngs(0))
    for path, param in nnx.to_flat_state(nnx.state(model, nnx.Param)):
        array = param[...]
        expected = NamedSharding(mesh, rules[tuple(path)])
        assert array.sharding.is_equivalent_to(expected, array.ndim), (path, array.sharding)
        print(path, array.sharding.spec, array.addressable_shards[0].data.shape)
    np.testing.assert_allclose(model.hidden.kernel[...], eager.hidden.kernel[...], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(model.out.kernel[...], eager.out.kernel[...], rtol=1e-6, atol=1e-6)
    print(model(jnp.ones((4, 16))).shape)  # (4, 8)
