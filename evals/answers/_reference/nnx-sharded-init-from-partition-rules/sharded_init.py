"""Initialise inside nnx.jit and constrain the State with jax.lax.with_sharding_constraint and NamedShardings."""

import jax
from flax import nnx
from jax.sharding import NamedSharding


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(jax.nn.relu(self.hidden(x)))


def _path_names(path) -> tuple[str, ...]:
    return tuple(str(key.key) for key in path if hasattr(key, "key"))


def create_sharded_mlp(din: int, dhidden: int, dout: int, seed: int, mesh: jax.sharding.Mesh, rules: dict) -> MLP:
    @nnx.jit
    def init() -> MLP:
        model = MLP(din, dhidden, dout, rngs=nnx.Rngs(seed))
        state = nnx.state(model)
        shardings = jax.tree_util.tree_map_with_path(
            lambda path, _: NamedSharding(mesh, rules[_path_names(path)]), state)
        nnx.update(model, jax.lax.with_sharding_constraint(state, shardings))
        return model

    return init()
