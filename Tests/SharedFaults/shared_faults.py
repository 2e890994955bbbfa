#!/usr/bin/env python3
"""Shared lists under faults, Jepsen-style (issue 60): three real listd share one real PostgreSQL,
each through a TCP proxy of this file's that can drop, blackhole, delay, or deliver an old
connection's bytes late; clients on every machine edit while faults come one after another
(kill -9 of a listd, the server stopped fast or immediately, crashed, hung; a full disk under one
machine's files); every request and answer is recorded with its times, and a checker reads the
history and every machine's final state:

- every confirmed edit is on every machine, in the history at the revision its answer gave (an
  add's item there, a removed or renamed one gone, a tick ticked, an amount the last one
  confirmed unless a later unanswered one may have been made, the list's name its last rename);
- no edit answered `unavailable` (code 1101, "not made") is ever made;
- nothing invented or made twice (every item on the lists was asked for, once in the history);
- the same lists, revision and history on every machine;
- every subscriber hears each change once, in revision order, across listd's restarts (it
  resumes with `since`);
- every answer within its documented bound (docs/sharing.md: 20 s after the edit).

    shared_faults.py --listd BIN [--faults N | --each N] [--seed S] [--keep]

`make test` runs a short one (`--faults 20`); `make soak-shared EACH=100` runs N faults of every
kind. A failed run keeps its directory (listd's and the server's logs, history.json).
"""
import argparse
import json
import os
import pwd
import random
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

UNAVAILABLE, OUTCOME_UNKNOWN = 1101, 1103
# docs/sharing.md: an edit waits at most 5 s for the append before its own, whose doubt is
# answered 15 s after that append began at most.
BOUND = 20.0
SLACK = 3.0  # a loaded machine's scheduling, not listd's bound
KINDS = ["kill9", "pg-fast", "pg-immediate", "pg-crash", "pg-hang", "drop", "blackhole", "delay", "late", "disk-full"]


class Anomaly(Exception):
    pass


def log(text):
    print("%7.2f %s" % (time.time() - STARTED, text), flush=True)


STARTED = time.time()


# --- PostgreSQL -----------------------------------------------------------------------------

class Postgres:
    """A server of the run's own in a temporary directory, on a Unix socket only."""

    def __init__(self, directory):
        versions = sorted(int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit())
        if not versions:
            raise SystemExit("PostgreSQL is not installed (Debian: postgresql)")
        self.bin = "/usr/lib/postgresql/%d/bin" % versions[-1]
        self.directory = directory
        self.data = os.path.join(directory, "data")
        os.makedirs(directory, exist_ok=True)
        self.as_server = ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] \
            if os.geteuid() == 0 else []
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(directory, entry.pw_uid, entry.pw_gid)
        self.run([self.bin + "/initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
        with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
            f.write("local all postgres trust\nlocal all all scram-sha-256\n")
        self.process = None
        self.log = open(os.path.join(directory, "postgres.log"), "ab")
        self.start()
        self.psql("CREATE ROLE listd LOGIN PASSWORD 'secret'")
        self.psql("CREATE DATABASE lists OWNER listd")

    @property
    def socket(self):
        return os.path.join(self.directory, ".s.PGSQL.5432")

    def run(self, command):
        done = subprocess.run(self.as_server + command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit("%s: %s" % (" ".join(command), done.stderr))
        return done.stdout

    def psql(self, sql):
        return self.run([self.bin + "/psql", "-h", self.directory, "-U", "postgres", "-d", "postgres", "-XAtq",
                         "-v", "ON_ERROR_STOP=1", "-c", sql])

    def start(self):
        deadline = time.time() + 30
        while time.time() < deadline:
            self.process = subprocess.Popen(
                self.as_server + [self.bin + "/postgres", "-D", self.data, "-k", self.directory, "-c", "listen_addresses=",
                                  "-c", "logging_collector=off", "-c", "max_connections=200"],
                stdout=self.log, stderr=subprocess.STDOUT)
            while time.time() < deadline and self.process.poll() is None:
                if subprocess.run(self.as_server + [self.bin + "/pg_isready", "-h", self.directory, "-q"]).returncode == 0:
                    return
                time.sleep(0.05)
            time.sleep(0.2)  # a crashed server's backends may hold its shared memory for a moment
        raise Anomaly("PostgreSQL did not start again within 30 s")

    def children(self):
        pids = [self.process.pid]
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open("/proc/%s/stat" % entry) as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                    if int(fields[1]) == self.process.pid:
                        pids.append(int(entry))
                except (OSError, IndexError, ValueError):
                    pass
        return pids

    def signal_all(self, sig):
        for pid in self.children():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, sig):
        """SIGINT: fast shutdown; SIGQUIT: immediate; SIGKILL: a crash (the backends notice)."""
        self.signal_all(signal.SIGCONT)
        self.process.send_signal(sig)
        self.process.wait()

    def shutdown(self):
        if self.process and self.process.poll() is None:
            self.stop(signal.SIGINT)


# --- The fault proxy --------------------------------------------------------------------------

class Pipe:
    """One TCP connection through the proxy: listd's side and the server's, and the bytes held
    in each direction while the network holds them."""

    def __init__(self, client, server, generation):
        self.client, self.server = client, server
        self.generation = generation  # the proxy's fault count when it was opened
        self.held = {client: [], server: []}  # bytes read from a side, not yet delivered to the other
        self.ended = {client: False, server: False}  # that side closed its writing half
        self.closed = False


class Proxy:
    """Listens on 127.0.0.1 and forwards to the server's Unix socket. `fault(kind)`:
    - drop: every connection reset at once; new ones refused until healed;
    - blackhole: nothing delivered either way (new connections too), and nothing lost: held bytes
      and closes go through when healed, as TCP retransmits them;
    - late: as blackhole from the next COMMIT listd sends (held with it: the partition falls
      while a COMMIT is on its way), and when healed, connections opened during or after the
      fault flow at once and the old ones' held bytes arrive `late_by` s later (a COMMIT
      retransmitted after listd has reconnected);
    - delay: each chunk delivered `delay` s after it was read."""

    def __init__(self, target):
        self.target = target
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Condition()
        self.mode, self.delay, self.late_by = "pass", 0.0, 0.0
        self.generation = 0
        self.release_old_at = 0.0
        self.pipes = []
        self.wake_r, self.wake_w = socket.socketpair()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.stopping = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def wake(self):
        try:
            self.wake_w.send(b"x")
        except OSError:
            pass

    def fault(self, kind, delay=0.0, late_by=0.0):
        with self.lock:
            self.generation += 1
            self.mode, self.delay, self.late_by = ("arming" if kind == "late" else kind), delay, late_by
            if kind == "drop":
                for pipe in list(self.pipes):
                    self.reset(pipe)
        self.wake()

    def heal(self):
        with self.lock:
            if self.mode == "late":
                self.release_old_at = time.time() + self.late_by
                self.old_generation = self.cut
                self.lates = getattr(self, "lates", 0) + 1
            self.mode, self.delay = "pass", 0.0
        self.wake()

    def reset(self, pipe):
        if pipe.closed:
            return
        pipe.closed = True
        for side in (pipe.client, pipe.server):
            try:
                self.selector.unregister(side)
            except (KeyError, ValueError):
                pass
            try:
                side.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                side.close()
            except OSError:
                pass
        self.pipes.remove(pipe)

    def holding(self, pipe, now):
        if self.mode in ("blackhole", "late"):
            return True
        # After a `late` fault: the connections that saw it wait, the rest flow.
        return pipe.generation <= getattr(self, "old_generation", -1) and now < self.release_old_at

    def loop(self):
        while not self.stopping:
            with self.lock:
                now = time.time()
                timeout = 0.05
                for pipe in list(self.pipes):
                    self.deliver(pipe, now)
            for key, _ in self.selector.select(timeout):
                with self.lock:
                    if key.data == "wake":
                        self.wake_r.recv(4096)
                    elif key.data is None:
                        self.accept()
                    else:
                        pipe, side = key.data
                        self.receive(pipe, side)

    def accept(self):
        client, _ = self.listener.accept()
        if self.mode == "drop":
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            client.close()
            return
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.connect(self.target)
        except OSError:
            client.close()  # the server is down: as a refused connection
            server.close()
            return
        pipe = Pipe(client, server, self.generation)
        self.pipes.append(pipe)
        for side in (client, server):
            side.setblocking(False)
            self.selector.register(side, selectors.EVENT_READ, (pipe, side))

    def receive(self, pipe, side):
        if pipe.closed:
            return
        try:
            chunk = side.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = None
        if chunk is None:
            self.reset(pipe)
            return
        # (listd's append is BEGIN, one call of listd_append_1, COMMIT: should it ever become one
        # statement, that statement is its COMMIT, and this must arm on it instead.)
        if self.mode == "arming" and side is pipe.client and b"COMMIT" in chunk:
            self.mode = "late"  # the partition falls with this COMMIT on its way
            self.cut = self.generation  # the connections opened until now are the old ones
            self.generation += 1
        pipe.held[side].append((time.time() + self.delay, chunk))  # b"": its writing half closed
        if not chunk:
            self.selector.unregister(side)
        self.deliver(pipe, time.time())

    def deliver(self, pipe, now):
        if pipe.closed or self.holding(pipe, now):
            return
        for side, other in ((pipe.client, pipe.server), (pipe.server, pipe.client)):
            queue = pipe.held[side]
            while queue and queue[0][0] <= now:
                due, chunk = queue[0]
                try:
                    if chunk:
                        sent = other.send(chunk)
                        if sent < len(chunk):
                            queue[0] = (due, chunk[sent:])
                            break  # its buffer is full (a hung server): the rest on a later turn
                    else:
                        other.shutdown(socket.SHUT_WR)
                        pipe.ended[side] = True
                    queue.pop(0)
                except BlockingIOError:
                    break
                except OSError:
                    self.reset(pipe)
                    return
        if all(pipe.ended.values()):
            self.reset(pipe)

    def stop(self):
        self.stopping = True
        self.wake()
        self.thread.join(5)


# --- listd and its clients --------------------------------------------------------------------

class Machine:
    def __init__(self, number, binary, directory, url, disk=None):
        self.number, self.binary, self.url = number, binary, url
        self.directory = directory
        self.files = disk or directory  # the list file's directory (a FUSE mount for the disk fault)
        self.socket = os.path.join(directory, "listd.sock")
        self.output = open(os.path.join(directory, "listd.out"), "ab")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--socket", self.socket, "--file", os.path.join(self.files, "lists.md"),
             "--share", self.url, "--settle-ms", "30", "--log-level", "debug"],
            stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise Anomaly("listd %d exited at its start with status %s" % (self.number, self.process.returncode))
            try:
                Connection(self.socket).close()
                return
            except OSError:
                time.sleep(0.05)
        raise Anomaly("listd %d did not serve within 30 s of its start" % self.number)

    def kill(self):
        self.process.kill()
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                if self.process.wait(timeout=20) != 0:
                    raise Anomaly("listd %d stopped with status %s on SIGTERM" % (self.number, self.process.returncode))
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise Anomaly("listd %d did not stop within 20 s of SIGTERM" % self.number)


class Connection:
    def __init__(self, path, name="shared-faults"):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(40)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 1
        self.call("hello", {"name": name})

    def send(self, method, params=None):
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.next_id += 1
        self.sock.sendall((json.dumps(request) + "\n").encode())
        return request["id"]

    def message(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("listd closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def call(self, method, params=None):
        wanted = self.send(method, params)
        while True:
            message = self.message()
            if message.get("id") == wanted:
                return message

    def close(self):
        self.sock.close()


class Worker(threading.Thread):
    """A client on one machine: adds items of its own, ticks and sets amounts of them, renames
    (`replaceItem`) and removes them, and now and then renames the list; one request at a time,
    each recorded as it was asked and answered. A name is never used twice: an add never repeats
    an item (an add of an item there ticked would untick it), and a name removed or renamed away
    is never touched again, so the checker can tell what each name's final state must be. Only
    an item whose add (or rename to it) was confirmed is renamed or removed: one in doubt may be
    missing, and the denial would say nothing about listd."""

    def __init__(self, run, machine, number):
        super().__init__(daemon=True)
        self.run_, self.machine, self.number = run, machine, number
        self.rng = random.Random(run.seed * 1000 + machine.number * 10 + number)
        self.added = []      # names to tick and give amounts: their add or rename was not refused
        self.confirmed = []  # names surely there: their add or rename to them was confirmed
        self.count = 0

    def run(self):
        connection = None
        while not self.run_.stopping.is_set():
            if connection is None:
                try:
                    connection = Connection(self.machine.socket, "worker-%d-%d" % (self.machine.number, self.number))
                except OSError:
                    time.sleep(0.1)
                    continue
            op = self.next_op()
            record = dict(op, machine=self.machine.number, worker=self.number, start=time.time())
            try:
                answer = connection.call(op["method"], op["params"])
                record["end"] = time.time()
                if "error" in answer:
                    record["outcome"], record["code"] = "fail", answer["error"]["code"]
                    record["message"] = answer["error"].get("message")
                else:
                    record["outcome"] = "ok"
                    record["revision"] = answer["result"].get("revision")
            except (OSError, ConnectionError, ValueError) as error:
                record["end"], record["outcome"], record["message"] = time.time(), "info", str(error)
                connection = None
            self.follow(op, record["outcome"])
            self.run_.record(record)
            time.sleep(self.rng.uniform(0.0, 0.02))

    def follow(self, op, outcome):
        """What the worker may do next with the names the op touched."""
        method, params = op["method"], op["params"]
        refused = outcome == "fail"
        if method == "addItem" and not refused:
            self.added.append(params["item"])
            if outcome == "ok":
                self.confirmed.append(params["item"])
        elif method in ("replaceItem", "removeItem"):
            # Refused: still there, and tried again later. Made or in doubt: never touched again.
            if not refused:
                self.added.remove(params["item"])
                self.confirmed.remove(params["item"])
            if method == "replaceItem" and outcome == "ok":
                self.added.append(params["with"])
                self.confirmed.append(params["with"])

    def next_op(self):
        roll = self.rng.random()
        if self.added and roll < 0.22:
            return {"method": "checkItem", "params": {"list": 1, "item": self.rng.choice(self.added)}}
        if self.added and roll < 0.35:
            return {"method": "setQuantity", "params": {"list": 1, "item": self.rng.choice(self.added),
                                                        "quantity": "%d" % self.rng.randint(1, 9)}, "amount": True}
        if self.confirmed and roll < 0.43:
            self.count += 1
            item = self.rng.choice(self.confirmed)
            return {"method": "replaceItem", "params": {"list": 1, "item": item, "with": "%s-r%d" % (item, self.count)}}
        if self.confirmed and roll < 0.50:
            return {"method": "removeItem", "params": {"list": 1, "item": self.rng.choice(self.confirmed)}}
        self.count += 1
        if roll > 0.985:
            return {"method": "renameList", "params": {"list": 1, "name": "Groceries m%d-w%d-%d" % (self.machine.number, self.number, self.count)}}
        return {"method": "addItem", "params": {"list": 1, "item": "m%d-w%d-%d" % (self.machine.number, self.number, self.count)}}


class Subscriber(threading.Thread):
    """Hears every change on one machine, resuming with `since` after listd's restarts: each
    revision once, in order."""

    def __init__(self, run, machine):
        super().__init__(daemon=True)
        self.run_, self.machine = run, machine
        self.revisions = []
        self.problems = []
        self.last, self.instance = None, None
        self.stopping = threading.Event()  # set once the machines have converged

    def run(self):
        while not self.stopping.is_set():
            try:
                connection = Connection(self.machine.socket, "subscriber-%d" % self.machine.number)
            except OSError:
                time.sleep(0.1)
                continue
            try:
                params = {} if self.last is None else {"since": self.last, "instance": self.instance}
                answer = connection.call("subscribe", params)
                if "error" in answer:
                    self.problems.append("subscribe %s on machine %d: %s" % (params, self.machine.number, answer["error"]))
                    return
                self.instance = answer["result"]["instance"]
                if self.last is None:
                    self.last = answer["result"]["revision"]
                connection.sock.settimeout(0.5)
                while not self.stopping.is_set():
                    try:
                        message = connection.message()
                    except socket.timeout:
                        continue
                    revision = (message.get("params") or {}).get("revision")
                    if "id" in message or revision is None:
                        continue
                    if revision != self.last + 1:
                        self.problems.append("subscriber on machine %d heard revision %d after %d (%s)"
                                             % (self.machine.number, revision, self.last, message.get("method")))
                    self.last = max(self.last, revision)
                    self.revisions.append(revision)
            except (OSError, ConnectionError, ValueError):
                time.sleep(0.05)
            finally:
                connection.close()


# --- The run ------------------------------------------------------------------------------------

class Run:
    def __init__(self, binary, seed, plan, keep):
        self.binary, self.seed, self.plan, self.keep = binary, seed, plan, keep
        self.rng = random.Random(seed)
        self.directory = tempfile.mkdtemp(prefix="listd-shared-faults-")
        os.chmod(self.directory, 0o755)
        self.history = []
        self.history_lock = threading.Lock()
        self.stopping = threading.Event()
        self.disk = None

    def record(self, entry):
        with self.history_lock:
            self.history.append(entry)

    def mount_disk(self):
        """powercutfs (Tests/PowerCutFS) under machine 2's files: SIGUSR2 fills it, again frees it."""
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "PowerCutFS", "powercutfs.c")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fuse3"], capture_output=True, text=True)
        if flags.returncode != 0 or not os.access("/dev/fuse", os.W_OK) or os.geteuid() != 0:
            return None
        binary = os.path.join(self.directory, "powercutfs")
        if subprocess.run(["cc", "-O2", "-o", binary, source] + flags.stdout.split()).returncode != 0:
            return None
        image, mount = os.path.join(self.directory, "image"), os.path.join(self.directory, "disk")
        os.mkdir(image)
        os.mkdir(mount)
        self.disk = subprocess.Popen([binary, image, mount], stdout=subprocess.PIPE, text=True)
        if self.disk.stdout.readline().strip() != "mounted":
            return None
        os.chmod(mount, 0o755)
        return mount

    def execute(self):
        self.server = Postgres(os.path.join(self.directory, "pg"))
        self.proxies, self.machines = [], []
        mount = self.mount_disk() if "disk-full" in self.plan else None
        if "disk-full" in self.plan and mount is None:
            log("no FUSE here: the full-disk fault is left out")
            self.plan = {kind: count for kind, count in self.plan.items() if kind != "disk-full"}
        for number in range(3):
            proxy = Proxy(self.server.socket)
            directory = os.path.join(self.directory, "m%d" % number)
            os.mkdir(directory)
            url = "postgresql://listd:secret@127.0.0.1:%d/lists?sslmode=disable" % proxy.port
            machine = Machine(number, self.binary, directory, url, disk=mount if number == 2 else None)
            self.proxies.append(proxy)
            self.machines.append(machine)
        try:
            for machine in self.machines:
                machine.start()
            first = Connection(self.machines[0].socket)
            answer = first.call("createList", {"name": "Groceries"})
            if "error" in answer:
                raise Anomaly("createList: %s" % answer["error"])
            first.close()
            self.wait_converged(30)
            threads = [Worker(self, m, w) for m in self.machines for w in range(2)]
            self.subscribers = [Subscriber(self, m) for m in self.machines]
            for thread in self.subscribers + threads:
                thread.start()
            self.faults()
            self.heal_all()
            time.sleep(2)
            self.stopping.set()
            for thread in threads:
                thread.join(BOUND + SLACK + 5)
                if thread.is_alive():
                    raise Anomaly("a client's request was not answered within %d s of the end" % (BOUND + SLACK + 5))
            self.wait_converged(60)
            time.sleep(1)  # the last notifications on their way
            for thread in self.subscribers:
                thread.stopping.set()
                thread.join(5)
            self.check()
        finally:
            self.stopping.set()
            for thread in getattr(self, "subscribers", []):
                thread.stopping.set()
            self.dump()
            for machine in self.machines:
                try:
                    machine.stop()
                except Anomaly as anomaly:
                    log(str(anomaly))
                    raise
            for proxy in self.proxies:
                proxy.stop()
            self.server.shutdown()
            if self.disk:
                self.disk.terminate()
                self.disk.wait()

    def faults(self):
        pending = [kind for kind, count in self.plan.items() for _ in range(count)]
        self.rng.shuffle(pending)
        done = {}
        for number, kind in enumerate(pending):
            machine = self.rng.randrange(3)
            hold = self.rng.choice([0.3, 1.0, 2.5, 6.0])  # past the 5 s deadline now and then
            if kind == "late":
                hold = self.rng.uniform(5.5, 7.0)  # past the deadline: the held COMMIT is in doubt
            log("fault %d/%d: %s on machine %d for %.1f s" % (number + 1, len(pending), kind, machine, hold))
            self.inject(kind, machine, hold)
            done[kind] = done.get(kind, 0) + 1
            time.sleep(self.rng.uniform(0.3, 1.5))  # the clients work between faults
        self.done = done

    def inject(self, kind, number, hold):
        machine, proxy = self.machines[number], self.proxies[number]
        if kind == "kill9":
            machine.kill()
            time.sleep(min(hold, 2))
            machine.start()
        elif kind in ("pg-fast", "pg-immediate", "pg-crash"):
            self.server.stop({"pg-fast": signal.SIGINT, "pg-immediate": signal.SIGQUIT, "pg-crash": signal.SIGKILL}[kind])
            time.sleep(hold)
            self.server.start()
        elif kind == "pg-hang":
            self.server.signal_all(signal.SIGSTOP)
            time.sleep(hold)
            self.server.signal_all(signal.SIGCONT)
        elif kind == "disk-full":
            self.disk.send_signal(signal.SIGUSR2)
            time.sleep(hold)
            self.disk.send_signal(signal.SIGUSR2)
        else:
            proxy.fault(kind, delay=self.rng.uniform(0.05, 0.4) if kind == "delay" else 0.0,
                        late_by=self.rng.uniform(0.2, 3.0) if kind == "late" else 0.0)
            time.sleep(hold)
            proxy.heal()

    def heal_all(self):
        for proxy in self.proxies:
            proxy.heal()
        time.sleep(2)  # the last `late` bytes

    def state(self, machine):
        connection = Connection(machine.socket)
        try:
            lists = connection.call("getLists")["result"]
            hello = connection.call("hello", {"name": "shared-faults"})["result"]
            history = connection.call("getHistory", {"limit": 1000000})
            return lists, hello, history.get("result")
        finally:
            connection.close()

    def wait_converged(self, seconds):
        deadline = time.time() + seconds
        while True:
            states = [self.state(m) for m in self.machines]
            revisions = [s[0]["revision"] for s in states]
            connected = [((s[1].get("share") or {}).get("connected")) for s in states]
            if all(connected) and len(set(revisions)) == 1:
                return states
            if time.time() > deadline:
                raise Anomaly("the machines did not converge within %d s: revisions %s, connected %s"
                              % (seconds, revisions, connected))
            time.sleep(0.2)

    def check(self):
        states = self.wait_converged(10)
        problems = []
        lists = [s[0] for s in states]
        shown = [json.dumps(l["lists"], sort_keys=True) for l in lists]
        if len(set(shown)) != 1:
            problems.append("the machines' lists differ")
        histories = [json.dumps(s[2], sort_keys=True) for s in states]
        if len(set(histories)) != 1:
            problems.append("the machines' histories differ")
        groceries = next(l for l in lists[0]["lists"] if l["id"] == 1)
        items = {text: index for index, text in enumerate(groceries["items"])}
        checked = set(groceries.get("checked", []))
        amounts = groceries.get("quantities") or {}
        late = [e for e in self.history if e["outcome"] != "info" and e["end"] - e["start"] > BOUND + SLACK]
        for entry in late:
            problems.append("answered after %.1f s (bound %d s): %s" % (entry["end"] - entry["start"], BOUND, entry))

        def refused(entry):  # answered `unavailable`: not made, and never will be
            return entry["outcome"] == "fail" and entry.get("code") == UNAVAILABLE

        # What could put each name on the list (its add, a rename to it), and take it off (its
        # removal, a rename from it). No name is used twice (see Worker).
        makers, takers = {}, {}
        for entry in self.history:
            method, params = entry["method"], entry["params"]
            if method == "addItem":
                makers.setdefault(params["item"], []).append(entry)
            elif method == "replaceItem":
                makers.setdefault(params["with"], []).append(entry)
                takers.setdefault(params["item"], []).append(entry)
            elif method == "removeItem":
                takers.setdefault(params["item"], []).append(entry)
            if method in ("addItem", "replaceItem", "removeItem", "renameList") and entry["outcome"] == "fail" \
                    and entry.get("code") not in (UNAVAILABLE, OUTCOME_UNKNOWN):
                problems.append("%s denied otherwise: %s" % (method, entry))
        for item in items:
            if item not in makers:
                problems.append("“%s” is on the list, and no client added it" % item)
            elif all(refused(e) for e in makers[item]):
                problems.append("“%s” answered unavailable (not made), yet made: %s" % (item, makers[item]))
            elif any(e["outcome"] == "ok" for e in takers.get(item, [])):
                problems.append("“%s” confirmed removed or renamed, yet still there: %s" % (item, takers[item]))
        for item, entries in makers.items():
            if any(e["outcome"] == "ok" for e in entries) and item not in items:
                if not takers.get(item):
                    problems.append("confirmed add (or rename to) “%s” lost" % item)
                elif all(refused(e) for e in takers[item]):
                    problems.append("“%s” taken off though every removal or rename was answered unavailable: %s" % (item, takers[item]))

        by_item = {}
        for entry in self.history:
            if entry["method"] == "checkItem" or entry.get("amount"):
                by_item.setdefault(entry["params"]["item"], []).append(entry)
        for item, entries in by_item.items():
            if not all(refused(e) for e in takers.get(item, [])):
                continue  # removed or renamed away, or maybe: its box and amount are not checked
            ticks = [e for e in entries if e["method"] == "checkItem"]
            if any(e["outcome"] == "ok" for e in ticks) and item not in checked:
                problems.append("confirmed tick of “%s” lost" % item)
            renamed_to = any(e["method"] == "replaceItem" for e in makers.get(item, []))  # its tick goes with it
            if item in checked and ticks and not renamed_to and all(refused(e) for e in ticks):
                problems.append("tick of “%s” answered unavailable, yet made" % item)
            sets = [e for e in entries if e.get("amount")]
            last_ok = max((i for i, e in enumerate(sets) if e["outcome"] == "ok"), default=None)
            if last_ok is not None:
                # An add of an item there already: its amount set (docs/protocol.md), or re-ticked off.
                possible = {sets[last_ok]["params"]["quantity"]} | {
                    e["params"]["quantity"] for e in sets[last_ok + 1:] if not refused(e)}
                if amounts.get(item) not in possible:
                    problems.append("“%s” shows amount %s; confirmed or possible: %s" % (item, amounts.get(item), sorted(possible)))

        # The list's name: the last confirmed rename's (by revision), or one whose answer never came.
        renames = [e for e in self.history if e["method"] == "renameList"]
        confirmed_renames = sorted((e for e in renames if e["outcome"] == "ok"), key=lambda e: e["revision"])
        possible = {confirmed_renames[-1]["params"]["name"] if confirmed_renames else "Groceries"} | {
            e["params"]["name"] for e in renames if e["outcome"] != "ok" and not refused(e)}
        if groceries["name"] not in possible:
            problems.append("the list is called “%s”; confirmed or possible: %s" % (groceries["name"], sorted(possible)))

        changes = (states[0][2] or {}).get("changes", [])
        added = [step.get("item") for change in changes for step in change.get("changes") or [] if step.get("op") == "add"]
        duplicates = {i for i in added if added.count(i) > 1}
        if duplicates:
            problems.append("added twice in the history: %s" % sorted(duplicates))
        at = {change["revision"]: change for change in changes}
        oldest = min(at, default=None)
        expected = {
            "addItem": lambda p: {"op": "add", "item": p["item"]},
            "replaceItem": lambda p: {"op": "replace", "item": p["item"], "with": p["with"]},
            "removeItem": lambda p: {"op": "remove", "item": p["item"]},
            "renameList": lambda p: {"op": "rename", "to": p["name"]},
        }
        for entry in self.history:
            if entry["outcome"] != "ok" or entry["method"] not in expected or oldest is None or entry["revision"] < oldest:
                continue  # a tick or an amount may change nothing (no revision of its own); older ones compacted
            step = expected[entry["method"]](entry["params"])
            steps = (at.get(entry["revision"]) or {}).get("changes") or []
            if not any(all(s.get(k) == v for k, v in step.items()) for s in steps):
                problems.append("confirmed %s %s at revision %d, which is %s" % (
                    entry["method"], entry["params"], entry["revision"], at.get(entry["revision"])))
        final = lists[0]["revision"]
        for subscriber in self.subscribers:
            problems += subscriber.problems
            if subscriber.last != final:
                problems.append("subscriber on machine %d stopped at revision %s of %d" % (subscriber.machine.number, subscriber.last, final))
        self.figures = {
            "faults": self.done, "requests": len(self.history),
            "confirmed": sum(e["outcome"] == "ok" for e in self.history),
            "unavailable": sum(e.get("code") == UNAVAILABLE for e in self.history),
            "outcome unknown": sum(e.get("code") == OUTCOME_UNKNOWN for e in self.history),
            "cut off by a kill": sum(e["outcome"] == "info" for e in self.history),
            "revision": final, "items": len(items),
            "confirmed by kind": {m: sum(e["outcome"] == "ok" and e["method"] == m for e in self.history)
                                  for m in ("addItem", "checkItem", "setQuantity", "replaceItem", "removeItem", "renameList")},
            "slowest answer s": round(max((e["end"] - e["start"] for e in self.history if e["outcome"] != "info"), default=0), 2),
        }
        if problems:
            raise Anomaly("; ".join(problems[:20]) + (" (and %d more)" % (len(problems) - 20) if len(problems) > 20 else ""))

    def dump(self):
        with open(os.path.join(self.directory, "history.json"), "w") as f:
            json.dump(self.history, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listd", required=True)
    parser.add_argument("--faults", type=int, help="this many faults, kinds drawn in turn")
    parser.add_argument("--each", type=int, help="this many faults of every kind")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the run's directory even when it held")
    options = parser.parse_args()
    kinds = options.kinds.split(",")
    seed = options.seed if options.seed is not None else random.randrange(1 << 30)
    if options.each:
        plan = {kind: options.each for kind in kinds}
    else:
        total = options.faults or 20
        plan = {kind: total // len(kinds) + (1 if index < total % len(kinds) else 0) for index, kind in enumerate(kinds)}
    run = Run(os.path.abspath(options.listd), seed, plan, options.keep)
    log("seed %d, %s, in %s" % (seed, plan, run.directory))
    try:
        run.execute()
    except Anomaly as anomaly:
        print("shared faults, seed %d: ANOMALY: %s (kept: %s)" % (seed, anomaly, run.directory), flush=True)
        sys.exit(1)
    print("shared faults, seed %d: held: %s" % (seed, json.dumps(run.figures)), flush=True)
    if not options.keep:
        shutil.rmtree(run.directory, ignore_errors=True)


if __name__ == "__main__":
    main()
