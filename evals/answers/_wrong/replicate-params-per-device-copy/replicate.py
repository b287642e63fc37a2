"""Mid-2025 form: jax.device_put_replicated, removed from JAX since."""

import jax


def replicate(tree, devices: list):
    return jax.device_put_replicated(tree, devices)
