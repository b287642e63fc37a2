"""Grade `ppc.replicated_data`: simulated data sets from the posterior draws, not copies of the data."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

NUM_DRAWS, NUM_POINTS = 400, 100


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    """Posterior draws near alpha=1, beta=2, sigma=0.5, and data from those values."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=NUM_POINTS).astype(np.float32)
    y = (1.0 + 2.0 * x + 0.5 * rng.normal(size=NUM_POINTS)).astype(np.float32)
    draws = {
        "alpha": rng.normal(1.0, 0.05, NUM_DRAWS).astype(np.float32),
        "beta": rng.normal(2.0, 0.05, NUM_DRAWS).astype(np.float32),
        "sigma": rng.uniform(0.4, 0.6, NUM_DRAWS).astype(np.float32),
    }
    return {"x": x, "y": y, **draws}


def replicate(answer, data, seed: int) -> np.ndarray:
    draws = {name: jnp.asarray(data[name]) for name in ("alpha", "beta", "sigma")}
    out = answer.replicated_data(jax.random.key(seed), draws, jnp.asarray(data["x"]), jnp.asarray(data["y"]))
    return np.asarray(out)


def test_one_data_set_per_draw(answer, data):
    assert replicate(answer, data, 1).shape == (NUM_DRAWS, NUM_POINTS)


def test_replicates_are_simulated_not_the_data(answer, data):
    replicated = replicate(answer, data, 1)
    same = float(np.mean(replicated == data["y"][None, :]))
    assert same < 0.01, f"{same:.0%} of the replicated values equal the observed y: the data came back, not a simulation"


def test_each_replicate_comes_from_its_own_draw(answer, data):
    replicated = replicate(answer, data, 1)
    line = data["alpha"][:, None] + data["beta"][:, None] * data["x"][None, :]
    z = (replicated - line) / data["sigma"][:, None]
    assert abs(float(z.mean())) < 0.05, f"standardised residual mean {z.mean():.3f}, want 0"
    assert abs(float(z.std()) - 1.0) < 0.05, f"standardised residual sd {z.std():.3f}, want 1"


def test_another_key_gives_other_data(answer, data):
    assert not np.array_equal(replicate(answer, data, 1), replicate(answer, data, 2))
