#!/bin/sh
# Writes the order in which lld lays out listctl's functions (Sources/Products/listctl/
# listctl.order, named in Package.swift): every function a one-shot listctl runs, found by running
# it under callgrind against a real listd. A one-shot process pays a page fault for each 64 KiB of
# code it first touches; with the functions it runs together it touches fewer (figure 5,
# bench/README.md). Run by `make listctl-order` after changes to listctl's path. The linker passes
# over a name that is gone and lays out a function the file lacks as before: an old file costs
# speed, never correctness.
#
# Usage: bench/listctl-order.sh LISTD LISTCTL OUTPUT
set -eu
listd=$1 listctl=$2 output=$3
work=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
"$listd" --socket "$work/s.sock" --file "$work/lists.md" > "$work/listd.log" 2>&1 &
pid=$!
# listd answers once it is ready.
tries=0
until "$listctl" --socket "$work/s.sock" create Groceries milk eggs bread "2 l juice" > /dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || { cat "$work/listd.log" >&2; echo "listd did not answer" >&2; exit 1; }
    sleep 0.05
done
# The commands of the quick path (QuickCommand): a show, a confirmed add, a denied one, --json,
# lists.
run() {
    name=$1
    shift
    valgrind --tool=callgrind --demangle=no --compress-strings=no --callgrind-out-file="$work/cg.$name" \
        "$listctl" --socket "$work/s.sock" "$@" > /dev/null 2>&1 || true
}
run 1 show Groceries
run 2 add Groceries tea
run 3 add Groceries tea
run 4 show Groceries --json
run 5 lists
# Each function once, in the order first met; callgrind's marks of recursion ('2) and addresses
# without a name are not symbols.
cat "$work"/cg.1 "$work"/cg.2 "$work"/cg.3 "$work"/cg.4 "$work"/cg.5 | sed -n 's/^fn=//p' | sed "s/'[0-9]*\$//" |
    grep -v '^0x' | awk '!seen[$0]++' > "$output"
echo "$(wc -l < "$output") functions in $output"
