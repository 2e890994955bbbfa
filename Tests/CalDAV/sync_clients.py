#!/usr/bin/env python3
"""Issue 64: syncing clients from PyPI against the real listd-web and listd.

vdirsyncer syncs the lists to a local directory and back while todoman adds, ticks and deletes
there and the household edits the same list meanwhile on the phone page (its live connection
through listd-web, as a browser opens it): nothing either side did is lost; a conflict on one task is reported by vdirsyncer, not
settled silently, and the household's edit stands. plann adds from the command line. A household
rule refuses an item from each client. With --phase, sync tokens are checked across a restart of
listd: `before` keeps a token, `after` (listd restarted meanwhile) syncs from it.
Prints one line per check and "N checks; 0 failures".
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

from listd_checks import Listd, check, delegate, eventually, summary


class Page:
    """The phone page's live connection, as a browser opens it: paired through its link (a code
    from listd-web's control socket, POSTed to /pair with the page's Origin), then a WebSocket to
    /live with the token as its subprotocol; its edits go through listd-web's relay to listd."""

    def __init__(self, control, port, origin, name):
        pairing = socket.socket(socket.AF_UNIX)
        pairing.connect(control)
        pairing.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "pair", "params": {"name": name}}) + "\n").encode())
        link = json.loads(pairing.makefile("rb").readline())["result"]["link"]
        code = link.split("#", 1)[1]
        body = json.dumps({"code": code}).encode()
        http = socket.create_connection(("127.0.0.1", port))
        http.sendall(
            f"POST /pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body
        )
        answer = b""
        while chunk := http.recv(4096):
            answer += chunk
        token = json.loads(answer.split(b"\r\n\r\n", 1)[1])["token"]
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(
            f"GET /live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n"
            f"Sec-WebSocket-Protocol: listd-web, listd-web.token.{token}\r\n\r\n".encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"the page was refused: {head}")
        self.next = 0

    def call(self, method, params):
        self.next += 1
        payload = json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        header = bytes([0x81]) + (bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + len(payload).to_bytes(2, "big"))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            message = json.loads(self.message())
            if message.get("id") == self.next:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def message(self):
        while True:
            if len(self.buffer) >= 2:
                length, offset = self.buffer[1] & 0x7F, 2
                if length == 126:
                    length, offset = int.from_bytes(self.buffer[2:4], "big"), 4
                elif length == 127:
                    length, offset = int.from_bytes(self.buffer[2:10], "big"), 10
                if len(self.buffer) >= offset + length:
                    opcode, data = self.buffer[0] & 0x0F, self.buffer[offset:offset + length]
                    self.buffer = self.buffer[offset + length:]
                    if opcode == 1:
                        return data.decode()
                    continue
            self.buffer += self.sock.recv(65536)


class Local:
    """vdirsyncer and todoman on a directory of their own."""

    def __init__(self, directory, clients, server, user, password, resolution=None):
        self.directory = directory
        self.clients = clients
        os.makedirs(directory + "/status", exist_ok=True)
        os.makedirs(directory + "/local", exist_ok=True)
        resolution_line = f'conflict_resolution = "{resolution}"\n' if resolution else ""
        with open(directory + "/config", "w") as config:
            config.write(
                f'[general]\nstatus_path = "{directory}/status/"\n\n'
                f'[pair lists]\na = "lists_local"\nb = "lists_remote"\ncollections = ["from b"]\nmetadata = ["displayname"]\n{resolution_line}\n'
                f'[storage lists_local]\ntype = "filesystem"\npath = "{directory}/local/"\nfileext = ".ics"\n\n'
                f'[storage lists_remote]\ntype = "caldav"\nurl = "{server}"\nusername = "{user}"\npassword = "{password}"\nitem_types = ["VTODO"]\n'
            )
        with open(directory + "/todoman.py", "w") as config:
            config.write(f'path = "{directory}/local/*"\ndate_format = "%Y-%m-%d"\ntime_format = "%H:%M"\ndefault_list = "Groceries"\ndefault_due = 0\n')

    def vdirsyncer(self, *arguments, answer=""):
        return subprocess.run(
            [self.clients + "/vdirsyncer", "-c", self.directory + "/config", *arguments],
            input=answer, capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": self.directory},
        )

    def sync(self):
        run = self.vdirsyncer("sync")
        self.vdirsyncer("metasync")
        return run

    def todo(self, *arguments):
        run = subprocess.run(
            [self.clients + "/todo", "-c", self.directory + "/todoman.py", *arguments],
            capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": self.directory},
        )
        if run.returncode != 0:
            raise RuntimeError(f"todo {arguments}: {run.stdout}{run.stderr}")
        return run.stdout

    def tasks(self):
        return {task["summary"]: task for task in json.loads(self.todo("--porcelain", "list", "--status", "ANY"))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--clients", required=True, help="the directory with vdirsyncer, todo and plann")
    parser.add_argument("--directory", required=True)
    parser.add_argument("--phase", choices=["sync", "before", "after"], default="sync")
    parser.add_argument("--control", help="listd-web's control socket (the page is paired through it)")
    parser.add_argument("--origin", default="https://tasks.test", help="the page's origin (listd-web's --url)")
    arguments = parser.parse_args()
    if arguments.phase != "sync":
        return restart_phase(arguments)
    household = Listd(arguments.socket, "listd-web test")
    household.call("createList", {"name": "Groceries", "items": ["milk", "eggs", "flour"], "quantities": {"milk": "2 l"}})
    port = int(arguments.server.rsplit(":", 1)[1].strip("/"))
    page = Page(arguments.control, port, arguments.origin, "Kitchen phone")

    local = Local(arguments.directory + "/one", arguments.clients, arguments.server, arguments.user, arguments.password)
    discovered = local.vdirsyncer("discover", "lists", answer="y\n" * 10)
    check(discovered.returncode == 0, f"vdirsyncer discovers the lists: {discovered.stdout}{discovered.stderr}")
    first = local.sync()
    check(first.returncode == 0, f"vdirsyncer's first sync: {first.stderr[-500:]}")
    tasks = local.tasks()
    check(set(tasks) == {"milk", "eggs", "flour"}, f"todoman lists the items: {sorted(tasks)}")
    check(tasks.get("milk", {}).get("description") == "2 l", "with milk's amount as its description")

    # todoman adds, ticks and deletes; the household, meanwhile, sets an amount and adds.
    local.todo("new", "-l", "Groceries", "bread")
    local.todo("done", str(tasks["milk"]["id"]))
    local.todo("delete", "--yes", str(tasks["flour"]["id"]))
    page.call("setQuantity", {"list": "Groceries", "item": "eggs", "quantity": "12"})
    page.call("addItem", {"list": "Groceries", "item": "jam"})
    time.sleep(0.2)
    synced = local.sync()
    check(synced.returncode == 0, f"the two-way sync: {synced.stderr[-800:]}")
    items, ticked, quantities = household.lists("Groceries")
    check(set(items) == {"milk", "eggs", "bread", "jam"}, f"listd has todoman's add and delete and the household's add: {items}")
    check(ticked == ["milk"], f"todoman's tick is listd's: {ticked}")
    check(quantities.get("eggs") == "12", f"the household's amount stands: {quantities}")
    last = household.call("getHistory", {"list": "Groceries", "limit": 10})["changes"]
    authors = {change["origin"].get("name") for change in last}
    check(arguments.device in authors and "Kitchen phone" in authors, f"each change is its author's: {authors}")
    tasks = local.tasks()
    check("jam" in tasks and tasks["eggs"]["description"] == "12", f"todoman has the household's add and amount: {sorted(tasks)}")

    # One task changed on both sides: vdirsyncer reports the conflict; the household's edit stands.
    local.todo("done", str(tasks["eggs"]["id"]))
    page.call("replaceItem", {"list": "Groceries", "item": "eggs", "with": "free-range eggs"})
    time.sleep(0.2)
    conflicted = local.sync()
    check(conflicted.returncode != 0 and "onflict" in conflicted.stderr, f"vdirsyncer reports the conflict: {conflicted.stderr[-600:]}")
    items, ticked, _ = household.lists("Groceries")
    check("free-range eggs" in items and "free-range eggs" not in ticked, f"the household's rename stands, untouched: {items} {ticked}")
    # The person settles it for the list ("b wins"): todoman then has the household's version.
    settled = Local(arguments.directory + "/one", arguments.clients, arguments.server, arguments.user, arguments.password, resolution="b wins")
    again = settled.sync()
    check(again.returncode == 0 and "free-range eggs" in settled.tasks(), f"settled for the server: {again.stderr[-400:]}")

    # plann adds from the command line.
    plann = [
        arguments.clients + "/plann", "--skip-config", "--caldav-url", arguments.server, f"--caldav-user={arguments.user}",
        f"--caldav-pass={arguments.password}", "--calendar-name", "Groceries", "--raise-errors",
    ]
    added = subprocess.run(plann + ["add", "todo", "butter"], capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": arguments.directory})
    items, _, _ = household.lists("Groceries")
    check(added.returncode == 0 and "butter" in items, f"plann adds an item: {items} {added.stderr[-300:]}")

    # A household rule refuses "beer" from each client, with its sentence.
    rule = delegate(arguments.socket, "beer")
    refused = subprocess.run(plann + ["add", "todo", "beer"], capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": arguments.directory})
    check(refused.returncode != 0 and "409" in refused.stdout + refused.stderr, f"plann is told 409: {(refused.stdout + refused.stderr)[-400:]}")
    settled.todo("new", "-l", "Groceries", "beer")
    pushed = settled.sync()
    said = pushed.stdout + pushed.stderr
    # vdirsyncer shows the status, not the body that carries the sentence (plann shows it above).
    check(pushed.returncode != 0 and "409" in said, f"vdirsyncer is told 409 for the refused task: {said[-600:]}")
    items, _, _ = household.lists("Groceries")
    check("beer" not in items, f"no client got beer on the list: {items}")
    rule.close()

    return summary()


def restart_phase(arguments):
    """Sync tokens across a restart of listd: `before` keeps the collection's token and the
    hrefs; `after` (listd restarted, one item added and one removed meanwhile, by listd's
    restart-survived store) syncs from it and is told exactly those."""
    import caldav

    state_file = arguments.directory + "/restart.json"
    client = caldav.DAVClient(url=arguments.server, username=arguments.user, password=arguments.password)
    groceries = [c for c in client.principal().calendars() if c.get_display_name() == "Groceries"][0]
    if arguments.phase == "before":
        result = groceries.objects_by_sync_token(load_objects=False)
        with open(state_file, "w") as out:
            json.dump({"token": result.sync_token, "count": len(list(result))}, out)
        print(f"kept a token at {result.sync_token}")
        print("1 checks; 0 failures")
        return 0
    with open(state_file) as kept:
        state = json.load(kept)
    household = Listd(arguments.socket, "Kitchen phone")
    household.call("addItem", {"list": "Groceries", "item": "after restart"})
    time.sleep(0.1)
    found = {}

    def synced():
        result = groceries.objects_by_sync_token(sync_token=state["token"], load_objects=True)
        found["objects"] = list(result)
        return any("after restart" in (obj.data or "") for obj in found["objects"])

    check(eventually(synced), "a token from before listd's restart is answered, with the change since")
    check(len(found.get("objects", [])) == 1, f"and only it: {len(found.get('objects', []))} objects")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
