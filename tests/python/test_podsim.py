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
