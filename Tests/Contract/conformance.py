#!/usr/bin/env python3
"""listd's conformance session: a scripted session over every method, notification, delegate
question and error that docs/listd.openrpc.json lists, against a running listd, with every message
listd sends checked against that contract by a JSON Schema validator (python3-jsonschema).

Usage: conformance.py --contract C --socket S --file F --idle-socket S2 --full-socket S3 [--transcript T]

--socket: a listd on its defaults (list file F); --idle-socket: a listd with a short --idle-ms;
--full-socket: a listd with a small --max-connections (listd's own user's connections are not
kept from it, so the test opens as many as it takes). IntegrationTests' ContractTests starts them.
Exits 0 when every message conforms and every part of the contract was seen; else prints each
failure and exits 1.
"""
import argparse
import json
import os
import queue
import socket
import sys
import threading
import time

import jsonschema

TIMEOUT = 10


class Transcript:
    """Every message listd sent, with what it answered (the method of the request it replies to,
    and whether the connection was brief then)."""

    def __init__(self):
        self.entries = []
        self.lock = threading.Lock()

    def add(self, **entry):
        with self.lock:
            self.entries.append(entry)


class Connection:
    """One client connection: requests sent with ids, every line read by a thread, replies
    matched by id; questions answered by `on_question` when set (a delegate)."""

    counter = 0

    def __init__(self, path, transcript, name, brief=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.transcript = transcript
        self.name = name
        self.brief = brief
        self.pending = {}  # id (as JSON text) -> method
        self.replies = queue.Queue()
        self.notifications = queue.Queue()
        self.on_question = None
        self.closed = threading.Event()
        self.lock = threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for raw in self.file:
            line = raw.decode("utf-8")
            try:
                message = json.loads(line)
            except ValueError:
                self.transcript.add(kind="unreadable", line=line, connection=self.name)
                continue
            for element in message if isinstance(message, list) else [message]:
                self.take(element, batch=isinstance(message, list))
        self.closed.set()

    def take(self, message, batch):
        if not isinstance(message, dict):
            self.transcript.add(kind="unreadable", line=json.dumps(message), connection=self.name)
            return
        if "method" in message and "id" in message:
            self.transcript.add(kind="question", method=message["method"], message=message, brief=self.brief, connection=self.name)
            if self.on_question:
                self.on_question(self, message)
            return
        if "method" in message:
            self.transcript.add(kind="notification", method=message["method"], message=message, brief=self.brief, connection=self.name)
            self.notifications.put(message)
            return
        key = json.dumps(message.get("id"))
        with self.lock:
            method, brief = self.pending.pop(key, (None, self.brief))
        self.transcript.add(kind="reply", method=method, message=message, brief=brief, connection=self.name, batch=batch)
        self.replies.put(message)

    def send_line(self, text):
        self.file.write(text.encode("utf-8") + b"\n")
        self.file.flush()

    def next_id(self):
        Connection.counter += 1
        return Connection.counter

    def request(self, method, params=None, brief=None):
        ident = self.next_id()
        message = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        with self.lock:
            self.pending[json.dumps(ident)] = (method, self.brief if brief is None else brief)
        self.send_line(json.dumps(message))
        return ident

    def call(self, method, params=None):
        ident = self.request(method, params)
        return self.wait_reply(ident)

    def wait_reply(self, ident):
        deadline = time.time() + TIMEOUT
        held = []
        try:
            while True:
                reply = self.replies.get(timeout=max(0.01, deadline - time.time()))
                if reply.get("id") == ident:
                    return reply
                held.append(reply)
        finally:
            for reply in held:
                self.replies.put(reply)

    def ok(self, method, params=None):
        reply = self.call(method, params)
        if "result" not in reply:
            raise AssertionError(f"{method} {params} failed: {reply}")
        return reply["result"]

    def denied(self, method, params, reason):
        reply = self.call(method, params)
        said = (reply.get("error") or {}).get("data", {}) or {}
        if said.get("reason") != reason:
            raise AssertionError(f"{method} {params}: wanted {reason}, got {reply}")
        return reply["error"]

    def failed(self, method, params, code):
        reply = self.call(method, params)
        if (reply.get("error") or {}).get("code") != code:
            raise AssertionError(f"{method} {params}: wanted {code}, got {reply}")
        return reply["error"]

    def raw(self, text, expect_reply=True):
        """A line as written (a parse error, an invalid request, a batch): its reply's method is
        recorded as unknown (`None`), except a batch's elements, recorded by `pend`."""
        self.send_line(text)
        if expect_reply:
            return self.replies.get(timeout=TIMEOUT)

    def pend(self, ident, method):
        with self.lock:
            self.pending[json.dumps(ident)] = (method, self.brief)

    def notification(self, method, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while True:
            message = self.notifications.get(timeout=max(0.01, deadline - time.time()))
            if message["method"] == method:
                return message

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def answer(allow_unless):
    """A delegate that allows every question but those about the item or name `allow_unless`
    denies, and answers an error for “broken”."""

    def on_question(connection, question):
        params = question.get("params", {})
        subject = params.get("item") or params.get("name") or params.get("section")
        if subject == "broken":
            result = '"error":{"code":-32603,"message":"the rules file is missing"}'
        elif subject == allow_unless:
            result = '"result":{"allow":false,"reason":"no sweets"}'
        else:
            result = '"result":{"allow":true}'
        connection.send_line('{"jsonrpc":"2.0","id":%s,%s}' % (json.dumps(question["id"]), result))

    return on_question


def session(args, transcript):
    path = args.socket
    every_event = [
        "didCreateShoppingList", "didUpdateShoppingList", "didRenameShoppingList", "didDeleteShoppingList",
        "didRejectFileEdit", "didDenyChange", "didChangeDelegates",
    ]
    watcher = Connection(path, transcript, "watcher")
    watcher.ok("hello", {"name": "watcher"})
    watcher.ok("subscribe", {"events": every_event})
    brief_watcher = Connection(path, transcript, "brief-watcher", brief=True)
    brief_watcher.ok("hello", {"name": "brief-watcher", "brief": True})
    brief_watcher.ok("subscribe", {"events": every_event})

    a = Connection(path, transcript, "client")
    a.ok("hello", {"name": "conformance"})
    a.ok("getLists")
    a.denied("getList", {"list": "Groceries"}, "listNotFound")
    made = a.ok("createList", {"name": "Groceries", "items": ["milk", "eggs"], "quantities": {"milk": "2 l"}})
    a.ok("createList", {"name": "groceries", "ifAbsent": True})
    a.denied("createList", {"name": "Groceries"}, "listExists")
    a.denied("createList", {"name": "  "}, "invalidName")
    a.ok("getList", {"list": "Groceries"})
    a.denied("addItem", {"list": "Groceries", "item": "milk", "quantity": "1 l"}, "itemExists")
    a.ok("addItem", {"list": "Groceries", "item": "milk", "ifAbsent": True})
    a.denied("addItem", {"list": "Groceries", "item": "a\u0001b"}, "invalidItem")
    a.ok("addItem", {"list": "Groceries", "item": "bread", "section": "Bakery", "quantity": "1"})
    a.ok("replaceItem", {"list": "Groceries", "item": "bread", "with": "rolls"})
    a.denied("replaceItem", {"list": "Groceries", "item": "caviar", "with": "roe"}, "itemNotFound")
    a.ok("moveItem", {"list": "Groceries", "item": "eggs", "section": "Bakery"})
    a.ok("addSection", {"list": "Groceries", "section": "Dairy"})
    a.denied("addSection", {"list": "Groceries", "section": "dairy"}, "sectionExists")
    a.denied("addSection", {"list": "Groceries", "section": " "}, "invalidSection")
    a.ok("renameSection", {"list": "Groceries", "section": "Dairy", "to": "Fridge"})
    a.denied("removeSection", {"list": "Groceries", "section": "Cellar"}, "sectionNotFound")
    a.ok("removeSection", {"list": "Groceries", "section": "Fridge"})
    a.ok("setQuantity", {"list": "Groceries", "item": "eggs", "quantity": "12"})
    a.denied("setQuantity", {"list": "Groceries", "item": "eggs", "quantity": "12 (large"}, "invalidQuantity")
    a.ok("checkItem", {"list": "Groceries", "item": "milk"})
    a.ok("uncheckItem", {"list": "Groceries", "item": "milk"})
    a.ok("checkItem", {"list": "Groceries", "item": "milk"})
    a.ok("clearChecked", {"list": "Groceries"})
    a.ok("removeItem", {"list": "Groceries", "item": "rolls"})
    listed = a.ok("getList", {"list": "Groceries"})
    a.denied("renameList", {"list": "Groceries", "name": "Food", "ifRevision": listed["revision"] - 1}, "conflict")
    a.ok("renameList", {"list": "Groceries", "name": "Food"})
    a.ok("getHistory", {"list": "Food", "limit": 5})
    a.denied("getHistory", {"since": 1_000_000}, "historyCompacted")
    a.ok("undo")  # the rename
    a.ok("renameList", {"list": "Groceries", "name": "Food"})
    added = a.ok("addItem", {"list": "Food", "item": "honey"})
    a.ok("undo", {"revision": added["revision"]})
    a.denied("undo", {"revision": 1_000_000}, "changeNotFound")
    # An edit made on older lists of an item someone removed since.
    before = a.ok("getLists")["revision"]
    a.ok("addItem", {"list": "Food", "item": "tea"})
    a.ok("removeItem", {"list": "Food", "item": "tea"})
    a.denied("checkItem", {"list": "Food", "item": "tea", "basedOn": before + 1, "editId": "phone-1"}, "changedMeanwhile")
    a.ok("addItem", {"list": "Food", "item": "jam", "editId": "phone-2"})
    a.ok("addItem", {"list": "Food", "item": "jam", "editId": "phone-2"})  # a resend
    instance = a.ok("getLists")["instance"]

    # A brief connection's confirms: every edit's, a clear's and an undo's.
    brief = Connection(path, transcript, "brief", brief=True)
    brief.ok("hello", {"name": "brief", "brief": True})
    for method, params in [
        ("createList", {"name": "Spares"}), ("renameList", {"list": "Spares", "name": "Spare"}),
        ("addItem", {"list": "Spare", "item": "fuse"}), ("addItem", {"list": "Spare", "item": "bulb"}),
        ("replaceItem", {"list": "Spare", "item": "bulb", "with": "lamp"}), ("moveItem", {"list": "Spare", "item": "lamp", "before": "fuse"}),
        ("addSection", {"list": "Spare", "section": "Shed"}), ("renameSection", {"list": "Spare", "section": "Shed", "to": "Garage"}),
        ("removeSection", {"list": "Spare", "section": "Garage"}), ("setQuantity", {"list": "Spare", "item": "fuse", "quantity": "3"}),
        ("checkItem", {"list": "Spare", "item": "fuse"}), ("uncheckItem", {"list": "Spare", "item": "fuse"}),
        ("checkItem", {"list": "Spare", "item": "fuse"}), ("clearChecked", {"list": "Spare"}), ("undo", {}),
        ("removeItem", {"list": "Spare", "item": "lamp"}), ("deleteList", {"list": "Spare"}),
    ]:
        brief.ok(method, params)

    reader = Connection(path, transcript, "reader")
    reader.ok("hello", {"name": "shopper", "rights": ["items"]})
    reader.denied("createList", {"name": "Mine"}, "notPermitted")
    reader.denied("undo", {"mine": True}, "nothingToUndo")
    reader.denied("subscribe", {"since": 1, "instance": "another"}, "instanceChanged")
    resumed = Connection(path, transcript, "resumed")
    resumed.ok("subscribe", {"since": before, "instance": instance, "origin": "others", "steps": ["add"]})
    resumed.ok("unsubscribe")

    # Delegates: every question, whole and brief; a deny, an error answer, a gone delegate.
    delegate = Connection(path, transcript, "delegate")
    delegate.on_question = answer("cake")
    delegate.ok("registerDelegate", {"name": "diet", "timeoutMs": 5000, "onTimeout": "deny"})
    brief_delegate = Connection(path, transcript, "brief-delegate", brief=True)
    brief_delegate.on_question = answer("never")
    brief_delegate.ok("hello", {"brief": True})
    brief_delegate.ok("registerDelegate", {"name": "audit", "questions": ["shouldAdd", "shouldEditSection"], "timeoutMs": 5000})
    a.ok("createList", {"name": "Party", "items": ["crisps"]})
    a.ok("renameList", {"list": "Party", "name": "Birthday"})
    a.ok("addItem", {"list": "Birthday", "item": "candles", "section": "Table"})
    a.denied("addItem", {"list": "Birthday", "item": "cake"}, "deniedByDelegate")
    a.denied("addItem", {"list": "Birthday", "item": "broken"}, "deniedByDelegate")
    a.ok("replaceItem", {"list": "Birthday", "item": "crisps", "with": "nuts"})
    a.ok("checkItem", {"list": "Birthday", "item": "nuts"})
    a.ok("uncheckItem", {"list": "Birthday", "item": "nuts"})
    a.ok("moveItem", {"list": "Birthday", "item": "nuts", "section": "Table"})
    a.ok("setQuantity", {"list": "Birthday", "item": "nuts", "quantity": "200 g"})
    a.ok("addSection", {"list": "Birthday", "section": "Drinks"})
    a.ok("removeItem", {"list": "Birthday", "item": "candles"})
    a.ok("deleteList", {"list": "Birthday"})
    brief_delegate.ok("unregisterDelegate")
    delegate.close()  # missed: didChangeDelegates
    watcher.notification("didChangeDelegates")
    a.ok("getLists")
    # A delegate that never answers in time is no longer asked after three timeouts.
    silent = Connection(path, transcript, "silent")
    silent.ok("registerDelegate", {"name": "asleep", "questions": ["shouldAdd"], "timeoutMs": 1})
    for item in ["x1", "x2", "x3"]:
        a.ok("addItem", {"list": "Food", "item": item})
    silent.notification("didStopConsultingDelegate")

    # The list file: a line that cannot be taken, and a file that is not UTF-8 (once listd has
    # written the lists as they are: an editor's save of what it read).
    deadline = time.time() + TIMEOUT
    while "x3" not in open(args.file, encoding="utf-8").read():
        if time.time() > deadline:
            raise AssertionError("listd did not write the list file")
        time.sleep(0.05)
    with open(args.file, "a", encoding="utf-8") as file:
        file.write("- milk\n- milk\n")
    watcher.notification("didRejectFileEdit")
    with open(args.file, "rb") as file:
        good = file.read()
    with open(args.file, "wb") as file:
        file.write(good + b"- caf\xe9\n")
    watcher.notification("didRejectFileEdit")
    a.denied("addItem", {"list": "Food", "item": "soup"}, "fileInvalid")
    with open(args.file, "wb") as file:
        file.write(good)
    deadline = time.time() + TIMEOUT
    while "error" in a.call("addItem", {"list": "Food", "item": "soup"}):
        if time.time() > deadline:
            raise AssertionError("the list file, put back, was not taken again")
        time.sleep(0.05)

    # Protocol errors, and a batch.
    a.raw('{"jsonrpc":"2.0","id":1,')
    a.raw('{"jsonrpc":"1.0","id":1,"method":"getLists"}')
    a.raw("[]")
    a.failed("fly", {}, -32601)
    a.failed("getList", {"list": ["Food"]}, -32602)
    a.pend(9001, "getLists")
    a.pend(9002, "addItem")
    a.raw('[{"jsonrpc":"2.0","id":9001,"method":"getLists"},{"jsonrpc":"2.0","id":9002,"method":"addItem","params":{"list":"Food","item":"pears"}},{"jsonrpc":"2.0","method":"getLists"}]')
    a.replies.get(timeout=TIMEOUT)  # the batch's second reply
    a.raw("[" + ",".join('{"jsonrpc":"2.0","id":%d,"method":"getLists"}' % (10_000 + n) for n in range(1001)) + "]")
    a.ok("unsubscribe")
    watcher.ok("unsubscribe")

    # A connection that never says hello and stays quiet is let go; a full listd turns one away.
    idle = Connection(args.idle_socket, transcript, "idle")
    idle.closed.wait(TIMEOUT)
    full = []
    while True:
        connection = Connection(args.full_socket, transcript, f"full-{len(full)}")
        full.append(connection)
        if connection.closed.wait(0.3) or len(full) > 64:
            break
    for connection in full + [a, brief, reader, silent, brief_watcher, brief_delegate]:
        connection.close()


def check(contract, transcript, coverage=True):
    """Every message against the contract; then every part of the contract seen at least once."""
    failures = []
    components = contract["components"]["schemas"]
    def key_of(error):
        return error.get("x-reason") or str(error["code"])

    errors = {key_of(error): (name, error) for name, error in contract["components"]["errors"].items()}
    methods = {method["name"]: method for method in contract["methods"]}
    notifications = {n["name"]: n for n in contract["x-notifications"]}
    questions = {q["name"]: q for q in contract["x-delegate-questions"]}
    root = {"components": contract["components"]}

    def validate(instance, schema, where):
        validator = jsonschema.Draft7Validator({**schema, **root})
        for error in validator.iter_errors(instance):
            path = "/".join(str(part) for part in error.absolute_path)
            failures.append(f"{where}: {error.message} at /{path}: {json.dumps(instance)[:400]}")

    seen = {"methods": set(), "notifications": set(), "questions": set(), "errors": set(), "brief": set()}
    envelope = components["Envelope"]
    for entry in transcript.entries:
        if entry["kind"] == "unreadable":
            failures.append(f"{entry['connection']}: a line that is not JSON: {entry['line'][:200]}")
            continue
        message = entry["message"]
        validate(message, envelope, f"{entry['connection']}: the envelope")
        method = entry.get("method")
        if entry["kind"] == "notification":
            spec = notifications.get(method)
            if spec is None:
                failures.append(f"notification {method} is not in the contract")
                continue
            seen["notifications"].add(method)
            schema = spec.get("x-brief-params") if entry["brief"] and "x-brief-params" in spec else spec["params"]
            validate(message.get("params"), schema, f"notification {method}{' (brief)' if entry['brief'] else ''}")
        elif entry["kind"] == "question":
            spec = questions.get(method)
            if spec is None:
                failures.append(f"question {method} is not in the contract")
                continue
            seen["questions"].add(method + (" (brief)" if entry["brief"] else ""))
            schema = spec["x-brief-params"] if entry["brief"] else spec["params"]
            validate(message.get("params"), schema, f"question {method}{' (brief)' if entry['brief'] else ''}")
        elif "error" in message:
            error = message["error"]
            data = error.get("data") or {}
            key = data.get("reason") if data.get("reason") in errors else str(error["code"])
            name, spec = errors.get(key, (None, None))
            if spec is None or spec["code"] != error["code"]:
                failures.append(f"error {error['code']} ({key}) is not in the contract: {json.dumps(error)}")
                continue
            seen["errors"].add(name)
            validate(error, {"$ref": "#/components/schemas/ErrorObject"}, f"error {name}")
            if "x-data-schema" in spec:
                validate(data, spec["x-data-schema"], f"error {name}'s data")
            elif "data" in error:
                failures.append(f"error {name} carries data the contract does not describe: {json.dumps(error)}")
            if method and method in methods:
                allowed = {ref["$ref"].split("/")[-1] for ref in methods[method].get("errors", [])}
                if name not in allowed and not name.startswith("protocol"):
                    failures.append(f"{method} answered error {name}, which the contract does not list for it")
        elif "result" in message:
            spec = methods.get(method)
            if spec is None:
                failures.append(f"a result for an unknown request ({method}): {json.dumps(message)[:200]}")
                continue
            seen["methods"].add(method)
            result = spec["result"]
            schema = result.get("x-brief-schema", result["schema"]) if entry["brief"] else result["schema"]
            if entry["brief"] and "x-brief-schema" in result:
                seen["brief"].add(method)
            validate(message["result"], schema, f"{method}'s result{' (brief)' if entry['brief'] else ''}")

    if not coverage:
        return failures
    unseen = [f"method {m}" for m in methods if m not in seen["methods"]]
    unseen += [f"notification {n}" for n in notifications if n not in seen["notifications"]]
    unseen += [f"question {q}" for q in questions if q not in seen["questions"]]
    if not any(q.endswith(" (brief)") for q in seen["questions"]):
        unseen.append("a question to a brief delegate")
    unseen += [f"the brief result of {m}" for m, spec in methods.items() if "x-brief-schema" in spec["result"] and m not in seen["brief"]]
    unseen += [f"error {name}" for name, error in contract["components"]["errors"].items()
               if name not in seen["errors"] and not error.get("x-needs")]
    failures += [f"the session never saw {what}: the contract or the session is wrong" for what in unseen]
    return failures


def contract_shape(contract):
    """What an OpenRPC document must have (spec.open-rpc.org): its version, info, and each
    method's name, params (by name, with a schema each), result and error references that
    resolve; every schema well-formed JSON Schema."""
    failures = []
    if not str(contract.get("openrpc", "")).startswith("1."):
        failures.append("openrpc: not an OpenRPC 1.x version")
    if not contract.get("info", {}).get("title") or not contract.get("info", {}).get("version"):
        failures.append("info: a title and a version are required")
    names = set()
    errors = contract.get("components", {}).get("errors", {})
    for method in contract.get("methods", []):
        name = method.get("name")
        if not name or name in names:
            failures.append(f"a method without a name, or named twice: {name}")
        names.add(name)
        if not isinstance(method.get("params"), list) or any("name" not in p or "schema" not in p for p in method["params"]):
            failures.append(f"{name}: every param needs a name and a schema")
        if "name" not in method.get("result", {}) or "schema" not in method.get("result", {}):
            failures.append(f"{name}: the result needs a name and a schema")
        for ref in method.get("errors", []):
            if ref.get("$ref", "").split("/")[-1] not in errors:
                failures.append(f"{name}: error {ref} is not in components.errors")
    for error in errors.values():
        if not isinstance(error.get("code"), int) or not error.get("message"):
            failures.append(f"an error without a code or a message: {error}")
    jsonschema.Draft7Validator.check_schema({"components": contract.get("components", {})})
    return failures


def document_examples(path):
    """The complete messages docs/protocol.md shows listd sending (`← {…}` lines, continued on
    lines that start with spaces), each as a transcript entry: a reply's method is that of the
    `→` request with its id in the same block; a brief one is under a heading that says Brief.
    Examples elided with `…` are not JSON and are left out."""
    entries = []
    heading, requests, pending = "", {}, None
    for line in open(path, encoding="utf-8").read().split("\n") + [""]:
        if pending is not None and line.startswith("   ") and line.strip()[:1] in ('{', '[', '"', '}', ']'):
            pending += line.strip()
            continue
        if pending is not None:
            try:
                message = json.loads(pending)
            except ValueError:
                message = None
            if isinstance(message, dict):
                brief = "brief" in heading.lower()
                if "method" in message:
                    kind = "question" if "id" in message else "notification"
                    entries.append(dict(kind=kind, method=message["method"], message=message, brief=brief, connection=f"protocol.md ({heading})"))
                else:
                    method = requests.get(json.dumps(message.get("id")))
                    entries.append(dict(kind="reply", method=method, message=message, brief=brief, connection=f"protocol.md ({heading})"))
            pending = None
        if line.startswith("#"):
            heading = line.strip("# ")
        if line.startswith("```"):
            requests = {}
        stripped = line.strip()
        if stripped.startswith("→ "):
            try:
                request = json.loads(stripped[2:])
                requests[json.dumps(request.get("id"))] = request.get("method")
            except ValueError:
                pass
        elif stripped.startswith("← "):
            pending = stripped[2:]
    return entries


def main():
    parser = argparse.ArgumentParser()
    for option in ["--contract", "--socket", "--file", "--idle-socket", "--full-socket"]:
        parser.add_argument(option, required=True)
    parser.add_argument("--transcript")
    parser.add_argument("--document", help="docs/protocol.md: its complete examples are checked too")
    args = parser.parse_args()
    with open(args.contract, encoding="utf-8") as file:
        contract = json.load(file)
    shape = contract_shape(contract)
    transcript = Transcript()
    session(args, transcript)
    time.sleep(0.2)  # the readers take the last lines in
    if args.transcript:
        with open(args.transcript, "w", encoding="utf-8") as file:
            json.dump(transcript.entries, file, indent=1)
    failures = shape + check(contract, transcript)
    if args.document:
        examples = Transcript()
        examples.entries = document_examples(args.document)
        failures += [f"an example of {args.document}: {failure}" for failure in check(contract, examples, coverage=False)]
        print(f"{len(examples.entries)} complete examples of {args.document} checked")
    for failure in failures:
        print(failure)
    print(f"{len(transcript.entries)} messages from listd checked; {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
