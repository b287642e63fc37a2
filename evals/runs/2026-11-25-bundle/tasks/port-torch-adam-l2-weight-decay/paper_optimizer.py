"""torch.optim.Adam(params, lr=lr, weight_decay=wd) as an Optax optimizer.

PyTorch's Adam implements weight decay as an L2 penalty added to the GRADIENT before the Adam
moments (g <- g + wd * p), so the decay is then rescaled by Adam like the rest of the gradient. That is
not AdamW: `optax.adamw(lr, weight_decay=wd)` decays the weights directly (decoupled), a different
algorithm that gives different training runs. The exact port is

    optax.chain(optax.add_decayed_weights(wd), optax.adam(lr))

`add_decayed_weights` turns the gradient into g + wd * p (it reads the parameters, so pass them:
tx.update(grads, state, params)), and `optax.adam` then applies PyTorch's Adam rule with PyTorch's
other defaults: betas (0.9, 0.999), eps=1e-8 added outside the square root (eps_root=0), bias
correction on both moments, no AMSGrad, no Nesterov. Like `model.parameters()`, the decay applies to
every parameter, biases and normalisation scales included.
"""

import optax


def make_optimizer(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    """Optax equivalent of torch.optim.Adam(lr=learning_rate, weight_decay=weight_decay)."""
    return optax.chain(
        optax.add_decayed_weights(weight_decay),  # L2: g + wd * p, before the moments (coupled)
        optax.adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0),  # torch defaults
    )


# The paper's settings: make_optimizer(1e-3, 1e-4)
