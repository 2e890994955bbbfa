# listd — two commands do everything on a fresh Debian machine:
#   make run    install what is missing, build, start listd on its defaults
#   make test   install what is missing, build, run every test

SWIFT ?= swift
# System packages the build and the tests need (Debian names): libsystemd to build; vim to edit
# the list file in tests; systemd (journald, systemd-analyze, systemd-socket-activate),
# systemd-container and debootstrap to test the units for real; fuse3, libfuse3-dev and a C
# compiler for the power-cut file system PowerLossTests mounts (Tests/PowerCutFS).
APT_PACKAGES := libsystemd-dev pkg-config vim systemd systemd-container debootstrap fuse3 libfuse3-dev gcc

# make install PREFIX=… DESTDIR=… UNITS=user|system
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DOCDIR ?= $(PREFIX)/share/doc/listd
UNITS ?= user
USER_UNITDIR ?= $(PREFIX)/lib/systemd/user
SYSTEM_UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
RELEASE_BIN := .build/release
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
DEBUG_BIN := .build/debug

# make fuzz: each libFuzzer target runs this long (seconds); crashes land in .build-fuzz/artifacts.
FUZZ_SECONDS ?= 30
FUZZERS := FuzzRPCLine FuzzListFile

# make bench: the C baselines are built with the C compiler that comes with Swift (or any cc).
BENCH_CC ?= $(shell command -v clang || command -v gcc || echo cc)

.PHONY: all deps build run test e2e fuzz fuzz-merge bench clean release install uninstall

all: build

# Installs only what is missing, so a second run costs nothing.
deps:
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6.2 or later is needed: https://www.swift.org/install/linux/"; exit 1; }
	@missing=""; \
	for package in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# Serves in the foreground; Ctrl-C stops it cleanly. In another terminal:
#   .build/debug/listctl create Groceries milk eggs
run: build
	$(DEBUG_BIN)/listd

test: deps
	$(SWIFT) test
	$(MAKE) --no-print-directory fuzz
	$(MAKE) --no-print-directory e2e

# libFuzzer on the request-line decoder and the list-file parser, for a bounded time each. New
# inputs go to a scratch corpus; the kept corpus and past crashes (Tests/Fuzz) are read first. A
# crash's input is copied into Tests/Fuzz/regressions at once, so it is kept with the fix.
# Without Swift's backtracer, libFuzzer itself catches a crash and writes its input out.
fuzz: deps
	@for fuzzer in $(FUZZERS); do \
		$(SWIFT) build --product $$fuzzer --sanitize=fuzzer --scratch-path .build-fuzz || exit 1; \
	done
	@mkdir -p .build-fuzz/artifacts
	@for fuzzer in $(FUZZERS); do \
		scratch=.build-fuzz/corpus/$$fuzzer; mkdir -p $$scratch; \
		echo "fuzzing $$fuzzer for $(FUZZ_SECONDS) s"; \
		SWIFT_BACKTRACE=enable=no .build-fuzz/debug/$$fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -print_final_stats=1 \
			-artifact_prefix=.build-fuzz/artifacts/$$fuzzer- $$scratch Tests/Fuzz/corpus/$$fuzzer Tests/Fuzz/regressions/$$fuzzer \
			> .build-fuzz/$$fuzzer.log 2>&1 \
			|| { tail -40 .build-fuzz/$$fuzzer.log; \
				cp .build-fuzz/artifacts/$$fuzzer-* Tests/Fuzz/regressions/$$fuzzer/ 2>/dev/null; \
				echo "$$fuzzer found a crash; its input is kept in Tests/Fuzz/regressions/$$fuzzer (swift test replays it): fix it, commit both"; exit 1; }; \
		grep -E "^stat::number_of_executed_units" .build-fuzz/$$fuzzer.log | sed "s/^/  $$fuzzer /"; \
	done

# Folds the scratch corpus of past `make fuzz` runs into Tests/Fuzz/corpus: only the inputs that
# reach code the kept ones do not (libFuzzer's -merge=1), so the kept corpus stays minimal.
fuzz-merge:
	@for fuzzer in $(FUZZERS); do \
		SWIFT_BACKTRACE=enable=no .build-fuzz/debug/$$fuzzer -merge=1 -max_len=65536 \
			Tests/Fuzz/corpus/$$fuzzer .build-fuzz/corpus/$$fuzzer > .build-fuzz/$$fuzzer-merge.log 2>&1 \
			|| { tail -20 .build-fuzz/$$fuzzer-merge.log; exit 1; }; \
		echo "$$fuzzer: $$(ls Tests/Fuzz/corpus/$$fuzzer | wc -l) inputs kept"; \
	done

# A real systemd booted in a container: socket activation, journal, watchdog, hardening.
e2e: deps
	$(SWIFT) build --product listctl
	$(SUDO) Tests/e2e/nspawn-e2e.sh

# listd next to plain-C baselines (bench/c), release builds, in one run of a few minutes: prints
# the table and writes bench/results/latest.json (bench/README.md says how to read it).
# make bench measures Redis beside listd, on the same work with the same client (issue 14), and
# the binaries as make install ships them (the Swift runtime linked in).
BENCH_APT_PACKAGES := redis-server

bench: deps
	@command -v redis-server >/dev/null || { echo "Installing system packages: $(BENCH_APT_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_APT_PACKAGES); }
	@for product in listd listctl listd-bench; do $(SWIFT) build -c release --static-swift-stdlib --product $$product || exit 1; done
	@mkdir -p .build/bench
	@for baseline in pingpong fanout oneshot; do \
		$(BENCH_CC) -O2 -Wall -pthread -o .build/bench/$$baseline bench/c/$$baseline.c || exit 1; \
	done
	.build/release/listd-bench --baselines .build/bench --out bench/results/latest.json

# Release binaries that carry the Swift runtime: they run where Swift is not installed.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

install: release
	install -D -m 0755 $(RELEASE_BIN)/listd $(DESTDIR)$(BINDIR)/listd
	install -D -m 0755 $(RELEASE_BIN)/listctl $(DESTDIR)$(BINDIR)/listctl
	install -d $(DESTDIR)$(DOCDIR)
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/
	@case "$(UNITS)" in \
	user) dir="$(USER_UNITDIR)";; \
	system) dir="$(SYSTEM_UNITDIR)"; \
		install -D -m 0644 systemd/system/listd.sysusers $(DESTDIR)$(SYSUSERSDIR)/listd.conf; \
		if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers listd.conf 2>/dev/null || systemd-sysusers; fi;; \
	*) echo "UNITS must be user or system"; exit 2;; \
	esac; \
	for unit in listd.socket listd.service; do \
		install -d $(DESTDIR)$$dir; \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/$(UNITS)/$$unit > $(DESTDIR)$$dir/$$unit; \
		chmod 0644 $(DESTDIR)$$dir/$$unit; \
	done; \
	echo "Installed. Next: systemctl $$( [ "$(UNITS)" = user ] && echo '--user ')daemon-reload && systemctl $$( [ "$(UNITS)" = user ] && echo '--user ')enable --now listd.socket"

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/listd $(DESTDIR)$(BINDIR)/listctl
	rm -rf $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(USER_UNITDIR)/listd.socket $(DESTDIR)$(USER_UNITDIR)/listd.service
	rm -f $(DESTDIR)$(SYSTEM_UNITDIR)/listd.socket $(DESTDIR)$(SYSTEM_UNITDIR)/listd.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/listd.conf

clean:
	rm -rf .build
