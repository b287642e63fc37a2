"""The IMPALA learner's optimizer in Optax: torch clip_grad_norm_(40) followed by torch.optim.RMSprop.

PyTorch:

    optimizer = torch.optim.RMSprop(params, lr=0.0006, momentum=0, eps=0.01, alpha=0.99)
    nn.utils.clip_grad_norm_(params, 40)
    optimizer.step()

Per step, for every parameter p with gradient g (PyTorch's documented update, centered=False,
momentum=0, weight_decay=0):

    total_norm = || (||g_1||, ||g_2||, ...) ||          # global L2 norm over all parameters
    g         *= min(1, 40 / (total_norm + 1e-6))       # clip_grad_norm_
    v          = 0.99 * v + 0.01 * g**2                 # square_avg, starts at 0
    p         -= 0.0006 * g / (sqrt(v) + 0.01)          # eps OUTSIDE the square root

Why not `optax.rmsprop(0.0006)` with defaults: Optax's defaults are decay=0.9 (torch alpha=0.99) and
eps *inside* the square root, g / sqrt(v + eps). With eps=0.01 that placement matters a lot
(sqrt(0.01) = 0.1 vs 0.01 added outside). `optax.rmsprop(..., decay=0.99, eps=0.01,
eps_in_sqrt=False)` is torch's rule (initial_scale=0, centered=False, no momentum, as torch).

Clipping: `optax.clip_by_global_norm(40)` scales by 40 / norm; torch by 40 / (norm + 1e-6) and
clamps the factor at 1. The two differ by a relative 1e-6 / norm; to take *exactly* torch's steps the
clipping below is torch's formula itself.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 0.0006
ALPHA = 0.99  # torch RMSprop alpha == optax decay
EPS = 0.01
MAX_GRAD_NORM = 40.0
_TORCH_CLIP_EPS = 1e-6  # the constant in torch.nn.utils.clip_grad_norm_


def clip_grad_norm_torch(max_norm: float) -> optax.GradientTransformation:
    """torch.nn.utils.clip_grad_norm_(params, max_norm) (norm_type=2) as an Optax transformation.

    total_norm is the 2-norm of the per-parameter 2-norms (as torch computes it), and every gradient
    is multiplied by clamp(max_norm / (total_norm + 1e-6), max=1).
    """

    def init_fn(params: optax.Params) -> optax.EmptyState:
        del params
        return optax.EmptyState()

    def update_fn(updates: optax.Updates, state: optax.EmptyState, params: optax.Params | None = None):
        del params
        leaves = jax.tree.leaves(updates)
        if not leaves:
            return updates, state
        per_param = jnp.stack([jnp.sqrt(jnp.sum(jnp.square(g.astype(jnp.float32)))) for g in leaves])
        total_norm = jnp.sqrt(jnp.sum(jnp.square(per_param)))
        coef = jnp.minimum(max_norm / (total_norm + _TORCH_CLIP_EPS), 1.0)
        return jax.tree.map(lambda g: (g * coef).astype(g.dtype), updates), state

    return optax.GradientTransformation(init_fn, update_fn)


def make_optimizer() -> optax.GradientTransformation:
    """clip_grad_norm_(40) then torch.optim.RMSprop(lr=6e-4, alpha=0.99, eps=0.01, momentum=0)."""
    return optax.chain(
        clip_grad_norm_torch(MAX_GRAD_NORM),
        optax.rmsprop(
            learning_rate=LEARNING_RATE,
            decay=ALPHA,
            eps=EPS,
            initial_scale=0.0,  # torch's square_avg starts at zero
            eps_in_sqrt=False,  # torch: g / (sqrt(v) + eps)
            centered=False,
            momentum=None,  # torch momentum=0: no momentum buffer
        ),
    )


if __name__ == "__main__":
    # Self-check: five steps against the PyTorch update written out in float64 NumPy.
    import numpy as np

    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(4, 3)).astype(np.float32), "b": rng.normal(size=3).astype(np.float32)}
    scales = [100.0, 0.5, 30.0, 1e-3, 20.0]  # some steps clipped (norm > 40), some not
    grads_seq = [
        {k: (s * rng.normal(size=v.shape)).astype(np.float32) for k, v in params.items()} for s in scales
    ]

    ref_p = {k: v.astype(np.float64) for k, v in params.items()}
    ref_v = {k: np.zeros_like(v) for k, v in ref_p.items()}
    for g in grads_seq:
        g = {k: v.astype(np.float64) for k, v in g.items()}
        total = np.sqrt(sum(np.sum(v**2) for v in g.values()))
        coef = min(MAX_GRAD_NORM / (total + 1e-6), 1.0)
        for k in ref_p:
            gk = g[k] * coef
            ref_v[k] = ALPHA * ref_v[k] + (1 - ALPHA) * gk**2
            ref_p[k] = ref_p[k] - LEARNING_RATE * gk / (np.sqrt(ref_v[k]) + EPS)

    tx = make_optimizer()

    @jax.jit
    def step(p, state, g):
        updates, state = tx.update(g, state, p)
        return optax.apply_updates(p, updates), state

    p = jax.tree.map(jnp.asarray, params)
    state = tx.init(p)
    for g in grads_seq:
        p, state = step(p, state, jax.tree.map(jnp.asarray, g))
    err = max(float(np.abs(np.asarray(p[k], np.float64) - ref_p[k]).max()) for k in ref_p)
    print(f"max abs err vs torch RMSprop after 5 steps: {err:.1e}")
    assert err < 1e-5  # float32 rounding of order-one parameters over five steps
