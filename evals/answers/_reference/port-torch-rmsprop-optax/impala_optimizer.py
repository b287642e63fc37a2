"""clip_grad_norm_(40) + torch.optim.RMSprop(lr=6e-4, alpha=0.99, eps=0.01) in Optax.

torch adds eps outside the square root, sqrt(v) + eps; optax.rmsprop adds it inside by default
(eps_in_sqrt=True), which with eps=0.01 changes every step. initial_scale=0 (the default) is torch's
zero-initialised square average, and decay is torch's alpha.
"""

import optax


def make_optimizer() -> optax.GradientTransformation:
    return optax.chain(
        optax.clip_by_global_norm(40.0),
        optax.rmsprop(learning_rate=0.0006, decay=0.99, eps=0.01, eps_in_sqrt=False),
    )
