"""Map draws from NumPyro's unconstrained space (e.g. from BlackJAX) back to
what MCMC(NUTS(model)).get_samples() would report."""
import jax
from numpyro.infer import NUTS


def to_constrained(model, model_args: tuple, unconstrained: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """Constrain D unconstrained draws and add the model's deterministic sites.

    Uses NUTS(model)'s own postprocessing function (the one MCMC applies to its
    raw samples): it runs the model substituted with each draw, maps every latent
    site through biject_to(site support) and records numpyro.deterministic sites.
    Every value in `unconstrained` has a leading draw axis D; so does every output.
    """
    model_kwargs = {}
    kernel = NUTS(model)
    # init() builds the kernel's postprocess function for these model arguments
    # (the rng key only matters for finding an initial point, never for the output)
    kernel.init(jax.random.PRNGKey(0), 0, None, model_args, model_kwargs)
    postprocess = kernel.postprocess_fn(model_args, model_kwargs)
    return jax.vmap(postprocess)(unconstrained)
