"""Grade `encoder`: a Linear -> BatchNorm1d -> ReLU block ported to NNX keeps PyTorch's statistics.

The reference is torch.nn.BatchNorm1d's documented behaviour in float64 NumPy (eps=1e-5,
momentum=0.1): training mode normalises with the batch mean and the biased batch variance and updates
running = (1 - momentum) * running + momentum * batch_stat, storing the *unbiased* batch variance in
running_var; eval mode normalises with running_mean and running_var.
"""

import math

import jax.numpy as jnp
import numpy as np
from flax import nnx

N_IN, N_HIDDEN, BATCH, STEPS = 6, 4, 8, 5
EPS, MOMENTUM = 1e-5, 0.1


def torch_weights(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "fc.weight": rng.normal(size=(N_HIDDEN, N_IN)) / math.sqrt(N_IN),
        "fc.bias": rng.normal(size=N_HIDDEN),
        "bn.weight": 1.0 + 0.2 * rng.normal(size=N_HIDDEN),
        "bn.bias": 0.2 * rng.normal(size=N_HIDDEN),
    }


def batches(seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.normal(loc=1.0 + 0.5 * i, scale=2.0, size=(BATCH, N_IN))).astype(np.float32).astype(np.float64)
            for i in range(STEPS + 1)]


class TorchBlock:
    """nn.Linear -> nn.BatchNorm1d -> relu, in float64."""

    def __init__(self, w: dict):
        self.w = w
        self.running_mean = np.zeros(N_HIDDEN)
        self.running_var = np.ones(N_HIDDEN)

    def __call__(self, x: np.ndarray, training: bool) -> np.ndarray:
        h = x @ self.w["fc.weight"].T + self.w["fc.bias"]
        if training:
            n = h.shape[0]
            mean, var = h.mean(0), h.var(0)
            self.running_mean = (1 - MOMENTUM) * self.running_mean + MOMENTUM * mean
            self.running_var = (1 - MOMENTUM) * self.running_var + MOMENTUM * var * n / (n - 1)
        else:
            mean, var = self.running_mean, self.running_var
        y = (h - mean) / np.sqrt(var + EPS) * self.w["bn.weight"] + self.w["bn.bias"]
        return np.maximum(y, 0.0)


def ported(answer, w: dict):
    model = answer.EncoderBlock(N_IN, N_HIDDEN, rngs=nnx.Rngs(0))
    model.fc.kernel[...] = jnp.asarray(w["fc.weight"].T, jnp.float32)
    model.fc.bias[...] = jnp.asarray(w["fc.bias"], jnp.float32)
    model.bn.scale[...] = jnp.asarray(w["bn.weight"], jnp.float32)
    model.bn.bias[...] = jnp.asarray(w["bn.bias"], jnp.float32)
    return model


def close(got, want, what: str, tol: float = 2e-5) -> None:
    got = np.asarray(got, np.float64)
    err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))
    assert err < tol, f"{what}: relative error {err:.2e} against torch.nn.BatchNorm1d\n got  {got}\n want {want}"


def run(answer, call) -> tuple:
    """STEPS training calls, then one eval call, on the port (through `call`) and on the torch formula."""
    w, xs = torch_weights(), batches()
    model, torch = ported(answer, w), TorchBlock(w)
    model.train()
    outs = []
    for x in xs[:STEPS]:
        outs.append((np.asarray(call(model, jnp.asarray(x, jnp.float32))), torch(x, training=True)))
    model.eval()
    evaluated = (np.asarray(call(model, jnp.asarray(xs[STEPS], jnp.float32))), torch(xs[STEPS], training=False))
    return model, torch, outs, evaluated


def test_running_mean_follows_torch_momentum(answer):
    model, torch, _, _ = run(answer, lambda m, x: m(x))
    close(model.bn.mean[...], torch.running_mean,
          f"running mean after {STEPS} training batches (torch: 0.9 * running + 0.1 * batch)")


def test_running_var_is_torch_unbiased_average(answer):
    model, torch, _, _ = run(answer, lambda m, x: m(x))
    close(model.bn.var[...], torch.running_var,
          f"running variance after {STEPS} training batches (torch stores the unbiased batch variance)")


def test_training_and_eval_outputs(answer):
    _, _, outs, (got_eval, want_eval) = run(answer, lambda m, x: m(x))
    for i, (got, want) in enumerate(outs):
        close(got, want, f"training-mode output, batch {i}")
    close(got_eval, want_eval, "eval-mode output (normalised with the running statistics)")


def test_same_under_nnx_jit(answer):
    step = nnx.jit(lambda m, x: m(x))
    model, torch, outs, (got_eval, want_eval) = run(answer, step)
    close(model.bn.mean[...], torch.running_mean, "running mean, jitted calls")
    close(model.bn.var[...], torch.running_var, "running variance, jitted calls")
    close(got_eval, want_eval, "eval-mode output, jitted calls")


def test_bn_is_flax_batchnorm(answer):
    model = answer.EncoderBlock(N_IN, N_HIDDEN, rngs=nnx.Rngs(0))
    assert isinstance(model.bn, nnx.BatchNorm), f"bn is {type(model.bn).__name__}, not nnx.BatchNorm"
    assert isinstance(model.fc, nnx.Linear)
    stats = nnx.state(model, nnx.BatchStat)
    assert len(nnx.to_flat_state(stats)) == 2, "the running mean and variance are the model's two BatchStat Variables"
