"""Grade `model.mlp_forward`: float32 compute under enable_x64, checked in the compiled HLO."""

import re

import jax
import numpy as np

F64_ALLOWED = {"parameter", "convert", "bitcast", "copy", "tuple", "get-tuple-element"}


def problem(seed: int = 0) -> tuple[dict, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = {
        "w1": rng.normal(size=(8, 16)) / 3,
        "b1": rng.normal(size=16) / 10,
        "w2": rng.normal(size=(16, 4)) / 4,
        "b2": rng.normal(size=4) / 10,
    }
    return params, rng.normal(size=(5, 8))


def numpy_forward(params: dict, x: np.ndarray) -> np.ndarray:
    return np.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]


def f64_computations(hlo: str) -> list[str]:
    """Instructions that produce an f64 value with an op other than passing or converting it."""
    found = []
    for line in hlo.splitlines():
        match = re.search(r"= (f64\[[^\]]*\])\S* ([a-z-]+)\(", line)
        if match and match.group(2) not in F64_ALLOWED:
            found.append(line.strip()[:100])
    return found


def test_values_and_dtype_with_x64_off(answer):
    params, x = problem()
    out = answer.mlp_forward(params, x)
    assert out.dtype == np.float32 and out.shape == (5, 4)
    np.testing.assert_allclose(np.asarray(out), numpy_forward(params, x), rtol=1e-4, atol=1e-5)


def test_float32_output_under_x64(answer):
    params, x = problem(1)
    with jax.enable_x64(True):
        out = jax.jit(answer.mlp_forward)(params, x)
    assert out.dtype == np.float32, f"output is {out.dtype}: the model runs in 64 bits under enable_x64"
    np.testing.assert_allclose(np.asarray(out), numpy_forward(params, x), rtol=1e-4, atol=1e-5)


def test_compiled_program_computes_in_float32_under_x64(answer):
    params, x = problem(2)
    with jax.enable_x64(True):
        hlo = jax.jit(answer.mlp_forward).lower(params, x).compile().as_text()
    found = f64_computations(hlo)
    assert not found, "f64 computations in the compiled forward pass:\n" + "\n".join(found[:5])
