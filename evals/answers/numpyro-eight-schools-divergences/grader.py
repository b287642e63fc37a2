"""Grade `schools.model`: NUTS samples it without divergences and with converged chains."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.diagnostics import split_gelman_rubin
from numpyro.infer import MCMC, NUTS

EFFECTS = jnp.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMAS = jnp.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
SEEDS = (1, 3)
CHAINS, WARMUP, DRAWS = 4, 300, 300


@pytest.fixture(scope="module")
def runs(answer) -> list[MCMC]:
    """The answer's model under NUTS with default settings, one run per seed, chains on 4 devices."""
    done = []
    for seed in SEEDS:
        mcmc = MCMC(NUTS(answer.model), num_warmup=WARMUP, num_samples=DRAWS, num_chains=CHAINS, progress_bar=False)
        mcmc.run(jax.random.key(seed), SIGMAS, EFFECTS, extra_fields=("diverging",))
        done.append(mcmc)
    return done


def test_theta_is_in_the_posterior_samples(runs):
    samples = runs[0].get_samples(group_by_chain=True)
    assert {"mu", "tau", "theta"} <= set(samples), sorted(samples)
    assert samples["theta"].shape == (CHAINS, DRAWS, 8)


def test_no_divergent_transitions(runs):
    counts = [int(mcmc.get_extra_fields()["diverging"].sum()) for mcmc in runs]
    assert sum(counts) <= 3, f"divergent transitions per run (seeds {SEEDS}): {counts}"


def test_chains_converge(runs):
    for seed, mcmc in zip(SEEDS, runs):
        samples = mcmc.get_samples(group_by_chain=True)
        r_hat = {name: float(np.max(split_gelman_rubin(np.asarray(samples[name])))) for name in ("mu", "tau", "theta")}
        assert max(r_hat.values()) < 1.05, f"seed {seed}: split R-hat {r_hat}"


def test_the_posterior_is_the_eight_schools_posterior(runs):
    samples = runs[0].get_samples()
    mu, tau = float(samples["mu"].mean()), float(samples["tau"].mean())
    assert 3.4 < mu < 5.4, f"posterior mean of mu {mu:.2f}: other priors or data?"
    assert 2.8 < tau < 5.0, f"posterior mean of tau {tau:.2f}: other priors or data?"
