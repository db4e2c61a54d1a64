"""Tests of the Python module podsim (python/, docs/python.md): one call of each function with values worked out by
hand or from the book's closed forms, the error path, repeated simulations in one interpreter, to_pandas.

Run from the repository root with the module on the path: PYTHONPATH=build/python python3 tests/python/test_podsim.py
(CTest does: python:module).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import podsim

MIB = 1 << 20
W_UNI = 4.5e10  # v5e ICI bandwidth per direction (the book's tpus.md table), bytes per second
ALPHA = 1e-6  # per-hop latency


def ring_all_gather_scenario(rows=4096, cols=4096):
    """An all-gather of a bf16 [rows, cols] array sharded by rows over a ring of 4 v5e chips (wraparound forced)."""
    return {
        "name": "ring-all-gather",
        "description": "an all-gather over a ring of 4 v5e chips",
        "hardware": {"preset": "tpu-v5e", "calibrated": False},  # the closed forms below use the preset's figures
        "slice": {"shape": [4], "wraparound": "all"},
        "mesh": "X=4",
        "dtype": "bf16",
        "tensors": {"A": {"shape": [rows, cols], "sharding": "A[I_X, J]"}},
        "program": [{"op": "all_gather", "name": "gather", "tensor": "A", "axes": ["X"], "out": "A_full"}],
    }


class ShardTest(unittest.TestCase):
    def test_per_device_shape_and_bytes(self):
        result = podsim.shard(mesh="X=8,Y=2", shape=[1024, 4096], dtype="f32", sharding="A[I_XY, J]")
        self.assertEqual(result["schema"], "podsim/1")
        # I is split over X and Y together: 1024 / (8 * 2) rows per device, J whole.
        self.assertEqual(result["local_shape"], [64, 4096])
        self.assertEqual(result["bytes_per_device"], 64 * 4096 * 4)
        self.assertEqual(result["global_bytes"], 1024 * 4096 * 4)
        self.assertEqual(result["num_devices"], 16)

    def test_repeatable_option_takes_a_list_and_shape_text(self):
        result = podsim.shard(mesh=["X=8,Y=2"], shape="1024x4096", dtype="bf16", sharding="A[I, J_Y]")
        self.assertEqual(result["local_shape"], [1024, 2048])
        self.assertEqual(result["bytes_per_device"], 1024 * 2048 * 2)


class CollectiveTest(unittest.TestCase):
    V = 64 * MIB

    def ring(self, **kwargs):
        return podsim.collective(slice=[4], wrap="all", op="all-gather", axes="X", array_bytes="64MiB",
                                 link_bw="45GB/s", hop_latency="1us", **kwargs)

    def test_book_all_gather_on_a_ring_is_v_over_w_bidi(self):
        result = self.ring(model="book")
        # The book: an AllGather on a bidirectional ring takes V / W_bidi, whatever the ring's length.
        self.assertAlmostEqual(result["book"]["time_s"], self.V / (2 * W_UNI), delta=1e-12)
        self.assertEqual(result["group_size"], 4)
        self.assertEqual(result["array_bytes"], self.V)
        self.assertNotIn("des", result)

    def test_des_repeated_in_one_interpreter(self):
        # The default schedule on a ring is bidirectional-split: N-1 steps of half a shard each way,
        # (N-1) (alpha + S / (2 W)) with S = V / N (docs/collectives.md).
        expected = 3 * (ALPHA + (self.V / 4) / (2 * W_UNI))
        times = []
        for _ in range(3):  # SimGrid allows one simulation per process: each runs in its own child
            result = self.ring(model="des", uncalibrated=True)  # the formula is the preset's own figures
            times.append(result["des"]["time_s"])
        for t in times:
            self.assertAlmostEqual(t / expected, 1.0, delta=1e-6)
        self.assertEqual(len(set(times)), 1)

    def test_axes_as_a_list(self):
        result = podsim.collective(slice=[4, 4], wrap="none", op="all-gather", axes=["X", "Y"], array_bytes=MIB,
                                   model="book")
        self.assertEqual(result["axes"], ["X", "Y"])
        self.assertEqual(result["group_size"], 16)


# Run by a watcher process: kills (SIGKILL) the first child of process argv[1] (other than itself) seen alive for a
# second, as a simulation child dies on a SimGrid abort or the out-of-memory killer. Shorter-lived children (a quick
# simulation tried before the long one) are left alone.
KILL_LONG_LIVED_CHILD = """
import os, signal, sys, time
parent, deadline, first_seen = sys.argv[1], time.time() + 60, {}
while time.time() < deadline:
    now = time.time()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] != parent or fields[0] == "Z":
            continue
        if now - first_seen.setdefault(entry, now) >= 1.0:
            os.kill(int(entry), signal.SIGKILL)
            sys.exit(0)
    time.sleep(0.01)
sys.exit(1)
"""


class ChildDeathTest(unittest.TestCase):
    def test_a_killed_simulation_child_is_an_internal_error_and_the_interpreter_goes_on(self):
        watcher = subprocess.Popen([sys.executable, "-c", KILL_LONG_LIVED_CHILD, str(os.getpid())])
        try:
            # A simulation of all 1728 chips (a mesh without wraparound, concurrent axes: no symmetry to reduce it):
            # several seconds even on an idle machine unless its child is killed.
            with self.assertRaises(podsim.InternalError) as caught:
                podsim.collective(hardware="tpu-v5p", slice=[12, 12, 12], wrap="none", op="all-reduce",
                                  axes=["X", "Y", "Z"], array_bytes="64MiB", model="des", multi_axis="concurrent")
        finally:
            self.assertEqual(watcher.wait(timeout=60), 0)
        self.assertIn("signal 9", str(caught.exception))
        self.assertIsInstance(caught.exception, podsim.Error)
        self.assertNotIsInstance(caught.exception, podsim.InputError)
        result = podsim.collective(slice=[4], wrap="all", op="all-gather", axes="X", array_bytes="64MiB",
                                   link_bw="45GB/s", hop_latency="1us", model="des", uncalibrated=True)
        self.assertAlmostEqual(result["des"]["time_s"] / (3 * (ALPHA + (16 * MIB) / (2 * W_UNI))), 1.0, delta=1e-6)


class TopologyTest(unittest.TestCase):
    def test_slice_and_shapes(self):
        # A 4x4x8 v5p torus: diameter 2 + 2 + 4 hops; the bisection cuts the 8-dim's 16 rings twice (docs/topology.md).
        t = podsim.topology(hardware="tpu-v5p", slice=[4, 4, 8])
        self.assertEqual((t["chips"], t["diameter_hops"], t["bisection_links"], t["cubes"]), (128, 8, 32, 2))
        self.assertEqual(podsim.topology(hardware="tpu-v5e", shapes=True)["shapes"][-1], [16, 16])
        # Twisted: the short dims' wrap links land 4 further along z, diameter 6 and twice the bisection
        # (docs/topology.md, "Twisted tori", worked by hand there).
        t = podsim.topology(hardware="tpu-v5p", slice="4x4x8", twist=True)
        self.assertEqual((t["twisted"], t["diameter_hops"], t["bisection_links"]), (True, 6, 64))
        with self.assertRaises(podsim.InputError):
            podsim.topology(hardware="tpu-v5p")


class HardwareTest(unittest.TestCase):
    def test_list_and_one_preset(self):
        names = [p["name"] for p in podsim.hardware()["presets"]]
        self.assertIn("tpu-v5e", names)
        preset = podsim.hardware("tpu-v5e")["preset"]
        self.assertEqual(preset["name"], "tpu-v5e")
        # The override is merged over the preset (a dict is sent as its JSON text).
        changed = podsim.hardware("tpu-v5e", override={"ici": {"bandwidth_Bps": "50GB/s"}})["preset"]
        self.assertNotEqual(json.dumps(changed["figures"]), json.dumps(preset["figures"]))
        self.assertIn("5e+10", json.dumps(changed["figures"]).replace("50000000000.0", "5e+10"))


class RunTest(unittest.TestCase):
    def test_scenario_dict(self):
        result = podsim.run(ring_all_gather_scenario())
        self.assertEqual(result["scenario"]["name"], "ring-all-gather")
        op = result["plans"][0]["ops"][0]
        self.assertEqual(op["name"], "gather")
        v = 4096 * 4096 * 2
        self.assertAlmostEqual(op["book_time_s"], v / (2 * W_UNI), delta=1e-12)
        self.assertAlmostEqual(op["des_time_s"] / (3 * (ALPHA + (v / 4) / (2 * W_UNI))), 1.0, delta=1e-6)

    def test_scenario_file_twice(self):
        path = "scenarios/problem-sets/pop-quiz-2-all-gather.json"
        for _ in range(2):
            result = podsim.run(path)
            ops = {op["name"]: op for op in result["plans"][0]["ops"]}
            # A 4-long v5e axis has no wraparound: the book's (N-1) x shard / W_uni, shard 512 x 8192 x 2 bytes.
            self.assertAlmostEqual(ops["gather_large"]["book_time_s"], 3 * 512 * 8192 * 2 / W_UNI, delta=1e-12)

    def test_list_of_scenarios(self):
        result = podsim.run([ring_all_gather_scenario(), ring_all_gather_scenario(1024, 1024)], plan=None)
        self.assertEqual([s["scenario"]["name"] for s in result["scenarios"]], ["ring-all-gather"] * 2)


class CheckTest(unittest.TestCase):
    def test_checks_of_a_shipped_scenario(self):
        path = "scenarios/problem-sets/pop-quiz-2-all-gather.json"
        with open(path, encoding="utf-8") as f:
            expected = len(json.load(f)["expect"])
        result = podsim.check(path)
        self.assertTrue(result["checks_passed"])
        self.assertEqual(result["passed"], expected)
        self.assertEqual(result["failed"], 0)
        self.assertEqual(len(result["scenarios"][0]["checks"]), expected)

    def test_a_failing_check_is_data(self):
        scenario = ring_all_gather_scenario()
        # 1 MiB is not the per-device size of a 32 MiB array over 4 chips (8 MiB): the check fails.
        scenario["expect"] = [{"metric": "bytes_per_device", "tensor": "A", "value": MIB, "source": "wrong on purpose"}]
        result = podsim.check(scenario)
        self.assertFalse(result["checks_passed"])
        self.assertEqual((result["passed"], result["failed"]), (0, 1))
        self.assertEqual(result["scenarios"][0]["checks"][0]["value"], 8 * MIB)


class PlanTest(unittest.TestCase):
    def test_serve_a_closed_loop_from_a_dict(self):
        # 4 clients, 12 requests of 64 prompt and 8 output tokens: every request completes, 96 output tokens in all.
        scenario = {"name": "serve", "hardware": "tpu-v5e", "slice": {"shape": [2, 2]}, "mesh": "X=2,Y=2",
                    "model": {"preset": "llama3-8b"},
                    "workload": {"mode": "serve", "traffic": {"arrival": "closed", "concurrency": 4, "requests": 12,
                                                              "prompt_tokens": {"fixed": 64},
                                                              "output_tokens": {"fixed": 8}}},
                    "slo": {"tpot_s": {"p99": 1.0}},
                    "plans": [{"name": "tp4", "parallelism": {"tensor": ["X", "Y"]}}]}
        result = podsim.serve(scenario)
        self.assertEqual(result["requests"], 12)
        self.assertAlmostEqual(result["throughput"]["output_tokens_per_s"] * result["duration_s"], 96.0, places=6)
        self.assertEqual(result["slo_attainment"], 1.0)
        with self.assertRaises(podsim.InputError):
            podsim.serve({**scenario, "serving": {"max_num_seqs": 0}})

    def test_the_footer_on_stderr_ends_its_line(self):
        # The screening rate goes to stderr beside the JSON, as the program writes it: a whole line, so that what the
        # interpreter prints next starts on a line of its own.
        code = "import podsim; podsim.plan('scenarios/examples/llama3-8b-v5e-plan.json', model='book', top=0)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stderr.startswith("screened "), done.stderr)
        self.assertTrue(done.stderr.endswith("\n"), repr(done.stderr))

    def test_plan_search_by_the_closed_form(self):
        result = podsim.plan("scenarios/examples/llama3-8b-v5e-plan.json", model="book", top=0)
        ranked = [c for c in result["candidates"] if c["rank"] is not None]
        self.assertGreater(len(ranked), 0)
        self.assertEqual([c["rank"] for c in ranked], list(range(1, len(ranked) + 1)))
        for c in result["candidates"]:
            self.assertEqual(c["chips"], c["slice"][0] * c["slice"][1])
            if c["rank"] is not None:
                self.assertLessEqual(c["memory_per_chip_bytes"], c["hbm_bytes"])
                self.assertIsNone(c["step_time_s"]["des"])  # model="book": nothing simulated
        book_times = [c["step_time_s"]["book"] for c in ranked]
        self.assertEqual(book_times, sorted(book_times))


class SweepTest(unittest.TestCase):
    def test_sweep_dict_book_times_scale_with_the_array(self):
        rows = [1024, 2048, 4096]
        spec = {"base": ring_all_gather_scenario(),
                "parameters": [{"pointer": "/tensors/A/shape", "values": [[r, 4096] for r in rows]}]}
        with tempfile.TemporaryDirectory() as out:
            records = podsim.sweep(spec, out=out, jobs=2)
            self.assertTrue(os.path.exists(os.path.join(out, "results.jsonl")))
        self.assertEqual([r["point"] for r in records], [0, 1, 2])
        for record, r in zip(records, rows):
            self.assertIsNone(record["error"])
            self.assertEqual(record["params"]["/tensors/A/shape"], [r, 4096])
            (figures,) = record["plans"].values()
            self.assertAlmostEqual(figures["book_time_s"], r * 4096 * 2 / (2 * W_UNI), delta=1e-12)
        again = podsim.sweep(spec, model="book")  # a temporary results folder, removed after
        self.assertEqual([r["hash"] for r in again], [r["hash"] for r in records])


class SameAsTheProgramTest(unittest.TestCase):
    """A call returns exactly what the program prints with --json (CTest sets PODSIM_BINARY)."""

    def program(self, *args):
        binary = os.environ.get("PODSIM_BINARY", "build/podsim")
        done = subprocess.run([binary, *args], capture_output=True, text=True)
        return done.returncode, json.loads(done.stdout)

    def test_shard_collective_check_and_an_error(self):
        code, printed = self.program("shard", "--mesh", "X=8,Y=2", "--shape", "1024x4096", "--sharding",
                                     "A[I_XY, J]", "--devices", "--json")
        self.assertEqual(code, 0)
        self.assertEqual(podsim.shard(mesh="X=8,Y=2", shape=[1024, 4096], sharding="A[I_XY, J]", devices=True),
                         printed)
        _, printed = self.program("collective", "--slice", "4x4", "--op", "all-reduce", "--axes", "X,Y",
                                  "--array-bytes", "8MiB", "--model", "book", "--json")
        self.assertEqual(podsim.collective(slice=[4, 4], op="all-reduce", axes=["X", "Y"], array_bytes="8MiB",
                                           model="book"), printed)
        path = "scenarios/problem-sets/pop-quiz-2-all-gather.json"
        code, printed = self.program("check", path, "--json")
        self.assertEqual(code, 0)
        self.assertEqual(podsim.check(path), printed)
        code, printed = self.program("model", "describe", "--preset", "llama3-70b", "--batch-tokens", "4096",
                                     "--master-weights", "--json")
        self.assertEqual(code, 0)
        self.assertEqual(podsim.model_describe(preset="llama3-70b", batch_tokens=4096, master_weights=True), printed)
        code, printed = self.program("validate", "--rows", "sb-allgather-v5e-small", "--json")
        self.assertEqual(code, 0)
        self.assertEqual(podsim.validate(rows=["sb-allgather-v5e-small"]), printed)
        code, printed = self.program("shard", "--mesh", "X=8", "--shape", "16", "--sharding", "A[I_Q]", "--json")
        self.assertEqual(code, 2)
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.shard(mesh="X=8", shape=[16], sharding="A[I_Q]")
        self.assertEqual(caught.exception.where, printed["error"]["where"])
        self.assertEqual(caught.exception.detail, printed["error"]["message"])


class ErrorTest(unittest.TestCase):
    def test_bad_flag_value_is_located_at_its_flag(self):
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.collective(slice=[4], op="all-gather", axes="X", array_bytes="12 parsecs")
        error = caught.exception
        self.assertIsInstance(error, podsim.InputError)
        self.assertIsInstance(error, podsim.Error)
        self.assertEqual(error.where, "--array-bytes")
        self.assertEqual(error.value, "12 parsecs")
        self.assertTrue(str(error).startswith("--array-bytes: "))
        self.assertTrue(error.rule)

    def test_sharding_parse_error_has_a_column(self):
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.shard(mesh="X=8,Y=2", shape=[1024, 4096], sharding="A[I_XY, J")
        self.assertEqual(caught.exception.where, "--sharding")
        self.assertEqual(caught.exception.stage, "parse")
        self.assertIsNotNone(caught.exception.column)

    def test_bad_scenario_dict_names_the_dict_and_the_pointer(self):
        scenario = ring_all_gather_scenario()
        scenario["mesh"] = "X=3"  # 3 devices on a slice of 4 chips
        with self.assertRaises(podsim.ScenarioError) as caught:
            podsim.run(scenario)
        error = caught.exception
        self.assertTrue(error.where.startswith("<scenario dict>: /"), error.where)
        self.assertTrue(str(error).startswith(error.where + ": "))
        self.assertEqual([f for f in os.listdir(".") if f.startswith(".podsim-")], [])  # the temporary file is gone

    def test_deep_cyclic_and_non_json_dicts_are_scenario_errors(self):
        # Issue 33, class 7: json.dumps raised RecursionError or ValueError from inside the module.
        deep = ring_all_gather_scenario()
        node = deep
        for _ in range(70):
            node["x"] = {}
            node = node["x"]
        with self.assertRaises(podsim.ScenarioError) as caught:
            podsim.run(deep)
        self.assertEqual(caught.exception.where, "<scenario dict>: " + "/x" * 64)
        self.assertEqual(caught.exception.rule, "nesting deeper than 64 levels")
        cyclic = ring_all_gather_scenario()
        cyclic["tensors"]["loop"] = cyclic["tensors"]
        with self.assertRaises(podsim.ScenarioError) as caught:
            podsim.run(cyclic)
        self.assertEqual(str(caught.exception), "<scenario dict>: /tensors/loop: a cycle: the value holds itself")
        odd = ring_all_gather_scenario()
        odd["name"] = {1, 2}
        with self.assertRaises(podsim.ScenarioError) as caught:
            podsim.run(odd)
        self.assertTrue(str(caught.exception).startswith("<scenario dict>: not JSON: "), str(caught.exception))
        self.assertEqual([f for f in os.listdir(".") if f.startswith(".podsim-")], [])

    def test_missing_file(self):
        with self.assertRaises(podsim.ScenarioError) as caught:
            podsim.run("no/such/scenario.json")
        self.assertTrue(caught.exception.where.startswith("no/such/scenario.json"))

    def test_required_option_and_unknown_keyword(self):
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.collective(op="all-gather", axes="X", array_bytes=MIB)
        self.assertIn("--slice", str(caught.exception))
        with self.assertRaises(TypeError):
            podsim.collective(slice=[4], op="all-gather", axes="X", array_bytes=MIB, colour="blue")
        with self.assertRaises(TypeError):
            podsim.shard(mesh="X=2", json=True)  # the functions always return the JSON form
        with self.assertRaises(TypeError):
            podsim.shard(mesh="X=2", devices="yes")

    def test_calls_work_after_an_error(self):
        with self.assertRaises(podsim.Error):
            podsim.run({"name": "empty"})
        self.assertEqual(podsim.shard(mesh="X=2", shape=[4], sharding="A[I_X]")["local_shape"], [2])


def csv_rows(path):
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def seconds(text):
    """A measured time as the CSVs write it (680us, 1.13ms, 8us) in seconds."""
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("ns", 1e-9), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)


class SweepMergeAndReportTest(unittest.TestCase):
    def test_two_shards_merged_are_the_whole_sweep(self):
        rows = [1024, 2048, 4096]
        spec = {"base": ring_all_gather_scenario(),
                "parameters": [{"pointer": "/tensors/A/shape", "values": [[r, 4096] for r in rows]}]}
        with tempfile.TemporaryDirectory() as folder:
            shards = [os.path.join(folder, f"shard{i}") for i in range(2)]
            for i, out in enumerate(shards):
                part = podsim.sweep(spec, out=out, shard=f"{i}/2", jobs=1)
                self.assertEqual([r["point"] for r in part], [p for p in range(3) if p % 2 == i])
            merged = podsim.sweep_merge(*shards, out=os.path.join(folder, "all"))
            self.assertTrue(os.path.exists(os.path.join(folder, "all", "results.jsonl")))
            self.assertEqual([r["point"] for r in merged], [0, 1, 2])
            whole = podsim.sweep(spec, jobs=1)
            self.assertEqual([r["hash"] for r in merged], [r["hash"] for r in whole])
            for record, r in zip(merged, rows):
                (figures,) = record["plans"].values()
                self.assertAlmostEqual(figures["book_time_s"], r * 4096 * 2 / (2 * W_UNI), delta=1e-12)
            # The report of the shards (merged as it draws) is one HTML file; its path is returned.
            html = os.path.join(folder, "sweep.html")
            self.assertEqual(podsim.sweep.report(*shards, report=html), html)
            with open(html, encoding="utf-8") as f:
                self.assertTrue(f.read().startswith("<!DOCTYPE html>"))
            self.assertIs(podsim.sweep.merge, podsim.sweep_merge)

    def test_a_folder_without_results_is_located(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(podsim.InputError) as caught:
                podsim.sweep_merge(folder, out=os.path.join(folder, "all"))
            self.assertEqual(caught.exception.where, folder)
            with self.assertRaises(podsim.InputError) as caught:
                podsim.sweep_report(folder, report=os.path.join(folder, "r.html"))
            self.assertEqual(caught.exception.where, folder)
        with self.assertRaises(TypeError):
            podsim.sweep_merge(out="somewhere")  # no folder


class ModelDescribeTest(unittest.TestCase):
    def test_llama3_8b_parameters_by_hand(self):
        result = podsim.model_describe(preset="llama3-8b")
        d, layers, heads, kv_heads, head_dim, ffn, vocab = 4096, 32, 32, 8, 128, 14336, 128256
        attention = layers * (2 * d * heads * head_dim + 2 * d * kv_heads * head_dim)  # q, o; k, v
        mlp = layers * 3 * d * ffn  # gated: gate, up, down
        embedding = 2 * vocab * d  # untied: the embedding and the output projection
        norms = (2 * layers + 1) * d
        params = result["params"]
        self.assertEqual((params["attention"], params["mlp"], params["embedding"], params["norms"]),
                         (attention, mlp, embedding, norms))
        self.assertEqual(params["total"], attention + mlp + embedding + norms)
        self.assertEqual(params["total"], 8030261248)  # Meta's published count
        self.assertEqual(result["weight_bytes"], 2 * params["total"])  # bf16
        self.assertEqual(result["kv_cache_bytes_per_token"], 2 * layers * kv_heads * head_dim * 2)  # K and V, bf16
        self.assertIs(podsim.model.describe, podsim.model_describe)

    def test_hugging_face_config_and_dtypes(self):
        config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 1000,
                  "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                  "intermediate_size": 128, "tie_word_embeddings": True, "hidden_act": "silu"}
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "config.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(config, f)
            result = podsim.model_describe(config=path, weight_dtype="f32", kv_dtype="int8")
        # head_dim 64 / 4 = 16: q, o 64 x 64 and k, v 64 x 32 per layer; gated MLP 3 x 64 x 128; tied embedding.
        total = 2 * (2 * 64 * 64 + 2 * 64 * 32) + 2 * 3 * 64 * 128 + 1000 * 64 + (2 * 2 + 1) * 64
        self.assertEqual(result["params"]["total"], total)
        self.assertEqual(result["weight_bytes"], 4 * total)
        self.assertEqual(result["kv_cache_bytes_per_token"], 2 * 2 * 2 * 16 * 1)

    def test_errors(self):
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.model_describe(preset="llama3-8b", remat="some")
        self.assertEqual(caught.exception.where, "--remat")
        self.assertEqual(caught.exception.value, "some")
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.model_describe(preset="llama3-8b", seq_len="long")  # refused by the command line parser
        self.assertEqual(caught.exception.where, "--seq-len")
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.model_describe(preset="no-such-model")
        self.assertEqual(caught.exception.where, "--preset")
        with self.assertRaises(TypeError):
            podsim.model_describe(preset="llama3-8b", json=True)


class ValidateTest(unittest.TestCase):
    CONTRACT = ["id", "source", "quantity", "measured", "book", "des_uncalibrated", "des_calibrated",
                "error_calibrated", "fitted"]

    def test_rows_of_the_scaling_book_file(self):
        shipped = {row["id"]: row for row in csv_rows("validation/scaling-book.csv")}
        ids = ["sb-allgather-v5e-34mb", "sb-reducescatter-v2"]
        result = podsim.validate(rows=ids)  # the folder validation
        self.assertEqual([row["id"] for row in result["rows"]], ids)
        for row in result["rows"]:
            for key in self.CONTRACT:
                self.assertIn(key, row)
            self.assertAlmostEqual(row["measured"], seconds(shipped[row["id"]]["measured"]), delta=1e-15)
            self.assertEqual(row["fitted"], shipped[row["id"]]["fit"] == "yes")
            self.assertEqual(row["source"], shipped[row["id"]]["source"])
            self.assertAlmostEqual(row["error_calibrated"], row["des_calibrated"] / row["measured"] - 1, delta=1e-12)
        # The v2 reduce-scatter over one hop, by the book: (N - 1) / N x V / W_bidi with N = 2 and each shard
        # 2 x 8 x 1024 x 8192 bytes (V twice that), W_bidi = 1.2e11 B/s, plus one hop's latency.
        v2 = result["rows"][1]
        shard = 2 * 8 * 1024 * 8192
        self.assertLess(abs(v2["book"] - shard / 1.2e11) / v2["book"], 0.05)
        self.assertIn("summary", result)

    def test_errors(self):
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.validate(rows="no-such-row")
        self.assertEqual(caught.exception.where, "--rows")
        with self.assertRaises(podsim.InputError) as caught:
            podsim.validate("no/such/folder")
        self.assertEqual(caught.exception.where, "no/such/folder")
        with self.assertRaises(TypeError):
            podsim.validate(markdown=True)  # the functions always return the JSON form


class CalibrateTest(unittest.TestCase):
    # The two v5e all-gathers of the scaling book (validation/scaling-book.csv): 34 MB measured at 680 us,
    # 128 KiB at 8 us, over the 4-chip axis Y of an 8x4 slice.
    ROWS = [
        {"id": "big", "kind": "collective", "measured": "680us", "hardware": "tpu-v5e", "op": "all-gather",
         "slice": [8, 4], "axes": "Y", "bytes": 33554432, "wrap": "auto", "fit": True, "source": "the book"},
        {"id": "small", "kind": "collective", "measured": "8us", "hardware": "tpu-v5e", "op": "all-gather",
         "slice": [8, 4], "axes": "Y", "bytes": 131072, "wrap": "auto", "fit": True, "source": "the book"},
    ]

    def des(self, hardware, array_bytes):
        return podsim.collective(hardware=hardware, slice=[8, 4], op="all-gather", axes="Y",
                                 array_bytes=array_bytes, model="des")["des"]["time_s"]

    def test_rows_fitted_exactly_and_the_overlay_reproduces_them(self):
        with tempfile.TemporaryDirectory() as folder:
            output = os.path.join(folder, "my-v5e.json")
            result = podsim.calibrate(self.ROWS, hardware="tpu-v5e", output=output)
            with open(output, encoding="utf-8") as f:
                written = json.load(f)
            overlay = result["overlay"]
            self.assertEqual(overlay, written)
            self.assertIn("<measurement rows>", overlay["description"])  # not the temporary CSV, removed
            self.assertEqual((overlay["name"], overlay["base"]), ("my-v5e", "tpu-v5e"))
            # Two rows, two figures (the step cost: latency-bound; the link efficiency: bandwidth-bound): the fit
            # is exact, and the overlay used as a preset file gives the measured times back.
            self.assertEqual(sorted(result["fitted"]), ["collective_step_s", "link_efficiency"])
            for row in result["rows"]:
                self.assertLess(abs(row["error_after"]), 1e-6)
            self.assertAlmostEqual(self.des(output, 33554432) / 680e-6, 1.0, delta=1e-4)
            self.assertAlmostEqual(self.des(output, 131072) / 8e-6, 1.0, delta=1e-4)

    def test_shipped_file_without_output(self):
        result = podsim.calibrate("validation/scaling-book.csv", hardware="tpu-v5e")
        shipped = csv_rows("validation/scaling-book.csv")
        used = [r["id"] for r in shipped if r["kind"] != "scenario" and r["hardware"] in ("", "tpu-v5e")]
        self.assertEqual(sorted(row["id"] for row in result["rows"]), sorted(used))
        self.assertEqual(len(result["skipped"]), len(shipped) - len(used))
        self.assertEqual(result["overlay"]["base"], "tpu-v5e")
        self.assertEqual(result["overlay"]["name"], "tpu-v5e-calibrated")
        # A preset file as the base: the overlay names it as given (from the current folder).
        from_file = podsim.calibrate(self.ROWS, hardware="configs/tpu-v5e.json")
        self.assertEqual(from_file["overlay"]["base"], "configs/tpu-v5e.json")
        self.assertEqual(from_file["overlay"]["calibration"].keys(), result["overlay"]["calibration"].keys())

    def test_errors(self):
        with self.assertRaises(podsim.InputError) as caught:
            podsim.calibrate("no/such.csv", hardware="tpu-v5e")
        self.assertEqual(caught.exception.where, "no/such.csv")
        bad = [dict(self.ROWS[0], bytes="lots")]
        with self.assertRaises(podsim.InputError) as caught:
            podsim.calibrate(bad, hardware="tpu-v5e")
        self.assertEqual(caught.exception.where, "<measurement rows>:2")  # line 2: the header is line 1
        self.assertIn("column bytes", caught.exception.rule)
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.calibrate(self.ROWS, hardware="tpu-v5e", output="overlay.txt")
        self.assertEqual(caught.exception.where, "--output")
        self.assertEqual([f for f in os.listdir(".") if f.startswith(".podsim-")], [])


MODULE = "tests/import/data/matmul_tanh.mlir"


class ImportTest(unittest.TestCase):
    def test_module_file_to_a_scenario_run_accepts(self):
        scenario = podsim.import_(MODULE)
        self.assertEqual(scenario["name"], "matmul_tanh")
        # The module's mesh <["x"=4, "y"=2]> on the v5e, and its arguments' types and shardings.
        self.assertEqual(scenario["slice"]["shape"], [4, 2])
        self.assertEqual(scenario["tensors"]["arg0"]["shape"], [1024, 4096])
        self.assertEqual(scenario["tensors"]["arg1"]["shape"], [4096, 8192])
        self.assertEqual(scenario["tensors"]["arg0"]["dtype"], "bf16")
        result = podsim.run(scenario)
        self.assertEqual(result["scenario"]["name"], "matmul_tanh")
        matmul = result["plans"][0]["ops"][0]
        self.assertEqual(matmul["kind"], "matmul")
        # Each chip multiplies its [1024/4, 4096] rows by its [4096, 8192/2] columns.
        self.assertEqual(matmul["flops"], 2 * (1024 // 4) * 4096 * (8192 // 2))

    def test_module_text_and_lowered(self):
        with open(MODULE, encoding="utf-8") as f:
            text = f.read()
        from_file = podsim.import_(MODULE)
        from_text = podsim.import_(text)
        self.assertEqual(from_text["name"], "jit_f")  # the module's @name
        self.assertIn("<module text>", from_text["description"])
        for key in ("slice", "mesh", "tensors", "program"):
            self.assertEqual(from_text[key], from_file[key])

        class Lowered:  # what jax.jit(f).lower(...) returns, as far as import_ uses it
            def as_text(self):
                return text

        self.assertEqual(podsim.import_(Lowered()), from_text)
        self.assertEqual(podsim.check(from_text)["failed"], 0)

    def test_slice_hardware_and_output(self):
        with tempfile.TemporaryDirectory() as folder:
            output = os.path.join(folder, "imported.json")
            scenario = podsim.import_(MODULE, output=output, hardware="tpu-v5p", slice=[4, 2, 1])
            with open(output, encoding="utf-8") as f:
                self.assertEqual(json.load(f), scenario)
            with open(MODULE, encoding="utf-8") as f:
                from_text = podsim.import_(f.read(), output=output)
            with open(output, encoding="utf-8") as f:
                self.assertEqual(json.load(f), from_text)
            self.assertIn("<module text>", from_text["description"])
            self.assertEqual(podsim.run(output)["scenario"]["name"], "jit_f")
        self.assertEqual(scenario["hardware"], "tpu-v5p")
        self.assertEqual(scenario["slice"]["shape"], [4, 2, 1])

    def test_errors(self):
        for path in ("no/such.mlir", "module.mlir"):  # "module.mlir" is a file's name, not a module's text
            with self.assertRaises(podsim.InputError) as caught:
                podsim.import_(path)
            self.assertEqual(caught.exception.where, path)
        with open(MODULE, encoding="utf-8") as f:
            body = f.readlines()[3:]  # after the comments and the module's first line
        one_line = "module @one_line { " + " ".join(line.strip() for line in body)  # text with no line break
        with self.assertRaises(podsim.InputError) as caught:  # read as text (podsim import reads lines)
            podsim.import_(one_line)
        self.assertEqual(caught.exception.where, "<module text>")
        from podsim._inputs import is_module_text

        self.assertEqual([is_module_text(t) for t in ("module {", "module@m", "modules/x.mlir", "module.mlir")],
                         [True, True, False, False])
        with open("tests/import/data/malformed_sharding.mlir", encoding="utf-8") as f:
            text = f.read()
        with self.assertRaises(podsim.InputError) as caught:
            podsim.import_(text)
        # Line 4, where the file's sharding <@mesh, [{"x"}, {]> misses its closing quote-and-brace pair.
        self.assertTrue(caught.exception.where.startswith("<module text>:4:"), caught.exception.where)
        with self.assertRaises(podsim.FlagError) as caught:
            podsim.import_(MODULE, slice="4x3x2x1")
        self.assertEqual(caught.exception.where, "--slice")
        self.assertEqual([f for f in os.listdir(".") if f.startswith(".podsim-")], [])


class EveryCommandTest(unittest.TestCase):
    def test_every_command_of_the_program_has_a_function(self):
        done = subprocess.run([os.environ.get("PODSIM_BINARY", "build/podsim"), "--help"], capture_output=True,
                              text=True, check=True)
        names = {line.split()[0] for line in done.stdout.split("Subcommands:")[1].strip().splitlines()}
        self.assertGreaterEqual(len(names), 11)
        functions = {"import": "import_", "model": "model_describe"}
        for name in names:
            self.assertTrue(callable(getattr(podsim, functions.get(name, name))), name)
            self.assertIn(functions.get(name, name), podsim.__all__)


class DocsTest(unittest.TestCase):
    def test_every_example_of_the_python_page_runs(self):
        """The python blocks of docs/python.md in order, in one namespace, in a scratch folder that sees the
        repository's folders (the examples write sweep folders, an overlay and a report)."""
        with open("docs/python.md", encoding="utf-8") as f:
            page = f.read()
        blocks = [part.split("```", 1)[0] for part in page.split("```python\n")[1:]]
        self.assertGreaterEqual(len(blocks), 13)
        root = os.getcwd()
        namespace = {}
        with tempfile.TemporaryDirectory() as folder:
            for name in ("scenarios", "validation", "configs", "tests"):
                os.symlink(os.path.join(root, name), os.path.join(folder, name))
            os.chdir(folder)
            try:
                for block in blocks:
                    with self.subTest(block=block.splitlines()[0]):
                        exec(compile(block, "docs/python.md", "exec"), namespace)
                self.assertEqual([(r["point"], r["error"]) for r in namespace["records"]], [(0, None), (1, None),
                                                                                              (2, None)])
                self.assertTrue(os.path.exists("sweep.html"))
                self.assertEqual(namespace["fit"]["overlay"]["base"], "tpu-v5e")
            finally:
                os.chdir(root)


class TablesTest(unittest.TestCase):
    def test_rows(self):
        from podsim._tables import rows

        run = podsim.run(ring_all_gather_scenario())
        self.assertEqual([(r["plan"], r["name"]) for r in rows(run)],
                         [(run["plans"][0]["name"], "gather")])
        records = [{"point": 0, "params": {"/a": 1}, "hash": "h", "model": "book", "error": None,
                    "plans": {"p": {"book_time_s": 1.0}, "q": {"book_time_s": 2.0}}},
                   {"point": 1, "params": {"/a": 2}, "hash": "g", "model": "book", "error": "bad", "plans": {}}]
        self.assertEqual([(r["point"], r["plan"], r.get("book_time_s")) for r in rows(records)],
                         [(0, "p", 1.0), (0, "q", 2.0), (1, None, None)])
        self.assertEqual(rows(records)[0]["params./a"], 1)

    def test_to_pandas_or_a_clear_import_error(self):
        records = [{"point": 0, "params": {"/a": 1}, "hash": "h", "model": "book", "error": None,
                    "plans": {"p": {"book_time_s": 1.0, "chips": 4}}}]
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "podsim.to_pandas needs pandas"):
                podsim.to_pandas(records)
        else:
            frame = podsim.to_pandas(records)
            self.assertEqual(list(frame["plan"]), ["p"])
            self.assertEqual(list(frame["book_time_s"]), [1.0])

    def test_to_pandas_where_pandas_is(self):
        """to_pandas of validate's rows and of sweep records, in this interpreter or, when it has no pandas, in
        another one that has it and can load this build's module (Debian's python3-pandas is for /usr/bin/python3
        when the module was built for another Python 3.11)."""
        code = ("import podsim\n"
                "ids = ['sb-allgather-v5e-34mb', 'sb-allgather-v5e-small']\n"
                "frame = podsim.to_pandas(podsim.validate(rows=ids))\n"
                "assert list(frame['id']) == ids, list(frame['id'])\n"
                "assert (frame['measured'] - [680e-6, 8e-6]).abs().max() < 1e-15\n"
                "assert ((frame['des_calibrated'] / frame['measured'] - 1) - frame['error_calibrated']).abs().max()"
                " < 1e-12\n"
                "records = [{'point': 0, 'params': {'/a': 1}, 'hash': 'h', 'model': 'book', 'error': None,\n"
                "            'plans': {'p': {'book_time_s': 1.0}, 'q': {'book_time_s': 2.0}}}]\n"
                "frame = podsim.to_pandas(records)\n"
                "assert list(frame['plan']) == ['p', 'q'] and list(frame['params./a']) == [1, 1]\n"
                "print('pandas', __import__('pandas').__version__)\n")
        for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
            if os.path.exists(python) and subprocess.run([python, "-c", "import pandas, podsim"],
                                                         capture_output=True).returncode == 0:
                break
        else:
            self.skipTest("no Python here has both pandas and this build's module")
        done = subprocess.run([python, "-c", code], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stdout.startswith("pandas "))

    def test_without_pandas_the_import_error_says_so(self):
        code = ("import sys; sys.modules['pandas'] = None\n"
                "import podsim\n"
                "try:\n"
                "    podsim.to_pandas([{'a': 1}])\n"
                "except ImportError as e:\n"
                "    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        self.assertIn("podsim.to_pandas needs pandas", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
