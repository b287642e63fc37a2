"""Map draws from an external sampler (e.g. BlackJAX) in NumPyro's unconstrained space back to the model.

NUTS/HMC sample in unconstrained space too; what `MCMC.get_samples()` reports is the result of the
kernel's postprocessing function, `kernel.postprocess_fn(model_args, model_kwargs)`, applied to every
draw. That function pushes each latent site through the bijection to its support (exp for a
HalfNormal scale, sigmoid for a Beta probability, and so on, as NumPyro chose them when it built the
potential) and reruns the model with those values substituted to compute the
`numpyro.deterministic` sites. This module calls that same function, so the result is what MCMC would
have reported for the same unconstrained states.

The kernel builds its postprocessing function when it is initialised for a model and its arguments,
so `to_constrained` initialises a NUTS kernel once (no sampling; the key only seeds NumPyro's search
for an initial point and does not affect the result), then maps the function over the D draws with
`jax.lax.map`, as MCMC does over its collected samples.

Pass the same model arguments you used to build the potential function: a site's support can depend
on them (e.g. Uniform(low, high) with data-dependent bounds), and the deterministic sites are
computed from them.

    constrained = to_constrained(model, (x, y), blackjax_positions)
    constrained["sigma"]   # (D,), all > 0
    constrained["mu"]      # a numpyro.deterministic site, (D, ...)
"""

import jax
from numpyro.infer import NUTS


def to_constrained(
    model, model_args: tuple, unconstrained: dict[str, jax.Array], *, model_kwargs: dict | None = None
) -> dict[str, jax.Array]:
    """Constrained latent sites and deterministic sites for D unconstrained draws.

    Args:
        model: the NumPyro model.
        model_args: positional arguments of the model, the ones the potential was built with.
        unconstrained: every latent site name -> D draws in NumPyro's unconstrained space (leading
            axis D), e.g. BlackJAX positions for NumPyro's potential function.
        model_kwargs: keyword arguments of the model, if any.

    Returns:
        Every latent site in its support and every numpyro.deterministic site, each with leading axis
        D, as NUTS(model)'s postprocessing computes them for model(*model_args, **model_kwargs).
    """
    model_args = tuple(model_args)
    model_kwargs = {} if model_kwargs is None else dict(model_kwargs)

    kernel = NUTS(model)
    # init(rng_key, num_warmup, init_params, model_args, model_kwargs): sets up the kernel's
    # potential and postprocessing functions for these arguments. No draws are taken.
    kernel.init(jax.random.key(0), 0, None, model_args, model_kwargs)
    postprocess = kernel.postprocess_fn(model_args, model_kwargs)  # one unconstrained state -> dict

    @jax.jit
    def constrain_all(draws: dict[str, jax.Array]) -> dict[str, jax.Array]:
        return jax.lax.map(postprocess, draws)  # over the leading axis D

    return constrain_all(dict(unconstrained))
