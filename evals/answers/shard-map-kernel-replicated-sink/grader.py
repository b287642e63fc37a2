"""Grade `sink_kernel.sink_logsumexp`: a shard_map over an Explicit mesh fed a replicated per-head vector."""

import jax
import numpy as np
import pytest
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

BATCH, HEADS, DIM = 4, 8, 16


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((2, 4), ("data", "tensor"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def inputs(mesh, sink_spec: P, seed: int):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(BATCH, HEADS, DIM)).astype(np.float32)
    sink = rng.normal(size=(HEADS,)).astype(np.float32)
    placed_q = jax.device_put(q, NamedSharding(mesh, P("data", "tensor", None)))
    placed_sink = jax.device_put(sink, NamedSharding(mesh, sink_spec))
    want = np.log(np.exp(q.astype(np.float64)).sum(-1) + np.exp(sink.astype(np.float64))[None, :])
    return placed_q, placed_sink, want


def check(out, want, mesh):
    assert out.shape == (BATCH, HEADS) and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5)
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("data", "tensor")), 2), out.sharding


@pytest.mark.parametrize("sink_spec", [P(), P("tensor")], ids=["replicated-sink", "split-sink"])
def test_values_and_output_sharding(answer, mesh, sink_spec):
    q, sink, want = inputs(mesh, sink_spec, seed=0)
    check(answer.sink_logsumexp(q, sink, mesh), want, mesh)


def test_inside_jit_with_a_replicated_sink(answer, mesh):
    q, sink, want = inputs(mesh, P(), seed=1)
    check(jax.jit(lambda a, b: answer.sink_logsumexp(a, b, mesh))(q, sink), want, mesh)


def test_the_kernel_runs_in_a_shard_map(answer, mesh):
    q, sink, _ = inputs(mesh, P(), seed=2)
    program = str(jax.make_jaxpr(lambda a, b: answer.sink_logsumexp(a, b, mesh))(q, sink))
    assert "shard_map" in program, "no shard_map in the traced program: the per-device kernel body is gone"
