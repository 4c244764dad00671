"""Emulated hosts (tests/cluster/hosts.sh) for the cluster benchmarks.

Hosts(count, ranks, mbit) brings up `count` hosts of `ranks` slots each,
their links limited to `mbit` Mbit/s when given (tc tbf), and removes them
on leaving its with block, also on an error. Needs root.
"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOSTS_SH = os.path.join(ROOT, "tests", "cluster", "hosts.sh")


class Hosts:
    def __init__(self, count, ranks, mbit=None):
        self.args = [str(ranks)] * count + (["--mbit", str(mbit)] if mbit else [])
        self.np = count * ranks

    def __enter__(self):
        self.dir = subprocess.run([HOSTS_SH, "up", str(os.getpid())] + self.args, check=True,
                                  capture_output=True, text=True).stdout.strip()
        self.tag = os.path.basename(self.dir).removeprefix("cct-hosts-")
        return self

    def __exit__(self, *exc):
        subprocess.run([HOSTS_SH, "down", self.dir], check=True)

    def mpirun(self):
        """The command that starts ranks on these hosts ("-np N prog" follows)."""
        return [HOSTS_SH, "mpirun", self.dir]

    def yielding(self):
        """mpirun's options that make Open MPI yield where ranks outnumber cores."""
        return ["--mca", "mpi_yield_when_idle", "1"] if self.np > os.cpu_count() else []

    def in_host1(self, command):
        """command run inside host 1, with Open MPI set for these hosts."""
        return [HOSTS_SH, "run", self.dir] + command

    def sent_bytes(self):
        """Bytes the hosts have sent into the bridge: the sum of its ports' rx."""
        out = subprocess.run(["ip", "-n", f"{self.tag}-br", "-s", "-j", "link", "show"],
                             check=True, capture_output=True, text=True).stdout
        return sum(link["stats64"]["rx"]["bytes"] for link in json.loads(out)
                   if link["ifname"].startswith("p"))
