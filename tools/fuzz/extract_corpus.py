#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (tools/fuzz/corpus/<target>/) from the tests and the shipped files.

Text targets take the string literals of their test files that look like their notation; the scenario and
hardware targets take the shipped scenarios and presets and the loader tests' case files; the stablehlo and
hlo targets take the importer's test modules. Each seed is one
file named after its content's hash, so rerunning the script adds new seeds and keeps the old ones.
"""
import hashlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tools" / "fuzz" / "corpus"

# "..." with escapes, and R"(...)" raw strings.
LITERAL = re.compile(r'R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"', re.S)


def literals(paths):
    for path in paths:
        for m in LITERAL.finditer(path.read_text(errors="replace")):
            if m.group(2) is not None:
                yield m.group(2)
            else:
                yield bytes(m.group(3), "utf-8").decode("unicode_escape", errors="replace").encode(
                    "latin-1", errors="replace").decode("utf-8", errors="replace")


def tests(*names):
    return [ROOT / "tests" / name for name in names]


TEXT_TARGETS = {
    "shardy": (tests("sharding/shardy_parse_test.cpp", "sharding/shardy_print_test.cpp",
                     "sharding/sharding_verify_test.cpp"), lambda s: "<" in s or s.startswith(("{", '"'))),
    "book": (tests("sharding/book_notation_test.cpp", "plan/matmul_plan_test.cpp", "plan/sharded_values_test.cpp"),
             lambda s: "[" in s and "<" not in s and "(" not in s),
    "pspec": (tests("sharding/partition_spec_test.cpp", "plan/collective_values_test.cpp"),
              lambda s: s.startswith(("P(", "PartitionSpec(", "jax."))),
    "mesh_spec": (tests("sharding/mesh_spec_test.cpp", "cli/cli_test.cpp"), lambda s: "=" in s and "--" not in s),
    "einsum": (tests("plan/einsum_test.cpp", "plan/matmul_plan_test.cpp", "plan/dense_array_test.cpp"),
               lambda s: "->" in s or "," in s and len(s) < 20),
    "units": (tests("units/units_test.cpp"), lambda s: 0 < len(s) < 24 and any(c.isdigit() for c in s)),
}

# podsim collective's fields, one per line (see fuzz_collective.cpp).
COLLECTIVE_SEEDS = [
    "tpu-v5e\n16x16\nauto\n\nall-gather\nX\nV=64MiB\n\nbf16\n\n\nauto",
    "tpu-v5e\n8x4\nauto\nX=8,Y=4\nall-reduce\nX,Y\nV=1GB\n\nbf16\n45GB/s\n1us\nbidirectional",
    "tpu-v5p\n4x4x4\nall\n\nreduce-scatter\nX\n1024x8192\n[I, J]{U_X}\nf32\n\n\nauto",
    "tpu-v4\n4x4x4\nauto\n\nall-to-all\nY\n1024x1024\nP('X', 'Y')\nbf16\n\n\nauto",
    "tpu-v5e\n8x8\nnone\n<[\"a\"=8, \"b\"=8]>\nall-gather\na,b\n4096x4096\n<@mesh, [{\"a\"}, {\"b\"}]>\nint8\n\n1us\nunidirectional",
]


# Hugging Face config.json files as the model hubs publish them (LLaMA, Mixtral, GPT-2 keys).
HF_CONFIG_SEEDS = [
    '{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, '
    '"num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": false}',
    '{"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, '
    '"num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8, '
    '"num_experts_per_tok": 2}',
    '{"model_type": "gpt2", "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, '
    '"num_attention_heads": 12, "vocab_size": 50257, "tie_word_embeddings": true, "head_dim": 64}',
]


def write(target, text):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    data = text if isinstance(text, bytes) else text.encode()
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def main():
    for target, (paths, keep) in TEXT_TARGETS.items():
        for text in set(literals([p for p in paths if p.exists()])):
            if text and keep(text):
                write(target, text)
    for path in sorted((ROOT / "scenarios").rglob("*.json")) + sorted((ROOT / "tests" / "scenario").rglob("case.json")):
        write("scenario", path.read_bytes())
    for path in sorted((ROOT / "configs").glob("*.json")):
        write("hardware", path.read_bytes())
    for path in sorted((ROOT / "tests" / "hardware").rglob("*.json")):
        write("hardware", path.read_bytes())
    for text in COLLECTIVE_SEEDS:
        write("collective", text)
    for path in sorted((ROOT / "tests" / "import" / "data").glob("*.mlir")):
        write("stablehlo", path.read_bytes())
    for path in sorted((ROOT / "tests" / "import" / "data").glob("*.hlo")):
        write("hlo", path.read_bytes())
    for path in sorted((ROOT / "sweeps").rglob("*.json")):
        write("sweep", path.read_bytes())
    for path in sorted((ROOT / "tests").rglob("*hf*.json")) + sorted((ROOT / "tests").rglob("config.json")):
        write("hf_config", path.read_bytes())
    for text in HF_CONFIG_SEEDS:
        write("hf_config", text)
    for path in sorted((ROOT / "validation").rglob("*.csv")):
        write("measurement_csv", path.read_bytes())
    for folder in sorted(CORPUS.iterdir()):
        print(f"{folder.name}: {len(list(folder.iterdir()))} seeds")


if __name__ == "__main__":
    main()
