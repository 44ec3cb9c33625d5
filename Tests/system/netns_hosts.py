"""Separate hosts on one machine for tests: each a network namespace with its own address, joined
to the others by a veth pair on one bridge, and its own data directory. A host's processes run in
a mount namespace where every other host's directory is covered by an empty tmpfs, so nothing
can pass between hosts but the network."""
import os
import pathlib
import random
import shlex
import shutil
import signal
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True)


class Host:
    def __init__(self, lan, name, address, directory):
        self.lan = lan
        self.name = name
        self.address = address
        self.namespace = f"{lan.prefix}-{name}"
        self.data = directory / name / "data"
        self.data.mkdir(parents=True)
        self.log = directory / name / "processes.log"
        self.runs = 0

    def start(self, procfile, env):
        """Runs `ops/hosts/<procfile>` under honcho on this host, in the background."""
        self.runs += 1
        with open(self.log, "ab") as log:
            log.write(f"==== start {self.runs}\n".encode())
            log.flush()
            subprocess.Popen(self.argv(str(ROOT / ".venv" / "bin" / "honcho"), "-d", str(ROOT),
                                       "-f", str(ROOT / "ops" / "hosts" / procfile), "start", "--no-colour"),
                             stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PANTRY_DATA": str(self.data), **env},
                             cwd=ROOT, start_new_session=True)

    def run(self, *args, env=None, timeout=120):
        """A command on this host, to its end."""
        return subprocess.run(self.argv(*args), capture_output=True, timeout=timeout, env={**os.environ, **(env or {})})

    def argv(self, *command):
        """`command` in this host's network namespace, every other host's directory covered."""
        hidden = [str(other.data.parent) for other in self.lan.hosts if other is not self]
        cover = "".join(f"mount -t tmpfs -o size=1m tmpfs {shlex.quote(path)}; " for path in hidden)
        return ["ip", "netns", "exec", self.namespace, "sh", "-c", cover + 'exec "$@"', "host", *command]

    def make_key(self, pantry_bin, role):
        """`pantry keys` on this host, as its operator runs it: its key pair in DATA/keys, named after it."""
        made = self.run(pantry_bin, "keys", "--data", str(self.data), "--role", role, "--host", self.address, "--name", self.name)
        assert made.returncode == 0, made.stdout.decode() + made.stderr.decode()

    def key(self, secret=False):
        """This host's key file as a dict (`public-key`, `secret-key`, `role`, ...)."""
        text = (self.data / "keys" / f"{self.name}.{'secret' if secret else 'public'}").read_text()
        return dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line and not line.startswith("#"))

    def pids(self):
        listed = subprocess.run(["ip", "netns", "pids", self.namespace], capture_output=True, text=True)
        return [int(p) for p in listed.stdout.split()]

    def kill(self):
        """The host loses power: every process in it gets SIGKILL, nothing is flushed."""
        self.signal_all(signal.SIGKILL, wait=10)

    def stop(self):
        """A clean stop: SIGTERM to every process, SIGKILL to what is left after 15 s."""
        self.signal_all(signal.SIGTERM, wait=15)
        self.kill()

    def signal_all(self, number, wait):
        self.signal(number)
        self.wait_for_none(wait)

    def signal(self, number):
        for pid in self.pids():
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                pass

    def wait_for_none(self, seconds):
        deadline = time.monotonic() + seconds
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.05)


class Lan:
    """A bridge in this namespace with an address of its own, so the test reaches every host."""

    def __init__(self, directory):
        # Names and a subnet of its own: a namespace just deleted is torn down in the background,
        # so the next test's must not reuse them.
        tag = random.randrange(10000)
        self.prefix = f"pt{tag}"
        self.subnet = f"10.{100 + tag % 100}.{tag // 100}"
        self.bridge = f"{self.prefix}br"
        self.directory = directory
        self.hosts = []
        self.cleanups = []
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", f"{self.subnet}.254/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")

    def host(self, name):
        number = len(self.hosts) + 1
        host = Host(self, name, f"{self.subnet}.{number}", self.directory)
        veth = f"{self.prefix}v{number}"
        ip("netns", "add", host.namespace)
        ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", host.namespace)
        ip("link", "set", veth, "master", self.bridge)
        ip("link", "set", veth, "up")
        ip("-n", host.namespace, "addr", "add", f"{host.address}/24", "dev", "eth0")
        ip("-n", host.namespace, "link", "set", "eth0", "up")
        ip("-n", host.namespace, "link", "set", "lo", "up")
        self.hosts.append(host)
        return host

    def share_keys(self, *hosts):
        """Copies each host's .public file into every other's keys directory, as an operator would
        (the secret files stay where they are)."""
        for source in hosts:
            for target in hosts:
                if target is not source:
                    shutil.copy(source.data / "keys" / f"{source.name}.public", target.data / "keys")

    def on_close(self, cleanup):
        """Runs `cleanup` once the hosts are stopped (a server one of them started, say)."""
        self.cleanups.append(cleanup)

    def close(self):
        # Every host told to stop at once, as an operator's shutdown would: one at a time took 7 s.
        for host in self.hosts:
            host.signal(signal.SIGTERM)
        for host in self.hosts:
            host.stop()
        for cleanup in self.cleanups:
            cleanup()
        for host in self.hosts:
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
