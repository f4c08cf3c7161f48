"""Hosts on one machine for multi-host fault tests and benches: Linux network namespaces on a
bridge (:class:`Network`), and the database host's services on the bridge's address
(:class:`Services`: a Redis of the test's own, restartable, and a forwarder to PostgreSQL).
Needs root, ``ip``, ``redis-server`` and ``socat`` (``tests/tournaments/test_hosts.py``'s
``netns`` marker says so where they are missing)."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection


def _ip(*args: str, check: bool = True) -> None:
    subprocess.run(["ip", *args], check=check, capture_output=True)


@dataclass
class Network:
    """A bridge on the root namespace and hosts (namespaces) on it, each by its address."""

    tag: str
    subnet: str
    hosts: dict[str, str] = field(default_factory=dict)  # namespace -> address
    links: dict[str, str] = field(default_factory=dict)  # namespace -> its veth on the bridge

    @property
    def bridge(self) -> str:
        return f"br{self.tag}"

    @property
    def gateway(self) -> str:
        return f"{self.subnet}.1"

    def up(self, names: list[str]) -> None:
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for number, name in enumerate(names, start=11):
            namespace, outside, inside = f"bl{self.tag}{name}", f"v{self.tag}{name}", "eth0"
            _ip("netns", "add", namespace)
            self.hosts[namespace] = f"{self.subnet}.{number}"
            _ip("link", "add", outside, "type", "veth", "peer", "name", f"p{self.tag}{name}")
            self.links[namespace] = outside
            _ip("link", "set", f"p{self.tag}{name}", "netns", namespace)
            _ip("-n", namespace, "link", "set", f"p{self.tag}{name}", "name", inside)
            _ip("-n", namespace, "addr", "add", f"{self.hosts[namespace]}/24", "dev", inside)
            _ip("-n", namespace, "link", "set", inside, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
            _ip("link", "set", outside, "master", self.bridge)
            _ip("link", "set", outside, "up")

    def host(self, name: str) -> str:
        return f"bl{self.tag}{name}"

    def cut(self, namespace: str) -> None:
        _ip("link", "set", self.links[namespace], "down")

    def restore(self, namespace: str) -> None:
        _ip("link", "set", self.links[namespace], "up")

    def down(self) -> None:
        for namespace, link in self.links.items():
            _ip("link", "del", link, check=False)
            _ip("netns", "del", namespace, check=False)
        _ip("link", "del", self.bridge, check=False)


class Services:
    """The database host's services on the bridge address: the broker (a Redis of the test's
    own, restartable; or, with ``broker="rabbitmq"``, the machine's RabbitMQ through a
    forwarder, in a vhost of the test's own) and the forwarder to PostgreSQL."""

    #: The RabbitMQ vhost of the several-hosts tests (made and deleted by them).
    VHOST = "bluffhosts"

    def __init__(self, address: str, logs: Path, broker: str = "redis") -> None:
        self.address, self.logs, self.broker = address, logs, broker
        self.redis_port, self.pg_port, self.amqp_port = 16379, 15432, 15672
        self.redis: subprocess.Popen | None = None
        self.forwarders = [_forward(address, self.pg_port,
                                    connection.settings_dict["HOST"] or "127.0.0.1",
                                    connection.settings_dict["PORT"] or 5432)]
        if broker == "rabbitmq":
            subprocess.run(["rabbitmqctl", "-q", "delete_vhost", self.VHOST], check=False,
                           capture_output=True)
            subprocess.run(["rabbitmqctl", "-q", "add_vhost", self.VHOST], check=True,
                           capture_output=True)
            subprocess.run(["rabbitmqctl", "-q", "set_permissions", "-p", self.VHOST, "guest",
                            ".*", ".*", ".*"], check=True, capture_output=True)
            self.forwarders.append(_forward(address, self.amqp_port, "127.0.0.1", 5672))
        else:
            self.start_broker()

    @property
    def broker_url(self) -> str:
        if self.broker == "rabbitmq":
            return f"amqp://guest:guest@{self.address}:{self.amqp_port}/{self.VHOST}"
        return f"redis://{self.address}:{self.redis_port}/0"

    @property
    def database_url(self) -> str:
        return (f"postgres://{connection.settings_dict['USER']}@{self.address}:{self.pg_port}/"
                f"{connection.settings_dict['NAME']}")

    def start_broker(self) -> None:
        with open(self.logs / "redis.log", "a") as log:  # Redis writes to its own copy
            self.redis = subprocess.Popen(
                ["redis-server", "--bind", self.address, "--port", str(self.redis_port),
                 "--save", "", "--appendonly", "no", "--protected-mode", "no"],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while subprocess.run(["redis-cli", "-h", self.address, "-p", str(self.redis_port),
                              "ping"], capture_output=True, text=True,
                             check=False).stdout.strip() != "PONG":
            assert time.monotonic() < deadline, "the test's Redis did not start"
            time.sleep(0.1)

    def stop_broker(self) -> None:
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait(timeout=10)
            self.redis = None

    def stop(self) -> None:
        self.stop_broker()
        for forwarder in self.forwarders:
            forwarder.kill()
            forwarder.wait(timeout=10)
        if self.broker == "rabbitmq":
            subprocess.run(["rabbitmqctl", "-q", "delete_vhost", self.VHOST], check=False,
                           capture_output=True)


def _forward(address: str, port: int, to_host: str, to_port: int | str) -> subprocess.Popen:
    """``socat`` from ``address:port`` (the bridge) to a service the machine runs on loopback."""
    return subprocess.Popen(
        ["socat", f"TCP-LISTEN:{port},bind={address},fork,reuseaddr",
         f"TCP:{to_host}:{to_port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
