# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Three XLA effects, each measured with an exact count instead of a stopwatch.

(a) Recompilation. A jitted function compiles once per input signature. Calling it on many batch
    lengths, or marking a per-call value static, compiles it again and again. The compilations are
    counted with a `jax.monitoring` listener; padding to power-of-two buckets (with a mask) and
    tracing the value instead of making it static bring the count down, with the same results.
(b) Fusion. An elementwise chain compiles to one fused loop. The same lowered program compiled with
    XLA's fusion pass disabled runs one loop per computing operation (7 here); the table shows the
    loops in the optimized HLO's ENTRY computation and the bytes accessed according to
    `cost_analysis()`.
(c) Donation. With `donate_argnames="params"`, XLA writes the updated parameters into the old
    parameters' buffers: `memory_analysis()` shows the aliased bytes and the lower peak.

Run it from any directory (the paths below are relative to the folder that holds `examples/`)
(about 25 s wall, 5.5 s of CPU time, on 2 busy shared cores):

    python examples/xla_optimization.py
    python examples/xla_optimization.py --lengths 20 --size 65536 --param-size 1024

See references/advanced_optimization.md for the APIs used here.
"""

from __future__ import annotations

import argparse
import contextlib
import re
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@contextlib.contextmanager
def count_compiles() -> Iterator[list[str]]:
    """Collect the name (e.g. 'jit(f)') of every XLA compilation inside the with-block."""
    names: list[str] = []

    def listener(event: str, duration_secs: float, **kwargs: object) -> None:
        if event == BACKEND_COMPILE_EVENT:
            names.append(str(kwargs["fun_name"]))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield names
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def compilations(fn: Callable[..., object], calls: list[tuple]) -> int:
    """How many times XLA compiles the jitted `fn` while it is called once per argument tuple."""
    jitted_name = f"jit({fn.__name__})"
    with count_compiles() as names:
        for args in calls:
            jax.block_until_ready(fn(*args))
    return names.count(jitted_name)


# (a) Recompilation ---------------------------------------------------------------------------------


@jax.jit
def normalize(v: jax.Array) -> jax.Array:
    return (v - v.mean()) / (v.std() + 1e-6)


@jax.jit
def masked_normalize(v: jax.Array, mask: jax.Array) -> jax.Array:
    """`normalize` over the entries where `mask` is True; zeros elsewhere."""
    count = mask.sum()
    mean = jnp.where(mask, v, 0.0).sum() / count
    std = jnp.sqrt(jnp.where(mask, (v - mean) ** 2, 0.0).sum() / count)
    return jnp.where(mask, (v - mean) / (std + 1e-6), 0.0)


def bucket_length(n: int, smallest: int = 8) -> int:
    """Next power of two >= n (at least `smallest`)."""
    return max(smallest, 1 << (n - 1).bit_length())


def pad_to_bucket(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    size = bucket_length(len(v))
    padded = np.zeros(size, v.dtype)
    padded[: len(v)] = v
    return padded, np.arange(size) < len(v)


def softmax_static(logits: jax.Array, temperature: float) -> jax.Array:
    return jax.nn.softmax(logits / temperature)


def softmax_traced(logits: jax.Array, temperature: float) -> jax.Array:
    return jax.nn.softmax(logits / temperature)


def recompilation_rows(num_lengths: int) -> list[list[object]]:
    rng = np.random.default_rng(0)
    batches = [rng.normal(size=n).astype(np.float32) for n in range(5, 5 + num_lengths)]
    per_length = compilations(normalize, [(b,) for b in batches])
    padded = [pad_to_bucket(b) for b in batches]
    bucketed = compilations(masked_normalize, padded)
    buckets = len({bucket_length(len(b)) for b in batches})
    assert per_length == num_lengths, f"expected one compilation per length, got {per_length}"
    assert bucketed == buckets < per_length, f"expected {buckets} compilations, got {bucketed}"
    for b, (v, mask) in zip(batches, padded):
        np.testing.assert_allclose(masked_normalize(v, mask)[: len(b)], normalize(b), rtol=1e-5, atol=1e-5)

    logits = jnp.asarray(rng.normal(size=16).astype(np.float32))
    temperatures = [0.5 + 0.1 * i for i in range(num_lengths)]
    static = jax.jit(softmax_static, static_argnames="temperature")
    traced = jax.jit(softmax_traced)
    static_count = compilations(static, [(logits, t) for t in temperatures])
    traced_count = compilations(traced, [(logits, t) for t in temperatures])
    assert static_count == num_lengths and traced_count == 1, (static_count, traced_count)
    np.testing.assert_allclose(static(logits, temperatures[-1]), traced(logits, temperatures[-1]), rtol=1e-6)
    return [
        ["(a) batch lengths", f"{num_lengths} lengths, one program each", per_length,
         f"padded to {buckets} buckets", bucketed, "compilations"],
        ["(a) temperature", f"static, {num_lengths} values", static_count, "traced", traced_count,
         "compilations"],
    ]


# (b) Fusion ------------------------------------------------------------------------------------------


def elementwise_chain(x: jax.Array) -> jax.Array:
    return jnp.exp(jnp.sin(x) * 2.0 + 1.0) - x


def entry_opcodes(hlo_text: str) -> list[str]:
    """Opcodes of the instructions in the ENTRY computation of an HLO module's text."""
    entry = re.search(r"^ENTRY .*?^}", hlo_text, flags=re.S | re.M)
    if entry is None:
        raise ValueError("no ENTRY computation in the HLO text")
    return re.findall(r"=\s*\S+\s+([\w-]+)\(", entry.group(0))


def fusion_rows(size: int) -> list[list[object]]:
    x = jnp.ones(size, dtype=jnp.float32)
    lowered = jax.jit(elementwise_chain).lower(x)
    fused = lowered.compile()
    unfused = lowered.compile(compiler_options={"xla_disable_hlo_passes": "fusion"})
    unoptimized = entry_opcodes(lowered.as_text(dialect="hlo"))
    computing_ops = [op for op in unoptimized if op not in ("parameter", "constant")]
    fused_loops = entry_opcodes(fused.as_text()).count("fusion")
    unfused_loops = entry_opcodes(unfused.as_text()).count("fusion")
    fused_bytes = fused.cost_analysis()["bytes accessed"]
    unfused_bytes = unfused.cost_analysis()["bytes accessed"]
    assert fused_loops == 1, f"expected one fused loop, got {fused_loops}"
    assert unfused_loops == len(computing_ops), (  # without the pass: one loop per computing op
        f"expected {len(computing_ops)} loops without fusion ({computing_ops}), got {unfused_loops}")
    assert fused_bytes == 2 * x.nbytes < unfused_bytes, (fused_bytes, unfused_bytes)
    np.testing.assert_allclose(fused(x), unfused(x), rtol=1e-6)
    return [
        ["(b) elementwise chain", f"fusion pass off ({len(unoptimized)} HLO ops before XLA)", unfused_loops,
         "default XLA", fused_loops, "loops in ENTRY"],
        ["(b) elementwise chain", "fusion pass off", int(unfused_bytes), "default XLA", int(fused_bytes),
         "bytes accessed"],
    ]


# (c) Donation ----------------------------------------------------------------------------------------


def sgd_update(params: dict[str, jax.Array], grads: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


def donation_rows(param_size: int) -> list[list[object]]:
    params = {"w": jnp.ones((param_size, param_size)), "b": jnp.ones(param_size)}
    grads = jax.tree.map(jnp.ones_like, params)
    plain = jax.jit(sgd_update).lower(params, grads).compile().memory_analysis()
    donated = jax.jit(sgd_update, donate_argnames="params").lower(params, grads).compile().memory_analysis()
    param_bytes = sum(p.nbytes for p in jax.tree.leaves(params))
    assert plain.alias_size_in_bytes == 0 and donated.alias_size_in_bytes == param_bytes
    assert donated.peak_memory_in_bytes == plain.peak_memory_in_bytes - param_bytes, (
        plain.peak_memory_in_bytes, donated.peak_memory_in_bytes)
    return [
        ["(c) SGD update", "no donation", plain.alias_size_in_bytes, "donate params",
         donated.alias_size_in_bytes, "aliased bytes"],
        ["(c) SGD update", "no donation", plain.peak_memory_in_bytes, "donate params",
         donated.peak_memory_in_bytes, "peak bytes"],
    ]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, default=12, help="distinct batch lengths for (a), >= 2")
    parser.add_argument("--size", type=int, default=4096, help="elements in the fusion example (b)")
    parser.add_argument("--param-size", type=int, default=512, help="parameter matrix side for (c)")
    args = parser.parse_args()
    for flag, minimum in (("lengths", 2), ("size", 1), ("param_size", 1)):
        if getattr(args, flag) < minimum:
            parser.error(f"--{flag.replace('_', '-')} must be at least {minimum}, got {getattr(args, flag)}")
    return args


def main() -> None:
    args = parse_args()
    rows = recompilation_rows(args.lengths) + fusion_rows(args.size) + donation_rows(args.param_size)
    from _report import print_results

    print_results(
        "XLA effects, counted (every row is asserted)",
        ["effect", "before", "value", "after", "value", "unit"],
        rows,
    )


if __name__ == "__main__":
    main()
