"""The benchmarks that need nothing but the code (`make bench`). The stack benchmarks
need Postgres and Redis and run one at a time: see docs/benchmarks.md."""

import runpy
import sys

# The fair-play detector at a small size here (~10 s); docs/fairplay.md's figures use its default.
for module, argv in [
    ("bench.engines", []),
    ("bench.kitten_bench", []),
    ("bench.gofish_strength", []),
    ("bench.fairplay", ["--seeds", "300"]),
]:
    print(f"\n== {module}", flush=True)
    sys.argv = [module, *argv]
    runpy.run_module(module, run_name="__main__")
