"""Map draws from NumPyro's unconstrained space back to the model's space, as MCMC reports them.

The draws of an external sampler (e.g. BlackJAX on NumPyro's potential function) live in the
unconstrained space of the model's latent sites. NumPyro's own HMC/NUTS kernel holds the function
MCMC applies to every draw before reporting it: `kernel.postprocess_fn(model_args, model_kwargs)`
substitutes the unconstrained values into the model, applies each site's bijection
`biject_to(site.support)` (exp for a HalfNormal scale, sigmoid for a Beta probability, ...) and
records the numpyro.deterministic sites. MCMC vmaps that function over the draws; so does this code.
"""

import jax
from numpyro.infer import NUTS


def to_constrained(model, model_args: tuple, unconstrained: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """Constrain D unconstrained draws and add the deterministic sites of model(*model_args).

    unconstrained: {latent site name: array with leading axis D} in NumPyro's unconstrained space.
    Returns {site name: array with leading axis D} for every latent site (in its support) and every
    numpyro.deterministic site, exactly as NUTS(model)'s postprocessing inside MCMC computes them.
    """
    kernel = NUTS(model)
    # init traces the model once (sites, supports, transforms); the key only picks initial params,
    # which are not used here.
    kernel.init(jax.random.key(0), 0, None, model_args, {})
    postprocess = kernel.postprocess_fn(model_args, {})  # one unconstrained draw -> constrained dict
    return jax.vmap(postprocess)(unconstrained)
