"""The flax 0.10 pattern: nnx.with_sharding_constraint over the State inside nnx.jit (removed since)."""

import jax
from flax import nnx


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
        pspecs = jax.tree_util.tree_map_with_path(lambda path, _: rules[_path_names(path)], state)
        nnx.update(model, nnx.with_sharding_constraint(state, pspecs, mesh=mesh))
        return model

    return init()
