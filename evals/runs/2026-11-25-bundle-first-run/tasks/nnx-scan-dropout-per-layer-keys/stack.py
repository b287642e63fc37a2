"""A stack of identical Dropout -> Linear layers, created with nnx.vmap and applied with nnx.scan.

Per-layer weights *and* per-layer dropout masks come from how the stack is created:
``nnx.split_rngs(splits=depth)`` with no ``only=`` splits **every** stream of ``rngs`` (``params``
and ``dropout``) into ``depth`` keys for the duration of the vmapped constructor. Each layer therefore
initialises its Linear from its own ``params`` key, and each ``nnx.Dropout`` keeps its own fork of the
``dropout`` stream: ``self.blocks.drop.rngs.key`` has shape ``(depth,)``. ``nnx.scan`` with the blocks
at ``in_axes=0`` hands layer ``i`` its own slice, key included, so each layer draws a different mask,
and the advanced stream counters are written back after the scan, so the next call draws new masks.

The common mistake is ``nnx.split_rngs(splits=depth, only="params")`` with the other streams
broadcast: the weights differ per layer, but every layer forks the same dropout key and all layers use
one mask.

Usage::

    model = DropoutStack(16, depth=4, rate=0.1, rngs=nnx.Rngs(params=0, dropout=1))
    assert model.blocks.linear.kernel.shape == (4, 16, 16)
    y = model(x)                     # training: a different mask per layer, new masks every call
    model.eval(); y_eval = model(x)  # deterministic (or nnx.view(model, deterministic=True))
"""

from __future__ import annotations

import jax
from flax import nnx


class DropBlock(nnx.Module):
    """One layer: ``linear(drop(h))`` with matching input and output width."""

    def __init__(self, width: int, rate: float, *, rngs: nnx.Rngs):
        self.drop = nnx.Dropout(rate, rngs=rngs)
        self.linear = nnx.Linear(width, width, rngs=rngs)

    def __call__(self, h: jax.Array) -> jax.Array:
        return self.linear(self.drop(h))


class DropoutStack(nnx.Module):
    """``depth`` DropBlocks stored with a leading layer axis and applied in order with ``nnx.scan``."""

    def __init__(self, width: int, depth: int, rate: float, *, rngs: nnx.Rngs):
        # Split *every* stream (params and dropout), so each layer gets its own weights and its
        # own dropout key.
        @nnx.split_rngs(splits=depth)
        @nnx.vmap(in_axes=(0,), out_axes=0)
        def create(rngs: nnx.Rngs) -> DropBlock:
            return DropBlock(width, rate, rngs=rngs)

        self.blocks = create(rngs)  # blocks.linear.kernel: (depth, width, width)

    def __call__(self, x: jax.Array) -> jax.Array:
        # The blocks (weights and per-layer dropout RNG state) are scanned over axis 0; h is the carry.
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def apply(h: jax.Array, block: DropBlock) -> jax.Array:
            return block(h)

        return apply(x, self.blocks)
