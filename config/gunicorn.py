"""gunicorn settings for every way we start the web: `gunicorn -c config/gunicorn.py
config.wsgi` (Dockerfile, docker-compose.yml, scripts/stack). Command-line flags win.

WEB_CONCURRENCY sets the worker count (gunicorn reads it itself; 2 per core is the usual
start, docs/benchmarks.md has what 2, 3 and 4 did on this machine). WEB_ACCESS_LOG=off
drops the access log (one line per request on stdout; on by default, measured cost in
docs/benchmarks.md) where a proxy in front already logs requests.
"""

import gc
import os

from config import metrics

bind = "0.0.0.0:8000"
accesslog = None if os.environ.get("WEB_ACCESS_LOG", "on").strip().lower() in ("off", "0", "no", "false") else "-"
# Each worker proves it is alive by touching a file after every request. On a disk that is
# a metadata write per request (measured: ~6 % of throughput on this machine's ext4
# /tmp); in memory it costs nothing. gunicorn's own advice for containers.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
timeout = 30
graceful_timeout = 20


def post_worker_init(worker):
    # Django's modules, settings and URL maps live as long as the worker. Frozen, they are
    # out of the garbage collector's reach: a full collection then scans only what requests
    # made, ~0.3 ms instead of ~70 ms on this app (measured; such a pause lands on an ask).
    gc.collect()
    gc.freeze()


def child_exit(server, worker):
    # A worker's live gauges (open sockets, the breaker) leave the metrics' sum with it.
    metrics.process_dead(worker.pid)
