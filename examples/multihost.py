# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""The data-parallel MLP step of `spmd_parallelism.py`, run by 2 real JAX processes on localhost.

Two modes:

- launcher (the default): picks a free localhost port, starts two worker processes of this script
  with 4 CPU devices each (8 devices in the global mesh), waits for them (bounded by --timeout), then
  checks that both workers' per-step losses and final parameters equal a single-process run of the
  same steps, within --atol.
- worker (`--worker`, implied by `--process-id`): one process of the job. It calls
  `jax.distributed.initialize`, builds its share of the global batch with
  `jax.make_array_from_process_local_data`, trains with the same jitted `sgd_step` as the single-process
  code, and writes its results to `--out-dir`. Cross-process collectives on CPU use gloo
  (`jax_cpu_collectives_implementation`, whose default is "gloo" in jax 0.12).

Run on one machine (about 10 s wall and 4 s of CPU time for all processes, on 2 busy cores):

    python examples/multihost.py
    python examples/multihost.py --steps 5 --local-devices 2

Run on a real cluster: start the same worker command on every host, changing only the process id.
The coordinator is process 0's address and any port free on that host:

    # on host 0 (10.0.0.1)
    python examples/multihost.py --process-id 0 --num-processes 2 --coordinator 10.0.0.1:1234 --out-dir out
    # on host 1
    python examples/multihost.py --process-id 1 --num-processes 2 --coordinator 10.0.0.1:1234 --out-dir out

Under SLURM (`srun`), Open MPI (`mpirun`) and on Cloud TPU VMs, `jax.distributed.initialize()` finds
the coordinator, process count and id by itself, so every process runs `--worker` with no
--process-id/--num-processes/--coordinator. Under SLURM and Open MPI on GPUs it also gives each process
one GPU (the one numbered by its local rank), which suits one process per GPU; for one process per
host, set JAX_LOCAL_DEVICE_IDS=0,1,2,3,4,5,6,7 (read by `initialize`) so each process drives all 8.
On Kubernetes the same auto-detection needs the `kubernetes` package (`pip install "jax[k8s]"`). --local-devices only sets the number of CPU devices;
on GPU or TPU hosts each process uses the accelerators it sees.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

from spmd_parallelism import make_problem, max_abs_diff, sgd_step

PARAM_NAMES = ("w1", "b1", "w2", "b2")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help="run as one process of the job")
    parser.add_argument("--process-id", type=int, help="this process's id, 0..num-processes-1 (implies --worker)")
    parser.add_argument("--num-processes", type=int, help="number of processes (launcher default: 2)")
    parser.add_argument("--coordinator", help="host:port of process 0's coordinator service")
    parser.add_argument("--local-devices", type=int, default=4, help="CPU devices per process")
    parser.add_argument("--steps", type=int, default=3, help="SGD steps")
    parser.add_argument("--batch", type=int, default=64, help="global batch size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--atol", type=float, default=1e-5, help="allowed difference from one process")
    parser.add_argument("--timeout", type=float, default=150.0, help="seconds before giving up")
    parser.add_argument("--out-dir", type=Path, help="where workers write results (launcher: a temp dir)")
    args = parser.parse_args()
    args.worker = args.worker or args.process_id is not None
    if not args.worker:
        args.num_processes = args.num_processes or 2
    if args.num_processes is not None and args.num_processes < 1:
        parser.error(f"--num-processes must be at least 1, got {args.num_processes}")
    if args.local_devices < 1:
        parser.error(f"--local-devices must be at least 1, got {args.local_devices}")
    explicit = (args.process_id, args.num_processes, args.coordinator)
    if args.worker and any(v is not None for v in explicit) and None in explicit:
        parser.error("give all of --process-id, --num-processes and --coordinator, or none of them "
                     "(to let jax.distributed.initialize() detect SLURM, Open MPI or Cloud TPU)")
    if args.worker and args.out_dir is None:
        parser.error("worker mode needs --out-dir, where it writes process<ID>.npz")
    if args.num_processes and args.batch % (args.num_processes * args.local_devices):
        parser.error(f"--batch {args.batch} must be divisible by the number of devices "
                     f"({args.num_processes} processes x {args.local_devices} local devices)")
    return args


def problem(args: argparse.Namespace) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    return make_problem(args.seed, args.batch, d_in=16, hidden=32, d_out=8)


# ---------------------------------------------------------------------------------------------------
# Worker: one process of the multi-process job.


def local_row_blocks(sharding: NamedSharding, shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """The (start, stop) row ranges of a global array of `shape` held by this process's devices."""
    index_map = sharding.addressable_devices_indices_map(shape)
    return sorted({(index[0].start or 0, index[0].stop or shape[0]) for index in index_map.values()})


def process_local_rows(sharding: NamedSharding, data: np.ndarray) -> np.ndarray:
    """The rows of the global `data` that this process's devices hold under `sharding`.

    A real input pipeline would read only these rows from storage. Rows come in the order of the
    devices' indices, which is what `jax.make_array_from_process_local_data` expects.
    """
    return np.concatenate([data[start:stop] for start, stop in local_row_blocks(sharding, data.shape)])


def train(args: argparse.Namespace) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Run the data-parallel steps on the global mesh; return the losses and final parameters."""
    params, x, y = problem(args)
    mesh = jax.make_mesh((jax.device_count(),), ("data",))
    batch = NamedSharding(mesh, P("data"))
    replicated = NamedSharding(mesh, P())
    with jax.set_mesh(mesh):
        blocks = local_row_blocks(batch, x.shape)
        print(f"process {jax.process_index()}: loads rows {blocks[0][0]} to {blocks[-1][1] - 1} "
              f"in {len(blocks)} blocks of the {x.shape[0]}-row batch", flush=True)
        xs = jax.make_array_from_process_local_data(batch, process_local_rows(batch, x))
        ys = jax.make_array_from_process_local_data(batch, process_local_rows(batch, y))
        assert xs.shape == x.shape and not xs.is_fully_addressable
        state = {k: jax.make_array_from_process_local_data(replicated, v) for k, v in params.items()}
        step = jax.jit(sgd_step)
        losses = []
        for _ in range(args.steps):
            loss, state = step(state, xs, ys)
            losses.append(loss)
        # Replicated results are complete in every process: read this process's first copy.
        host_losses = np.array([np.asarray(loss.addressable_data(0)) for loss in losses])
        host_params = {k: np.asarray(v.addressable_data(0)) for k, v in state.items()}
    return host_losses, host_params


def run_worker(args: argparse.Namespace) -> None:
    jax.config.update("jax_num_cpu_devices", args.local_devices)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    try:
        jax.distributed.initialize(
            coordinator_address=args.coordinator,
            num_processes=args.num_processes,
            process_id=args.process_id,
            initialization_timeout=int(args.timeout),
        )
    except ValueError as err:  # raised when the cluster cannot be detected, e.g. no coordinator
        sys.exit(f"error: jax.distributed.initialize: {err} Pass --process-id, --num-processes and "
                 "--coordinator, or run under SLURM, Open MPI or on a Cloud TPU VM.")
    try:
        print(f"process {jax.process_index()}/{jax.process_count()}: "
              f"{jax.local_device_count()} local of {jax.device_count()} devices", flush=True)
        losses, params = train(args)
        args.out_dir.mkdir(parents=True, exist_ok=True)
        np.savez(args.out_dir / f"process{jax.process_index()}.npz", losses=losses, **params)
    finally:
        jax.distributed.shutdown()


# ---------------------------------------------------------------------------------------------------
# Launcher: start the workers on localhost and compare with one process.


def free_port() -> int:
    """A TCP port that is free on localhost right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def worker_command(args: argparse.Namespace, process_id: int, coordinator: str) -> list[str]:
    return [
        sys.executable, str(Path(__file__).resolve()),
        "--process-id", str(process_id), "--num-processes", str(args.num_processes),
        "--coordinator", coordinator, "--local-devices", str(args.local_devices),
        "--steps", str(args.steps), "--batch", str(args.batch), "--seed", str(args.seed),
        "--timeout", str(int(args.timeout)), "--out-dir", str(args.out_dir),
    ]


def log_tail(log: Path, lines: int = 15) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def launch_workers(args: argparse.Namespace) -> float:
    """Start every worker and wait for all; return the wall time. Exits with a clear error on failure.

    If one worker fails, the others would wait for it until their own timeout, so the launcher stops
    them at once and reports the failing worker's last log lines.
    """
    coordinator = f"127.0.0.1:{free_port()}"
    logs = [args.out_dir / f"worker{i}.log" for i in range(args.num_processes)]
    start = time.perf_counter()
    workers = []
    for i, log in enumerate(logs):
        with log.open("w") as out:
            workers.append(subprocess.Popen(worker_command(args, i, coordinator), stdout=out,
                                            stderr=subprocess.STDOUT))
    try:
        while any(worker.poll() is None for worker in workers):
            failed = [i for i, worker in enumerate(workers) if worker.poll() not in (None, 0)]
            if failed:
                i = failed[0]
                sys.exit(f"error: worker {i} exited with code {workers[i].returncode}; "
                         f"its last lines:\n{log_tail(logs[i])}")
            if time.perf_counter() - start > args.timeout:
                sys.exit(f"error: the workers did not finish within --timeout {args.timeout:g} s; "
                         f"worker 0's last lines:\n{log_tail(logs[0])}")
            time.sleep(0.2)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    for i, worker in enumerate(workers):
        if worker.returncode != 0:
            sys.exit(f"error: worker {i} exited with code {worker.returncode}; "
                     f"its last lines:\n{log_tail(logs[i])}")
    return time.perf_counter() - start


def single_process_run(args: argparse.Namespace) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The same steps, unsharded, in this process: the reference."""
    params, x, y = problem(args)
    step = jax.jit(sgd_step)
    losses = []
    for _ in range(args.steps):
        loss, params = step(params, x, y)
        losses.append(float(loss))
    return np.array(losses), {k: np.asarray(v) for k, v in params.items()}


def compare(args: argparse.Namespace) -> list[list[object]]:
    """Check every worker's results against one process; return the rows of the results table."""
    ref_losses, ref_params = single_process_run(args)
    rows: list[list[object]] = []
    for i in range(args.num_processes):
        result = np.load(args.out_dir / f"process{i}.npz")
        losses, params = result["losses"], {k: result[k] for k in PARAM_NAMES}
        loss_diff = float(np.max(np.abs(losses - ref_losses)))
        param_diff = max_abs_diff(params, ref_params)
        assert loss_diff <= args.atol and param_diff <= args.atol, (
            f"process {i} differs from the single-process run: losses by {loss_diff:.3g}, "
            f"parameters by {param_diff:.3g} (allowed {args.atol})")
        rows.append([f"process {i} of {args.num_processes} ({args.local_devices} CPU devices)",
                     " ".join(f"{v:.6f}" for v in losses), loss_diff, param_diff])
    rows.append(["single process, unsharded", " ".join(f"{v:.6f}" for v in ref_losses), 0.0, 0.0])
    return rows


def run_launcher(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="jax-multihost-") as scratch:
        if args.out_dir is None:
            args.out_dir = Path(scratch)
        args.out_dir.mkdir(parents=True, exist_ok=True)
        wall = launch_workers(args)
        rows = compare(args)
    from _report import print_results

    print_results(
        f"{args.steps} data-parallel SGD steps, batch {args.batch}, across {args.num_processes} processes "
        f"(workers' wall time {wall:.1f} s)",
        ["run", "loss per step", "max |loss diff|", "max |param diff|"],
        rows,
    )
    print(f"multihost: OK, every process matches the single-process run within {args.atol:g}")


def main() -> None:
    args = parse_args()
    if args.worker:
        run_worker(args)
    else:
        run_launcher(args)


if __name__ == "__main__":
    main()
