# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Pallas kernels checked against XLA on CPU: tiled matmul, fused row softmax, flash attention.

Every kernel runs with `interpret=True` (the only way to run Pallas on a CPU) and is compared with
its XLA reference (`jnp.matmul`, `jax.nn.softmax`, plain attention) under a stated absolute
tolerance. The script asserts each error is within tolerance and prints one results table.

- matmul f32: grid (M/bm, N/bn, K/bk); the output block is revisited along the last (K) axis and
  accumulated in place, initialised with `pl.when(program_id(2) == 0)`.
- matmul bf16: the same grid, accumulating in an f32 VMEM scratch buffer and casting once at the end.
- softmax: one program per block of whole rows (max, exp-sum and divide in one kernel).
- flash attention: online softmax over key/value blocks, with running max / sum / output in scratch.

Interpret mode proves correctness, not speed. See references/pallas_kernels.md for the rules behind
each kernel and for the roofline arithmetic. Run it from any directory (about 12 s wall, 8 s of CPU
time, on 2 busy cores): `python examples/pallas_kernels.py`, the path relative to the folder that holds
`examples/`; sizes and blocks: `--help`.
"""

from __future__ import annotations

import argparse
import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from _report import print_results

TOL_F32 = 1e-4  # f32 matmul: the tiled sum order differs from XLA's by rounding only
TOL_BF16_REL = 2**-7  # bf16 result: one unit in the last place (relative), both sides accumulate in f32
TOL_PROB = 1e-5  # softmax probabilities and attention outputs, f32


def matmul_kernel(a_ref, b_ref, o_ref):
    """Accumulate one (bm, bk) @ (bk, bn) partial product into the revisited output block."""

    @pl.when(pl.program_id(2) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def matmul_acc_kernel(a_ref, b_ref, o_ref, acc_ref):
    """Like `matmul_kernel`, but accumulate in an f32 scratch and write the output once."""
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _store():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def tiled_matmul(a: jax.Array, b: jax.Array, block: tuple[int, int, int]) -> jax.Array:
    """A @ B with a (M/bm, N/bn, K/bk) grid; f32 accumulates in the output, bf16 in a scratch."""
    bm, bn, bk = block
    (m, k), (_, n) = a.shape, b.shape
    f32 = a.dtype == jnp.float32
    return pl.pallas_call(
        matmul_kernel if f32 else matmul_acc_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        scratch_shapes=[] if f32 else [pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(pltpu.PARALLEL, pltpu.PARALLEL, pltpu.ARBITRARY)
        ),
        interpret=True,
    )(a, b)


def softmax_kernel(x_ref, o_ref):
    """Numerically stable softmax of each row of the block."""
    x = x_ref[...].astype(jnp.float32)
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = (e / jnp.sum(e, axis=1, keepdims=True)).astype(o_ref.dtype)


def row_softmax(x: jax.Array, block_rows: int) -> jax.Array:
    """Softmax over the last axis, one program per `block_rows` full rows."""
    rows, cols = x.shape
    spec = pl.BlockSpec((block_rows, cols), lambda i: (i, 0))
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[spec],
        out_specs=spec,
        interpret=True,
    )(x)


def flash_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref, *, scale: float):
    """One (query block, key block) step of online-softmax attention."""
    kv = pl.program_id(1)

    @pl.when(kv == 0)
    def _init():
        m_ref[...] = jnp.full_like(m_ref, -jnp.inf)
        l_ref[...] = jnp.zeros_like(l_ref)
        acc_ref[...] = jnp.zeros_like(acc_ref)

    s = jnp.dot(q_ref[...], k_ref[...].T, preferred_element_type=jnp.float32) * scale
    m_new = jnp.maximum(m_ref[...], jnp.max(s, axis=1, keepdims=True))
    p = jnp.exp(s - m_new)
    correction = jnp.exp(m_ref[...] - m_new)
    l_ref[...] = correction * l_ref[...] + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = correction * acc_ref[...] + jnp.dot(p, v_ref[...], preferred_element_type=jnp.float32)
    m_ref[...] = m_new

    @pl.when(kv == pl.num_programs(1) - 1)
    def _store():
        o_ref[...] = (acc_ref[...] / l_ref[...]).astype(o_ref.dtype)


def flash_attention(q: jax.Array, k: jax.Array, v: jax.Array, block_q: int, block_kv: int) -> jax.Array:
    """softmax(q k^T / sqrt(d)) v for one head, never materialising the (Lq, Lk) score matrix."""
    (lq, d), lk = q.shape, k.shape[0]
    kernel = functools.partial(flash_kernel, scale=1.0 / math.sqrt(d))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((lq, d), q.dtype),
        grid=(lq // block_q, lk // block_kv),
        in_specs=[
            pl.BlockSpec((block_q, d), lambda i, j: (i, 0)),
            pl.BlockSpec((block_kv, d), lambda i, j: (j, 0)),
            pl.BlockSpec((block_kv, d), lambda i, j: (j, 0)),
        ],
        out_specs=pl.BlockSpec((block_q, d), lambda i, j: (i, 0)),
        scratch_shapes=[
            pltpu.VMEM((block_q, 1), jnp.float32),
            pltpu.VMEM((block_q, 1), jnp.float32),
            pltpu.VMEM((block_q, d), jnp.float32),
        ],
        interpret=True,
    )(q, k, v)


def reference_attention(q: jax.Array, k: jax.Array, v: jax.Array) -> jax.Array:
    """Plain XLA attention for one head."""
    scores = q @ k.T / math.sqrt(q.shape[1])
    return jax.nn.softmax(scores, axis=-1) @ v


def max_abs_error(got: jax.Array, want: jax.Array) -> float:
    return float(jnp.max(jnp.abs(got.astype(jnp.float32) - want.astype(jnp.float32))))


def check_matmuls(m: int, k: int, n: int, block: tuple[int, int, int], key: jax.Array) -> list[list]:
    """Run the f32 and bf16 tiled matmuls against `jnp.matmul`; return table rows."""
    ka, kb = jax.random.split(key)
    a = jax.random.normal(ka, (m, k), jnp.float32)
    b = jax.random.normal(kb, (k, n), jnp.float32)
    err32 = max_abs_error(tiled_matmul(a, b, block), jnp.matmul(a, b))
    assert err32 <= TOL_F32, f"f32 matmul error {err32} > {TOL_F32}"

    a16, b16 = a.astype(jnp.bfloat16), b.astype(jnp.bfloat16)
    ref16 = jnp.matmul(a16, b16, preferred_element_type=jnp.float32).astype(jnp.bfloat16)
    got16 = tiled_matmul(a16, b16, block)
    err16 = max_abs_error(got16, ref16)
    diff = jnp.abs(got16.astype(jnp.float32) - ref16.astype(jnp.float32))
    bound = TOL_BF16_REL * jnp.abs(ref16.astype(jnp.float32)) + 1e-6
    assert bool(jnp.all(diff <= bound)), f"bf16 matmul differs by more than one ulp (max abs {err16})"
    shape = f"({m},{k})@({k},{n})"
    return [
        ["tiled matmul f32", shape, str(block), err32, TOL_F32],
        ["tiled matmul bf16 (f32 scratch)", shape, str(block), err16, "2^-7 x |ref| (1 ulp)"],
    ]


def check_softmax(rows: int, cols: int, block_rows: int, key: jax.Array) -> list:
    """Run the row softmax against `jax.nn.softmax` on large logits (naive exp would overflow)."""
    x = 50.0 * jax.random.normal(key, (rows, cols), jnp.float32)
    err = max_abs_error(row_softmax(x, block_rows), jax.nn.softmax(x, axis=-1))
    assert err <= TOL_PROB, f"softmax error {err} > {TOL_PROB}"
    return ["row softmax", f"({rows},{cols})", f"({block_rows},{cols})", err, TOL_PROB]


def check_flash(seq: int, head_dim: int, block_q: int, block_kv: int, key: jax.Array) -> list:
    """Run flash attention against plain XLA attention."""
    q, k, v = jax.random.normal(key, (3, seq, head_dim), jnp.float32)
    err = max_abs_error(flash_attention(q, k, v, block_q, block_kv), reference_attention(q, k, v))
    assert err <= TOL_PROB, f"flash attention error {err} > {TOL_PROB}"
    return ["flash attention", f"q,k,v ({seq},{head_dim})", f"q {block_q}, kv {block_kv}", err, TOL_PROB]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=64, help="matmul rows of A")
    parser.add_argument("--k", type=int, default=128, help="matmul contraction size")
    parser.add_argument("--n", type=int, default=64, help="matmul columns of B")
    parser.add_argument("--block", type=int, nargs=3, default=(32, 32, 32), metavar=("BM", "BN", "BK"))
    parser.add_argument("--rows", type=int, default=32, help="softmax rows")
    parser.add_argument("--cols", type=int, default=256, help="softmax row length")
    parser.add_argument("--block-rows", type=int, default=8)
    parser.add_argument("--seq", type=int, default=64, help="attention sequence length")
    parser.add_argument("--head-dim", type=int, default=32)
    parser.add_argument("--block-q", type=int, default=16)
    parser.add_argument("--block-kv", type=int, default=16)
    args = parser.parse_args()
    bm, bn, bk = args.block
    for size, blk, what in [(args.m, bm, "--m by BM"), (args.n, bn, "--n by BN"), (args.k, bk, "--k by BK"),
                            (args.seq, args.block_q, "--seq by --block-q"),
                            (args.seq, args.block_kv, "--seq by --block-kv")]:
        if blk <= 0 or size % blk:
            parser.error(f"{what}: {size} is not a multiple of {blk}; pick a block size that divides it")
    if args.block_rows <= 0:
        parser.error("--block-rows must be positive")
    return args


def main() -> None:
    args = parse_args()
    keys = jax.random.split(jax.random.key(0), 3)
    rows = check_matmuls(args.m, args.k, args.n, tuple(args.block), keys[0])
    rows.append(check_softmax(args.rows, args.cols, args.block_rows, keys[1]))
    rows.append(check_flash(args.seq, args.head_dim, args.block_q, args.block_kv, keys[2]))
    print_results(
        "Pallas kernels (interpret=True) vs XLA reference",
        ["kernel", "shape", "block shape", "max abs error", "tolerance"],
        rows,
    )


if __name__ == "__main__":
    main()
