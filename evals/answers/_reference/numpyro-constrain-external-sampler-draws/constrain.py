"""Map unconstrained draws to the model's constrained space, deterministic sites included."""

import jax
from numpyro.infer import NUTS


def to_constrained(model, model_args: tuple, unconstrained: dict) -> dict:
    kernel = NUTS(model)
    # postprocess_fn is the identity until the kernel has been initialised on the model.
    kernel.init(jax.random.key(0), 0, None, model_args=model_args, model_kwargs={})
    postprocess = kernel.postprocess_fn(model_args=model_args, model_kwargs={})
    return jax.vmap(postprocess)(unconstrained)
