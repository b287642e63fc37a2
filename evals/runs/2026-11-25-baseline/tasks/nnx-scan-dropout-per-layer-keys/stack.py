"""A stack of Dropout -> Linear layers built with nnx.vmap and run with nnx.scan.

Construction: ``nnx.split_rngs(splits=depth)`` splits *every* stream of ``rngs`` (``params`` and
``dropout``) into ``depth`` keys and ``nnx.vmap`` creates the layers along a leading layer axis. So each
layer gets its own weights, and, because ``nnx.Dropout(rate, rngs=...)`` keeps its ``dropout`` stream as
part of the layer's state, each layer also owns its own (stacked) dropout key.

Application: ``nnx.scan`` over axis 0 of ``self.blocks`` hands layer i its slice of the stacked state
(its weights and its dropout key/counter); the carried value ``h`` goes through the layers in order.
Each Dropout call draws from its layer's stream and advances that layer's counter; the advanced
counters are written back into ``self.blocks`` by ``nnx.scan``, so the next call draws new masks.
"""

from __future__ import annotations

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
        self.depth = depth

        @nnx.split_rngs(splits=depth)
        @nnx.vmap(in_axes=(0,), out_axes=0)
        def create_blocks(rngs: nnx.Rngs) -> Block:
            return Block(width, rate, rngs=rngs)

        # blocks.linear.kernel: (depth, width, width); blocks.drop's dropout key: (depth,)
        self.blocks = create_blocks(rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def apply_layer(h: jax.Array, block: Block) -> jax.Array:
            return block(h)

        return apply_layer(x, self.blocks)
