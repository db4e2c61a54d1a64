"""podsim from Python, notebook style (docs/python.md): a scenario built as a dict, a small sweep over the batch,
the results as a table and, when matplotlib is installed, a plot.

Run from anywhere once the module is built (the README's test build builds it into build/python):

    PYTHONPATH=build/python python3 docs/python-example.py

Without a display, matplotlib draws to a file (its Agg backend: MPLBACKEND=Agg); the plot is written to
python-example.png in the current folder, or skipped with a note when matplotlib is not installed.
"""

import sys

import podsim

# A two-layer MLP y = gelu(x W1) W2 on a TPU v5e 4x4 slice, under two plans: FSDP (the weights sharded over all 16
# chips and all-gathered before each matmul) and Megatron tensor parallelism (the hidden dim over Y, the batch over X).
D, F = 4096, 16384
scenario = {
    "name": "mlp-from-python",
    "description": "a two-layer MLP on a v5e 4x4 slice, FSDP against tensor parallelism",
    "hardware": "tpu-v5e",
    "slice": {"shape": [4, 4], "wraparound": "auto"},
    "mesh": "X=4,Y=4",
    "dtype": "bf16",
    "tensors": {
        "x": {"shape": [2048, D], "sharding": "x[B_XY, D]"},
        "W1": {"shape": [D, F], "sharding": "W1[D_XY, F]"},
        "W2": {"shape": [F, D], "sharding": "W2[F_XY, D]"},
    },
    "program": [
        {"op": "matmul", "name": "up", "lhs": "x", "rhs": "W1", "einsum": "BD,DF->BF", "out": "h",
         "out_sharding": "h[B_XY, F]"},
        {"op": "elementwise", "name": "gelu", "tensor": "h", "flops_per_element": 8},
        {"op": "matmul", "name": "down", "lhs": "h", "rhs": "W2", "einsum": "BF,FD->BD", "out": "y",
         "out_sharding": "y[B_XY, D]"},
    ],
    "plans": [
        {"name": "fsdp", "description": "weights over all 16 chips, all-gathered before each matmul"},
        {"name": "megatron", "description": "batch over X, the hidden dim F over Y",
         "shardings": {"x": "x[B_X, D]", "W1": "W1[D, F_Y]", "W2": "W2[F_Y, D]"},
         "ops": {"up": "h[B_X, F_Y]", "down": "y[B_X, D]"}},
    ],
}

# One run first: every op of both plans, simulated (des) beside the closed form (book).
result = podsim.run(scenario)
for plan in result["plans"]:
    print(f"{plan['name']:>9}: step {plan['des_time_s'] * 1e3:.3f} ms simulated, {plan['book_time_s'] * 1e3:.3f} ms "
          f"by the closed form, {plan['memory']['per_chip_bytes'] / 2**20:.1f} MiB per chip")

# A small sweep: four batch sizes, both plans simulated at every point (on worker processes).
batches = [1024, 2048, 4096, 8192]
sweep = {"base": scenario, "parameters": [{"pointer": "/tensors/x/shape", "values": [[b, D] for b in batches]}]}
records = podsim.sweep(sweep, model="both")
print(f"\n{'batch':>6} {'plan':>9} {'des (ms)':>9} {'book (ms)':>10}")
for batch, record in zip(batches, records):
    if record["error"]:
        sys.exit(f"point {record['point']} failed: {record['error']}")
    for name, figures in record["plans"].items():
        print(f"{batch:>6} {name:>9} {figures['des_time_s'] * 1e3:>9.3f} {figures['book_time_s'] * 1e3:>10.3f}")

# The same records as a DataFrame when pandas is installed (one row per point and plan).
try:
    frame = podsim.to_pandas(records)
    print(f"\nas a DataFrame: {len(frame)} rows, columns {', '.join(frame.columns[:6])}, ...")
except ImportError as error:
    print(f"\n(no DataFrame: {error})")

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("\nmatplotlib is not installed: the plot is skipped (apt-get install python3-matplotlib, or pip)")
    sys.exit(0)

figure, axes = plt.subplots(figsize=(6, 4))
for name in records[0]["plans"]:
    des = [record["plans"][name]["des_time_s"] * 1e3 for record in records]
    book = [record["plans"][name]["book_time_s"] * 1e3 for record in records]
    (line,) = axes.plot(batches, des, marker="o", label=f"{name} (des)")
    axes.plot(batches, book, linestyle="--", color=line.get_color(), label=f"{name} (book)")
axes.set_xlabel("batch (tokens)")
axes.set_ylabel("step time (ms)")
axes.set_title("MLP on a v5e 4x4 slice")
axes.legend(loc="center right")
figure.tight_layout()
figure.savefig("python-example.png", dpi=100)
print("\nplot written to python-example.png")
