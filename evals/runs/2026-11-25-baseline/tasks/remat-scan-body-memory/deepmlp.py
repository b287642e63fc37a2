"""Deep residual MLP applied with lax.scan, with gradient checkpointing of each block.

Without checkpointing, reverse-mode AD through the scan stores every block's intermediates for the
backward pass: for each of the `depth` layers the (batch, 4 * width) pre-activation and GELU output
besides the (batch, width) carry, so memory grows like depth * batch * 4 * width several times over.

Wrapping the scan body in `jax.checkpoint` (remat) makes the forward pass keep only what the body
receives, i.e. the (batch, width) carry per layer (plus the weights, which are inputs anyway), and
recompute the block's internals during the backward pass, one layer at a time. The gradients are
the same; the extra cost is one more forward evaluation of each block.
`prevent_cse=False` is the recommended setting inside scan (scan already prevents the CSE that the
flag guards against, and leaving it on can block optimisations).
"""

import jax
import jax.numpy as jnp


def _block(h: jax.Array, weights: tuple[jax.Array, jax.Array]):
    w1, w2 = weights
    return h + jax.nn.gelu(h @ w1) @ w2, None


_remat_block = jax.checkpoint(_block, prevent_cse=False)


def loss(params: tuple[jax.Array, jax.Array], x: jax.Array) -> jax.Array:
    """params = (w1: [depth, width, 4 * width], w2: [depth, 4 * width, width]); x: [batch, width]."""
    w1, w2 = params
    h, _ = jax.lax.scan(_remat_block, x, (w1, w2))
    return jnp.mean(h**2)


if __name__ == "__main__":
    depth, width, batch = 16, 32, 8
    k1, k2, kx = jax.random.split(jax.random.key(0), 3)
    w1 = jax.random.normal(k1, (depth, width, 4 * width)) / width**0.5 * 0.1
    w2 = jax.random.normal(k2, (depth, 4 * width, width)) / (4 * width) ** 0.5 * 0.1
    x = jax.random.normal(kx, (batch, width))

    def loss_no_remat(params, x):
        h, _ = jax.lax.scan(_block, x, params)
        return jnp.mean(h**2)

    g = jax.jit(jax.grad(loss))((w1, w2), x)
    g_ref = jax.jit(jax.grad(loss_no_remat))((w1, w2), x)
    print(all(jnp.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(g, g_ref)))
