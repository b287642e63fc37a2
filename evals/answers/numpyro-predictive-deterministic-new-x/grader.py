"""Grade `predict.predict`: deterministic sites recomputed at new inputs, whatever their length."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

NUM_DRAWS, NUM_TRAIN = 200, 50


@pytest.fixture(scope="module")
def draws() -> dict[str, np.ndarray]:
    """Posterior draws as MCMC returns them for the model: the line stored at the training inputs."""
    rng = np.random.default_rng(0)
    x_train = rng.normal(size=NUM_TRAIN).astype(np.float32)
    alpha = rng.normal(1.0, 0.05, NUM_DRAWS).astype(np.float32)
    beta = rng.normal(2.0, 0.05, NUM_DRAWS).astype(np.float32)
    sigma = rng.uniform(0.4, 0.6, NUM_DRAWS).astype(np.float32)
    return {"alpha": alpha, "beta": beta, "sigma": sigma, "mean": alpha[:, None] + beta[:, None] * x_train}


def run(answer, draws, x_new: np.ndarray) -> dict[str, np.ndarray]:
    out = answer.predict(jax.random.key(3), {k: jnp.asarray(v) for k, v in draws.items()}, jnp.asarray(x_new))
    return {name: np.asarray(out[name]) for name in ("mean", "obs")}


def check_predictions(out: dict[str, np.ndarray], draws, x_new: np.ndarray) -> None:
    shape = (NUM_DRAWS, x_new.shape[0])
    assert out["mean"].shape == shape and out["obs"].shape == shape, {k: v.shape for k, v in out.items()}
    line = draws["alpha"][:, None] + draws["beta"][:, None] * x_new[None, :]
    np.testing.assert_allclose(out["mean"], line, rtol=1e-5, atol=1e-5,
                               err_msg="'mean' is not alpha + beta * x_new: the stored training line came back")
    z = (out["obs"] - line) / draws["sigma"][:, None]
    assert abs(float(z.mean())) < 0.1 and abs(float(z.std()) - 1.0) < 0.1, (float(z.mean()), float(z.std()))


def test_new_inputs_of_another_length(answer, draws):
    x_new = np.linspace(-2.0, 2.0, 7, dtype=np.float32)
    check_predictions(run(answer, draws, x_new), draws, x_new)


def test_new_inputs_of_the_training_length(answer, draws):
    x_new = np.linspace(-3.0, 3.0, NUM_TRAIN, dtype=np.float32)
    check_predictions(run(answer, draws, x_new), draws, x_new)
