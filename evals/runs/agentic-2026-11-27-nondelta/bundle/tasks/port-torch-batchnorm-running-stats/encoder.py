"""Flax NNX port of the PyTorch EncoderBlock: relu(BatchNorm1d(Linear(x))).

Three PyTorch/Flax differences matter once you keep training the port and compare with PyTorch runs:

1. BatchNorm momentum has the opposite meaning. torch: ``running = (1 - 0.1) * running + 0.1 * batch``;
   nnx.BatchNorm: ``running = momentum * running + (1 - momentum) * batch`` with default 0.99. Torch's
   0.1 is nnx's ``momentum=0.9`` (the default 0.99 would make the statistics move 10x too slowly).
2. torch stores the *unbiased* batch variance (``n / (n - 1)``) in ``running_var`` while normalising
   with the biased one; nnx.BatchNorm stores the biased one. ``TorchBatchNorm1d`` below (a subclass of
   nnx.BatchNorm, so ``bn.scale``/``bn.bias``/``bn.mean``/``bn.var`` are the usual Variables) does the
   training-mode step exactly as torch: biased, two-pass batch variance to normalise, unbiased one
   accumulated. Eval mode is nnx.BatchNorm's own ``use_running_average=True`` path, which already
   equals torch's eval mode. Epsilon agrees (1e-5).
3. Initialisers: torch draws Linear weights *and biases* from U(-1/sqrt(fan_in), 1/sqrt(fan_in));
   nnx.Linear uses lecun_normal (sqrt(3) times wider) and zero biases. The port uses torch's.

Layout: ``fc.kernel`` is torch's ``fc.weight.T`` (in, out). ``load_torch_state_dict`` copies a torch
state dict into the module. ``model.train()`` / ``model.eval()`` switch modes like torch's.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import nnx

TORCH_BN_MOMENTUM = 0.1  # torch.nn.BatchNorm1d default
TORCH_BN_EPS = 1e-5


class TorchBatchNorm1d(nnx.BatchNorm):
    """nnx.BatchNorm with torch.nn.BatchNorm1d semantics (momentum 0.1, unbiased running_var)."""

    def __init__(self, num_features: int, *, rngs: nnx.Rngs):
        super().__init__(
            num_features,
            momentum=1.0 - TORCH_BN_MOMENTUM,  # nnx convention: weight of the old running value
            epsilon=TORCH_BN_EPS,
            rngs=rngs,
        )

    def __call__(self, x: jax.Array, use_running_average: bool | None = None, *, mask=None) -> jax.Array:
        if mask is not None:
            raise NotImplementedError("masking is not part of torch.nn.BatchNorm1d")
        if use_running_average is None:
            use_running_average = self.use_running_average
        if use_running_average:
            # Eval: (x - running_mean) / sqrt(running_var + eps) * weight + bias, as torch.
            return super().__call__(x, use_running_average=True)

        # Training mode: normalise with the batch statistics over all axes but the feature axis.
        axes = tuple(range(x.ndim - 1))
        n = math.prod(x.shape[:-1])
        if n < 2:
            # torch raises "Expected more than 1 value per channel when training" here too.
            raise ValueError(f"TorchBatchNorm1d in training mode needs more than 1 value per channel, got {n}")
        mean = jnp.mean(x, axis=axes)
        var = jnp.mean(jnp.square(x - mean), axis=axes)  # biased, two-pass (as torch)
        y = (x - mean) * jax.lax.rsqrt(var + self.epsilon)
        y = y * self.scale[...] + self.bias[...]

        # Running statistics: torch's update, unbiased variance accumulated; no gradient flows here.
        m = self.momentum  # = 1 - torch momentum
        batch_mean = jax.lax.stop_gradient(mean)
        batch_var_unbiased = jax.lax.stop_gradient(var) * (n / (n - 1))
        self.mean[...] = m * self.mean[...] + (1.0 - m) * batch_mean
        self.var[...] = m * self.var[...] + (1.0 - m) * batch_var_unbiased
        return y


def _torch_linear_bias_init(fan_in: int):
    bound = 1.0 / math.sqrt(fan_in)

    def init(key, shape, dtype=jnp.float32):
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return init


class EncoderBlock(nnx.Module):
    """relu(bn(fc(x))), behaving like the PyTorch block in train and eval mode."""

    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        self.fc = nnx.Linear(
            n_input,
            n_hidden,
            kernel_init=nnx.initializers.variance_scaling(1 / 3, "fan_in", "uniform"),  # torch's U(±1/sqrt(fan_in))
            bias_init=_torch_linear_bias_init(n_input),
            rngs=rngs,
        )
        self.bn = TorchBatchNorm1d(n_hidden, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return jax.nn.relu(self.bn(self.fc(x)))


def load_torch_state_dict(model: EncoderBlock, state_dict) -> None:
    """Copy a torch EncoderBlock ``state_dict()`` (tensors or arrays) into ``model``."""

    def arr(name):
        v = state_dict[name]
        v = v.detach().cpu().numpy() if hasattr(v, "detach") else v
        return jnp.asarray(v, jnp.float32)

    model.fc.kernel[...] = arr("fc.weight").T  # torch (out, in) -> nnx (in, out)
    model.fc.bias[...] = arr("fc.bias")
    model.bn.scale[...] = arr("bn.weight")
    model.bn.bias[...] = arr("bn.bias")
    model.bn.mean[...] = arr("bn.running_mean")
    model.bn.var[...] = arr("bn.running_var")


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n_in, n_hid, batch = 6, 5, 8

    # NumPy float64 reference of the torch block (train mode updates the running stats in place).
    class RefBlock:
        def __init__(self, W, b, g, beta):
            self.W, self.b, self.g, self.beta = W, b, g, beta
            self.rm, self.rv, self.training = np.zeros(n_hid), np.ones(n_hid), True

        def __call__(self, x):
            h = x @ self.W.T + self.b
            if self.training:
                n = h.shape[0]
                mu, var = h.mean(0), h.var(0)
                self.rm = 0.9 * self.rm + 0.1 * mu
                self.rv = 0.9 * self.rv + 0.1 * var * n / (n - 1)
            else:
                mu, var = self.rm, self.rv
            return np.maximum((h - mu) / np.sqrt(var + 1e-5) * self.g + self.beta, 0.0)

    W, b = rng.normal(size=(n_hid, n_in)), rng.normal(size=n_hid)
    g, beta = rng.normal(size=n_hid) + 1, rng.normal(size=n_hid)
    ref = RefBlock(W, b, g, beta)
    model = EncoderBlock(n_in, n_hid, rngs=nnx.Rngs(0))
    load_torch_state_dict(model, {"fc.weight": W, "fc.bias": b, "bn.weight": g, "bn.bias": beta,
                                  "bn.running_mean": np.zeros(n_hid), "bn.running_var": np.ones(n_hid)})
    assert model.fc.kernel.shape == (n_in, n_hid) and isinstance(model.bn, nnx.BatchNorm)

    def maxdiff(a, c):
        return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(c, np.float64))))

    @nnx.jit
    def forward(m, x):
        return m(x)

    model.train()
    for step in range(5):  # several training-mode batches: output and running stats track torch's
        xb = rng.normal(loc=3.0, scale=2.0, size=(batch, n_in))
        out = forward(model, jnp.asarray(xb, jnp.float32))
        expected = ref(xb)
        assert out.shape == (batch, n_hid)
        assert maxdiff(out, expected) < 1e-4, maxdiff(out, expected)
        assert maxdiff(model.bn.mean[...], ref.rm) < 1e-4 and maxdiff(model.bn.var[...], ref.rv) < 1e-4
    print("train mode: output, running_mean, running_var match torch over 5 batches "
          f"(max diff {maxdiff(model.bn.var[...], ref.rv):.1e})")

    model.eval()
    ref.training = False
    xe = rng.normal(loc=3.0, scale=2.0, size=(3, n_in))
    mean_before = np.asarray(model.bn.mean[...]).copy()
    out = forward(model, jnp.asarray(xe, jnp.float32))
    assert maxdiff(out, ref(xe)) < 1e-4
    assert np.array_equal(mean_before, np.asarray(model.bn.mean[...]))  # eval does not update
    print(f"eval mode matches torch (max diff {maxdiff(out, ref(xe)):.1e}); running stats untouched")

    # Gradients flow through the batch statistics in train mode, as in torch.
    model.train()
    grads = nnx.grad(lambda m, x: jnp.sum(m(x) ** 2))(model, jnp.asarray(xb, jnp.float32))
    assert set(nnx.to_pure_dict(grads)) == {"fc", "bn"}

    # Fresh init follows torch's Linear init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias.
    big = EncoderBlock(512, 256, rngs=nnx.Rngs(1))
    bound = 1 / math.sqrt(512)
    assert float(jnp.abs(big.fc.kernel[...]).max()) <= bound and float(jnp.abs(big.fc.bias[...]).max()) <= bound
    assert abs(float(big.fc.kernel[...].std()) * math.sqrt(3) / bound - 1) < 0.02
    print("init matches torch's Linear distribution")
