#!/usr/bin/env python3
"""Issue 64: real CalDAV clients from PyPI against the real listd-web and listd.

python-caldav replays Home Assistant's calls (discover, list, add, complete, rename, delete,
poll, sync by token); a delegate of listd's refuses an item (409 with its sentence); a stale
If-Match is 412; a duplicate is merged; a sync token past the history is 403 valid-sync-token;
a revoked app password is refused at once. Each step checks listd itself (its lists and history)
over its socket, not listd-web's word. Run with the Python that has the clients (make
dav-clients); prints one line per check and "N checks; 0 failures".
"""
import argparse
import base64
import json
import socket
import sys
import urllib.request
import urllib.error

import caldav

from listd_checks import Listd, check, delegate, eventually, summary

def raw(server, user, password, method, path, body=b"", headers=None):
    request = urllib.request.Request(server.rstrip("/") + path, data=body or None, method=method)
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    request.add_header("Authorization", "Basic " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--control", required=True)
    arguments = parser.parse_args()
    listd = Listd(arguments.socket)
    listd.call("createList", {"name": "Groceries", "items": ["milk", "eggs"], "quantities": {"milk": "2 l"}})
    listd.call("createList", {"name": "Hardware", "items": ["nails"]})

    # Home Assistant's setup: the principal, its calendars, those with VTODO.
    client = caldav.DAVClient(url=arguments.server, username=arguments.user, password=arguments.password)
    principal = client.principal()
    calendars = {calendar.get_display_name(): calendar for calendar in principal.calendars()}
    check(set(calendars) == {"Groceries", "Hardware"}, f"discovery finds each list as a calendar: {sorted(calendars)}")
    groceries = calendars["Groceries"]
    check(groceries.get_supported_components() == ["VTODO"], "a list's collection takes VTODO only")

    def todos():
        return {str(todo.icalendar_component["summary"]): todo for todo in groceries.todos(include_completed=True)}

    listed = todos()
    check(set(listed) == {"milk", "eggs"}, f"the items are tasks: {sorted(listed)}")
    check(str(listed["milk"].icalendar_component.get("description")) == "2 l", "an amount is the task's DESCRIPTION")
    token = groceries.objects_by_sync_token(load_objects=False).sync_token

    # Add, as Assist's "add bread to Groceries" does.
    groceries.save_todo(summary="bread", status="NEEDS-ACTION")
    now, ticked, _ = listd.lists()
    check(now == ["milk", "eggs", "bread"], f"a task added is an item in listd: {now}")
    last = listd.call("getHistory", {"list": "Groceries", "limit": 1})["changes"][-1]
    check(last["origin"].get("name") == arguments.device, f"listd names the tasks app as the change's author: {last['origin']}")

    # Complete.
    bread = todos()["bread"]
    bread.complete()
    _, ticked, _ = listd.lists()
    check(ticked == ["bread"], f"a task completed ticks the item: {ticked}")

    # Rename keeps the UID.
    milk = todos()["milk"]
    uid = str(milk.icalendar_component["uid"])
    milk.icalendar_component["summary"] = "oat milk"
    milk.save()
    now, _, quantities = listd.lists()
    check(now[0] == "oat milk" and quantities.get("oat milk") == "2 l", f"a SUMMARY changed replaces the item, amount kept: {now} {quantities}")
    check(str(todos()["oat milk"].icalendar_component["uid"]) == uid, "the renamed item keeps its UID")

    # Delete.
    todos()["eggs"].delete()
    now, _, _ = listd.lists()
    check("eggs" not in now, f"a task deleted removes the item: {now}")

    # Someone else's change, seen at the next poll and the next sync.
    listd.call("addItem", {"list": "Groceries", "item": "tea"})
    check(eventually(lambda: "tea" in todos()), "an item added elsewhere is a task at a next poll")
    changed = groceries.objects_by_sync_token(sync_token=token, load_objects=False)
    hrefs = [str(item.url) for item in changed]
    check(len(hrefs) >= 3, f"a sync by token reports what changed since, eggs' removal included: {len(hrefs)}")

    # A household rule refuses: 409 with listd's sentence, and nothing added.
    rule = delegate(arguments.socket, "beer")
    try:
        groceries.save_todo(summary="beer")
        check(False, "a refused task is refused")
    except caldav.lib.error.PutError as error:
        check("409" in str(error) and "no beer on the weekly shop" in str(error), f"a refused task is 409 with the rule's sentence: {error}")
    now, _, _ = listd.lists()
    check("beer" not in now, "the refused item is not on the list")
    rule.close()

    # A duplicate is merged: one tea, with the client's identity.
    groceries.save_todo(summary="Tea", uid="dup-tea-uid")
    now, _, _ = listd.lists()
    check([item.lower() for item in now].count("tea") == 1, f"a task for an item already there is merged: {now}")
    check(str(todos()["tea"].icalendar_component["uid"]) == "dup-tea-uid", "the merged item is known by the client's UID")

    # A stale If-Match is 412.
    tea = todos()["tea"]
    href = str(tea.url).split(arguments.server.rstrip("/"), 1)[-1]
    body = tea.data.replace("SUMMARY:tea", "SUMMARY:green tea").encode()
    status, _, _ = raw(arguments.server, arguments.user, arguments.password, "PUT", href, body, {"If-Match": '"1"', "Content-Type": "text/calendar"})
    check(status == 412, f"a PUT with a stale If-Match is 412: {status}")
    now, _, _ = listd.lists()
    check("green tea" not in now, "and changes nothing")

    # What listd does not model is kept: a DUE and a priority.
    status, _, headers = raw(
        arguments.server, arguments.user, arguments.password, "PUT", href,
        tea.data.replace("END:VTODO", "DUE:20261224T100000Z\r\nPRIORITY:1\r\nEND:VTODO").encode(),
        {"If-Match": tea.props.get("{DAV:}getetag", "") or "*", "Content-Type": "text/calendar"},
    )
    again = todos()["tea"].data
    check("DUE:20261224T100000Z" in again and "PRIORITY:1" in again, f"DUE and PRIORITY are sent back as written ({status})")

    # A token past the history kept (listd-web keeps 2 tombstones here) is 403 valid-sync-token.
    old = groceries.objects_by_sync_token(load_objects=False).sync_token
    for item in ["x1", "x2", "x3"]:
        listd.call("addItem", {"list": "Groceries", "item": item})
    for item in ["x1", "x2", "x3"]:
        listd.call("removeItem", {"list": "Groceries", "item": item})
    report = f'<d:sync-collection xmlns:d="DAV:"><d:sync-token>{old}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>'

    def sync_from_old():
        return raw(arguments.server, arguments.user, arguments.password, "REPORT", groceries.url.path, report.encode(), {"Depth": "1", "Content-Type": "application/xml"})

    # Once listd-web has the six changes (a moment after listd), the old token is past its history.
    eventually(lambda: sync_from_old()[0] == 403)
    status, text, _ = sync_from_old()
    check(status == 403 and "valid-sync-token" in text, f"a sync token past the history is 403 valid-sync-token: {status}")

    # XML with a DOCTYPE is never read.
    bomb = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop>&x;</d:prop></d:propfind>'
    status, text, _ = raw(arguments.server, arguments.user, arguments.password, "PROPFIND", "/caldav/", bomb, {"Depth": "0"})
    check(status == 400 and "root:" not in text, f"a body with a DOCTYPE is refused unread: {status}")

    # Revoked: refused at once.
    control = socket.socket(socket.AF_UNIX)
    control.connect(arguments.control)
    control.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "revoke", "params": {"device": arguments.user}}) + "\n").encode())
    control.makefile("rb").readline()
    status, _, _ = raw(arguments.server, arguments.user, arguments.password, "PROPFIND", "/caldav/lists/", b"", {"Depth": "0"})
    check(status == 401, f"a revoked app password is refused at once: {status}")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
