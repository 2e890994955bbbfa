#!/usr/bin/env python3
"""Issue 64: caldav-server-tester's feature check against the real listd-web, as a profile.

Runs the tester's checks that bear on a task-list server (its event fixtures are refused here:
a list's collection takes VTODO only, so what needs them is "unknown"), one check per run (the
whole run stops at an event check's assertion), merges what each observed into one profile of
features, and compares it with the profile kept in the repository (Tests/CalDAV/compliance-profile.json):
any feature that changed is printed, and the run fails. `--write` keeps the new profile instead.
"""
import argparse
import json
import subprocess
import sys

CHECKS = [
    "CheckGetCurrentUserPrincipal", "CheckCalendarProperties", "CheckSupportedComponentSet", "CheckPutEtag",
    "CheckIfMatchOptional", "CheckNonExistingResource", "CheckSyncToken", "CheckIsNotDefined", "CheckSubstringSearch",
    "CheckCaseSensitiveSearch", "CheckNoUidConflict", "CheckDuplicateUID", "CheckPropfindAllprop",
    "CheckTodoNoDtstartSearch", "CheckMutable", "CheckSearch",
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tester", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--calendar", required=True)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--write", action="store_true")
    arguments = parser.parse_args()
    observed = {}
    for check in CHECKS:
        run = subprocess.run(
            [arguments.tester, "--caldav-url", arguments.url, f"--caldav-username={arguments.user}",
             f"--caldav-password={arguments.password}", "--caldav-calendar", arguments.calendar,
             "--run-checks", check, "--format", "json"],
            capture_output=True, text=True, timeout=300,
        )
        if run.returncode != 0:
            print(f"FAIL {check} did not run: {run.stderr[-2000:]}")
            return 1
        features = json.loads(run.stdout).get("features", {})
        for name, value in features.items():
            # A feature no check of this run probed says nothing: the one that did counts.
            if value.get("support") == "unknown" and name in observed:
                continue
            observed[name] = value
    profile = {name: observed[name] for name in sorted(observed)}
    if arguments.write:
        with open(arguments.profile, "w") as out:
            json.dump(profile, out, indent=2, ensure_ascii=False, sort_keys=True)
            out.write("\n")
        print(f"kept {len(profile)} features in {arguments.profile}")
        return 0
    with open(arguments.profile) as kept_file:
        kept = json.load(kept_file)
    changed = sorted(name for name in set(kept) | set(profile) if kept.get(name) != profile.get(name))
    for name in changed:
        print(f"CHANGED {name}: kept {json.dumps(kept.get(name))}, now {json.dumps(profile.get(name))}")
    supported = sorted(name for name, value in profile.items() if value.get("support") == "full")
    print(f"{len(profile)} features, {len(supported)} full; {len(changed)} changed from the kept profile")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
