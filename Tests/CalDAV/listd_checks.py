"""What the CalDAV client scripts share (tasks_clients.py, sync_clients.py): a check that is
counted and printed, listd's socket spoken to directly (to check listd itself, not listd-web's
word), a household rule as a real delegate, and a wait for a change to reach listd-web's book."""
import json
import socket
import threading
import time

failures = []
checks = 0


def check(ok, what):
    """Counts and prints one check; the script ends with `summary()`."""
    global checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def summary():
    """Prints "N checks; M failures" and returns the exit status."""
    print(f"{checks} checks; {len(failures)} failures")
    return 1 if failures else 0


class Listd:
    """listd's socket, spoken to directly (newline JSON-RPC)."""

    def __init__(self, path, name="caldav test"):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.next = 0
        self.call("hello", {"name": name})

    def call(self, method, params=None):
        self.next += 1
        message = {"jsonrpc": "2.0", "id": self.next, "method": method}
        if params is not None:
            message["params"] = params
        self.file.write((json.dumps(message) + "\n").encode())
        self.file.flush()
        while True:
            reply = json.loads(self.file.readline())
            if reply.get("id") == self.next:
                if "error" in reply:
                    raise RuntimeError(reply["error"])
                return reply["result"]

    def lists(self, name="Groceries"):
        """A list's items, ticked items and amounts, as listd has them."""
        found = self.call("getList", {"list": name})
        return found["items"], found.get("checked", []), found.get("quantities", {})


def delegate(path, refused):
    """A household rule: listd asks before each add; `refused` is never allowed."""
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(path)
    stream = sock.makefile("rwb")

    def send(message):
        stream.write((json.dumps(message) + "\n").encode())
        stream.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"name": "no-beer rule"}})
    send({"jsonrpc": "2.0", "id": 2, "method": "registerDelegate", "params": {"name": "no beer", "questions": ["shouldAdd"]}})
    registered = threading.Event()

    def answer():
        for line in stream:
            message = json.loads(line)
            if message.get("id") == 2:
                registered.set()
            if message.get("method") == "shouldAdd":
                allow = message["params"]["item"].lower() != refused
                result = {"allow": True} if allow else {"allow": False, "reason": "no beer on the weekly shop"}
                send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    threading.Thread(target=answer, daemon=True).start()
    registered.wait(10)
    return sock


def eventually(condition, seconds=10):
    """True once `condition()` is: another client's change reaches listd-web's book as listd
    tells it, a moment after listd confirmed it (a tasks app sees it at its next poll)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
