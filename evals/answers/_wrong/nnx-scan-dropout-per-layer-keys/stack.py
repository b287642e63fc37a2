"""Split only the params stream at creation (as with Linen's split_rngs={'params': True}); broadcast the rest."""

import jax
from flax import nnx


class Block(nnx.Module):
    def __init__(self, width: int, rate: float, *, rngs: nnx.Rngs):
        self.drop = nnx.Dropout(rate, rngs=rngs)
        self.linear = nnx.Linear(width, width, rngs=rngs)

    def __call__(self, h: jax.Array) -> jax.Array:
        return self.linear(self.drop(h))


class DropoutStack(nnx.Module):
    def __init__(self, width: int, depth: int, rate: float, *, rngs: nnx.Rngs):
        @nnx.split_rngs(splits=depth, only="params")
        @nnx.vmap(in_axes=(nnx.StateAxes({"params": 0, ...: None}),), out_axes=0)
        def create(rngs: nnx.Rngs) -> Block:
            return Block(width, rate, rngs=rngs)

        self.blocks = create(rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def apply(h: jax.Array, block: Block) -> jax.Array:
            return block(h)

        return apply(x, self.blocks)
