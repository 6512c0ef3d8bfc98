"""The real parts of a deployment of several processes, started by the tests and the
benchmarks on free loopback ports: Debian's `redis-server`, Debian's `nginx` running
`deploy/nginx.conf` and the site it includes (only the ports and the file paths put in), and
app processes (`python -m app`) sharing the Redis. `make test` installs both programs
(`make service-deps`)."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from app.settings import ROOT
from tests.serverproc import (
    HOST,
    AppProcess,
    ServerDidNotStart,
    free_port,
    stop,
)

NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def program(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise RuntimeError(f"{name} is not installed: run `make service-deps` (or `make test`)")
    return found


class Redis:
    """redis-server on a free port, as deploy/compose.yaml runs it: an append-only file
    fsync'd before each answer (appendfsync always), in `workdir`, so a restart or a
    kill -9 keeps every write it answered; `durable=False`: in memory only."""

    def __init__(self, workdir: Path, *, durable: bool = True, port: int | None = None,
                 extra: tuple[str, ...] = ()) -> None:
        self.workdir = workdir
        self.durable = durable
        self.extra = extra
        self.port = port or free_port()
        self.url = f"redis://{HOST}:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Redis:
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = (self.workdir / "redis.log").open("ab")
        keep = (["--appendonly", "yes", "--appendfsync", "always"] if self.durable
                else ["--appendonly", "no"])
        self.proc = subprocess.Popen(
            [program("redis-server"), "--port", str(self.port), "--bind", HOST,
             "--save", "", *keep, "--dir", str(self.workdir), *self.extra],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                if self.client().ping():
                    return self
            except Exception:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                stop(self.proc)
                raise ServerDidNotStart(f"redis-server did not start on {self.port}")
            time.sleep(0.05)

    def client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.url, socket_timeout=5)

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)

    def proc_alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9: whatever it had not fsync'd is lost."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


def cluster_port() -> int:
    """A free port whose cluster bus port (10000 above) is free too."""
    import socket

    while True:
        port = free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind((HOST, port + 10000))
            except OSError:
                continue
        return port


class RedisCluster:
    """A Redis Cluster on loopback: `masters` masters with `replicas` replicas each, every
    node durable as Redis above and failing over after `node_timeout_ms` without its
    master (Debian's redis-server, --cluster-enabled; redis-cli --cluster create)."""

    def __init__(self, workdir: Path, *, masters: int = 3, replicas: int = 2,
                 node_timeout_ms: int = 1000) -> None:
        self.workdir = workdir
        self.masters = masters
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.nodes = [
            Redis(workdir / f"node{i}", port=cluster_port(), extra=(
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms)))
            for i in range(masters * (1 + replicas))]
        self.url = f"redis://{HOST}:{self.nodes[0].port}"

    def start(self) -> RedisCluster:
        for node in self.nodes:
            node.start()
        subprocess.run(
            [program("redis-cli"), "--cluster", "create",
             *(f"{HOST}:{n.port}" for n in self.nodes),
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True, capture_output=True, timeout=60)
        self.wait_healthy()
        return self

    def wait_healthy(self, seconds: float = 60) -> None:
        """Until every running node says the cluster is ok and has its masters."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                alive = [n for n in self.nodes if n.proc_alive()]
                infos = [n.client().cluster("info") for n in alive]
                masters = {m for n in alive for m in self.master_ports(n)}
                if all(i["cluster_state"] == "ok" for i in infos) and len(masters) == (
                        self.masters):
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise ServerDidNotStart("the Redis cluster did not become ok")
            time.sleep(0.1)

    def master_ports(self, node: Redis) -> list[int]:
        """The ports of the masters that serve slots, as `node` sees them."""
        nodes = node.client().execute_command("CLUSTER NODES")
        return [int(address.rsplit(":", 1)[1]) for address, info in nodes.items()
                if "master" in info["flags"] and "fail" not in info["flags"] and info["slots"]]

    def live(self) -> Redis:
        return next(n for n in self.nodes if n.proc_alive())

    def node_for_key(self, key: str) -> Redis:
        """The master now holding `key`'s slot."""
        slot = int(self.live().client().execute_command("CLUSTER KEYSLOT", key))
        for node in self.nodes:
            if not node.proc_alive():
                continue
            for start, end, master, *_ in node.client().execute_command("CLUSTER SLOTS"):
                if start <= slot <= end:
                    port = int(master[1])
                    return next(n for n in self.nodes if n.port == port)
        raise AssertionError(f"no node holds slot {slot}")

    def client(self) -> Any:
        import redis

        return redis.RedisCluster.from_url(f"redis://{HOST}:{self.live().port}",
                                           socket_timeout=5)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


class Nginx:
    """nginx running deploy/nginx.conf in front of the given app ports."""

    def __init__(self, workdir: Path, app_ports: list[int], *, room_rate: str | None = None,
                 per_address: int | None = None, port: int | None = None) -> None:
        self.workdir = workdir
        self.port = port or free_port()
        self.app_ports = app_ports
        # Benchmarks make many rooms and sockets from one address: "1000000r/s", 100000.
        self.room_rate = room_rate
        self.per_address = per_address
        self.http = f"http://{HOST}:{self.port}"
        self.ws = f"ws://{HOST}:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        # nginx's workers run as its default user: their temporary files go in a folder
        # they can reach (a test's own folder is the test runner's alone).
        self.temp = Path(tempfile.mkdtemp(prefix="piquet-nginx-"))
        self.temp.chmod(0o755)

    def config(self) -> tuple[str, str]:
        """deploy/nginx.conf and the site it includes, with only the app ports, the port
        to serve on and the file paths put in."""
        text = NGINX_CONF.read_text()
        lines = re.findall(r"        server 127\.0\.0\.1:\d+ ([^\n]*)\n", text)
        assert lines, "deploy/nginx.conf: the upstream's server lines moved"
        servers = "".join(f"        server {HOST}:{p} {lines[0]}\n" for p in self.app_ports)
        text, n = re.subn(r"(        server 127\.0\.0\.1:\d+[^\n]*\n)+", servers, text)
        assert n == 1, "deploy/nginx.conf: the upstream's server lines moved"
        text = text.replace("pid /tmp/nginx.pid;", f"pid {self.workdir}/nginx.pid;")
        temp = "".join(f"    {kind}_temp_path {self.temp}/{kind};\n"
                       for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        text = text.replace("http {\n", "http {\n" + temp, 1)
        site = (NGINX_CONF.parent / "nginx-table.conf").read_text()
        site, n = re.subn(r"listen 80;", f"listen {HOST}:{self.port};", site)
        assert n == 1
        if self.room_rate:
            site = re.sub(r"rate=\S+;", f"rate={self.room_rate};", site)
            site = re.sub(r"burst=\d+", "burst=100000", site)
        if self.per_address:
            site, n = re.subn(r"limit_conn per_address \d+;",
                              f"limit_conn per_address {self.per_address};", site)
            assert n == 1
        return text, site

    def start(self) -> Nginx:
        self.workdir.mkdir(parents=True, exist_ok=True)
        conf = self.workdir / "nginx.conf"
        main, site = self.config()
        conf.write_text(main)
        (self.workdir / "nginx-table.conf").write_text(site)
        self.temp.mkdir(mode=0o755, exist_ok=True)
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.temp / kind).mkdir(exist_ok=True)
            (self.temp / kind).chmod(0o777)
        log = (self.workdir / "nginx.log").open("ab")
        self.proc = subprocess.Popen(
            [program("nginx"), "-p", str(self.workdir), "-c", str(conf), "-g", "daemon off;"],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{self.http}/nginx-is-up", trust_env=False, timeout=2)
                return self
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                stop(self.proc)
                raise ServerDidNotStart(
                    f"nginx did not start:\n{(self.workdir / 'nginx.log').read_text()}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
        shutil.rmtree(self.temp, ignore_errors=True)


class App(AppProcess):
    """`python -m app` on a port of its own, keeping rooms in the given Redis."""

    def __init__(self, log_path: Path, redis_url: str, port: int | None = None,
                 **env: str) -> None:
        super().__init__(log_path, port, PIQUET_REDIS_URL=redis_url, **env)

    def start(self) -> App:
        super().start()
        return self

    def terminate(self, timeout: float = 15) -> int:
        """SIGTERM, as a service manager stops it for a deploy; its exit status."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)

    def rooms(self) -> int:
        return int(httpx.get(f"{self.http}/healthz", trust_env=False, timeout=5).json()["rooms"])
