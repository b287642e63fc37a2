"""A stack of Dropout -> Linear layers built with nnx.vmap and applied with nnx.scan.

Each layer gets its own weights *and* its own dropout key because the stack is created with
`nnx.split_rngs(splits=depth)` with no `only=`: every stream of the caller's `rngs` (`params` and
`dropout`) is split into `depth` keys for the duration of the construction. Each layer's Linear
draws its weights from its own `params` key, and each layer's Dropout keeps its own copy of the
`dropout` stream, so `self.blocks.drop.rngs.key` has shape (depth,).

The common mistake is `nnx.split_rngs(splits=depth, only="params")` with the other streams
broadcast: the weights then differ per layer, but every layer copies the same dropout key and all
layers draw the same mask.

`nnx.scan` maps the stacked state along axis 0, so layer i uses dropout key i, and the advanced RNG
counters are written back to `self.blocks` after the scan: the next call draws new masks (eagerly or
under `nnx.jit`). The layer body is traced once for all layers. `model.eval()` (or
`nnx.view(model, deterministic=True)`) switches the dropouts off.
"""

import jax
from flax import nnx


class DropoutBlock(nnx.Module):
    """One layer: linear(drop(h)), width -> width."""

    def __init__(self, width: int, rate: float, *, rngs: nnx.Rngs):
        self.drop = nnx.Dropout(rate, rngs=rngs)
        self.linear = nnx.Linear(width, width, rngs=rngs)

    def __call__(self, h: jax.Array) -> jax.Array:
        return self.linear(self.drop(h))


class DropoutStack(nnx.Module):
    """`depth` DropoutBlocks stored with a leading layer axis and applied in order with nnx.scan."""

    def __init__(self, width: int, depth: int, rate: float, *, rngs: nnx.Rngs):
        @nnx.split_rngs(splits=depth)  # split every stream: own weights and own dropout key per layer
        @nnx.vmap(in_axes=(0,), out_axes=0)
        def create(rngs: nnx.Rngs) -> DropoutBlock:
            return DropoutBlock(width, rate, rngs=rngs)

        self.blocks = create(rngs)  # self.blocks.linear.kernel: (depth, width, width)

    def __call__(self, x: jax.Array) -> jax.Array:
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def apply(h: jax.Array, block: DropoutBlock) -> jax.Array:
            return block(h)

        return apply(x, self.blocks)
