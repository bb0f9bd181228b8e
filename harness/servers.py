"""Servers the tests start, own and kill: a redis-server and a Postgres cluster, each on a
free port of 127.0.0.1 with its files in a temporary directory, and a Celery worker. Fault
tests break these, never the Redis or Postgres they found running on the machine (which may
hold anything). The benchmarks start theirs from here too (bench/own_redis.py,
bench/verification.py).

No Django here: the session's own Redis is started by a pytest plugin before Django's
settings are loaded (./conftest.py)."""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.stats import proc_stat

ROOT = Path(__file__).resolve().parent.parent


# Ports for the servers the tests and benchmarks start. Not bind(0): that hands out a port of
# the kernel's ephemeral range (ip_local_port_range), the range every outgoing connection
# takes its source port from, so between free_port() closing its socket and redis-server or
# Postgres binding the port, a client connection (psycopg, a browser, the other pytest
# worker's) could take it and the server would never come up. Below that range the kernel
# gives no connection a port; each process takes ports from a slice of its own there (the
# pytest-xdist worker's number, else one by its pid), in turn, so two processes never pick the
# same one, nor one process the same one twice in a row.
_PORTS_FROM = 20000
_SLICES = 16
_next_port: int | None = None


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _slice() -> tuple[int, int]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    # the workers' slices first, then the other processes' (a benchmark, the controller)
    half = _SLICES // 2
    index = int(worker[2:]) % half if worker.startswith("gw") and worker[2:].isdigit() else half + os.getpid() % half
    top = max(_ephemeral_low(), _PORTS_FROM + _SLICES * 64)
    size = (top - _PORTS_FROM) // _SLICES
    start = _PORTS_FROM + (index % _SLICES) * size
    return start, start + size


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on and that no other process of the tests
    will be given (see above)."""
    global _next_port
    start, end = _slice()
    if _next_port is None or not start <= _next_port < end:
        _next_port = start
    for _ in range(end - start):
        port = _next_port
        _next_port = port + 1 if port + 1 < end else start
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken (another service of the machine, or a server of ours)
            return port
    raise RuntimeError(f"no free port in {start}-{end - 1}")


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up within {timeout}s")
        time.sleep(0.05)


# Looked up here, not in the child: between fork and exec (other threads may be running
# in the parent) the child only makes this one call.
_prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the process that started it dies, so a
    test run killed outright leaves no redis-server behind."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class RedisServer:
    """A redis-server of the tests' own: nothing saved, nothing but 127.0.0.1."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return self.url_for(0)

    def url_for(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                tempfile.gettempdir(),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        _wait(self.answers, 10, f"redis-server on port {self.port}")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class CeleryWorker:
    """A real `celery -A config worker` in a process group of its own (kill() takes the pool's
    children too), its output appended to ``log_path``; can be killed and started again.
    ``env`` names its settings, database and broker."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None

    def start(self, concurrency: int = 1, loglevel: str = "INFO", settle: float = 4.0) -> None:
        """Start it and wait until it takes tasks: its "ready." line, which Celery logs at
        INFO; at a quieter level (a benchmark that keeps its worker from logging every
        verification) there is no such line, and ``settle`` seconds stand for it."""
        ready_marks = (self.log_path.read_bytes().count(b"ready.") if self.log_path.exists() else 0) + 1
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [
                    *(sys.executable, "-m", "celery", "-A", "config", "worker"),
                    *("-l", loglevel, "-P", "prefork", "-c", str(concurrency)),
                    *("--without-gossip", "--without-mingle", "--without-heartbeat"),
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if loglevel.upper() in ("INFO", "DEBUG"):
            _wait(lambda: self.log_path.read_bytes().count(b"ready.") >= ready_marks, 40, "the celery worker")
        else:
            time.sleep(settle)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """Celery's warm shutdown: the tasks in hand are finished first."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def stack_processes(run_dir: Path) -> list[int]:
    """The live processes that the pid files of a scripts/stack run dir name and that are
    that stack's (a pid file can outlive its process, and the pid be another's since): the
    environment scripts/stack gave them names the run dir, or (nginx, which writes over its
    environment) their command line does."""
    pids = []
    for file in Path(run_dir).glob("*.pid"):
        try:
            pid = int(file.read_text().strip())
            ours = f"STACK_RUN_DIR={run_dir}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            if (ours or f"{run_dir}/".encode() in Path(f"/proc/{pid}/cmdline").read_bytes()) and not _gone(pid):
                pids.append(pid)
        except (OSError, ValueError):
            continue
    return pids


def stop_stack(run_dir: Path, grace: float = 5.0) -> None:
    """A scripts/stack stack a test is done with: every process told to stop at once, and
    killed with its process group if still there after ``grace`` seconds. `scripts/stack
    stop` stops them one after another, each waited for warm (up to 30 s apiece), which
    only the test of the script itself needs (tests/test_ops_stack.py)."""
    pids = stack_processes(run_dir)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while (pids := [pid for pid in pids if not _gone(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in stack_processes(run_dir):  # each started in a session of its own: pid = its group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(not _gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)


def _gone(pid: int) -> bool:
    """No such process, or a dead one not yet reaped (a stack's parent, scripts/stack, is
    long gone: whoever adopted it reaps it)."""
    fields = proc_stat(pid)
    return not fields or fields[0] in ("Z", "X")


def postgres_bindir() -> Path | None:
    """Where initdb and pg_ctl are: on PATH, else Debian's newest /usr/lib/postgresql/N/bin."""
    if found := shutil.which("initdb"):
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


class PostgresCluster:
    """A Postgres cluster of a test's own (initdb in a temporary directory, one free port,
    trust authentication for the `postgres` role on 127.0.0.1), started and stopped with
    pg_ctl. Postgres refuses to run as root: as root, every command runs as the `postgres`
    OS user, which owns the directory."""

    def __init__(self) -> None:
        self.bindir = postgres_bindir()
        if self.bindir is None:
            raise RuntimeError("no initdb found (PostgreSQL server binaries)")
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="own-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")  # KeyError: no such user, the caller skips
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def url(self, db: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}"

    def _run(self, tool: str, *args: str, timeout: float = 120) -> None:
        done = subprocess.run(
            [*self.prefix, str(self.bindir / tool), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.dir,
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{tool} {' '.join(args)} failed: {done.stdout}{done.stderr}{log}")

    def init(self) -> None:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )

    def start(self) -> None:
        # fsync off: a test cluster thrown away afterwards; the restart test stops it cleanly.
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def remove(self) -> None:
        """Stop (immediately) if running, and delete its files."""
        if self.running():
            try:
                self.stop("immediate")
            except RuntimeError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
