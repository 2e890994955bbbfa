#!/bin/bash
# End to end under a real systemd: boots Debian in a container (systemd-nspawn), installs the
# package `make deb` built (dpkg -i), and shows: the manual pages and the completions where man
# and the shells look, listd started by its socket on the first client (listctl inside the
# container), an edit confirmed, its journal entry, a restart by the watchdog when listd is
# frozen with SIGSTOP, the hardening in force, a clean stop, the lists kept across it; then
# purges the package and finds nothing left of it but the state directory and the group.
#
# Usage: nspawn-e2e.sh PACKAGE.deb, or nspawn-e2e.sh --root-only (make the container's root and
# stop: make test does it while the tests run). Needs root, systemd-nspawn and debootstrap (make
# test installs them). The container's root is kept outside the repository, in $LISTD_E2E_ROOT,
# and reused by later runs.
set -euo pipefail

ROOT=${LISTD_E2E_ROOT:-/var/tmp/listd-nspawn-root}
NAME=listd-e2e-$$
ROOT_ONLY=
if [ "${1:-}" = --root-only ]; then ROOT_ONLY=1; else DEB=$(realpath "${1:?usage: nspawn-e2e.sh PACKAGE.deb | --root-only}"); fi
NSPAWN_PID=
CONTAINER_PID=
failures=0

say() { printf '\n== %s\n' "$*"; }
pass() { printf '   ok: %s\n' "$*"; }
fail() { printf '   FAILED: %s\n' "$*"; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

inside() {
    nsenter -t "$CONTAINER_PID" -m -u -i -n -p -C --wd=/ -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

cleanup() {
    set +e
    if [ -n "$CONTAINER_PID" ] && [ -d "/proc/$CONTAINER_PID" ]; then
        inside systemctl --no-block poweroff >/dev/null 2>&1
        for _ in $(seq 1 100); do [ -d "/proc/$NSPAWN_PID" ] || break; sleep 0.1; done
    fi
    if [ -n "$NSPAWN_PID" ] && [ -d "/proc/$NSPAWN_PID" ]; then
        kill -TERM "$NSPAWN_PID"
        wait "$NSPAWN_PID" 2>/dev/null
    fi
    for hierarchy in systemd unified; do
        if [ -d "/sys/fs/cgroup/$hierarchy/$NAME" ]; then
            find "/sys/fs/cgroup/$hierarchy/$NAME" -depth -type d -exec rmdir {} + 2>/dev/null
        fi
    done
}
trap cleanup EXIT

say "container root in $ROOT"
if [ ! -f "$ROOT/.listd-ready" ]; then
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    mirror=${mirror:-http://deb.debian.org/debian}
    rm -rf "$ROOT"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$ROOT" "$mirror" >/tmp/listd-debootstrap.log 2>&1 \
        || { tail -20 /tmp/listd-debootstrap.log; exit 1; }
    touch "$ROOT/.listd-ready"
fi
[ -z "$ROOT_ONLY" ] || exit 0

say "the package into the container's root"
# What earlier runs installed with make install (under /usr/local) goes first.
rm -rf "$ROOT"/usr/local/bin/listd "$ROOT"/usr/local/bin/listctl "$ROOT"/usr/local/lib/systemd/system/listd.* \
    "$ROOT"/usr/local/bin/listd-web "$ROOT"/usr/local/lib/sysusers.d/listd.conf "$ROOT"/usr/local/share/doc/listd \
    "$ROOT"/etc/systemd/system/*.wants/listd.*
find "$ROOT/etc/systemd/system" -maxdepth 1 -name '*.wants' -type d -empty -delete
cp "$DEB" "$ROOT/var/tmp/listd.deb"
# A short watchdog, so that the freeze below is noticed within the test.
mkdir -p "$ROOT/etc/systemd/system/listd.service.d"
printf '[Service]\nWatchdogSec=2s\n' > "$ROOT/etc/systemd/system/listd.service.d/e2e.conf"
# A user's systemd (user@.service) as logind would start it: the container has no pam_systemd
# to set its runtime directory.
mkdir -p "$ROOT/etc/systemd/system/user@.service.d"
printf '[Service]\nEnvironment=XDG_RUNTIME_DIR=/run/user/%%i\n' > "$ROOT/etc/systemd/system/user@.service.d/e2e.conf"
rm -rf "$ROOT/var/lib/private/listd" "$ROOT/var/lib/listd" "$ROOT/var/lib/private/listd-web" "$ROOT/var/lib/listd-web"

say "boot"
for hierarchy in systemd unified; do mkdir -p "/sys/fs/cgroup/$hierarchy/$NAME"; done
(
    echo "$BASHPID" > "/sys/fs/cgroup/systemd/$NAME/cgroup.procs"
    echo "$BASHPID" > "/sys/fs/cgroup/unified/$NAME/cgroup.procs"
    exec systemd-nspawn -D "$ROOT" --boot --register=no --keep-unit --private-network \
        --link-journal=no --console=read-only --machine="$NAME" >/tmp/listd-e2e-console.log 2>&1
) &
NSPAWN_PID=$!
# The container's init: nspawn's child once it runs systemd (nspawn forks short-lived helpers
# first; taking one of those for the container fails every later check).
for _ in $(seq 1 100); do
    for child in $(cat /proc/$NSPAWN_PID/task/*/children 2>/dev/null); do
        [ "$(cat /proc/$child/comm 2>/dev/null)" = systemd ] && CONTAINER_PID=$child
    done
    [ -n "$CONTAINER_PID" ] && break
    sleep 0.1
done
[ -n "$CONTAINER_PID" ] || { cat /tmp/listd-e2e-console.log; echo "the container did not start"; exit 1; }
state=
for _ in $(seq 1 100); do
    state=$(inside systemctl is-system-running 2>/dev/null || true)
    case $state in running|degraded) break;; esac
    sleep 0.1
done
check "systemd is up ($state)" test "$state" = running -o "$state" = degraded

# Every file in the container but the kernel's, the runtime's, logs and package databases.
files() {
    inside find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp \
        -o -path /var/log -o -path /var/cache -o -path /var/lib/dpkg -o -path /var/lib/apt \
        -o -path /var/lib/systemd \) -prune -o -print | sort
}

say "install the package"
inside dpkg --purge listd >/dev/null 2>&1 || true  # left by an interrupted run
inside userdel --remove e2e-user >/dev/null 2>&1 || true  # left by an interrupted run
files > /tmp/listd-e2e-files-before
check "dpkg -i installs it" inside dpkg -i /var/tmp/listd.deb
enabled=$(inside systemctl is-enabled listd.socket listd.service 2>&1 | tr '\n' ' ' || true)
check "… and enables nothing: $enabled" test "$enabled" = "disabled static "
check "the group listd exists" inside getent group listd

say "manual pages and completions where man and the shells look"
MAN=$ROOT/usr/share/man
check "listctl(1) from the argument-parser definitions" bash -c "zcat '$MAN/man1/listctl.1.gz' | grep -q '^.Dt LISTCTL 1'"
check "… that names every command" bash -c "zcat '$MAN/man1/listctl.1.gz' | grep -q '^.It Em delegate'"
check "listd(8)" bash -c "zcat '$MAN/man8/listd.8.gz' | grep -q '^.Dt LISTD 8'"
check "listd(5), the list file and the socket" bash -c "zcat '$MAN/man5/listd.5.gz' | grep -q '^.Sh FILES'"
check "man renders listctl(1)" bash -c "MANWIDTH=80 man -l '$MAN/man1/listctl.1.gz' 2>/dev/null | grep -q 'Read and edit the shopping lists'"
for section in ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	check "… with its $section" bash -c "MANWIDTH=80 man -l '$MAN/man1/listctl.1.gz' 2>/dev/null | grep -q '^$section'"
done
check "… and not the boilerplate one" bash -c "! zcat '$MAN/man1/listctl.1.gz' | grep -q '^.Ex'"
check "… whose EXIT STATUS is listctl's (0 to 4, not boilerplate)" bash -c "MANWIDTH=80 man -l '$MAN/man1/listctl.1.gz' 2>/dev/null | grep -q 'listd cannot be reached'"
check "listd-web(8), whose synopsis is its own (no subcommand)" bash -c "MANWIDTH=80 man -l '$MAN/man8/listd-web.8.gz' 2>/dev/null | grep -A2 '^SYNOPSIS' | grep -q 'listd-web \[--socket' && ! MANWIDTH=80 man -l '$MAN/man8/listd-web.8.gz' 2>/dev/null | grep -q subcommand"
for page in man1/listctl.1 man5/listd.5 man8/listd.8 man8/listd-web.8; do
	warnings=$(MANWIDTH=80 man --warnings -l "$MAN/$page.gz" 2>&1 >/dev/null)
	check "$page renders without a warning${warnings:+: $warnings}" test -z "$warnings"
done
check "web.md with its pictures of the page" bash -c "test -s '$ROOT/usr/share/doc/listd/web.md' && test -s '$ROOT/usr/share/doc/listd/images/web-light.png'"
check "bash: /usr/share/bash-completion/completions/listctl" test -s "$ROOT/usr/share/bash-completion/completions/listctl"
check "zsh: /usr/share/zsh/vendor-completions/_listctl" grep -q '^#compdef listctl' "$ROOT/usr/share/zsh/vendor-completions/_listctl"
check "fish: /usr/share/fish/vendor_completions.d/listctl.fish" grep -q "^complete -c 'listctl'" "$ROOT/usr/share/fish/vendor_completions.d/listctl.fish"

say "enable the socket"
inside systemctl enable --now listd.socket >/dev/null 2>&1
SOCKET=/proc/$CONTAINER_PID/root/run/listd/listd.sock
check "the socket listens" test -S "$SOCKET"
check "listd is not running before a client comes" test "$(inside systemctl is-active listd.service || true)" = inactive
check "the socket is root:listd 0660" test "$(inside stat -c '%U:%G %a' /run/listd/listd.sock)" = "root:listd 660"
# A member of the group, not root: through the directory systemd made, to the socket.
inside useradd --no-create-home --groups listd e2e-member >/dev/null 2>&1 || true
out=$(inside setpriv --reuid e2e-member --regid e2e-member --init-groups listctl lists --socket /run/listd/listd.sock 2>&1 || true)
check "a member of the group listd may use the lists: ${out:-nothing}" test -n "$out" -a "${out#listctl:}" = "$out"
inside userdel e2e-member >/dev/null 2>&1 || true

say "first client"
listctl() { inside listctl "$@" --socket /run/listd/listd.sock; }
out=$(listctl create Groceries milk eggs 2>&1) || true
check "the edit is confirmed: $out" test "$out" = "Created Groceries (id 1) with 2 items."
check "listd was started by the socket" test "$(inside systemctl is-active listd.service)" = active
if [ "$failures" -ne 0 ]; then
    say "listd's journal"
    inside journalctl -u listd.service --no-pager | tail -40
    exit 1
fi
out=$(listctl add Groceries MILK 2>&1 || true)
check "a duplicate is denied: $out" test "$out" = "listctl: denied: “milk” is already on Groceries."

say "a member of the household, with plain listctl"
# Issue 50: no --socket, no LISTD_SOCKET, no listd of their own: the household's lists.
inside useradd --no-create-home --groups listd e2e-household >/dev/null 2>&1 || true
inside useradd --no-create-home e2e-guest >/dev/null 2>&1 || true
as_member() { inside setpriv --reuid e2e-household --regid e2e-household --init-groups "$@"; }
out=$(as_member listctl lists 2>&1 || true)
check "plain listctl lists as a member shows the household's lists: ${out:-nothing}" bash -c 'case "$1" in *Groceries*) exit 0;; esac; exit 1' _ "$out"
out=$(as_member bash -c 'source /usr/share/bash-completion/completions/listctl
    COMP_LINE="listctl show Gro"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(listctl show Gro); COMP_CWORD=2
    _listctl listctl Gro show; IFS="|"; echo "${COMPREPLY[*]}"' 2>/dev/null || true)
check "listctl show Gro<Tab> as a member completes the list: $out" test "$out" = Groceries
out=$(as_member listctl web pair "Phone" 2>&1 || true)
check "a member asking to pair is pointed at root and the system listd-web: ${out:-nothing}" bash -c 'case "$1" in *"sudo listctl web pair"*"/run/listd-web/control.sock"*) exit 0;; esac; exit 1' _ "$out"
out=$(inside setpriv --reuid e2e-guest --regid e2e-guest --init-groups listctl lists 2>&1 || true)
check "a user not in the group is told which listd and how to join: ${out:-nothing}" bash -c 'case "$1" in *"/run/listd/listd.sock"*"usermod -aG listd"*) exit 0;; esac; exit 1' _ "$out"
inside userdel e2e-household >/dev/null 2>&1 || true
inside userdel e2e-guest >/dev/null 2>&1 || true

say "reload"
check "systemctl reload listd succeeds" inside systemctl reload listd.service
check "… and listd re-read its file" bash -c "nsenter -t $CONTAINER_PID -m -u -i -n -p -C --wd=/ -- env -i PATH=/usr/bin:/bin journalctl -u listd.service --no-pager | grep -q 'SIGHUP: re-reading the list file'"

say "journal"
entries=""
for _ in $(seq 1 50); do
    entries=$(inside journalctl -u listd.service -o json --no-pager LIST_NAME=Groceries 2>/dev/null || true)
    echo "$entries" | grep -q '"REASON":"itemExists"' && break
    sleep 0.1
done
check "journalctl -u listd has the create" grep -q '"MESSAGE":"created list “Groceries”' <<<"$entries"
check "… with structured fields" grep -q '"ORIGIN":"client"' <<<"$entries"
check "… and the denial with its reason" grep -q '"REASON":"itemExists"' <<<"$entries"

say "hardening in force"
# MainPID is a pid in the container's namespace: read its /proc from inside.
MAIN=$(inside systemctl show -p MainPID --value listd.service)
status=$(inside cat "/proc/$MAIN/status")
check "runs as a dynamic user, not root" test "$(awk '/^Uid:/ {print $2}' <<<"$status")" != 0
check "no capabilities" grep -q '^CapEff:[[:space:]]*0000000000000000' <<<"$status"
check "no new privileges" grep -q '^NoNewPrivs:[[:space:]]*1' <<<"$status"
check "a system call filter" grep -q '^Seccomp:[[:space:]]*2' <<<"$status"
check "no network but loopback" test "$(inside cat /proc/$MAIN/net/dev | tail -n +3 | awk -F: '{gsub(/ /, "", $1); print $1}' | tr '\n' ' ')" = "lo "
check "the list file is in the state directory" test -f "$ROOT/var/lib/private/listd/lists.md"

say "watchdog"
restarts=$(inside systemctl show -p NRestarts --value listd.service)
inside systemctl kill --kill-whom=main --signal=SIGSTOP listd.service
new=$MAIN
for _ in $(seq 1 150); do
    new=$(inside systemctl show -p MainPID --value listd.service)
    if [ "$new" != "$MAIN" ] && [ "$new" != 0 ]; then break; fi
    sleep 0.1
done
check "a frozen listd is restarted by the watchdog" test "$new" != "$MAIN" -a "$new" != 0
check "… counted as a restart" test "$(inside systemctl show -p NRestarts --value listd.service)" -gt "$restarts"
check "… with result watchdog in the journal" bash -c "nsenter -t $CONTAINER_PID -m -u -i -n -p -C --wd=/ -- env -i PATH=/usr/bin:/bin journalctl -u listd.service --no-pager | grep -q 'Watchdog timeout'"
out=$(listctl show Groceries 2>&1 | tail -n +2 | tr -d ' ' | tr '\n' ' ')
check "the lists survived the restart: $out" test "$out" = "-[]milk -[]eggs "

say "clean stop"
inside systemctl stop listd.service
check "stopped with result success" test "$(inside systemctl show -p Result --value listd.service)" = success
check "exit status 0" test "$(inside systemctl show -p ExecMainStatus --value listd.service)" = 0
out=$(listctl show Groceries 2>&1 | tail -n +2 | tr -d ' ' | tr '\n' ' ')
check "started again by the socket, with the lists kept: $out" test "$out" = "-[]milk -[]eggs "

# Issue 50: listd starts no libdispatch worker pool, whose threads each logged "Failed to set
# thread priority" (refused under the unit's sandbox) at every stop.
noise=$(inside journalctl -b -u listd.service --no-pager 2>/dev/null | grep -c "thread priority" || true)
check "no thread-priority noise from listd: $noise line(s)" test "$noise" = 0

say "listd-web, the system unit"
check "listd-web is not enabled by the installation" test "$(inside systemctl is-enabled listd-web.service 2>&1 || true)" = disabled
inside systemctl start listd-web.service
for _ in $(seq 1 100); do
    inside test -S /run/listd-web/control.sock && break
    sleep 0.1
done
check "listd-web runs" test "$(inside systemctl is-active listd-web.service)" = active
WEB_MAIN=$(inside systemctl show -p MainPID --value listd-web.service)
web_status=$(inside cat /proc/$WEB_MAIN/status)
listd_gid=$(inside getent group listd | cut -d: -f3)
check "… as a user of its own (not root), with the group listd" bash -c "grep -q '^Uid:[[:space:]]*[1-9]' <<<'$web_status' && grep -Eq '^Gid:[[:space:]]+$listd_gid[[:space:]]' <<<'$web_status'"
pairing=$(inside listctl web pair "e2e phone" --control-socket /run/listd-web/control.sock --json 2>&1 || true)
link=$(sed -n 's/.*"link":"\([^"]*\)".*/\1/p' <<<"$pairing")
check "listctl web pair prints a one-time link: ${link:-$pairing}" test -n "$link"
# The phone, in the container's network: the link's code, sent as the pairing page sends it.
web() { nsenter -t "$CONTAINER_PID" -n -- curl -s --max-time 10 "$@"; }
reply=$(web -i -X POST -H "Origin: http://127.0.0.1:8733" -H "Content-Type: application/json" \
    --data "{\"code\":\"${link#*#}\"}" http://127.0.0.1:8733/pair | tr -d '\r' || true)
token=$(sed -n 's/.*"token":"\([^"]*\)".*/\1/p' <<<"$reply")
check "… which pairs the device (the page is given its token)" test -n "$token"
check "… and the page knows it: $(web -H "Authorization: Bearer $token" http://127.0.0.1:8733/whoami)" \
    bash -c "nsenter -t $CONTAINER_PID -n -- curl -s -H 'Authorization: Bearer $token' http://127.0.0.1:8733/whoami | grep -q '\"device\":\"e2e phone\"'"
out=$(nsenter -t "$CONTAINER_PID" -n -- python3 "$(dirname "$0")/page-call.py" 8733 "$token" getList '{"list":"Groceries"}' 2>&1 || true)
check "… and its live connection reaches listd (allowed by --allow-group): $out" grep -q '"name": *"Groceries"' <<<"$out"
check "without the token, 401" test "$(web -o /dev/null -w '%{http_code}' http://127.0.0.1:8733/whoami)" = 401
check "the device is kept in the state directory, as a hash" bash -c "grep -q 'e2e phone' '$ROOT/var/lib/private/listd-web/devices.json' && ! grep -q '$token' '$ROOT/var/lib/private/listd-web/devices.json'"
noise=$(inside journalctl -b -u listd-web.service --no-pager 2>/dev/null | grep -c "thread priority" || true)
check "no thread-priority noise from listd-web: $noise line(s)" test "$noise" = 0

say "an upgrade restarts what runs"
# Issue 50: the package installed over itself with listd and listd-web running.
listctl lists >/dev/null 2>&1 || true  # wakes listd
listd_before=$(inside systemctl show -p MainPID --value listd.service)
web_before=$(inside systemctl show -p MainPID --value listd-web.service)
check "dpkg -i over the running services" inside dpkg -i /var/tmp/listd.deb
listd_after=$(inside systemctl show -p MainPID --value listd.service)
web_after=$(inside systemctl show -p MainPID --value listd-web.service)
check "listd restarted: $listd_before → $listd_after" test "$listd_after" != "$listd_before" -a "$listd_after" != 0
check "listd-web restarted: $web_before → $web_after" test "$web_after" != "$web_before" -a "$web_after" != 0
exes="$(inside readlink /proc/$listd_after/exe 2>&1) $(inside readlink /proc/$web_after/exe 2>&1)"
check "… on the installed executables: $exes" test "$exes" = "/usr/bin/listd /usr/bin/listd-web"
inside systemctl stop listd.service
check "dpkg -i with listd idle on its socket" inside dpkg -i /var/tmp/listd.deb
check "… leaves it idle" test "$(inside systemctl is-active listd.service || true)" = inactive

inside systemctl stop listd-web.service
check "listd-web stops cleanly" test "$(inside systemctl show -p Result --value listd-web.service)" = success

say "the user units, under a user's own systemd"
# Issue 61: the user units' hardening, applied by a user's service manager (user@.service, as
# logind starts it at login) with no privilege of its own.
inside useradd --create-home --shell /bin/bash e2e-user >/dev/null 2>&1 || true
user_id=$(inside id -u e2e-user)
inside systemctl start "user@$user_id.service" || inside journalctl -b --no-pager -u "user@$user_id.service" | tail -20
as_user() { inside runuser -u e2e-user -- env "XDG_RUNTIME_DIR=/run/user/$user_id" HOME=/home/e2e-user "$@"; }
check "the user's systemd runs" test "$(inside systemctl is-active "user@$user_id.service")" = active
as_user systemctl --user start listd.socket
out=$(as_user listctl create Pantry rice 2>&1 || true)
check "the user's listd, started by its socket, confirms an edit: $out" grep -q "Created Pantry" <<<"$out"
grep -q "Created Pantry" <<<"$out" || inside journalctl -b --no-pager "_UID=$user_id" | tail -30
USER_MAIN=$(as_user systemctl --user show -p MainPID --value listd.service)
user_status=$(inside cat "/proc/$USER_MAIN/status" 2>&1 || true)
check "… as the user" grep -Eq "^Uid:[[:space:]]+$user_id[[:space:]]" <<<"$user_status"
check "… with no new privileges" grep -q '^NoNewPrivs:[[:space:]]*1' <<<"$user_status"
check "… a system call filter" grep -q '^Seccomp:[[:space:]]*2' <<<"$user_status"
check "… and its own mount namespace (PrivateTmp, ProtectSystem)" test "$(inside readlink /proc/$USER_MAIN/ns/mnt)" != "$(inside readlink /proc/1/ns/mnt)"
check "… and keeps its lists in the home directory" test -f "$ROOT/home/e2e-user/.local/share/listd/lists.md"
as_user sed -i 's/rice/rice and beans/' /home/e2e-user/.local/share/listd/lists.md
out=
for _ in $(seq 1 100); do
    out=$(as_user listctl show Pantry 2>&1 || true)
    grep -q "rice and beans" <<<"$out" && break
    sleep 0.1
done
check "… and takes in the user's edit of the list file (sed -i): $(tr '\n' ' ' <<<"$out")" grep -q "rice and beans" <<<"$out"
as_user systemctl --user start listd-web.service
for _ in $(seq 1 100); do
    inside test -S "/run/user/$user_id/listd-web/control.sock" && break
    sleep 0.1
done
check "the user's listd-web runs" test "$(as_user systemctl --user is-active listd-web.service)" = active
as_user systemctl --user is-active --quiet listd-web.service || inside journalctl -b --no-pager "_UID=$user_id" | grep -i web | tail -20
pairing=$(as_user listctl web pair "user phone" --json 2>&1 || true)
link=$(sed -n 's/.*"link":"\([^"]*\)".*/\1/p' <<<"$pairing")
reply=$(web -X POST -H "Origin: http://127.0.0.1:8733" -H "Content-Type: application/json" \
    --data "{\"code\":\"${link#*#}\"}" http://127.0.0.1:8733/pair || true)
token=$(sed -n 's/.*"token":"\([^"]*\)".*/\1/p' <<<"$reply")
check "… pairs a device from the user's listctl" test -n "$token"
check "… and keeps it in the user's state directory: $(cd "$ROOT/home/e2e-user" && find . -name devices.json)" test -f "$ROOT/home/e2e-user/.local/state/listd-web/devices.json"
out=$(nsenter -t "$CONTAINER_PID" -n -- python3 "$(dirname "$0")/page-call.py" 8733 "$token" getList '{"list":"Pantry"}' 2>&1 || true)
check "… whose page reaches the user's listd: $out" grep -q '"name": *"Pantry"' <<<"$out"
for unit in listd listd-web; do
    score=$(as_user systemd-analyze --user security "$unit.service" 2>&1 | sed -n 's/.*exposure level for .*: \([0-9.]*\).*/\1/p')
    check "systemd-analyze --user security $unit.service: ${score:-?} (at most 5.0)" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 5.0) }'
done
noise=$(inside journalctl -b --no-pager "_UID=$user_id" 2>/dev/null | grep -c "thread priority" || true)
check "no thread-priority noise from the user's listd and listd-web: $noise line(s)" test "$noise" = 0
# Issue 63: a household's rule kept running by listd-rule@NAME, across a restart of listd.
as_user mkdir -p /home/e2e-user/.config/listd/rules
as_user sh -c 'printf "#!/bin/sh\ngrep -qi cake && { echo no sweets; exit 1; }\nexit 0\n" > ~/.config/listd/rules/no-sweets && chmod +x ~/.config/listd/rules/no-sweets'
as_user systemctl --user start listd-rule@no-sweets.service
rule_says() { inside journalctl -b --no-pager "_UID=$user_id" 2>/dev/null | grep -c "$1" || true; }
for _ in $(seq 1 100); do [ "$(rule_says 'Registered as delegate “no-sweets”')" -ge 1 ] && break; sleep 0.1; done
out=$(as_user listctl add Pantry "birthday cake" 2>&1 || true)
check "listd-rule@no-sweets refuses a cake: $out" grep -q "no sweets" <<<"$out"
as_user systemctl --user restart listd.service
for _ in $(seq 1 100); do [ "$(rule_says 'registered again as delegate “no-sweets”')" -ge 1 ] && break; sleep 0.1; done
out=$(as_user listctl add Pantry "chocolate cake" 2>&1 || true)
check "… and again once listd restarted (it registered again): $out" grep -q "no sweets" <<<"$out"
as_user systemctl --user kill --signal=SIGKILL listd-rule@no-sweets.service
for _ in $(seq 1 50); do [ "$(rule_says 'Registered as delegate “no-sweets”')" -ge 2 ] && break; sleep 0.1; done
out=$(as_user listctl add Pantry "cheesecake" 2>&1 || true)
check "… and once it was killed (restarted by its unit): $out" grep -q "no sweets" <<<"$out"
as_user systemctl --user stop listd-rule@no-sweets.service
as_user systemctl --user stop listd-web.service listd.service listd.socket
inside systemctl stop "user@$user_id.service"
inside userdel --remove e2e-user >/dev/null 2>&1 || true

say "completion from the running listd, in the container's bash"
# What bash-completion does on Tab: the script sourced, COMP_* set, _listctl asked.
complete_line() {
    inside bash -c 'source /usr/share/bash-completion/completions/listctl
        COMP_LINE=$1; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<"$COMP_LINE"
        [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _listctl listctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        IFS="|"; echo "${COMPREPLY[*]}"' bash "$1"
}
out=$(complete_line "listctl show --socket /run/listd/listd.sock Gro" 2>/dev/null)
check "listctl show Gro<Tab> completes the list: $out" test "$out" = Groceries
out=$(complete_line "listctl remove --socket /run/listd/listd.sock Groceries " 2>/dev/null)
check "listctl remove Groceries <Tab> offers its items: $out" test "$out" = "milk|eggs"

say "purge"
inside systemctl enable listd.socket >/dev/null 2>&1
inside useradd --no-create-home --groups listd e2e-keeper >/dev/null 2>&1 || inside usermod -aG listd e2e-keeper
check "dpkg --purge removes it" inside dpkg --purge listd
check "… stopping listd" test "$(inside systemctl is-active listd.service listd.socket | sort -u | tr '\n' ' ')" = "inactive "
check "… and its socket" test ! -e "$SOCKET"
check "… keeping the group listd, its GID and its members: $(inside getent group listd)" bash -c 'case "$1" in "listd:x:$2:"*e2e-keeper*) exit 0;; esac; exit 1' _ "$(inside getent group listd)" "$listd_gid"
inside userdel e2e-keeper >/dev/null 2>&1 || true
files > /tmp/listd-e2e-files-after
left=$(comm -13 /tmp/listd-e2e-files-before /tmp/listd-e2e-files-after | grep -v -e '^/var/lib/private' -e '^/var/lib/listd$' -e '^/var/lib/listd-web$' -e '^/etc/\(passwd\|group\|shadow\|gshadow\|subuid\|subgid\)-$' | tr '\n' ' ' || true)
check "nothing is left but the state directory: ${left:-nothing}" test -z "$left"
check "… which keeps the lists" test -f "$ROOT/var/lib/private/listd/lists.md"
gone=$(comm -23 /tmp/listd-e2e-files-before /tmp/listd-e2e-files-after | tr '\n' ' ')
check "… and nothing that was there before is gone: ${gone:-nothing}" test -z "$gone"

if [ "$failures" -ne 0 ]; then
    say "$failures check(s) failed"
    exit 1
fi
say "all checks passed"
