"""torch.optim.Adam(lr, weight_decay=wd) in Optax: an L2 term added to the gradient, then Adam.

PyTorch's Adam adds wd * p to the gradient before the moment estimates (L2 regularisation); that is
not AdamW's decoupled decay, so optax.adamw would be a different algorithm.
"""

import optax


def make_optimizer(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    return optax.chain(
        optax.add_decayed_weights(weight_decay),  # g + wd * p, as torch.optim.Adam does
        optax.adam(learning_rate),  # b1=0.9, b2=0.999, eps=1e-8 outside the sqrt: torch's defaults
    )
