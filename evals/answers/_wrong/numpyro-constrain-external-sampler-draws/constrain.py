"""The NUTS kernel's postprocess_fn, called with the numpyro 0.18 keywords args= and kwargs=."""

import jax
from numpyro.infer import NUTS


def to_constrained(model, model_args: tuple, unconstrained: dict) -> dict:
    kernel = NUTS(model)
    # postprocess_fn is the identity until the kernel has been initialised on the model.
    kernel.init(jax.random.key(0), 0, None, model_args=model_args, model_kwargs={})
    postprocess = kernel.postprocess_fn(args=model_args, kwargs={})
    return jax.vmap(postprocess)(unconstrained)
