"""Optax equivalent of the IMPALA learner's PyTorch optimizer:

    optimizer = torch.optim.RMSprop(params, lr=0.0006, momentum=0, eps=0.01, alpha=0.99)
    loss.backward()
    nn.utils.clip_grad_norm_(params, 40)
    optimizer.step()

torch.optim.RMSprop (centered=False, momentum=0, weight_decay=0), per parameter:

    v = alpha * v + (1 - alpha) * g**2          # v starts at 0
    p = p - lr * g / (sqrt(v) + eps)            # eps OUTSIDE the square root

`optax.rmsprop` defaults differ on both counts: `decay=0.9` (torch alpha=0.99) and `eps_in_sqrt=True`,
i.e. g / sqrt(v + eps). With IMPALA's large eps=0.01 the epsilon placement is not a rounding detail:
for gradients of about 1e-2 (v ~ g**2 = 1e-4 once warmed up) the torch step is g / (1e-2 + 1e-2)
while sqrt(v + eps) gives g / sqrt(1.01e-2) ~ g / 0.1, a step five times smaller. So the port sets
`decay=0.99, eps=0.01, eps_in_sqrt=False`, and keeps `initial_scale=0.0` (torch starts v at zero),
no momentum, not centered.

clip_grad_norm_(params, 40) computes the global L2 norm over all gradients and multiplies every
gradient by min(40 / (norm + 1e-6), 1). `optax.clip_by_global_norm(40)` uses 40 / norm (no 1e-6); the
difference is a relative 1e-6 / norm (< 3e-8 whenever clipping is active), below float32 rounding,
but `clip_grad_norm_torch` below reproduces torch's formula exactly anyway, so the two learners take
identical steps.

Order matters and matches the PyTorch learner: clip first, then RMSprop sees the clipped gradient
(and accumulates its square in v).

Note: torchbeast's IMPALA additionally anneals the learning rate linearly to 0 with
`torch.optim.lr_scheduler.LambdaLR`. The snippet above has no scheduler, so the rate here is the
constant 0.0006; if your learner uses one, pass
`optax.linear_schedule(0.0006, 0.0, transition_steps=total_learner_updates)` as `learning_rate`
(Optax schedules count optimizer updates, not frames or epochs).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 0.0006
ALPHA = 0.99  # torch RMSprop `alpha` == optax `decay`
EPS = 0.01
MAX_GRAD_NORM = 40.0


def clip_grad_norm_torch(max_norm: float, eps: float = 1e-6) -> optax.GradientTransformation:
    """torch.nn.utils.clip_grad_norm_: scale all gradients by min(max_norm / (total_norm + eps), 1)."""

    def init_fn(params):
        del params
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        del params
        total_norm = optax.tree.norm(updates)  # global L2 norm: sqrt of the sum of squares of every leaf
        coef = jnp.minimum(max_norm / (total_norm + eps), 1.0)
        updates = jax.tree.map(lambda g: (g * coef).astype(g.dtype), updates)
        return updates, state

    return optax.GradientTransformation(init_fn, update_fn)


def make_optimizer() -> optax.GradientTransformation:
    """clip_grad_norm_(40) followed by torch.optim.RMSprop(lr=6e-4, alpha=0.99, eps=0.01, momentum=0)."""
    return optax.chain(
        clip_grad_norm_torch(MAX_GRAD_NORM),
        optax.rmsprop(
            learning_rate=LEARNING_RATE,
            decay=ALPHA,
            eps=EPS,
            eps_in_sqrt=False,  # torch: g / (sqrt(v) + eps)
            initial_scale=0.0,  # torch: v starts at 0
            centered=False,
            momentum=None,  # torch momentum=0: no momentum buffer
        ),
    )


if __name__ == "__main__":
    # Compare five steps with torch's update rules written out in float64 NumPy.
    import numpy as np

    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(3, 4)).astype(np.float32), "b": rng.normal(size=4).astype(np.float32)}
    grads_seq = [
        {k: (scale * rng.normal(size=v.shape)).astype(np.float32) for k, v in params.items()}
        for scale in (100.0, 1e-2, 30.0, 1e-3, 5.0)  # some steps clipped, some not
    ]

    # torch reference
    p_ref = {k: v.astype(np.float64) for k, v in params.items()}
    v_ref = {k: np.zeros_like(v) for k, v in p_ref.items()}
    for g in grads_seq:
        g = {k: x.astype(np.float64) for k, x in g.items()}
        norm = np.sqrt(sum((x**2).sum() for x in g.values()))
        coef = min(MAX_GRAD_NORM / (norm + 1e-6), 1.0)
        for k in p_ref:
            gk = g[k] * coef
            v_ref[k] = ALPHA * v_ref[k] + (1 - ALPHA) * gk**2
            p_ref[k] = p_ref[k] - LEARNING_RATE * gk / (np.sqrt(v_ref[k]) + EPS)

    tx = make_optimizer()

    @jax.jit
    def step(p, s, g):
        updates, s = tx.update(g, s, p)
        return optax.apply_updates(p, updates), s

    p = jax.tree.map(jnp.asarray, params)
    s = tx.init(p)
    for g in grads_seq:
        p, s = step(p, s, jax.tree.map(jnp.asarray, g))
    err = max(float(np.abs(np.asarray(p[k]) - p_ref[k]).max()) for k in p_ref)
    print(f"max abs param diff vs torch rule after 5 steps: {err:.2e}")
    assert err < 1e-5
