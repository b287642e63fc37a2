"""One process of the two-process grading of `global_batch.make_global_batch` (started by grader.py).

Usage: worker.py PROCESS_ID NUM_PROCESSES COORDINATOR ANSWER_DIR MODULE. Prints one JSON line: the global
shape, whether every addressable shard holds the right rows, and the sum computed by a jitted reduction.
"""

import importlib.util
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

ROWS, COLUMNS = 64, 3


def main() -> None:
    process_id, num_processes, coordinator, answer_dir, module = sys.argv[1:6]
    process_id, num_processes = int(process_id), int(num_processes)
    jax.config.update("jax_num_cpu_devices", 4)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                               process_id=process_id, initialization_timeout=60)
    report: dict = {"process": process_id}
    try:
        sys.path.insert(0, answer_dir)
        spec = importlib.util.spec_from_file_location(module, Path(answer_dir) / f"{module}.py")
        answer = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(answer)
        full = np.arange(ROWS * COLUMNS, dtype=np.float32).reshape(ROWS, COLUMNS)
        per_process = ROWS // num_processes
        local = full[process_id * per_process:(process_id + 1) * per_process]
        mesh = jax.make_mesh((jax.device_count(),), ("data",))
        result = answer.make_global_batch(local, mesh)
        report["shape"] = list(result.shape)
        report["spec"] = str(result.sharding.spec)
        report["rows_ok"] = all(
            np.array_equal(np.asarray(shard.data), full[shard.index]) for shard in result.addressable_shards)
        total = jax.jit(jnp.sum, out_shardings=jax.sharding.NamedSharding(mesh, jax.P()))(result)
        report["sum"] = float(np.asarray(total.addressable_data(0)))
        report["want_sum"] = float(full.sum())
    except Exception as error:  # reported to the grader, which fails with the message
        report["error"] = f"{type(error).__name__}: {str(error)[:400]}"
    print(json.dumps(report), flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
