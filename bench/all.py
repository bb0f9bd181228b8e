"""The benchmarks that need nothing but the code (`make bench`). The stack benchmarks
need Postgres and Redis and run one at a time: see docs/benchmarks.md."""
import runpy
import sys

for module, argv in [("bench.engines", []), ("bench.kitten_bench", []), ("bench.gofish_strength", [])]:
    print(f"\n== {module}", flush=True)
    sys.argv = [module, *argv]
    runpy.run_module(module, run_name="__main__")
