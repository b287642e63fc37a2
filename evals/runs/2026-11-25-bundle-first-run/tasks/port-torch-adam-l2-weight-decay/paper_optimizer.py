"""Optax equivalent of ``torch.optim.Adam(params, lr=lr, weight_decay=wd)``.

PyTorch's ``Adam(weight_decay=wd)`` is Adam with an **L2 penalty**: it adds ``wd * p`` to the
gradient, and that sum then goes through Adam's moment estimates and rescaling:

    g  = grad + wd * p
    m  = b1 m + (1 - b1) g,    v = b2 v + (1 - b2) g^2
    p -= lr * m_hat / (sqrt(v_hat) + eps)        (b1=0.9, b2=0.999, eps=1e-8 outside the sqrt)

``optax.adamw(weight_decay=wd)`` is a *different* algorithm (decoupled decay, i.e. torch's AdamW):
the decay is added after Adam's rescaling. The faithful port adds the decayed weights to the gradient
first, then runs plain Adam:

    optax.chain(optax.add_decayed_weights(wd), optax.adam(lr))

``optax.adam``'s defaults match PyTorch's (b1=0.9, b2=0.999, eps=1e-8 added outside the square root,
eps_root=0, no AMSGrad, no Nesterov). As in PyTorch without parameter groups, the decay applies to
every parameter, biases and norm scales included.
"""

from __future__ import annotations

import optax


def make_optimizer(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    """torch.optim.Adam(lr=learning_rate, weight_decay=weight_decay), other arguments at their defaults.

    Needs the parameters at update time: ``tx.update(grads, state, params)``.
    """
    return optax.chain(
        optax.add_decayed_weights(weight_decay),  # g + wd * p  (L2 in the gradient, torch's Adam)
        optax.adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0),
    )


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    import numpy as np

    # Check against PyTorch's documented update rule, written out in float64 NumPy.
    A = np.array([1e-8, 1e-3, 1.0, 10.0])
    p0 = np.array([1.0, -2.0, 0.5, 0.3])
    lr, wd = 1e-3, 1e-4

    def torch_adam(steps: int) -> np.ndarray:
        p, m, v = p0.copy(), np.zeros(4), np.zeros(4)
        for t in range(1, steps + 1):
            g = A * p + wd * p
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g**2
            p = p - lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        return p

    tx = make_optimizer(lr, wd)
    p = jnp.asarray(p0, jnp.float32)
    state = tx.init(p)

    @jax.jit
    def step(p, state):
        updates, state = tx.update(jnp.asarray(A, jnp.float32) * p, state, p)
        return optax.apply_updates(p, updates), state

    for _ in range(50):
        p, state = step(p, state)
    diff = np.max(np.abs(np.asarray(p, np.float64) - torch_adam(50)))
    print("max |optax - torch rule| after 50 steps:", diff)
    assert diff < 1e-5
