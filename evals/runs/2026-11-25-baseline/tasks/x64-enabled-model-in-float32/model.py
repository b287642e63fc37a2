"""MLP forward pass that computes in float32 even when jax_enable_x64 is on.

With x64 enabled, JAX keeps NumPy's float64 arrays as float64, and everything computed from them
is float64 too. Casting the parameters and the input to float32 at the entry of the model makes
every matmul, add and tanh run in float32 (Python scalars are weakly typed and do not promote it
back), while the rest of the program, e.g. the solver, keeps float64. x64 stays on.
"""

import jax
import jax.numpy as jnp

_COMPUTE_DTYPE = jnp.float32


def _to_f32(a):
    return jnp.asarray(a, dtype=_COMPUTE_DTYPE)


def mlp_forward(params: dict, x) -> jax.Array:
    """tanh(x @ w1 + b1) @ w2 + b2, computed and returned in float32 (shape (n, k))."""
    p = {name: _to_f32(params[name]) for name in ("w1", "b1", "w2", "b2")}
    x = _to_f32(x)
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return h @ p["w2"] + p["b2"]


if __name__ == "__main__":
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.normal(size=(4, 8)), "b1": rng.normal(size=8),
        "w2": rng.normal(size=(8, 2)), "b2": rng.normal(size=2),
    }
    x = rng.normal(size=(5, 4))
    print(mlp_forward(params, x).dtype, jax.jit(mlp_forward)(params, x).dtype)  # float32 float32
    print(jax.make_jaxpr(mlp_forward)(params, x))  # float64 only at the converts of the inputs
