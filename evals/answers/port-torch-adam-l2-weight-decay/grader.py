"""Grade `paper_optimizer`: Optax steps equal to torch.optim.Adam(lr, weight_decay=wd).

The reference is PyTorch's documented Adam in float64 NumPy: g <- g + wd * p (L2 penalty in the
gradient), m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, bias-corrected, p -= lr m_hat / (sqrt(v_hat) + eps)
with b1=0.9, b2=0.999, eps=1e-8.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax

STEPS = 30
# curvatures: the first parameters get almost no gradient, so the weight decay dominates their steps
CURVATURE = {"w": np.array([[1e-6, 1e-3, 0.1], [1.0, 0.5, 1e-5]]), "b": np.array([0.0, 0.2])}
START = {"w": np.array([[1.0, -2.0, 0.5], [0.3, -0.7, 3.0]]), "b": np.array([-1.5, 0.25])}


def grads_of(params: dict) -> dict:
    return {k: CURVATURE[k] * params[k] for k in params}


def torch_adam(lr: float, weight_decay: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> dict:
    params = {k: v.copy() for k, v in START.items()}
    m = {k: np.zeros_like(v) for k, v in START.items()}
    v = {k: np.zeros_like(x) for k, x in START.items()}
    for t in range(1, STEPS + 1):
        g = grads_of(params)
        for k in params:
            gk = g[k] + weight_decay * params[k]
            m[k] = b1 * m[k] + (1 - b1) * gk
            v[k] = b2 * v[k] + (1 - b2) * gk**2
            m_hat, v_hat = m[k] / (1 - b1**t), v[k] / (1 - b2**t)
            params[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return params


def run_answer(tx) -> dict:
    params = {k: jnp.asarray(v, jnp.float32) for k, v in START.items()}
    curvature = {k: jnp.asarray(v, jnp.float32) for k, v in CURVATURE.items()}
    state = tx.init(params)

    @jax.jit
    def step(params, state):
        grads = jax.tree.map(lambda c, p: c * p, curvature, params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    for _ in range(STEPS):
        params, state = step(params, state)
    return {k: np.asarray(v, np.float64) for k, v in params.items()}


def check(answer, lr: float, weight_decay: float) -> None:
    want = torch_adam(lr, weight_decay)
    got = run_answer(answer.make_optimizer(lr, weight_decay))
    for k in want:
        err = np.max(np.abs(got[k] - want[k]))
        moved = np.max(np.abs(want[k] - START[k]))
        assert err < 1e-5, (
            f"lr={lr}, weight_decay={weight_decay}: parameter {k!r} is {err:.2e} away from "
            f"torch.optim.Adam after {STEPS} steps (torch moved it by up to {moved:.2e})"
        )


def test_steps_match_torch_adam_with_paper_hyperparameters(answer):
    check(answer, 1e-3, 1e-4)


def test_steps_match_torch_adam_with_strong_decay(answer):
    check(answer, 1e-2, 5e-2)


def test_the_optimizer_is_optax_adam(answer):
    tx = answer.make_optimizer(1e-3, 1e-4)
    state = tx.init({k: jnp.asarray(v, jnp.float32) for k, v in START.items()})
    found = [s for s in jax.tree.leaves(state, is_leaf=lambda s: isinstance(s, optax.ScaleByAdamState))
             if isinstance(s, optax.ScaleByAdamState)]
    assert found, "the optimizer state holds no optax.ScaleByAdamState: use Optax's Adam, not a hand-written rule"
