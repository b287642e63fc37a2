"""Map unconstrained draws (e.g. from BlackJAX on NumPyro's potential) back to MCMC-style samples.

NumPyro's HMC/NUTS kernel builds, when it is initialised for a model and its arguments, a
*postprocess function*. ``MCMC`` applies it to every stored draw: it pushes each latent site through
the bijection to its support (``biject_to(site.support)``, honouring any reparameterisation handlers
in the model) and replays the model to compute every ``numpyro.deterministic`` site. Using the kernel's
own function guarantees the draws are converted exactly as ``MCMC(NUTS(model)).get_samples()`` would.

Usage with BlackJAX::

    init_params, potential_fn_gen, *_ = initialize_model(key, model, model_args=args, dynamic_args=True)
    logdensity = lambda z: -potential_fn_gen(*args)(z)
    ... run BlackJAX, stack positions into {site: (D, ...)} ...
    samples = to_constrained(model, args, positions)
"""

from __future__ import annotations

import jax
from numpyro.infer import NUTS


def to_constrained(model, model_args: tuple, unconstrained: dict) -> dict:
    """Constrained latent sites + deterministic sites for each of the D unconstrained draws.

    Args:
      model: the NumPyro model.
      model_args: positional arguments of the model (as used to build the potential).
      unconstrained: {latent site name: array with leading axis D} in unconstrained space.

    Returns:
      {site name: array with leading axis D} for every latent site (in its support) and every
      numpyro.deterministic site, as NUTS(model)'s postprocessing computes them.
    """
    model_args = tuple(model_args)
    kernel = NUTS(model)
    # Initialising the kernel for these arguments sets up its postprocess function (it traces the
    # model once to find the sites and their supports; no sampling happens here).
    kernel.init(
        jax.random.PRNGKey(0), num_warmup=0, init_params=None, model_args=model_args, model_kwargs={}
    )
    postprocess = kernel.postprocess_fn(model_args, {})
    # Same per-draw function MCMC applies; vmap it over the leading draw axis.
    return jax.vmap(postprocess)(dict(unconstrained))
