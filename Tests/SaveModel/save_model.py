#!/usr/bin/env python3
"""The list file never lies: a model-based property test of the real listd (issue 59).

Random steps against the real `listd` binary on a temporary socket and list file: client edits
over the socket (every kind), copies of the file taken at random moments and kept open as an
editor keeps a buffer, people's edits of those copies (items added, removed, retyped, ticked,
amounts, lists created with sections, renamed, deleted, sections typed, an earlier edit reverted),
saved by rename, in place, `sed -i` or `vim -es`, some with listd's notes stripped or replaced by
another listd's (a file copied from another machine: its ids name other lists); SIGTERM and
SIGKILL restarts and saves while listd is stopped.

A reference model holds the lists as the confirmed client edits leave them; each save is checked
against what the person did to their copy (the harness made those edits, so it knows them, not a
diff's guess). After every save settles:
  - every change the copy did not touch survives (an item's presence, tick, amount and section;
    a list's name and presence): nothing is lost, nothing removed comes back;
  - each of the person's changes is applied, or said in the file naming its item or list;
  - a copy without listd's notes removes, renames and deletes nothing: that is said instead;
  - the file parses to exactly what `getLists` shows; listd is alive and takes the next save.
A failing run is shrunk (the fewest steps that still fail, replayed on a fresh listd) and printed
as a case to keep (Tests/SaveModel/regressions/*.json, replayed by every run).

  save_model.py --listd PATH [--seeds 1,2,3 | --fresh-seeds N] [--steps N] [--keep DIR]
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ModelRuns"))
import seeded_runs  # noqa: E402

WORDS = (
    "milk eggs bread rice oats tea coffee jam honey butter cheese apples pears plums figs dates kale "
    "leeks onions garlic salt pepper flour sugar soap beer wine juice yogurt pasta beans lentils nuts "
    "foil tape nails glue"
).split()
LIST_NAMES = "Groceries Pantry Hardware Party Pharmacy Garden Bakery Office".split()
SECTION_NAMES = "Dairy Drinks Fridge Produce Frozen Tins Snacks Aisle".split()
AMOUNTS = ["2", "1 l", "2 l", "500 g", "6", "3 kg", "12"]


class Violation(Exception):
    """What the run found wrong: a property that did not hold, or listd gone."""


# --- The file, as a person's editor holds it -------------------------------------------------

HEADING = re.compile(r"^# (?P<name>.*?)(?P<note>\s*<!-- listd id=(?P<id>\d+) rev=(?P<rev>\d+)(?: of=(?P<of>\w+))?[^>]*-->)?\s*$")
# The tag another machine's listd names itself by in its notes: its ids and revisions are its own.
FOREIGN_TAG = "0f0f0f0f"
ITEM = re.compile(r"^(?P<bullet>[-*+]) (?:\[(?P<box>[ xX])\] )?(?P<rest>.*)$")
AMOUNT = re.compile(r"^(?P<text>.*?) \((?P<amount>\d[^()]*)\)$")
# Amounts as people type them (issue 63), for the words and amounts this model uses (words have
# no digits): a count or measure before the item, a measure (with a unit) after it.
LEADING_AMOUNT = re.compile(r"^(?P<amount>\d+(?: ?(?:l|g|kg))?) (?P<text>\S.*)$")
TRAILING_AMOUNT = re.compile(r"^(?P<text>.*\S) (?P<amount>\d+ ?(?:l|g|kg))$")


def fnv1a64(data):
    """listd's digest of a file's bytes (ListFileBytes.swift): a save taken in is logged by it."""
    value = 0xCBF29CE484222325
    for byte in data:
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "fnv1a64:%x:%d" % (value, len(data))


def item_line(text, checked, amount, typed=False):
    """An item's line; `typed`: the amount as a person may type it — before the item, after it
    (a measure) or in parentheses, chosen by the text and amount (not the run's random numbers,
    so that a kept seed replays the same steps)."""
    box = "x" if checked else " "
    if amount and typed:
        form = zlib.crc32(("%s|%s" % (text, amount)).encode()) % 3
        if form == 1:
            return "- [%s] %s %s" % (box, amount, text)
        if form == 2 and not amount.isdigit():
            return "- [%s] %s %s" % (box, text, amount)
    return "- [%s] %s%s" % (box, text, " (%s)" % amount if amount else "")


def parse_item(line):
    match = ITEM.match(line)
    if not match:
        return None
    rest = match.group("rest").strip()
    amount = None
    found = AMOUNT.match(rest) or LEADING_AMOUNT.match(rest) or TRAILING_AMOUNT.match(rest)
    if found:
        rest, amount = found.group("text"), found.group("amount")
    return {"text": rest.replace("\\(", "("), "checked": match.group("box") in ("x", "X"), "amount": amount}


def read_file(text):
    """The lists a file shows, as getLists gives them (names, items, ticks, amounts, sections),
    each with the id its heading's note names."""
    lists = []
    current = None
    for line in text.split("\n"):
        if line.startswith("<!--"):
            continue
        heading = HEADING.match(line)
        if heading and not line.startswith("##"):
            own = heading.group("id") and heading.group("of") != FOREIGN_TAG
            current = {"name": heading.group("name").strip(), "id": int(heading.group("id")) if own else None,
                       "items": [], "checked": [], "quantities": {}, "sections": []}
            lists.append(current)
            continue
        if current is None:
            continue
        if line.startswith("## "):
            current["sections"].append({"name": line[3:].strip(), "items": []})
            continue
        item = parse_item(line)
        if item:
            current["items"].append(item["text"])
            if item["checked"]:
                current["checked"].append(item["text"])
            if item["amount"]:
                current["quantities"][item["text"]] = item["amount"]
            if current["sections"]:
                current["sections"][-1]["items"].append(item["text"])
    return lists


def shown(lists):
    """What a file must show of the lists: comparable across the file and getLists."""
    return [
        (entry["name"], list(entry["items"]), sorted(entry["checked"]), dict(entry.get("quantities") or {}),
         [(section["name"], list(section["items"])) for section in entry.get("sections") or []])
        for entry in lists
    ]


class Buffer:
    """A copy of the file in a person's editor: its lines, which list each heading was (the
    harness knows, even once the notes are stripped), and what the person did to it since their
    last save (the intents the save is checked against)."""

    def __init__(self, text, lists_by_name, stripped, foreign=False):
        self.lines = text.rstrip("\n").split("\n")
        self.stripped = stripped
        if stripped:
            # Notes stripped by a tool, or (`foreign`) the file as another machine's listd wrote
            # it: notes naming other ids (each list's id shifted), read here as no notes at all.
            def note(match):
                return " <!-- listd id=%d rev=1 of=%s -->" % (int(match.group(1)) + 5, FOREIGN_TAG) if foreign else ""
            self.lines = [re.sub(r"\s*<!-- listd id=(\d+)[^>]*-->", note, line) for line in self.lines
                          if not line.startswith("<!-- listd")]
        # heading name -> list id, as the copy was read (None: a list the person made here).
        self.ids = dict(lists_by_name)
        self.history = []  # the inverse of each earlier edit: a person may revert one
        self.baseline = self.state()

    def state(self):
        """The lists this buffer shows, each by its identity (the list id the harness knows it
        for, else its name: a list the person typed)."""
        found = {}
        for name in self.names():
            key = self.ids.get(name) or ("new", name)
            items = {item["text"]: (item["checked"], item["amount"], item["section"]) for _, item in self.items(name)}
            found[key] = {"name": name, "items": items}
        return found

    def intents(self):
        """What the person did since this buffer was read or last saved: the difference of what it
        shows, by identity (a retyped line is the old text removed and the new one added)."""
        then, now = self.baseline, self.state()
        # A list's block deleted and a new list typed under its name, without a note, is the same
        # text as every line of it changed in place. Without notes (stripped, or every noted
        # heading taken out: `reads_without_notes`) either reading is right; with
        # them, a heading typed without a note is the list of that name in the version the copy
        # was read from when at least half its lines are that list's items, else a new list
        # (docs/file-format.md).
        for key in [k for k in then if isinstance(k, int) and k not in now]:
            typed = ("new", then[key]["name"])
            if typed in now:
                texts = list(now[typed]["items"])
                shared = sum(1 for text in texts if text in then[key]["items"])
                if self.reads_without_notes() or (texts and shared * 2 >= len(texts)):
                    now[key] = now.pop(typed)
        found = []
        for key in list(then) + [k for k in now if k not in then]:
            old, new = then.get(key), now.get(key)
            list_id = key if isinstance(key, int) else None
            if old is None:
                found.append({"kind": "newlist", "list": new["name"], "items": list(new["items"]), "id": None,
                              "headings": self.names()})
                continue
            if new is None:
                found.append({"kind": "deletelist", "list": old["name"], "id": list_id})
                continue
            if old["name"] != new["name"]:
                found.append({"kind": "rename", "list": old["name"], "to": new["name"], "id": list_id})
            for text in list(old["items"]) + [t for t in new["items"] if t not in old["items"]]:
                was, is_ = old["items"].get(text), new["items"].get(text)
                base = {"list": new["name"], "item": text, "id": list_id}
                if was is None:
                    found.append(dict(base, kind="add"))
                    if is_[0]:
                        found.append(dict(base, kind="tick", checked=True))
                    if is_[1]:
                        found.append(dict(base, kind="amount", amount=is_[1]))
                elif is_ is None:
                    found.append(dict(base, kind="remove"))
                else:
                    if was[0] != is_[0]:
                        found.append(dict(base, kind="tick", checked=is_[0]))
                    if was[1] != is_[1]:
                        found.append(dict(base, kind="amount", amount=is_[1]))
                    if was[2] != is_[2]:  # its line now under another `##` (moved, or retyped there)
                        found.append(dict(base, kind="move", section=is_[2]))
        return found

    def text(self):
        return "\n".join(self.lines) + "\n"

    def reads_without_notes(self):
        """listd reads this buffer's save as a copy without notes: its notes were stripped, or
        the person took out every heading that carried one (docs/file-format.md)."""
        if self.stripped:
            return True
        noted = [line for line in self.lines if line.startswith("# ") and "<!-- listd id=" in line
                 and " of=" + FOREIGN_TAG not in line]
        return not noted and any(line.startswith("# ") for line in self.lines)

    def headings(self):
        return [i for i, line in enumerate(self.lines) if line.startswith("# ")]

    def block(self, name):
        """The range of lines of the list `name` (its heading first), or None."""
        starts = self.headings()
        for number, start in enumerate(starts):
            if HEADING.match(self.lines[start]).group("name").strip() == name:
                end = starts[number + 1] if number + 1 < len(starts) else len(self.lines)
                return start, end
        return None

    def names(self):
        return [HEADING.match(self.lines[i]).group("name").strip() for i in self.headings()]

    def items(self, name):
        """The items of list `name`: (line index, item), each with the section it is under."""
        start, end = self.block(name)
        found = []
        section = None
        for index in range(start + 1, end):
            if self.lines[index].startswith("## "):
                section = self.lines[index][3:].strip()
                continue
            item = parse_item(self.lines[index])
            if item:
                item["section"] = section
                found.append((index, item))
        return found

    def every_text(self):
        return {item["text"] for name in self.names() for _, item in self.items(name)}


# --- listd, for real ------------------------------------------------------------------------


class Listd:
    def __init__(self, binary, directory):
        self.binary = binary
        self.socket = os.path.join(directory, "listd.sock")
        self.file = os.path.join(directory, "lists.md")
        self.log = os.path.join(directory, ".lists.md.listd-log")
        self.output = open(os.path.join(directory, "listd.out"), "ab")
        self.process = None
        self.connection = None
        self.buffer = b""
        self.next_id = 1

    def start(self):
        self.process = subprocess.Popen(
            # At debug level: the file's events, reads and writes are in listd.out when a save goes astray.
            [self.binary, "--socket", self.socket, "--file", self.file, "--settle-ms", "30", "--log-level", "debug"],
            stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise Violation("listd exited at its start with status %s" % self.process.returncode)
            try:
                self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.connection.connect(self.socket)
                self.buffer = b""
                self.call("hello", {"name": "save-model"})
                return
            except OSError:
                self.connection.close()
                time.sleep(0.02)
        raise Violation("listd did not answer within 20 s of its start")

    def stop(self, sig):
        if self.connection:
            self.connection.close()
            self.connection = None
        self.process.send_signal(sig)
        try:
            status = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise Violation("listd did not stop within 20 s of %s" % sig)
        if sig == signal.SIGTERM and status != 0:
            raise Violation("listd stopped with status %s on SIGTERM" % status)

    def alive(self):
        if self.process.poll() is not None:
            raise Violation("listd died with status %s" % self.process.returncode)

    def call(self, method, params=None):
        """A request's reply: ("ok", result) or ("denied", error)."""
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.next_id += 1
        self.connection.sendall((json.dumps(request) + "\n").encode())
        self.connection.settimeout(30)
        while True:
            while b"\n" not in self.buffer:
                chunk = self.connection.recv(1 << 20)
                if not chunk:
                    self.alive()
                    raise Violation("listd closed the connection during %s" % method)
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            message = json.loads(line)
            if message.get("id") == request["id"]:
                if "error" in message:
                    return "denied", message["error"]
                return "ok", message["result"]

    def lists(self):
        status, result = self.call("getLists")
        assert status == "ok", result
        return result

    def shown_saves(self):
        """The digests of the file texts the change log says were taken in or written."""
        try:
            with open(self.log, "rb") as log:
                lines = log.read().split(b"\n")
        except FileNotFoundError:
            return []
        found = []
        # The last line may be one listd is appending right now: only whole lines are read.
        for line in lines[:-1]:
            if b'"listd":"fileShows"' in line:
                entry = json.loads(line)
                found.append((entry["digest"], entry["revision"]))
        return found

    def file_bytes(self):
        with open(self.file, "rb") as f:
            return f.read()

    def settle(self, what, seconds=15):
        """Waits until the file on disk shows exactly the lists getLists gives, every heading tied
        to its list by listd's note, and it is a text listd logged as shown at this revision (a
        save taken in) or one listd wrote of it (its notes name the revision; the note of a
        quiet rewrite rides the next append). Returns the lists and the file's text; a file that
        never gets there is a violation (the file lies, or listd stopped taking saves)."""
        deadline = time.time() + seconds
        while True:
            self.alive()
            lists = self.lists()
            data = self.file_bytes()
            text = data.decode(errors="replace")
            headings = [line for line in text.split("\n") if line.startswith("# ")]
            tied = all("<!-- listd id=" in line and " of=" + FOREIGN_TAG not in line for line in headings)
            revisions = [int(r) for r in re.findall(r"<!-- listd id=\d+ rev=(\d+)(?!\d)(?! of=%s)" % FOREIGN_TAG, text)]
            logged = self.shown_saves()
            # (No lists at all: a file without headings names no revision, and listd's quiet
            # rewrite logs its note with the next append.)
            current = (logged and logged[-1] == (fnv1a64(data), lists["revision"])) or \
                (revisions and max(revisions) == lists["revision"]) or (not lists["lists"] and not headings)
            shows = shown(read_file(text)) == shown(lists["lists"])
            if tied and current and shows:
                return lists, text
            if time.time() > deadline:
                raise Violation(
                    "%s: the file did not come to show the lists in %d s (%s; revision %s)\n    file  %s\n    listd %s\n%s"
                    % (what, seconds, ", ".join(n for n, bad in (("a heading untied", not tied), ("not current", not current),
                                                               ("other lists", not shows)) if bad), lists["revision"],
                       shown(read_file(text)), shown(lists["lists"]), "".join("      | %s\n" % l for l in text.split("\n"))))
            time.sleep(0.02)


# --- The run ---------------------------------------------------------------------------------


def unsettled_by(intents):
    """What a save made while listd was stopped asked for, as `check_save`'s `unsettled` reads it:
    its items (on a list it typed, by the list's name: listd may make it from another save), new
    lists, renames and deletions."""
    return {(i["id"] if i["id"] is not None else ("name", i["list"]), i["item"]) for i in intents if "item" in i} | {
        ("newlist", i["list"]) for i in intents if i["kind"] == "newlist"} | {
        ("list", i["id"]) for i in intents if i["kind"] in ("rename", "deletelist") and i["id"] is not None}


def tie_like_listd(headings, lists):
    """The list each heading of a copy without notes is read as (docs/file-format.md, as
    `ListFileText.tieByContent` does it): the list of its name, unless it shows fewer than half
    of that list's items while another list has half of its lines, or another heading not yet
    tied shows more of them; then, a heading with no list, the list not taken by another
    heading that has the most of its lines, when that is at least half of them."""
    key = lambda text: text.casefold()
    by_name = {key(entry["name"]): entry for entry in lists}
    ids = {name: (by_name[key(name)]["id"] if key(name) in by_name else None) for name, _ in headings}
    lists_by_id = {entry["id"]: entry for entry in lists}

    def shared(items, entry):
        return len([item for item in items if item in entry["items"]])

    for name, items in headings:
        if ids[name] is None or not items:
            continue
        entry = lists_by_id[ids[name]]
        own = shared(items, entry)
        elsewhere = own * 2 < len(items) and any(o["id"] != entry["id"] and shared(items, o) * 2 >= len(items) for o in lists)
        more = any(ids[other] is None and shared(other_items, entry) > own and shared(other_items, entry) * 2 >= len(other_items)
                   for other, other_items in headings)
        if elsewhere or more:
            ids[name] = None
    taken = {value for value in ids.values() if value is not None}
    for name, items in headings:
        if ids[name] is not None or not items:
            continue
        best = None
        for entry in lists:
            if entry["id"] in taken:
                continue
            count = shared(items, entry)
            if best is None or count > best[0]:
                best = (count, entry)
        if best is not None and best[0] > 0 and best[0] * 2 >= len(items):
            ids[name] = best[1]["id"]
            taken.add(best[1]["id"])
    return ids


def by_id(lists):
    return {entry["id"]: entry for entry in lists["lists"]}


def item_state(entry, text):
    if entry is None or text not in entry["items"]:
        return None
    section = next((s["name"] for s in entry.get("sections") or [] if text in s["items"]), None)
    return (text in entry["checked"], (entry.get("quantities") or {}).get(text), section)


class Run:
    """One seed's steps on a fresh listd; each step is recorded, so a failing run can be
    replayed with steps left out."""

    def __init__(self, binary, seed, steps, only=None, trace=False):
        self.binary = binary
        self.seed = seed
        self.steps = steps
        self.only = only  # the step numbers to replay (shrinking), else every step
        self.trace = trace
        self.saves = 0
        self.done_steps = 0
        self.step = -1  # the start
        self.names_had = {}  # list id -> every name it has had

    def note_names(self, lists):
        """Every name each list has had: listd's file showed it under each, and a copy without
        notes may name it by any of them (a heading typed under one is tied to that list)."""
        for entry in lists["lists"]:
            self.names_had.setdefault(entry["id"], set()).add(entry["name"])

    def log(self, text):
        if self.trace:
            print("  [%d] %s" % (self.step, text), flush=True)

    def execute(self):
        self.directory = tempfile.mkdtemp(prefix="listd-save-model-")
        with open(os.path.join(self.directory, "lists.md"), "w") as f:
            # As a listd wrote it before (its notes in): a copy whose notes are stripped is then
            # never a copy of a file that had none (which listd reads as the person's own).
            f.write("# Groceries <!-- listd id=1 -->\n- [ ] milk\n- [ ] eggs\n- [ ] bread\n## Dairy\n- [ ] butter\n\n"
                    "# Pantry <!-- listd id=2 -->\n- rice\n- oats\n")
        self.listd = Listd(self.binary, self.directory)
        self.running = True
        self.pending = []
        self.pending_unsettled = set()
        self.listd.start()
        lists, _ = self.listd.settle("the start")
        self.model = lists
        self.note_names(lists)
        self.buffers = []
        try:
            for self.step in range(self.steps):
                rng = random.Random("%d/%d" % (self.seed, self.step))
                if self.only is not None and self.step not in self.only:
                    continue
                self.one_step(rng)
                self.done_steps += 1
        finally:
            if self.running and self.listd.process.poll() is None:
                self.listd.process.kill()
                self.listd.process.wait()

    def one_step(self, rng):
        roll = rng.random()
        if not self.running:
            if roll < 0.5:
                self.save(rng)  # a save while listd is stopped
            else:
                self.restart()
            return
        if roll < 0.30:
            self.client_edit(rng)
        elif roll < 0.42:
            self.take_copy(rng)
        elif roll < 0.92:
            self.save(rng)
        elif roll < 0.96:
            self.stop(rng.choice([signal.SIGTERM, signal.SIGKILL]))
            if rng.random() < 0.5:
                self.restart()
        else:
            self.restart_now(rng)

    # -- client edits through the socket, checked against the model --

    def client_edit(self, rng):
        lists = self.model["lists"]
        names = [entry["name"] for entry in lists]
        kind = rng.choice(["add", "add", "remove", "check", "uncheck", "amount", "replace", "create",
                           "rename", "delete", "section", "clear"])
        entry = rng.choice(lists) if lists else None
        if entry is None and kind != "create":
            kind = "create"
        params = None
        if kind == "create":
            name = rng.choice([n for n in LIST_NAMES if n not in names] or ["List %d" % rng.randrange(99)])
            method, params = "createList", {"name": name, "items": rng.sample(WORDS, rng.randrange(0, 4))}
        elif kind == "add":
            method, params = "addItem", {"list": entry["id"], "item": self.fresh_word(rng, entry)}
            if rng.random() < 0.3 and entry["sections"]:
                params["section"] = rng.choice(entry["sections"])["name"]
        elif kind in ("remove", "check", "uncheck", "amount", "replace"):
            if not entry["items"]:
                return
            item = rng.choice(entry["items"])
            method = {"remove": "removeItem", "check": "checkItem", "uncheck": "uncheckItem",
                      "amount": "setQuantity", "replace": "replaceItem"}[kind]
            params = {"list": entry["id"], "item": item}
            if kind == "amount":
                params["quantity"] = rng.choice(AMOUNTS + [None])
            if kind == "replace":
                params["with"] = self.fresh_word(rng, entry)
        elif kind == "rename":
            method, params = "renameList", {"list": entry["id"], "name": rng.choice([n for n in LIST_NAMES if n not in names] or ["Other"])}
        elif kind == "delete":
            if len(lists) <= 1:
                return
            method, params = "deleteList", {"list": entry["id"]}
        elif kind == "section":
            method, params = "addSection", {"list": entry["id"], "section": rng.choice(SECTION_NAMES)}
        else:
            method, params = "clearChecked", {"list": entry["id"]}
        status, result = self.listd.call(method, params)
        self.log("client %s %s -> %s" % (method, json.dumps(params), status))
        after = self.listd.lists()
        # The model: a confirmed edit changes what it names, a denied one nothing.
        self.expect_client_edit(method, params, status, self.model, after)
        self.model = after
        self.note_names(after)

    def fresh_word(self, rng, entry):
        taken = {t.lower() for t in entry["items"]} if entry else set()
        for _ in range(20):
            word = rng.choice(WORDS)
            if rng.random() < 0.3:
                word += " %d" % rng.randrange(10)
            if word not in taken:
                return word
        return "thing %d" % rng.randrange(10 ** 6)

    def expect_client_edit(self, method, params, status, before, after):
        b, a = by_id(before), by_id(after)
        if status != "ok":
            if shown(before["lists"]) != shown(after["lists"]):
                raise Violation("a denied %s changed the lists" % method)
            return
        target = params.get("list")
        for list_id in set(b) | set(a):
            if list_id == target or (method == "createList" and list_id not in b):
                continue
            if shown([b[list_id]] if list_id in b else []) != shown([a[list_id]] if list_id in a else []):
                raise Violation("client %s of list %s changed list %s" % (method, target, list_id))
        if method == "addItem" and params["item"] not in a[target]["items"]:
            raise Violation("confirmed add of %s is not on the list" % params["item"])
        if method == "removeItem" and params["item"] in a[target]["items"]:
            raise Violation("confirmed removal of %s left it" % params["item"])
        if method == "checkItem" and params["item"] not in a[target]["checked"]:
            raise Violation("confirmed tick of %s not made" % params["item"])
        if method == "deleteList" and target in a:
            raise Violation("confirmed deletion left the list")

    # -- copies and saves --

    def take_copy(self, rng):
        """A person opens the file (the buffer is kept, and saved later, maybe many times)."""
        text = self.listd.file_bytes().decode()
        shown_lists = read_file(text)
        ids = {entry["name"]: entry["id"] for entry in shown_lists}
        stripped = rng.random() < 0.15
        if any(entry["id"] is None for entry in shown_lists):
            # The file on disk has no notes (a stripped copy saved while listd was stopped): a
            # copy of it is one without notes too, its headings the lists of their names, else
            # the lists whose items they mostly show (docs/file-format.md).
            stripped = True
            taken = {i for i in ids.values() if i is not None}
            for entry in shown_lists:
                if entry["id"] is not None:
                    continue
                named = next((l["id"] for l in self.model["lists"] if l["name"] == entry["name"] and l["id"] not in taken), None)
                if named is None and entry["items"]:
                    shared = [(len(set(entry["items"]) & set(l["items"])), l["id"]) for l in self.model["lists"] if l["id"] not in taken]
                    best = max(shared, default=(0, None))
                    named = best[1] if best[0] * 2 >= len(entry["items"]) and best[0] > 0 else None
                if named is not None:
                    ids[entry["name"]] = named
                    taken.add(named)
        # Half the copies without notes are another machine's file (chosen without the random
        # stream, so that kept regressions replay the same steps).
        foreign = stripped and zlib.crc32(text.encode()) % 2 == 1
        buffer = Buffer(text, ids, stripped, foreign)
        # While listd is stopped, the saves on disk that this copy already shows: a save from it
        # carries them (a save from an older buffer writes over them, as the person did).
        buffer.inherited = list(self.pending) if not self.running else []
        # What those saves did is this buffer's too, and as unsettled: listd may never see them.
        buffer.unsettled = set().union(*(unsettled_by(intents) for intents, _ in buffer.inherited))
        self.buffers.append(buffer)
        if len(self.buffers) > 4:
            self.buffers.pop(0)
        self.log("copy taken%s" % (" (another listd's notes)" if foreign else " (notes stripped)" if stripped else ""))

    def person_edits(self, rng, buffer):
        """One to three edits of the buffer, as a person makes them; each is noted as an intent."""
        for _ in range(rng.randint(1, 3)):
            names = buffer.names()
            kind = rng.choice(["tick", "tick", "add", "add", "remove", "retype", "amount", "newlist",
                               "rename", "deletelist", "section", "revert"])
            if not names:
                kind = "newlist"
            name = rng.choice(names) if names else None
            items = buffer.items(name) if name else []
            if kind in ("tick", "remove", "retype", "amount") and not items:
                kind = "add"
            if kind == "revert":
                if not buffer.history:
                    continue
                self.apply_intent(buffer, buffer.history.pop())
                continue
            if kind == "tick":
                index, item = rng.choice(items)
                self.apply_intent(buffer, {"kind": "tick", "list": name, "item": item["text"], "checked": not item["checked"]})
            elif kind == "add":
                taken = buffer.every_text()
                word = next((w for w in rng.sample(WORDS, len(WORDS)) if w not in taken), None)
                if word:
                    self.apply_intent(buffer, {"kind": "add", "list": name, "item": word})
            elif kind == "remove":
                index, item = rng.choice(items)
                self.apply_intent(buffer, {"kind": "remove", "list": name, "item": item["text"]})
            elif kind == "retype":
                index, item = rng.choice(items)
                taken = buffer.every_text()
                new = rng.choice(["%s bio" % item["text"], "free-range %s" % item["text"]])
                if new not in taken:
                    self.apply_intent(buffer, {"kind": "retype", "list": name, "item": item["text"], "to": new})
            elif kind == "amount":
                index, item = rng.choice(items)
                amount = rng.choice([a for a in AMOUNTS + [None] if a != item["amount"]])
                self.apply_intent(buffer, {"kind": "amount", "list": name, "item": item["text"], "amount": amount})
            elif kind == "newlist":
                new = next((n for n in rng.sample(LIST_NAMES, len(LIST_NAMES)) if n not in names), None)
                taken = buffer.every_text()
                words = [w for w in rng.sample(WORDS, len(WORDS)) if w not in taken][:3]
                if new and words:
                    section = rng.choice(SECTION_NAMES) if rng.random() < 0.6 else None
                    self.apply_intent(buffer, {"kind": "newlist", "list": new, "items": words, "section": section})
            elif kind == "rename":
                new = next((n for n in rng.sample(LIST_NAMES, len(LIST_NAMES)) if n not in names), None)
                if new:
                    self.apply_intent(buffer, {"kind": "rename", "list": name, "to": new})
            elif kind == "deletelist":
                if len(names) > 1:
                    self.apply_intent(buffer, {"kind": "deletelist", "list": name})
            elif kind == "section":
                taken = buffer.every_text()
                word = next((w for w in rng.sample(WORDS, len(WORDS)) if w not in taken), None)
                sections = [l[3:].strip() for l in buffer.lines[slice(*buffer.block(name))] if l.startswith("## ")]
                section = next((s for s in rng.sample(SECTION_NAMES, len(SECTION_NAMES)) if s not in sections), None)
                if word and section:
                    self.apply_intent(buffer, {"kind": "section", "list": name, "section": section, "item": word})

    def apply_intent(self, buffer, intent):
        """Makes the edit in the buffer's lines; notes the intent (by list id) and its inverse."""
        kind, name = intent["kind"], intent["list"]
        list_id = buffer.ids.get(name)
        inverse = None
        if kind == "newlist":
            block = ["", "# %s" % name] + (["## %s" % intent["section"]] if intent["section"] else [])
            block += [item_line(word, False, None) for word in intent["items"]]
            buffer.lines += block
            buffer.ids.pop(name, None)
        else:
            if buffer.block(name) is None:
                return  # a revert of an edit of a list the buffer no longer has
            start, end = buffer.block(name)
            if kind == "rename":
                if intent["to"] in buffer.names():
                    return
                buffer.lines[start] = buffer.lines[start].replace("# %s" % name, "# %s" % intent["to"], 1)
                if name in buffer.ids:
                    buffer.ids[intent["to"]] = buffer.ids.pop(name)
                inverse = {"kind": "rename", "list": intent["to"], "to": name}
            elif kind == "deletelist":
                del buffer.lines[start:end]
                buffer.ids.pop(name, None)  # a heading typed later under its name is a new one
            elif kind in ("add", "section"):
                at = end
                while at > start + 1 and buffer.lines[at - 1].strip() == "":
                    at -= 1
                lines = (["## %s" % intent["section"]] if kind == "section" else []) + [item_line(intent["item"], False, None)]
                buffer.lines[at:at] = lines
                if kind == "add":
                    inverse = {"kind": "remove", "list": name, "item": intent["item"]}
            else:
                found = [(i, it) for i, it in buffer.items(name) if it["text"] == intent["item"]]
                if not found:
                    return  # a revert of an edit of an item the buffer no longer has
                index, item = found[0]
                if kind == "remove":
                    del buffer.lines[index]
                elif kind == "tick":
                    buffer.lines[index] = item_line(item["text"], intent["checked"], item["amount"])
                    inverse = dict(intent, checked=not intent["checked"])
                elif kind == "retype":
                    buffer.lines[index] = item_line(intent["to"], item["checked"], item["amount"])
                    inverse = {"kind": "retype", "list": name, "item": intent["to"], "to": item["text"]}
                elif kind == "amount":
                    buffer.lines[index] = item_line(item["text"], item["checked"], intent["amount"], typed=True)
                    inverse = dict(intent, amount=item["amount"])
        if inverse:
            buffer.history.append(inverse)
        self.log("person: %s" % json.dumps(intent))

    def save(self, rng):
        """A person edits a copy (a kept buffer, or the file as it is now) and saves it."""
        fresh = not self.buffers or rng.random() < 0.35
        if fresh:
            self.take_copy(rng)
        buffer = rng.choice(self.buffers) if not fresh else self.buffers[-1]
        self.person_edits(rng, buffer)
        intents = buffer.intents()
        if not intents:
            return
        # The `##` sections the person took out of a list (their lines gone with its block, or
        # deleted): their items join the part above, listd's meanwhile too (docs/file-format.md).
        then, now = buffer.baseline, buffer.state()
        self.removed_sections = {}
        for key, entry in then.items():
            # (A block deleted and typed again under its name is read as that list: `intents`.)
            shown = now.get(key) or now.get(("new", entry["name"]))
            if isinstance(key, int) and shown is not None:
                had = {item[2] for item in entry["items"].values() if item[2]}
                has = {item[2] for item in shown["items"].values() if item[2]}
                if had - has:
                    self.removed_sections[key] = had - has
        text = buffer.text()
        data = text.encode()
        if data == self.listd.file_bytes():
            return
        before = self.model
        digest = fnv1a64(data)
        shown_before = [d for d, _ in self.listd.shown_saves()].count(digest) if self.running else None
        how = rng.choice(["rename", "inplace", "sed", "vim"])
        self.write(text, how, digest if self.running else None, shown_before)
        self.saves += 1
        self.log("saved by %s%s (buffer %d)" % (how, "" if self.running else " while listd is stopped", id(buffer) % 1000))
        if self.trace:
            print("".join("      > %s\n" % line for line in text.split("\n")), end="", flush=True)
        buffer.baseline = buffer.state()
        if not self.running:
            self.pending = getattr(buffer, "inherited", []) + [(intents, buffer.reads_without_notes())]
            self.pending_buffer = buffer  # whose text is on disk: what listd reads at its start
            # What listd said and did not do of this buffer's earlier saves, which its text still
            # shows: listd's start may take it now (a new list whose name was taken then).
            self.pending_unsettled = set(getattr(buffer, "unsettled", set()))
            buffer.inherited = list(self.pending)
            # listd may never see this save (another may be written over it before the start):
            # what it did stays unsettled for the buffer's next save, which still shows it.
            buffer.unsettled = getattr(buffer, "unsettled", set()) | unsettled_by(intents)
            return
        deadline = time.time() + 15
        while [d for d, _ in self.listd.shown_saves()].count(digest) <= shown_before:
            self.listd.alive()
            if time.time() > deadline:
                raise Violation("a save by %s was not taken in within 15 s" % how)
            time.sleep(0.01)
        after, file_text = self.listd.settle("a save by %s" % how)
        if self.trace:
            print("".join("      = %s\n" % line for line in file_text.split("\n")), end="", flush=True)
        shown_by_name = {name: {item["text"] for _, item in buffer.items(name)} for name in buffer.names()} \
            if buffer.reads_without_notes() else {}
        self.check_save(before, after, file_text, [(intents, buffer.reads_without_notes())], getattr(buffer, "unsettled", set()),
                        shown_by_name)
        buffer.unsettled = getattr(buffer, "unsettled", set()) | self.said_not_done
        self.model = after
        self.note_names(after)
        self.learn_ids(buffer, before, after, file_text)

    def learn_ids(self, buffer, before, after, file_text):
        """The lists this buffer made are listd's lists now, whatever they are called later.
        Not a list of that name that was there before, when the file says this heading was not
        taken: the buffer's block stays its own, and a later rename of it is a new list. The
        buffer's baseline is its text as listd read it, keyed by those ids."""
        made = {entry["name"]: entry["id"] for entry in after["lists"]}
        existed = by_id(before)
        for name in buffer.names():
            # (Any note on its heading line: the name was taken, or the readings disagreed.)
            refused = made.get(name) in existed and ("You wrote: # %s -->" % name) in file_text
            if name not in buffer.ids and name in made and made[name] not in buffer.ids.values() and not refused:
                buffer.ids[name] = made[name]
        for name, list_id in self.tied_by_content.items():
            if name in buffer.names() and list_id in by_id(after):
                buffer.ids[name] = list_id
        buffer.baseline = buffer.state()

    def write(self, text, how, digest=None, shown_before=0):
        """Saves `text` as `how` does. The tool is checked to have written it: the file holds it
        after, or (listd running, and quick to take the save in and write its notes) listd
        logged that it took that text in."""
        path = self.listd.file
        if how == "rename":
            temporary = path + ".new"
            with open(temporary, "w") as f:
                f.write(text)
            os.rename(temporary, path)
        elif how == "inplace":
            with open(path, "r+") as f:
                f.truncate(0)
                f.write(text)
        else:
            source = os.path.join(self.directory, "buffer.txt")
            with open(source, "w") as f:
                f.write(text)
            if how == "sed":
                command = ["sed", "-i", "-e", "1r %s" % source, "-e", "d", path]
            else:
                # `r` into the emptied buffer replaces its one empty line.
                command = ["vim", "-N", "-u", "NONE", "-i", "NONE", "-n", "-es", "-c", "%d", "-c", "r " + source,
                           "-c", "wq", path]
            # Should listd write the file between vim's read of it and its write, vim asks "The
            # file has been changed since reading it!!! Do you really want to write to it (y/n)?"
            # (`:wq!` asks too). The person answers yes: a stale buffer's save, which listd must
            # read right. (With no answer on its stdin, `vim -es` wrote nothing and exited 0, which
            # looked like a save lost to listd's rewrite.) sed reads no stdin.
            # A failed write (vim's E949 "File changed while writing", when listd's swap lands in
            # the middle of it) is saved again, as a person would after the error: up to 3 times.
            for _ in range(3):
                finished = subprocess.run(command, input=b"y\n", capture_output=True, timeout=30)
                if finished.returncode == 0:
                    break
            else:
                raise RuntimeError("%s failed: %s %s" % (command[0], finished.stdout, finished.stderr))
            deadline = time.time() + 15
            while self.listd_bytes_of(path) != text.encode() and \
                    (digest is None or [d for d, _ in self.listd.shown_saves()].count(digest) <= shown_before):
                if digest is None or time.time() > deadline:
                    # Not the tool's fault when listd is running: the file holds listd's text,
                    # and listd never took this one in — its rewrite went over the save (an
                    # in-place write through a file descriptor opened before listd's swap).
                    failure = Violation if digest is not None else RuntimeError
                    raise failure("%s's save was lost: listd never took it in (15 s), and the file holds another text:\n%s\nthe file holds\n%s"
                                  % (command[0], text, self.listd_bytes_of(path).decode(errors="replace")))
                time.sleep(0.01)

    @staticmethod
    def listd_bytes_of(path):
        with open(path, "rb") as f:
            return f.read()

    def stop(self, sig):
        self.listd.stop(sig)
        self.running = False
        self.pending = []
        self.log("listd stopped by %s" % signal.Signals(sig).name)

    def restart(self):
        before = self.model
        self.removed_sections = {}
        self.listd.start()
        self.running = True
        after, file_text = self.listd.settle("the restart")
        self.log("listd started again")
        if self.pending:
            # listd reads the text last saved: when that is a copy without notes, so is every
            # save it carries (their headings are the lists of their names).
            last = self.pending_buffer
            if last.reads_without_notes():
                shown_by_name = {name: {item["text"] for _, item in last.items(name)} for name in last.names()}
                self.check_save(before, after, file_text, [(intents, True) for intents, _ in self.pending],
                                self.pending_unsettled, shown_by_name=shown_by_name)
            else:
                self.check_save(before, after, file_text, self.pending, self.pending_unsettled)
            # The text listd read is that buffer's (unchanged since it saved it): its typed
            # headings are the lists listd took them for, for its next save too (seed 2699211551).
            self.learn_ids(self.pending_buffer, before, after, file_text)
        elif shown(before["lists"]) != shown(after["lists"]):
            raise Violation("a restart changed the lists:\n  before %s\n  after  %s" % (shown(before["lists"]), shown(after["lists"])))
        self.pending = []
        # What the buffers carried of the saves made while listd was stopped is judged now: a
        # later save of theirs carries only what they did since.
        for buffer in self.buffers:
            buffer.inherited = []
        self.model = after
        self.note_names(after)

    def restart_now(self, rng):
        self.stop(rng.choice([signal.SIGTERM, signal.SIGKILL]))
        self.restart()

    # -- the properties --

    def check_save(self, before, after, file_text, saves, unsettled=(), shown_by_name=None):
        """`unsettled`: (list id, item) of earlier saves of the same buffer that listd said and did
        not do: the buffer still shows them, so this save may take them (either way is right)."""
        b, a = by_id(before), by_id(after)
        notes = [line for line in file_text.split("\n") if "<!-- listd:" in line]

        def said(*words):
            return any(all(word in line for word in words if word) for line in notes)

        def heading_refused(name):
            """The copy's heading of that name is marked not taken, and its lines with it: what
            the person did under it is said as a whole (so is what the person did to a list
            listd found the copy did not show: "was not deleted")."""
            return any(line.rstrip().endswith("You wrote: # %s -->" % name) or "You wrote: # %s <! -- listd " % name in line
                       for line in notes)

        touched_items = {}  # list id -> item texts the person touched
        unsettled_lists = set()  # new lists an earlier save of this buffer asked for, not made
        unsettled_ids = set()  # lists it renamed or deleted, not done: its next save may do it
        for list_id, item in unsettled:
            if list_id == "newlist":
                unsettled_lists.add(item)
            elif list_id == "list":
                unsettled_ids.add(item)
            elif isinstance(list_id, tuple):  # an item on a list the buffer typed: by its name
                for entry in before["lists"] + after["lists"]:
                    if entry["name"] == list_id[1]:
                        touched_items.setdefault(entry["id"], set()).add(item)
            else:
                touched_items.setdefault(list_id, set()).add(item)
        self.said_not_done = set()
        touched_lists = set()
        created = {}
        problems = []
        # A copy without notes is read by its headings' names (docs/file-format.md): what such a
        # buffer shows under a heading may go to the list of that name, whichever list the
        # harness knows the heading for (a rename it made in the copy was said, not done).
        # (`shown_by_name`: every heading of such a copy, with the items under it.)
        by_name = {name: set(items) for name, items in (shown_by_name or {}).items()}
        for intents, stripped in saves:
            for intent in intents if stripped else []:
                if intent["kind"] == "newlist":
                    by_name.setdefault(intent["list"], set()).update(intent["items"])
                elif "item" in intent:
                    by_name.setdefault(intent["list"], set()).add(intent["item"])

        def on_list_named(name, item):
            return any(l["name"] == name and item in l["items"] for l in after["lists"])

        # A heading typed without notes whose name is no list's, over items mostly of one list no
        # heading of the copy shows, is that list (docs/file-format.md: the person renamed it, or
        # it was renamed since): its rename is said, not done, and its lines are adds to it.
        # So is one typed under a list's name over hardly any of that list's items but mostly
        # another's (that list renamed since, and another made under its old name).
        # Its items are the lines under it as the copy was saved (a later edit of the same
        # buffer may have taken one off), as listd reads them.
        typed = {}
        for intents, stripped in saves:
            for intent in intents if stripped else []:
                if intent["kind"] == "newlist":
                    typed[intent["list"]] = (intent["items"], intent.get("headings", ()))
        # In a copy read without notes every heading is tied so (docs/file-format.md).
        for name in shown_by_name or ():
            if name not in typed:
                typed[name] = ((), [other for other in shown_by_name if other != name])
        tied = {}
        ticked_by_tie = {}  # list id -> items a heading tied to it shows
        if shown_by_name:
            # A copy read without notes: its headings tied as listd ties them (by name, then by
            # items), the whole copy at once (a heading can take another's list).
            lists = {entry["id"]: entry for entry in before["lists"]}
            for name, list_id in tie_like_listd(list(shown_by_name.items()), before["lists"]).items():
                if list_id is None:
                    continue
                items = shown_by_name[name]
                ticked_by_tie.setdefault(list_id, set()).update(items)
                if lists[list_id]["name"] != name:
                    tied[name] = lists[list_id]
                    by_name.setdefault(lists[list_id]["name"], set()).update(items)
            typed = {}
        for name, (items, headings) in typed.items():
            items = list((shown_by_name or {}).get(name, items))
            named = next((l for l in before["lists"] if l["name"] == name), None)
            if named is not None and len([i for i in items if i in named["items"]]) * 2 >= len(items):
                ticked_by_tie.setdefault(named["id"], set()).update(items)  # tied by its name
                continue
            shared = [(len([i for i in items if i in l["items"]]), l) for l in before["lists"]
                      if l["name"] not in headings and l not in tied.values()]
            count, found = max(shared, key=lambda pair: pair[0], default=(0, None))
            if (found is None or count == 0 or count * 2 < len(items)) and named is not None and shown_by_name:
                # No other list's items: the heading stays the list of its name (a copy read
                # without notes ties by name first), and a tick it shows is taken there.
                ticked_by_tie.setdefault(named["id"], set()).update(items)
            if found is not None and count > 0 and count * 2 >= len(items):
                tied[name] = found
                by_name.setdefault(found["name"], set()).update(items)
                # Its lines are that list's lines: a tick the copy shows is taken there
                # (docs/file-format.md: such a copy adds and ticks).
                ticked_by_tie.setdefault(found["id"], set()).update(items)
        # The buffer's heading is that list from now on (its next save is read so).
        self.tied_by_content = {name: entry["id"] for name, entry in tied.items()}

        # Saves while listd was stopped reach it as the last one's text only: an edit a later
        # save of them made again to the same item or list (the add taken back) is superseded.
        def subject(intent):
            # (A list the buffer typed has no id: by its name.)
            owner = intent["id"] if intent["id"] is not None else ("name", intent["list"])
            return (owner, intent.get("item"), intent["kind"] in ("rename", "deletelist"))

        later = {}
        deleted_later = {}  # list id -> the last save that deleted it
        typed_later = {}  # name -> the last save without notes that typed a list of that name
        for number, (intents, _) in enumerate(saves):
            for intent in intents:
                later[subject(intent)] = number
                if intent["kind"] == "deletelist" and intent["id"] is not None:
                    deleted_later[intent["id"]] = number
                if intent["kind"] == "newlist" and saves[number][1]:
                    typed_later[intent["list"]] = number  # without notes: the list of that name
        for number, (intents, stripped) in enumerate(saves):
            for intent in intents:
                if later[subject(intent)] > number and (intent["id"] is not None or "item" in intent):
                    continue
                if intent["id"] is not None and deleted_later.get(intent["id"], -1) > number:
                    continue
                if intent["kind"] == "deletelist" and typed_later.get(intent["list"], -1) > number:
                    continue  # a later copy without notes shows a list of that name again
                kind, list_id = intent["kind"], intent["id"]
                name_now = (a.get(list_id) or {}).get("name")
                if kind == "newlist":
                    # A list typed in a save listd never saw alone (it was stopped): what a later
                    # save of them did to it (took a line off, deleted it) is in the text read.
                    name = intent["list"]
                    # (A later copy without notes names it by its heading only: an id there is
                    # the harness's guess by name, perhaps of another list of that name.)
                    later_saves = [i for laters, bare in saves[number + 1:] for i in laters
                                   if (i["id"] is None or bare) and i["list"] == name]
                    if any(i["kind"] == "deletelist" for i in later_saves):
                        continue
                    gone = {i["item"] for i in later_saves if i["kind"] == "remove"}
                    created[name] = dict(intent, items=[item for item in intent["items"] if item not in gone])
                    continue
                if list_id is None and kind in ("rename", "deletelist"):
                    continue  # a list this buffer typed and listd never made (a made one has its id)
                if list_id is None:  # a list made by this same buffer earlier: found by name
                    # (one this save made, when an earlier save's heading was refused: a list of
                    # that name before is another's)
                    made_now = [l for l in after["lists"] if l["id"] not in b]
                    list_id = next((l["id"] for l in made_now + before["lists"] + after["lists"] if l["name"] == intent["list"]), None)
                    if list_id is None:
                        continue
                    name_now = (a.get(list_id) or {}).get("name")
                entry = a.get(list_id)
                if kind in ("rename", "deletelist"):
                    touched_lists.add(list_id)
                    done = (entry is None) if kind == "deletelist" else (entry is not None and entry["name"] == intent["to"])
                    mention = intent["list"]
                    changed = list_id in b and (entry is None or entry["name"] != b[list_id]["name"])
                    # A copy without notes that deleted a list's block and typed another under
                    # the name listd knows it by (the buffer's own name for it was a rename listd
                    # said, not did) is read as that list's lines all changed in place: its
                    # removals are said, item by item.
                    retyped = (stripped and not done and kind == "deletelist" and name_now is not None
                               and (name_now in (shown_by_name or {})
                                    or any(i["kind"] == "newlist" and i["list"] == name_now for i in intents))
                               and all(said(item) for item in entry["items"]
                                       if item in b.get(list_id, {}).get("items", {})
                                       and item not in (shown_by_name or {}).get(name_now, ())))
                    if stripped and done and changed:
                        problems.append("a copy without notes %s list %s: it must be said, not done" % (kind, mention))
                    elif not done and not retyped and not said(mention) and not said(name_now):
                        problems.append("the person's %s of %s was neither done nor said" % (kind, mention))
                    if not done and list_id is not None:
                        self.said_not_done.add(("list", list_id))
                    continue
                words = [intent["item"]] + ([intent["to"]] if kind == "retype" else []) + ([intent.get("item")] if kind == "section" else [])
                touched_items.setdefault(list_id, set()).update(words)
                if entry is None:
                    if list_id in b and not said(intent["item"]) and not said(b[list_id]["name"]):
                        problems.append("list %s, which the person's %s of %s needs, is gone unsaid" % (list_id, kind, intent["item"]))
                    continue
                state = item_state(entry, intent["item"])
                if kind in ("add", "section"):
                    done = state is not None or (stripped and on_list_named(intent["list"], intent["item"]))
                elif kind == "remove":
                    done = state is None
                    if stripped and done and item_state(b.get(list_id), intent["item"]) is not None:
                        problems.append("a copy without notes removed %s: it must be said, not done" % intent["item"])
                        continue
                elif kind == "tick":
                    done = state is not None and state[0] == intent["checked"]
                    if not done and stripped:
                        # Without notes the heading is the list of its name (docs/file-format.md).
                        named_now = next((l for l in after["lists"] if l["name"] == intent["list"]), None)
                        state_there = item_state(named_now, intent["item"])
                        done = state_there is not None and state_there[0] == intent["checked"]
                elif kind == "amount":
                    done = state is not None and state[1] == intent["amount"]
                elif kind == "move":
                    done = state is not None and state[2] == intent["section"]
                else:  # retype
                    done = item_state(entry, intent["to"]) is not None and state is None
                if not done:
                    self.said_not_done.add((list_id, intent["item"]))
                # A move under a `##` the copy renamed: the rename not taken is said naming it.
                moved_by_rename = kind == "move" and intent["section"] and said("renamed “%s”" % intent["section"])
                # A move out of a `##` the copy took out: the removal not taken is said naming it
                # (the item stays in it, as the lists show).
                was = item_state(b.get(list_id), intent["item"])
                moved_by_rename = moved_by_rename or (kind == "move" and was is not None and was[2]
                                                      and said("The section “%s” was not removed" % was[2]))
                # An item an earlier save of this buffer changed that listd may never have seen
                # (written over while listd was stopped) or said and did not do: this edit undoes
                # a state listd never had from the buffer, so either outcome is right.
                settled_elsewhere = (list_id, intent["item"]) in unsettled
                if not done and not said(intent["item"]) and not (kind == "retype" and said(intent["to"])) and not moved_by_rename \
                        and not settled_elsewhere \
                        and not heading_refused(intent["list"]) and not said("“%s” was not deleted" % entry["name"]):
                    problems.append("the person's %s of “%s” on %s was neither done nor said" % (kind, intent["item"], entry["name"]))
        for name, intent in created.items():
            if name in tied:
                for item in intent["items"]:
                    if not on_list_named(tied[name]["name"], item) and not on_list_named(name, item) and not said(item):
                        problems.append("the person's add of “%s” under %s (%s, typed without notes) was neither done nor said"
                                        % (item, name, tied[name]["name"]))
                if not any(l["name"] == name for l in after["lists"] + before["lists"]) and not said(name) and not said(tied[name]["name"]):
                    problems.append("the new list %s (%s's items) was neither made nor said" % (name, tied[name]["name"]))
                continue
            named = next((l for l in before["lists"] if l["name"] == name), None)
            if named is not None and (name in by_name or len([i for i in intent["items"] if i in named["items"]]) * 2 >= len(intent["items"])):
                # Without notes, a list typed under a name a list has is that list: its lines are
                # adds to it, each made or said. So is a heading typed under a list's name over at
                # least half of its items (docs/file-format.md).
                by_name.setdefault(name, set()).update(intent["items"])
                # Its block shows that list's `##` sections as the person typed it: the others
                # are taken out, their items joining the part above.
                typed_sections = {intent.get("section")} - {None}
                listed = {section["name"] for section in named.get("sections") or []}
                if not hasattr(self, "removed_sections"):
                    self.removed_sections = {}
                self.removed_sections.setdefault(named["id"], set()).update(listed - typed_sections)
                # A copy read by its revision: the block shows that list's lines, so what it
                # lacks of them the person took off (said or done; a copy without notes only says).
                touched_items.setdefault(named["id"], set()).update(set(named["items"]) - set(intent["items"]))
                for item in intent["items"]:
                    if not on_list_named(name, item) and not said(item):
                        problems.append("the person's add of “%s” on %s (a list typed without notes) was neither done nor said" % (item, name))
                if said("There is already a list called “%s”" % name):
                    # Read by a version in which that list had another name, the heading was a
                    # new list, refused for its name: the buffer still shows it, and its next save
                    # may make it once the name is free.
                    self.said_not_done.add(("newlist", name))
                continue
            made = next((l for l in after["lists"] if l["name"] == name and (l["id"] not in b or (
                name in by_name and all(item in l["items"] for item in intent["items"])))), None)
            if made is None:
                # The buffer still shows it: its next save may make it (once the name is free).
                self.said_not_done.add(("newlist", name))
                if not said(name):
                    problems.append("the new list %s was neither made nor said" % name)
        # Everything the saves did not touch is as it was.
        for list_id in set(b) | set(a):
            old, new = b.get(list_id), a.get(list_id)
            if old is None:
                if new["name"] not in created and new["name"] not in unsettled_lists and new["name"] not in by_name:
                    problems.append("list %s (%s) appeared from no one's edit" % (list_id, new["name"]))
                continue
            if list_id not in touched_lists and list_id not in unsettled_ids:
                if new is None:
                    problems.append("list %s (%s) was lost" % (list_id, old["name"]))
                    continue
                if new["name"] != old["name"]:
                    problems.append("list %s was renamed %s → %s by no one" % (list_id, old["name"], new["name"]))
            if new is None:
                continue
            touched = touched_items.get(list_id, set())
            for text in set(old["items"]) | set(new["items"]):
                if text in touched:
                    continue
                was, now = item_state(old, text), item_state(new, text)
                if was is not None and now is not None and was[:2] == now[:2] and was[2] != now[2] \
                        and was[2] in getattr(self, "removed_sections", {}).get(list_id, ()):
                    continue  # its section was taken out by the person: it joined the part above
                if was is not None and now is not None and text in ticked_by_tie.get(list_id, ()) \
                        and not was[0] and now[0] and was[1:] == now[1:]:
                    continue  # ticked by a heading tied to this list by its items
                if was != now:
                    if was is None:
                        if any(text in by_name.get(name, ()) for name in {new["name"]} | self.names_had.get(list_id, set())):
                            continue  # shown under a heading of a name it has or had, in a copy without notes
                        problems.append("“%s” came onto %s, though no one's save added it" % (text, new["name"]))
                    elif now is None:
                        problems.append("“%s” was lost from %s" % (text, new["name"]))
                    else:
                        problems.append("“%s” on %s changed untouched: %s → %s" % (text, new["name"], was, now))
        # The file shows exactly the lists.
        if shown(read_file(file_text)) != shown(after["lists"]):
            problems.append("the file does not show the lists:\n    file    %s\n    listd   %s"
                            % (shown(read_file(file_text)), shown(after["lists"])))
        if problems:
            raise Violation("; ".join(problems))


def run_seed(binary, seed, steps, only=None, trace=False):
    run = Run(binary, seed, steps, only, trace)
    try:
        run.execute()
        shutil.rmtree(run.directory, ignore_errors=True)  # a failed run's directory is kept, to look at
        return None, run
    except Violation as violation:
        return "step %d: %s" % (run.step, violation), run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--listd", required=True)
    seeded_runs.add_arguments(parser, "1,2,3,4,5", 150, os.path.join(os.path.dirname(__file__), "regressions"))
    options = parser.parse_args()
    seeded_runs.run_cases(options, lambda seed, steps, only, trace, _: run_seed(options.listd, seed, steps, only, trace), "saves")


if __name__ == "__main__":
    main()
