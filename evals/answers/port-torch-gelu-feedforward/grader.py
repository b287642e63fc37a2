"""Grade `feedforward`: a PyTorch Linear -> GELU -> Linear block ported to NNX gives PyTorch's numbers.

The reference is the PyTorch documentation's formula in float64 NumPy: torch.nn.Linear is
y = x W^T + b with W of shape (out, in), torch.nn.GELU() is the exact 0.5 x (1 + erf(x / sqrt 2)).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

D_MODEL, D_FF = 8, 32
ERF = np.vectorize(math.erf)


def torch_gelu(x: np.ndarray) -> np.ndarray:
    """torch.nn.GELU() (approximate='none')."""
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def torch_feedforward(state_dict: dict, x: np.ndarray) -> np.ndarray:
    h = x @ state_dict["fc1.weight"].T + state_dict["fc1.bias"]
    return torch_gelu(h) @ state_dict["fc2.weight"].T + state_dict["fc2.bias"]


def random_state_dict(seed: int, d_model: int = D_MODEL, d_ff: int = D_FF) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "fc1.weight": rng.normal(size=(d_ff, d_model)) / math.sqrt(d_model) * 1.5,
        "fc1.bias": rng.normal(size=d_ff) * 0.5,
        "fc2.weight": rng.normal(size=(d_model, d_ff)) / math.sqrt(d_ff),
        "fc2.bias": rng.normal(size=d_model) * 0.1,
    }


def load(answer, state_dict: dict, d_model: int = D_MODEL, d_ff: int = D_FF):
    model = answer.FeedForward(d_model, d_ff, rngs=nnx.Rngs(0))
    as_f32 = {k: np.asarray(v, np.float32) for k, v in state_dict.items()}
    loaded = answer.load_state_dict(model, as_f32)
    return model if loaded is None else loaded


def test_outputs_match_pytorch_formula(answer):
    state_dict = random_state_dict(0)
    model = load(answer, state_dict)
    x = np.random.default_rng(1).normal(size=(4, 5, D_MODEL)) * 1.5
    got = np.asarray(model(jnp.asarray(x, jnp.float32)), np.float64)
    want = torch_feedforward(state_dict, x.astype(np.float32).astype(np.float64))
    assert got.shape == want.shape
    err = np.max(np.abs(got - want))
    assert err < 2e-5, f"max abs error {err:.2e} against torch's Linear -> GELU -> Linear (float32 rounding is ~1e-6)"


def test_activation_is_exact_gelu(answer):
    """fc1 and fc2 set to the identity: the block is the activation alone, on a grid where tanh GELU is off by 4.7e-4."""
    n = 16
    identity = {"fc1.weight": np.eye(n), "fc1.bias": np.zeros(n), "fc2.weight": np.eye(n), "fc2.bias": np.zeros(n)}
    model = load(answer, identity, n, n)
    grid = np.linspace(-6.0, 6.0, 16 * 125).reshape(-1, n)
    got = np.asarray(model(jnp.asarray(grid, jnp.float32)), np.float64)
    err = np.max(np.abs(got - torch_gelu(grid.astype(np.float32).astype(np.float64))))
    assert err < 2e-6, (
        f"the activation is {err:.1e} off torch.nn.GELU() (exact erf form); the tanh approximation is 4.7e-4 off"
    )


def test_state_dict_lands_in_params(answer):
    state_dict = random_state_dict(2)
    model = load(answer, state_dict)
    params = jax.tree.leaves(nnx.state(model, nnx.Param))
    assert sum(p.size for p in params) == sum(v.size for v in state_dict.values()), "every weight is one nnx.Param"
    assert all(p.dtype == jnp.float32 for p in params)
