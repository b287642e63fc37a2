"""Optax equivalent of IMPALA's PyTorch optimizer step:

    nn.utils.clip_grad_norm_(params, 40)
    torch.optim.RMSprop(params, lr=0.0006, momentum=0, eps=0.01, alpha=0.99).step()

Differences from Optax's built-ins that matter here
---------------------------------------------------
* torch RMSprop adds eps OUTSIDE the square root: p -= lr * g / (sqrt(v) + eps), with
  v = alpha * v + (1 - alpha) * g^2 starting from v = 0 and no bias correction. `optax.rmsprop`
  defaults to eps inside the root (g / sqrt(v + eps)); with eps = 0.01 that is a very different step
  (it would need `eps_in_sqrt=False`). Optax's `decay` is torch's `alpha`.
* torch's clip_grad_norm_ scales by max_norm / (total_norm + 1e-6), clamped to 1, and always
  multiplies; `optax.clip_by_global_norm` uses max_norm / total_norm. The torch formula is used.
Both are written out below so that every step follows torch's arithmetic.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 0.0006
ALPHA = 0.99
EPS = 0.01
MAX_GRAD_NORM = 40.0


def clip_grad_norm_torch(max_norm: float) -> optax.GradientTransformation:
    """torch.nn.utils.clip_grad_norm_(params, max_norm) (L2 norm over all gradients)."""

    def init_fn(params):
        del params
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        del params
        leaves = jax.tree.leaves(updates)
        # torch: norm of the per-tensor norms
        total_norm = jnp.linalg.norm(jnp.stack([jnp.linalg.norm(g.ravel()) for g in leaves]))
        clip_coef = jnp.minimum(max_norm / (total_norm + 1e-6), 1.0)
        updates = jax.tree.map(lambda g: g * clip_coef.astype(g.dtype), updates)
        return updates, state

    return optax.GradientTransformation(init_fn, update_fn)


class TorchRMSpropState(NamedTuple):
    square_avg: optax.Updates


def rmsprop_torch(learning_rate: float, alpha: float, eps: float) -> optax.GradientTransformation:
    """torch.optim.RMSprop with momentum=0, centered=False, weight_decay=0 (the full step, -lr included)."""

    def init_fn(params):
        return TorchRMSpropState(square_avg=jax.tree.map(jnp.zeros_like, params))

    def update_fn(updates, state, params=None):
        del params
        square_avg = jax.tree.map(
            lambda v, g: alpha * v + (1.0 - alpha) * (g * g), state.square_avg, updates
        )
        updates = jax.tree.map(
            lambda g, v: -learning_rate * (g / (jnp.sqrt(v) + eps)), updates, square_avg
        )
        return updates, TorchRMSpropState(square_avg=square_avg)

    return optax.GradientTransformation(init_fn, update_fn)


def make_optimizer() -> optax.GradientTransformation:
    return optax.chain(
        clip_grad_norm_torch(MAX_GRAD_NORM),
        rmsprop_torch(LEARNING_RATE, ALPHA, EPS),
    )


if __name__ == "__main__":
    tx = make_optimizer()
    params = {"w": jnp.ones((4, 3)), "b": jnp.zeros((3,))}
    state = tx.init(params)

    @jax.jit
    def step(params, state):
        grads = jax.grad(lambda p: 1e3 * jnp.sum(p["w"] ** 2) + jnp.sum(p["b"] - 1.0))(params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    for _ in range(3):
        params, state = step(params, state)
    print(params)
