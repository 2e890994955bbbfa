#!/usr/bin/env python3
"""Tasks apps never lose an edit nor keep a ghost: a model-based property test of listd-web's
CalDAV on the real listd and listd-web (issue 64).

Two tasks apps, each with its own copy of the list (hrefs, ETags, titles, ticks, amounts,
sections) and its own sync token, edit from that copy whenever the generator says — fresh or
stale — while the household edits over listd's socket; listd-web is killed (SIGKILL) and started again, listd stopped
(SIGTERM) and killed (SIGKILL) and started again, the apps keeping their copies and tokens
through all of it, as phones do. A reference model holds the list as listd confirmed it.

Checked at every step:
  - an app's write is answered by what listd did: 201/204 and its change made on the list as it
    is now (nothing else changed: a change the app's copy did not know of survives); 412 (the
    copy was stale), 404 (the task is gone) or, only while listd is away, 503 and nothing changed;
    409 only for a title another item has, or a section the list has not (only an add makes one);
  - the household's edits are confirmed or denied as the model says;
and at every checked sync (once listd-web's book has listd's last change): the app's copy after
applying the sync report equals a full read of the collection (no task the server no longer
knows, none missing, the same ETags), and that read equals the list in listd. A sync token is
never refused while listd's instance is the same.

A failing run is shrunk (the fewest steps that still fail, replayed on fresh servers) and printed
as a case to keep (Tests/CalDAV/regressions/*.json, replayed by every run).

  tasks_model.py --bin DIR [--seeds 1,2,3 | --fresh-seeds N] [--steps N]
"""

import argparse
import base64
import http.client
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
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ModelRuns"))
import seeded_runs  # noqa: E402

WORDS = "milk eggs bread tea jam rice oats figs".split()
AMOUNTS = ["2", "1 l", "500 g", None]
SECTIONS = ["Dairy", "Bakery"]
# An app may name a section the list has not: it is made.
APP_SECTIONS = SECTIONS + ["Frozen"]
# Where an item goes when nothing says (listd puts it back where the household kept it): any.
ANY = object()
# The generator's version: 1 edits titles, ticks and amounts; 2 sections too. A kept case names
# the one it was found with (none: 1), so widening the generator leaves it replaying its steps.
GENERATOR = 2
DAV, CALDAV = "DAV:", "urn:ietf:params:xml:ns:caldav"
COLLECTION = "/caldav/lists/1/"


class Violation(Exception):
    pass


class Listd:
    """The real listd on a temporary socket and file, and the household's connection to it."""

    def __init__(self, binary, directory):
        self.binary = binary
        self.socket = os.path.join(directory, "listd.sock")
        self.file = os.path.join(directory, "lists.md")
        self.output = open(os.path.join(directory, "listd.out"), "ab")
        self.process = None
        self.connection = None
        self.next_id = 1

    def start(self):
        self.process = subprocess.Popen([self.binary, "--socket", self.socket, "--file", self.file],
                                        stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise Violation("listd exited at its start with status %s" % self.process.returncode)
            try:
                self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.connection.connect(self.socket)
                self.reader = self.connection.makefile("rb")
                self.call("hello", {"name": "household"})
                return
            except OSError:
                self.connection.close()
                time.sleep(0.02)
        raise Violation("listd did not answer within 20 s of its start")

    def stop(self, sig):
        self.connection.close()
        self.process.send_signal(sig)
        status = self.process.wait(timeout=20)
        if sig == signal.SIGTERM and status != 0:
            raise Violation("listd stopped with status %s on SIGTERM" % status)

    def call(self, method, params=None):
        """("ok", result) or ("denied", error)."""
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.next_id += 1
        self.connection.sendall((json.dumps(request) + "\n").encode())
        self.connection.settimeout(30)
        while True:
            line = self.reader.readline()
            if not line:
                raise Violation("listd closed the household's connection")
            reply = json.loads(line)
            if reply.get("id") == request["id"]:
                return ("denied", reply["error"]) if "error" in reply else ("ok", reply["result"])

    def items(self):
        """The list as listd has it: {title: (ticked, amount, section)}, and its revision."""
        kind, found = self.call("getList", {"list": "Groceries"})
        if kind != "ok":
            raise Violation("getList: %s" % found)
        checked, amounts = set(found.get("checked", [])), found.get("quantities", {})
        sections = {item: section["name"] for section in found.get("sections", []) for item in section["items"]}
        self.sections = {section["name"] for section in found.get("sections", [])}
        return ({item: (item in checked, amounts.get(item), sections.get(item, "")) for item in found["items"]},
                found["revision"])


class ListdWeb:
    """The real listd-web, serving tasks apps behind an HTTPS proxy's address."""

    def __init__(self, binary, directory, listd_socket):
        self.binary = binary
        self.directory = os.path.join(directory, "web")
        os.makedirs(self.directory, exist_ok=True)
        self.listd_socket = listd_socket
        self.log = open(os.path.join(directory, "listd-web.log"), "ab")
        self.process = None
        self.port = None

    @property
    def control(self):
        return os.path.join(self.directory, "control.sock")

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--socket", self.listd_socket, "--listen", "127.0.0.1:0",
             "--devices", os.path.join(self.directory, "devices.json"), "--control-socket", self.control,
             "--url", "https://tasks.test"],
            stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        found = re.search(r"\(port (\d+)\)", line)
        if not found:
            raise Violation("listd-web said %r, not where it serves" % line)
        self.port = int(found.group(1))

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=20)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


def parse_task(data):
    """A VTODO's UID, title and tick, its lines unfolded."""
    text = re.sub(r"\r?\n[ \t]", "", data)  # an XML parser reads CR LF as LF
    fields = {}
    for line in re.split(r"\r?\n", text):
        name, _, value = line.partition(":")
        fields.setdefault(name.split(";")[0].upper(), value)
    completed = fields.get("STATUS") == "COMPLETED"
    return {"uid": fields.get("UID"), "summary": fields.get("SUMMARY", "").replace("\\,", ",").replace("\\;", ";"),
            "completed": completed, "amount": fields.get("DESCRIPTION"), "section": fields.get("CATEGORIES", "")}


def task_body(task):
    """A VTODO as an app writes it: its amount as DESCRIPTION (none: the item has none)."""
    status = "STATUS:COMPLETED\r\n" if task["completed"] else "STATUS:NEEDS-ACTION\r\n"
    amount = "DESCRIPTION:%s\r\n" % task["amount"] if task.get("amount") else ""
    section = "CATEGORIES:%s\r\n" % task["section"] if task.get("section") else ""
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//tasks model//EN\r\nBEGIN:VTODO\r\nUID:%s\r\nSUMMARY:%s\r\n%s%s%s"
            "END:VTODO\r\nEND:VCALENDAR\r\n" % (task["uid"], task["summary"], status, amount, section))


class App:
    """A tasks app: its copy of the list (href → uid, ETag, title, tick, amount, section) and its
    sync token."""

    def __init__(self, name, user, password):
        self.name = name
        self.authorization = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.copy = {}
        self.token = ""
        self.made = 0

    def request(self, web, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
        sent = {"Authorization": self.authorization}
        sent.update(headers or {})
        try:
            connection.request(method, path, body=body.encode() if body else None, headers=sent)
            response = connection.getresponse()
            return response.status, response.read().decode(), {k.lower(): v for k, v in response.getheaders()}
        except OSError as error:
            raise Violation("%s's %s %s had no answer: %s" % (self.name, method, path, error))
        finally:
            connection.close()

    def report(self, web, body):
        status, text, _ = self.request(web, "REPORT", COLLECTION, body, {"Depth": "1", "Content-Type": "application/xml"})
        if status != 207:
            return status, None, None, None
        root = ET.fromstring(text)
        tasks, gone = {}, set()
        for response in root.iter("{%s}response" % DAV):
            href = response.findtext("{%s}href" % DAV)
            if response.findtext("{%s}status" % DAV, "").split(" ")[1:2] == ["404"]:
                gone.add(href)
                continue
            etag = response.findtext(".//{%s}getetag" % DAV)
            data = response.findtext(".//{%s}calendar-data" % CALDAV)
            if data is not None:
                tasks[href] = dict(parse_task(data), etag=etag)
        return status, tasks, gone, root.findtext("{%s}sync-token" % DAV)

    def sync(self, web):
        """Applies a sync-collection report from the app's token to its copy; the status."""
        body = ('<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:" xmlns:C="%s">'
                '<D:sync-token>%s</D:sync-token><D:sync-level>1</D:sync-level>'
                '<D:prop><D:getetag/><C:calendar-data/></D:prop></D:sync-collection>' % (CALDAV, self.token))
        found = self.report(web, body)
        if found[0] != 207:
            return found[0]
        _, tasks, gone, token = found
        if self.token == "":
            self.copy = {}
        for href in gone:
            self.copy.pop(href, None)
        self.copy.update(tasks)
        self.token = token
        return 207

    def full(self, web):
        """Every task of the collection, read whole (calendar-query)."""
        body = ('<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="%s">'
                '<D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR">'
                '<C:comp-filter name="VTODO"/></C:comp-filter></C:filter></C:calendar-query>' % CALDAV)
        found = self.report(web, body)
        if found[0] != 207:
            raise Violation("%s's full read answered %s" % (self.name, found[0]))
        return found[1]

    def book_revision(self, web):
        """The revision of listd's the book has for the list (its sync token's), or -1."""
        body = ('<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:sync-token/>'
                '</D:prop></D:propfind>')
        status, text, _ = self.request(web, "PROPFIND", COLLECTION, body, {"Depth": "0", "Content-Type": "application/xml"})
        found = re.search(r"urn:listd:sync:[^:<]+:(\d+)", text) if status == 207 else None
        return int(found.group(1)) if found else -1


def matches(items, expected):
    """Whether listd's items are the expected ones (ANY: a section listd chooses)."""
    return items.keys() == expected.keys() and all(
        all(want is ANY or want == got for got, want in zip(items[title], expected[title])) for title in items)


def allows(results, items):
    return any(matches(items, expected) for expected in results)


def shown(items):
    return {title: ticked for title, ticked in sorted(items.items())}


class Run:
    def __init__(self, binaries, seed, steps, only=None, trace=False, generator=GENERATOR):
        self.seed, self.steps, self.only, self.trace = seed, steps, only, trace
        # A kept case replays the steps of the generator it was found with.
        self.sections_on = generator >= 2
        self.directory = tempfile.mkdtemp(prefix="tasks-model-")
        self.listd = Listd(os.path.join(binaries, "listd"), self.directory)
        self.web = ListdWeb(os.path.join(binaries, "listd-web"), self.directory, self.listd.socket)
        self.listctl = os.path.join(binaries, "listctl")
        self.model = {}
        self.revision = 0
        self.step = 0
        self.done_steps = 0
        self.app_writes = 0
        self.listd_up = True

    def say(self, text):
        if self.trace:
            print("  [%d] %s" % (self.step, text), flush=True)

    def pair(self, name):
        run = subprocess.run([self.listctl, "web", "pair", "--caldav", name, "--control-socket", self.web.control, "--json"],
                             capture_output=True, text=True, timeout=30)
        if run.returncode != 0:
            raise Violation("listctl web pair --caldav: %s" % run.stderr)
        paired = json.loads(run.stdout)
        return App(name, paired["user"], paired["password"])

    def execute(self):
        self.listd.start()
        self.web.start()
        try:
            self.apps = [self.pair("Anna's phone"), self.pair("Ben's laptop")]
            kind, _ = self.listd.call("createList", {"name": "Groceries", "items": ["milk", "eggs"]})
            for section in SECTIONS if self.sections_on else []:
                self.listd.call("addSection", {"list": "Groceries", "section": section})
            self.model = {"milk": (False, None, ""), "eggs": (False, None, "")}
            self.actual()
            for app in self.apps:
                self.checked_sync(app)
            for self.step in range(self.steps):
                if self.only is not None and self.step not in self.only:
                    continue
                choice = random.Random("%d/%d" % (self.seed, self.step))
                self.one(choice)
                self.done_steps += 1
            self.ensure_listd()
            for app in self.apps:
                self.checked_sync(app)
        finally:
            for process in (self.web.process, self.listd.process):
                if process and process.poll() is None:
                    process.kill()
                    process.wait()

    def actual(self):
        items, self.revision = self.listd.items()
        return items

    def expect_list(self, expected, what):
        items = self.actual()
        if items != expected:
            raise Violation("%s: listd has %s, expected %s" % (what, shown(items), shown(expected)))

    def ensure_listd(self):
        if not self.listd_up:
            self.listd.start()
            self.listd_up = True

    def one(self, choice):
        roll = choice.random()
        if roll < 0.30:
            self.household(choice)
        elif roll < 0.68:
            self.app_write(choice.choice(self.apps), choice)
        elif roll < 0.90:
            app = choice.choice(self.apps)
            if choice.random() < 0.5:
                self.checked_sync(app)
            else:
                status = app.sync(self.web)
                self.say("%s syncs (unfenced): %s" % (app.name, status))
                if status not in (207, 503):
                    raise Violation("%s's sync answered %s" % (app.name, status))
        elif roll < 0.95:
            self.say("listd-web killed and started again")
            self.web.kill()
            self.web.start()
        elif roll < 0.98:
            self.ensure_listd()
            self.say("listd stopped (SIGTERM)")
            self.listd.stop(signal.SIGTERM)
            self.listd_up = False
        else:
            self.ensure_listd()
            self.say("listd killed (SIGKILL) and started again")
            self.listd.stop(signal.SIGKILL)
            self.listd.start()
            self.expect_list(self.model, "after listd's restart")

    def household(self, choice):
        self.ensure_listd()
        word = choice.choice(WORDS)
        there = word in self.model
        ticked, amount, section = self.model.get(word, (False, None, ""))
        kind = choice.choice(["add", "remove", "check", "uncheck", "rename", "amount"] + (["move"] if self.sections_on else []))
        expected = dict(self.model)
        if kind == "add":
            result, _ = self.listd.call("addItem", {"list": "Groceries", "item": word})
            # An item ticked off is put back by an add; one still to get is there already.
            expected_ok = not there or ticked
            expected[word] = (False, amount, section if there else ANY)
        elif kind == "rename":
            new = choice.choice([other for other in WORDS if other != word])
            result, _ = self.listd.call("replaceItem", {"list": "Groceries", "item": word, "with": new})
            expected_ok = there and new not in self.model
            expected[new] = expected.pop(word, None)
        elif kind == "remove":
            result, _ = self.listd.call("removeItem", {"list": "Groceries", "item": word})
            expected_ok = there
            expected.pop(word, None)
        elif kind == "amount":
            new = choice.choice(AMOUNTS)
            result, _ = self.listd.call("setQuantity", {"list": "Groceries", "item": word, "quantity": new})
            expected_ok = there
            expected[word] = (ticked, new, section)
        elif kind == "move":
            new = choice.choice(SECTIONS + [""])
            result, _ = self.listd.call("moveItem", {"list": "Groceries", "item": word, "section": new})
            expected_ok = there
            expected[word] = (ticked, amount, new)
        else:
            result, _ = self.listd.call(kind + "Item", {"list": "Groceries", "item": word})
            expected_ok = there  # a tick of a ticked item is confirmed, changing nothing
            expected[word] = (kind == "check", amount, section)
        self.say("household %s %s: %s" % (kind, word, result))
        if (result == "ok") != expected_ok:
            raise Violation("the household's %s of %s was %s; the model says %s" % (kind, word, result, expected_ok))
        items = self.actual()
        if expected_ok and not matches(items, expected) or not expected_ok and items != self.model:
            raise Violation("after the household's %s of %s: listd has %s, expected %s" % (
                kind, word, shown(items), shown(expected if expected_ok else self.model)))
        self.model = items

    def app_write(self, app, choice):
        writable = sorted(href for href, task in app.copy.items() if task.get("etag"))
        kinds = ["create", "tick", "rename", "amount"] + (["move"] if self.sections_on else []) + ["delete"]
        kind = choice.choice(kinds) if writable else "create"
        before = dict(self.model)
        if kind == "create":
            app.made += 1
            uid = "%s-%d-%d" % (app.name.split("'")[0].lower(), self.seed, self.step)
            href = COLLECTION + uid + ".ics"
            title = choice.choice(WORDS)
            task = {"uid": uid, "summary": title, "completed": False, "amount": choice.choice(AMOUNTS),
                    "section": choice.choice(APP_SECTIONS + [""]) if self.sections_on else ""}
            status, text, headers = app.request(self.web, "PUT", href, task_body(task),
                                                {"Content-Type": "text/calendar", "If-None-Match": "*"})
            # A new task: added, or merged into the item of its title, which takes its tick and
            # its amount if it gives one (unless listd-web had not yet heard of the item: then
            # the add alone, which puts it back).
            if title in before and task["section"] and task["section"] not in self.listd.sections:
                # Merged into an item there, its CATEGORIES a section the list has not: an app
                # moves an item only into a section there (409, the add and amount standing).
                # A ticked item is put back by the add, into the section it names (made).
                ticked, amount, section = before[title]
                allowed = {409: [dict(before, **{title: (False, task["amount"] or amount, section)}),
                                 dict(before, **{title: (False, amount, section)})]}
                if ticked:
                    allowed[201] = [dict(before, **{title: (False, task["amount"] or amount, task["section"])})]
            elif title in before:
                _, amount, section = before[title]
                allowed = {201: [dict(before, **{title: (False, task["amount"] or amount, task["section"] or section)}),
                                 dict(before, **{title: (False, amount, section)})]}
            else:
                allowed = {201: [dict(before, **{title: (False, task["amount"], task["section"] or ANY)})]}
        else:
            href = choice.choice(writable)
            task = dict(app.copy[href])
            title = task["summary"]
            if kind == "delete":
                status, text, headers = app.request(self.web, "DELETE", href, None, {"If-Match": task["etag"]})
                allowed = {204: [{k: v for k, v in before.items() if k != title}]}
            else:
                # Only what the app changed changes: a change its copy did not know of survives.
                changed = dict(before)
                if kind == "tick":
                    task["completed"] = not task["completed"]
                    if title in changed:
                        changed[title] = (task["completed"],) + changed[title][1:]
                elif kind == "amount":
                    task["amount"] = choice.choice([a for a in AMOUNTS if a != task.get("amount")])
                    if title in changed:
                        changed[title] = (changed[title][0], task["amount"], changed[title][2])
                elif kind == "move":
                    task["section"] = choice.choice([a for a in APP_SECTIONS if a != task.get("section")])
                    if title in changed:
                        changed[title] = changed[title][:2] + (task["section"],)
                else:
                    task["summary"] = choice.choice([w for w in WORDS if w != title])
                    if title in changed:
                        changed[task["summary"]] = changed.pop(title)
                allowed = {204: [changed]}
                if kind == "rename" and task["summary"] in before:
                    allowed[409] = [before]
                if kind == "move" and task["section"] not in self.listd.sections:
                    allowed = {409: [before]}  # a section the list has not: only an add makes one
                status, text, headers = app.request(self.web, "PUT", href, task_body(task),
                                                    {"Content-Type": "text/calendar", "If-Match": task["etag"]})
        self.app_writes += 1
        self.say("%s %s %s (%s): %s %s" % (app.name, kind, title, href.rsplit("/", 1)[-1], status,
                                           re.sub(r"\s+", " ", text)[:160] if status >= 400 else ""))
        # 503 only while listd is away: an app's connection a restart of listd closed is made
        # again, the edit sent once more (its editId makes it once).
        for unchanged in (412, 404) + (() if self.listd_up else (503,)):
            allowed.setdefault(unchanged, [before])
        # With listd away, only a write that changes nothing in listd is made (a new task merged
        # into an item as it is: listd-web's book alone takes the app's UID).
        items = self.actual() if self.listd_up else before
        if not self.listd_up and status != 503 and not allows(allowed.get(status, []), before):
            raise Violation("%s's %s with listd away answered %s" % (app.name, kind, status))
        if status not in allowed:
            raise Violation("%s's %s of %s answered %s (%s); listd has %s, had %s" % (
                app.name, kind, title, status, text.strip()[:300], shown(items), shown(before)))
        if not allows(allowed[status], items):
            raise Violation("%s's %s of %s answered %s, and listd has %s; it had %s, and %s allows %s" % (
                app.name, kind, title, status, shown(items), shown(before), status, [shown(a) for a in allowed[status]]))
        self.model = items
        if status in (201, 204):
            if kind == "delete":
                app.copy.pop(href, None)
            else:
                app.copy[href] = dict(task, etag=headers.get("etag"))

    def checked_sync(self, app):
        """Once listd-web's book has listd's last change: the app's copy after its sync is the
        collection as a full read shows it, and that is the list in listd."""
        self.ensure_listd()
        deadline = time.time() + 20
        while app.book_revision(self.web) < self.revision:
            if time.time() > deadline:
                raise Violation("listd-web's book did not reach listd's revision %d within 20 s" % self.revision)
            time.sleep(0.01)
        status = app.sync(self.web)
        if status != 207:
            raise Violation("%s's sync from its token %s answered %s" % (app.name, app.token, status))
        full = app.full(self.web)
        if app.copy != full:
            extra = {h: t for h, t in app.copy.items() if full.get(h) != t}
            missing = {h: t for h, t in full.items() if app.copy.get(h) != t}
            raise Violation("%s's copy after its sync is not the collection: it has %s where a full read shows %s" % (
                app.name, extra, missing))
        seen = {task["summary"]: (task["completed"], task["amount"], task["section"]) for task in full.values()}
        if len(seen) != len(full) or seen != self.model:
            raise Violation("the collection shows %s (%d tasks); listd has %s" % (
                sorted((t["summary"], t["completed"], t["amount"]) for t in full.values()), len(full), shown(self.model)))
        self.say("%s synced: %d tasks, as listd has them" % (app.name, len(full)))


def run_seed(binaries, seed, steps, only=None, trace=False, generator=None):
    run = Run(binaries, seed, steps, only, trace, generator or GENERATOR)
    try:
        run.execute()
        shutil.rmtree(run.directory, ignore_errors=True)  # a failed run's directory is kept, to look at
        return None, run
    except Violation as violation:
        return "step %d: %s (servers' logs in %s)" % (run.step, violation, run.directory), run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="the directory with listd, listd-web and listctl")
    seeded_runs.add_arguments(parser, "1,2,3", 200, os.path.join(os.path.dirname(__file__), "regressions"))
    options = parser.parse_args()
    seeded_runs.run_cases(options, lambda *case: run_seed(options.bin, *case), "app_writes", GENERATOR)


if __name__ == "__main__":
    main()
