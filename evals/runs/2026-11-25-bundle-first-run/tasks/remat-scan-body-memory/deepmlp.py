"""A deep stack of residual MLP blocks under lax.scan, with gradient checkpointing on the scan body.

Without remat, the backward pass of `lax.scan` needs every layer's residuals (h @ w1, the GELU
derivative terms, the GELU output, ...), and the forward loop writes them into stacked arrays with one
slot per layer: the gradient's memory grows with depth times the per-layer activations (several
arrays of shape (batch, 4 * width) per layer).

`jax.checkpoint` on the *scan body* (default policy: save nothing but the body's inputs) makes the
forward loop keep only each layer's input h (batch, width) and recompute the block in the backward
pass. The gradient is the same function, at the cost of about one extra forward pass of `h @ w1` and
the GELU. A `jax.checkpoint` around the whole loss would not help: its backward pass re-runs the whole
forward scan, which stacks every layer's residuals again.

To check the saving on your shapes:

    compiled = jax.jit(jax.grad(loss)).lower(params, x).compile()
    compiled.memory_analysis().temp_size_in_bytes      # compare with loss_no_remat
"""

import jax
import jax.numpy as jnp


def _block(h: jax.Array, weights: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, None]:
    """One residual block, h -> h + gelu(h @ w1) @ w2, as a scan body (carry, per-layer weights)."""
    w1, w2 = weights
    return h + jax.nn.gelu(h @ w1) @ w2, None  # jax.nn.gelu's default approximate=True


# Recompute the block in the backward pass instead of storing its intermediates
# (policy=jax.checkpoint_policies.nothing_saveable is the default).
_remat_block = jax.checkpoint(_block)


def loss(params: tuple[jax.Array, jax.Array], x: jax.Array) -> jax.Array:
    """params = (w1 f32[depth, width, 4*width], w2 f32[depth, 4*width, width]); x f32[batch, width].

    Applies the depth blocks in order and returns mean(h ** 2). jax.grad(loss) stores one (batch, width)
    carry per layer instead of every intermediate of every layer.
    """
    w1, w2 = params
    h, _ = jax.lax.scan(_remat_block, x, (w1, w2))
    return jnp.mean(h**2)


def loss_no_remat(params: tuple[jax.Array, jax.Array], x: jax.Array) -> jax.Array:
    """The same loss without checkpointing (for comparison only)."""
    w1, w2 = params
    h, _ = jax.lax.scan(_block, x, (w1, w2))
    return jnp.mean(h**2)


if __name__ == "__main__":
    import numpy as np

    depth, batch, width = 16, 256, 64
    k1, k2, kx = jax.random.split(jax.random.key(0), 3)
    params = (
        jax.random.normal(k1, (depth, width, 4 * width)) / jnp.sqrt(width),
        jax.random.normal(k2, (depth, 4 * width, width)) / jnp.sqrt(4 * width),
    )
    x = jax.random.normal(kx, (batch, width))

    def temp_mib(fn) -> float:
        compiled = jax.jit(jax.grad(fn)).lower(params, x).compile()
        return compiled.memory_analysis().temp_size_in_bytes / 2**20

    plain, remat = temp_mib(loss_no_remat), temp_mib(loss)
    print(f"grad temporaries: no remat {plain:.1f} MiB, remat scan body {remat:.1f} MiB ({plain / remat:.1f}x)")
    assert remat * 2 < plain

    g_remat = jax.jit(jax.grad(loss))(params, x)
    g_plain = jax.jit(jax.grad(loss_no_remat))(params, x)
    for a, b in zip(g_remat, g_plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    print("gradients match")
