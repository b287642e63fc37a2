# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "numpyro==0.22.0", "optax==0.2.8"]
# ///
"""Bayesian linear regression with NumPyro: NUTS with several chains and SVI on the same model.

What it shows:
- a NumPyro model with `numpyro.sample`, `numpyro.plate` and observed data;
- NUTS with several chains, run in parallel on CPU devices (8 virtual CPU devices via XLA_FLAGS, set
  before JAX is imported), with R-hat and effective sample size per parameter;
- SVI with an `AutoNormal` guide, `Trace_ELBO` and an Optax optimizer on the same model;
- both recover the true parameters of synthetic data: every posterior mean (NUTS) and median (SVI) is
  asserted to lie within TOLERANCE of the truth, R-hat below 1.05 and ESS above 100.

Run it from any directory (the paths below are relative to the folder that holds `examples/`):

    python examples/numpyro_inference.py
    python examples/numpyro_inference.py --num-chains 8 --num-samples 1000 --svi-steps 5000
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import time  # noqa: E402

from _report import print_results, requirements_of  # noqa: E402

with requirements_of(__file__):  # a missing package ends the run with one line: what to pip install
    import jax
    import jax.numpy as jnp
    import numpy as np
    import numpyro
    import numpyro.distributions as dist
    import optax
    from numpyro.diagnostics import effective_sample_size, split_gelman_rubin
    from numpyro.infer import MCMC, NUTS, SVI, Trace_ELBO
    from numpyro.infer.autoguide import AutoNormal

TRUE_WEIGHTS = (1.5, -2.0, 0.5)
TRUE_BIAS = 0.7
TRUE_SIGMA = 0.5
NUM_POINTS = 200
TOLERANCE = 0.15  # absolute; the posterior sd of each coefficient is about 0.035 with 200 points
MAX_R_HAT = 1.05
MIN_ESS = 100


def regression(features: jax.Array, y: jax.Array | None = None) -> None:
    """y ~ Normal(features @ w + b, sigma) with weakly informative priors."""
    num_features = features.shape[1]
    w = numpyro.sample("w", dist.Normal(0.0, 5.0).expand([num_features]).to_event(1))
    b = numpyro.sample("b", dist.Normal(0.0, 5.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(2.0))
    with numpyro.plate("data", features.shape[0]):
        numpyro.sample("obs", dist.Normal(features @ w + b, sigma), obs=y)


def synthetic_data(seed: int) -> tuple[jax.Array, jax.Array]:
    """NUM_POINTS draws from the model at the true parameters."""
    kx, knoise = jax.random.split(jax.random.key(seed))
    features = jax.random.normal(kx, (NUM_POINTS, len(TRUE_WEIGHTS)))
    noise = TRUE_SIGMA * jax.random.normal(knoise, (NUM_POINTS,))
    return features, features @ jnp.array(TRUE_WEIGHTS) + TRUE_BIAS + noise


def truth() -> dict[str, float]:
    """Scalar name -> true value, named as in `flat_draws`."""
    values = {f"w[{i}]": w for i, w in enumerate(TRUE_WEIGHTS)}
    return {**values, "b": TRUE_BIAS, "sigma": TRUE_SIGMA}


def flat_draws(samples: dict[str, jax.Array], leading_dims: int) -> dict[str, np.ndarray]:
    """Split vector sites into scalars: {'w': (..., 3)} -> {'w[0]': (...), 'w[1]': ..., ...}."""
    out = {}
    for name, value in samples.items():
        value = np.asarray(value)
        if value.ndim == leading_dims:
            out[name] = value
        else:
            for i in range(value.shape[-1]):
                out[f"{name}[{i}]"] = value[..., i]
    return out


def run_nuts(features, y, args: argparse.Namespace) -> tuple[dict[str, np.ndarray], MCMC, float]:
    """NUTS draws grouped by chain, the MCMC object, and the wall time including compilation."""
    chain_method = "parallel" if args.num_chains <= jax.local_device_count() else "sequential"
    mcmc = MCMC(
        NUTS(regression), num_warmup=args.num_warmup, num_samples=args.num_samples,
        num_chains=args.num_chains, chain_method=chain_method, progress_bar=False,
    )
    start = time.perf_counter()
    mcmc.run(jax.random.key(args.seed + 1), features, y, extra_fields=("diverging",))
    by_chain = flat_draws(mcmc.get_samples(group_by_chain=True), leading_dims=2)
    jax.block_until_ready(by_chain)
    return by_chain, mcmc, time.perf_counter() - start


def run_svi(features, y, args: argparse.Namespace) -> tuple[dict[str, np.ndarray], np.ndarray, float]:
    """Draws from the fitted AutoNormal guide, the loss curve, and the wall time including compilation."""
    guide = AutoNormal(regression)
    svi = SVI(regression, guide, optax.adam(0.02), loss=Trace_ELBO())
    start = time.perf_counter()
    result = svi.run(jax.random.key(args.seed + 2), args.svi_steps, features, y, progress_bar=False)
    draws = guide.sample_posterior(jax.random.key(args.seed + 3), result.params, sample_shape=(2000,))
    draws = flat_draws(draws, leading_dims=1)
    return draws, np.asarray(result.losses), time.perf_counter() - start


def check(nuts: dict[str, np.ndarray], svi: dict[str, np.ndarray], losses: np.ndarray, divergences: int) -> None:
    """Assert the claims of the docstring."""
    for name, value in truth().items():
        nuts_mean = float(nuts[name].mean())
        svi_median = float(np.median(svi[name]))
        assert abs(nuts_mean - value) < TOLERANCE, f"NUTS mean of {name} = {nuts_mean:.3f}, true {value}"
        assert abs(svi_median - value) < TOLERANCE, f"SVI median of {name} = {svi_median:.3f}, true {value}"
        r_hat = float(split_gelman_rubin(nuts[name]))
        ess = float(effective_sample_size(nuts[name]))
        assert r_hat < MAX_R_HAT, f"R-hat of {name} = {r_hat:.3f}"
        assert ess > MIN_ESS, f"ESS of {name} = {ess:.0f}"
    window = max(1, len(losses) // 10)
    assert losses[-window:].mean() < losses[:window].mean(), "the ELBO loss did not decrease"
    assert divergences == 0, f"{divergences} divergent transitions"


def parse_args() -> argparse.Namespace:
    """Command-line flags, with one-line errors for values that cannot work."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-warmup", type=int, default=300, help="NUTS warmup steps per chain (default 300)")
    parser.add_argument("--num-samples", type=int, default=300, help="NUTS draws kept per chain (default 300)")
    parser.add_argument("--num-chains", type=int, default=4, help="NUTS chains, at least 2 for R-hat (default 4)")
    parser.add_argument("--svi-steps", type=int, default=2000, help="SVI optimisation steps (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and the samplers (default 0)")
    args = parser.parse_args()
    if args.num_chains < 2:
        parser.error("--num-chains must be at least 2: R-hat compares chains")
    if min(args.num_warmup, args.num_samples, args.svi_steps) < 1:
        parser.error("--num-warmup, --num-samples and --svi-steps must be positive")
    return args


def main() -> None:
    """Fit the model both ways, check the claims, print the tables."""
    args = parse_args()
    features, y = synthetic_data(args.seed)
    nuts, mcmc, nuts_seconds = run_nuts(features, y, args)
    divergences = int(mcmc.get_extra_fields()["diverging"].sum())
    svi, losses, svi_seconds = run_svi(features, y, args)
    check(nuts, svi, losses, divergences)

    rows = []
    for name, value in truth().items():
        rows.append([
            name, value,
            f"{nuts[name].mean():.3f} +- {nuts[name].std():.3f}",
            f"{float(split_gelman_rubin(nuts[name])):.3f}",
            f"{float(effective_sample_size(nuts[name])):.0f}",
            f"{np.median(svi[name]):.3f} +- {svi[name].std():.3f}",
        ])
    print_results(
        f"Bayesian linear regression, {NUM_POINTS} points: NUTS ({args.num_chains} chains, "
        f"{mcmc.chain_method}) vs SVI (AutoNormal); tolerance {TOLERANCE}",
        ["parameter", "true", "NUTS mean +- sd", "R-hat", "ESS", "SVI median +- sd"],
        rows,
    )
    print_results(
        "Cost (wall time includes compilation)",
        ["method", "settings", "wall time (s)"],
        [
            ["NUTS", f"{args.num_chains} x ({args.num_warmup} warmup + {args.num_samples} draws), "
                     f"{divergences} divergences", nuts_seconds],
            ["SVI", f"{args.svi_steps} steps, final loss {losses[-1]:.1f}", svi_seconds],
        ],
    )


if __name__ == "__main__":
    main()
