"""Map draws from an external sampler (e.g. BlackJAX) back to NumPyro's constrained space.

NumPyro's HMC/NUTS work in unconstrained space and convert every kept draw with the
``postprocess_fn`` that ``numpyro.infer.util.initialize_model`` builds for the model and its
arguments. That function (``constrain_fn(model, args, kwargs, params, return_deterministic=True)``
under the hood) pushes each latent site through the bijection to its support (``exp`` for a
HalfNormal scale, a sigmoid for a Beta probability, stick-breaking for a simplex, ...) and replays the
model with those values substituted, so every ``numpyro.deterministic`` site is recomputed too. MCMC
applies it one draw at a time with ``lax.map``; this module does the same, so the result is what
``MCMC(NUTS(model)).get_samples()`` would hold for the same unconstrained draws.

Typical use with BlackJAX::

    info = initialize_model(jax.random.key(0), model, model_args=args)
    logdensity = lambda z: -info.potential_fn(z)        # the unconstrained log density
    # ... run BlackJAX NUTS on `logdensity` from info.param_info.z, collect states.position ...
    samples = to_constrained(model, args, positions)   # positions: {site: (D, ...)} unconstrained

The same ``initialize_model`` call gives both the potential the sampler needs and, here, the
postprocessing, so the two always agree on the transforms.
"""

from __future__ import annotations

import jax
from jax import lax
from numpyro.infer.util import initialize_model


def to_constrained(model, model_args: tuple, unconstrained: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """Constrain ``D`` unconstrained draws per latent site and add the deterministic sites.

    Args:
        model: the NumPyro model.
        model_args: positional arguments of the model (the same ones the potential was built with).
        unconstrained: ``{latent site name: array with leading axis D}`` in unconstrained space.

    Returns:
        ``{site name: array with leading axis D}``: every latent site in its support and every
        ``numpyro.deterministic`` site, as NUTS's postprocessing computes them for ``model(*model_args)``.
    """
    # The key only seeds the search for an initial point; the postprocessing does not depend on it.
    model_info = initialize_model(jax.random.key(0), model, model_args=tuple(model_args))
    postprocess_fn = model_info.postprocess_fn  # one draw: {site: unconstrained} -> {site: constrained, det...}

    @jax.jit
    def constrain_all(draws: dict[str, jax.Array]) -> dict[str, jax.Array]:
        # One draw at a time, as MCMC does after sampling.
        return lax.map(postprocess_fn, draws)

    return constrain_all(unconstrained)
