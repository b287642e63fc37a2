"""Grade `impala_optimizer`: Optax updates equal to clip_grad_norm_(40) + torch.optim.RMSprop.

The reference is the PyTorch documentation's update rule in float64 NumPy:
clip_grad_norm_ scales all gradients by max_norm / (total_norm + 1e-6) when that is below 1;
RMSprop keeps v = alpha v + (1 - alpha) g^2 (v starts at 0) and steps p -= lr g / (sqrt(v) + eps).
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax

LR, ALPHA, EPS, MAX_NORM = 0.0006, 0.99, 0.01, 40.0
STEPS = 25
CURVATURE = {"w": np.array([[0.05, 0.3, 1.0], [2.0, 5.0, 0.01]]), "b": np.array([0.5, 8.0])}
START = {"w": np.array([[1.0, -2.0, 0.5], [0.3, -0.7, 3.0]]), "b": np.array([-1.5, 0.25])}


def grads_of(params: dict, scale: float) -> dict:
    """Gradient of scale * 0.5 * sum(c * p**2): per-parameter magnitudes from 1e-2 to 1e1 (times scale)."""
    return {k: scale * CURVATURE[k] * params[k] for k in params}


def torch_reference(scale: float) -> dict:
    params = {k: v.copy() for k, v in START.items()}
    square_avg = {k: np.zeros_like(v) for k, v in START.items()}
    for _ in range(STEPS):
        g = grads_of(params, scale)
        total_norm = np.sqrt(sum(np.sum(v**2) for v in g.values()))
        coef = MAX_NORM / (total_norm + 1e-6)
        if coef < 1.0:
            g = {k: v * coef for k, v in g.items()}
        for k in params:
            square_avg[k] = ALPHA * square_avg[k] + (1 - ALPHA) * g[k] ** 2
            params[k] = params[k] - LR * g[k] / (np.sqrt(square_avg[k]) + EPS)
    return params


def run_answer(tx, scale: float) -> dict:
    params = {k: jnp.asarray(v, jnp.float32) for k, v in START.items()}
    state = tx.init(params)

    @jax.jit
    def step(params, state):
        grads = jax.tree.map(lambda c, p: scale * c * p, {k: jnp.asarray(v, jnp.float32) for k, v in CURVATURE.items()}, params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    for _ in range(STEPS):
        params, state = step(params, state)
    return {k: np.asarray(v, np.float64) for k, v in params.items()}


def assert_same_steps(got: dict, want: dict, case: str) -> None:
    for k in want:
        moved = np.max(np.abs(want[k] - START[k]))
        err = np.max(np.abs(got[k] - want[k]))
        assert err < 2e-6, (
            f"{case}: parameter {k!r} is {err:.2e} away from torch RMSprop after {STEPS} steps "
            f"(torch moved it by up to {moved:.2e}); float32 rounding is ~1e-7"
        )


def test_steps_match_torch_rmsprop_below_the_clipping_norm(answer):
    want = torch_reference(scale=1.0)
    got = run_answer(answer.make_optimizer(), scale=1.0)
    assert_same_steps(got, want, "gradients with norm < 40")


def test_steps_match_torch_when_clipping_triggers(answer):
    scale = 200.0  # global gradient norm ~ 840, clipped to 40
    assert np.sqrt(sum(np.sum(v**2) for v in grads_of(START, scale).values())) > 5 * MAX_NORM
    want = torch_reference(scale=scale)
    got = run_answer(answer.make_optimizer(), scale=scale)
    assert_same_steps(got, want, "gradients with norm > 40")


def test_the_optimizer_is_optax_rmsprop(answer):
    tx = answer.make_optimizer()
    state = tx.init({k: jnp.asarray(v, jnp.float32) for k, v in START.items()})
    found = [s for s in jax.tree.leaves(state, is_leaf=lambda s: isinstance(s, optax.ScaleByRmsState))
             if isinstance(s, optax.ScaleByRmsState)]
    assert found, "the optimizer state holds no optax.ScaleByRmsState: use Optax's RMSprop, not a hand-written rule"
