# listd — two commands do everything on a fresh Debian machine:
#   make run    install what is missing, build, start listd on its defaults
#   make test   install what is missing, build, run every test

SWIFT ?= swift
# System packages the build and the tests need (Debian names): libsystemd to build; vim to edit
# the list file in tests; systemd (journald, systemd-analyze, systemd-socket-activate),
# systemd-container and debootstrap to test the units for real; fuse3, libfuse3-dev and a C
# compiler for the power-cut file system PowerLossTests mounts (Tests/PowerCutFS); man-db to check
# the packaged manual pages render (Tests/e2e); postgresql for the servers SharingTests start
# (initdb and pg_ctl in a temporary directory) and make bench measures (--share); tmux for
# vim run as a person runs it, answering its prompts (OlderCopyTests); chromium and
# chromium-driver for the phone page in a real browser (WebPageTests), qrencode for the QR code
# `listctl web pair` prints, curl for the page served under systemd (Tests/e2e) and over HTTPS
# with a certificate openssl makes (WebTLSTests); python3-jsonschema for the contract's validator
# (ContractTests: every message listd sends checked against docs/listd.openrpc.json); dpkg-dev and
# lintian for the package make test builds and boots (make deb).
APT_PACKAGES := libsystemd-dev pkg-config vim systemd systemd-container debootstrap fuse3 libfuse3-dev gcc man-db postgresql tmux \
	chromium chromium-driver qrencode curl openssl python3 python3-jsonschema python3-venv dpkg-dev lintian

# make install PREFIX=… DESTDIR=… UNITS=user|system
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DOCDIR ?= $(PREFIX)/share/doc/listd
UNITS ?= user
USER_UNITDIR ?= $(PREFIX)/lib/systemd/user
SYSTEM_UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR ?= $(PREFIX)/share/man
# Where bash-completion, zsh and fish look (zsh: Debian's vendor directory for /usr, else the
# site directory every zsh reads).
BASH_COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISH_COMPLETIONDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# Manual pages and completion scripts made from the release binaries (make man, make completions).
GENERATED := .build/generated
# The manual pages' date: the last commit's, so that a build of the same commit is the same.
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)
# Release builds keep a scratch directory of their own: SwiftPM builds one thing at a time in a
# directory, and `make test` makes the package while the debug build and the tests run.
RELEASE_SCRATCH := .build-release
RELEASE_BIN := $(RELEASE_SCRATCH)/release
# Without debug information: the package strips it anyway, and the release build is the longest
# step of make test. A generic type's metadata is made by calling its accessor, not by demangling
# its name at run time: the name's way checks each generic requirement (String: Hashable for a
# dictionary) by scanning every conformance record in the binary, the first time in each process,
# and a one-shot `listctl show` spent half its instructions on nine such scans (bench/README.md).
# listd's own instructions per edit did not grow with it (callgrind, 8 brief clients: 151,900
# with it, 153,100 without; the runtime's generic-metadata lookups that remain are unspecialized
# generic code's, with or without it).
RELEASE_BUILD = $(SWIFT) build -c release --static-swift-stdlib -debug-info-format none --scratch-path $(RELEASE_SCRATCH) \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# What the package ships.
SHIPPED := listd listctl listd-web
# Work that no test waits on, done with what the foreground leaves of the CPU and the disk. Run
# in a session of its own (setsid, to be stopped as one), it is also a scheduling group of its
# own where the kernel groups sessions (autogroup), which would get as much CPU as the tests'
# session whatever its tasks' priority: the group's niceness goes to 19 too.
IDLE := chrt --idle 0 ionice -c 3
IDLE_SESSION := echo 19 2>/dev/null > /proc/self/autogroup || true
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
DEBUG_BIN := .build/debug
# What a package (make deb, make install) is made of: the release build. `PACKAGE=debug`
# packages the debug build instead, its binaries linked again with the Swift runtime in
# (Tests/e2e/link-static.py): make test's container test installs that one, so that make test
# builds everything once — a release build of it all takes another 12 to 14 minutes here, and
# a clean clone's make test must stay under 30. The same units, scripts, pages and completions;
# only the optimizer differs, and make bench measures the release build.
PACKAGE ?= release
ifeq ($(PACKAGE),debug)
PACKAGE_BIN := .build/debug-static
MANUAL_BUILD := $(SWIFT) build --product generate-manual
MANUAL_TOOL := $(DEBUG_BIN)/generate-manual
else
PACKAGE_BIN := $(RELEASE_BIN)
MANUAL_BUILD := $(RELEASE_BUILD) --product generate-manual
MANUAL_TOOL := $(RELEASE_BIN)/generate-manual
endif

# make fuzz: each libFuzzer target runs this long (seconds); crashes land in .build-fuzz/artifacts.
FUZZ_SECONDS ?= 30
FUZZERS := FuzzRPCLine FuzzListFile FuzzPageMessage FuzzCalDAV

# make bench: the C baselines are built with the C compiler that comes with Swift (or any cc).
BENCH_CC ?= $(shell command -v clang || command -v gcc || echo cc)

.PHONY: all deps build dav-clients disk-space run test docs binaries save-model soak-saves shared-faults soak-shared tasks-model soak-tasks e2e e2e-root fuzz fuzz-build fuzz-run fuzz-merge bench listctl-order clean release man completions install install-files uninstall deb screenshots

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

# The CalDAV clients TasksAppTests drives (issue 64), from PyPI at the versions checked, in a
# virtualenv of the project's own (.build-davclients; TasksAppTests finds it there).
DAV_CLIENTS := caldav==3.6.0 vdirsyncer==0.21.0 todoman==4.7.0 plann==1.3.0 caldav-server-tester==1.7.0
dav-clients: deps
	@test -x .build-davclients/bin/python && .build-davclients/bin/python -c "import caldav" 2>/dev/null || { \
		echo "Installing the CalDAV clients: $(DAV_CLIENTS)"; \
		python3 -m venv .build-davclients && .build-davclients/bin/pip install -q $(DAV_CLIENTS); }

# A clean clone's make test writes about 3 GiB here (the debug, release, fuzzers' and static
# builds, the container's root). With less free than TEST_DISK_GIB it stops at once and says so,
# not minutes into the build with "No space left on device" from the compiler.
TEST_DISK_GIB ?= 4
disk-space:
	@free=$$(df -Pk . | awk 'NR == 2 { print int($$4 / 1048576) }'); \
	if [ "$$free" -lt $(TEST_DISK_GIB) ]; then \
		echo "make test needs about $(TEST_DISK_GIB) GiB free in $$(pwd) and $$free GiB is; free some (or set TEST_DISK_GIB)."; exit 1; \
	fi

# Serves in the foreground; Ctrl-C stops it cleanly. In another terminal:
#   .build/debug/listctl create Groceries milk eggs
run: build
	$(DEBUG_BIN)/listd

# The fuzzers' build is made in the background at idle priority (SCHED_IDLE, idle I/O) while the
# debug build and the tests run: it uses only what those leave. So is the container's root
# (debootstrap, mostly the network's time; as root only), at the usual priority. Their output is
# in .build/*.log, printed if they fail. The container test installs the package of the debug
# build (PACKAGE=debug, above), made once the tests passed.
test: disk-space deps dav-clients
	@mkdir -p .build; \
	setsid sh -c '$(IDLE_SESSION); exec $(IDLE) $(MAKE) --no-print-directory fuzz-build' > .build/fuzz-build.log 2>&1 & fuzzers=$$!; \
	$(if $(SUDO),,setsid sh -c '$(MAKE) --no-print-directory e2e-root' > .build/e2e-root.log 2>&1 & root=$$!;) \
	trap 'kill -- -$$fuzzers $(if $(SUDO),,-$$root) 2>/dev/null' EXIT; \
	beside() { wait $$1 || { tail -60 $$2; echo "$$3 failed (its output: $$2)"; exit 1; }; }; \
	began=$$(date +%s); phase() { echo "== make test: $$1 ($$(( $$(date +%s) - began )) s in)"; }; \
	phase "debug build and swift test" && $(SWIFT) test && \
	phase "the library's reference" && $(MAKE) --no-print-directory docs && \
	phase "save-model" && $(MAKE) --no-print-directory save-model && \
	phase "shared-faults" && $(MAKE) --no-print-directory shared-faults && \
	phase "tasks-model" && $(MAKE) --no-print-directory tasks-model && \
	phase "waiting for the fuzzers' build" && beside $$fuzzers .build/fuzz-build.log "make fuzz-build" && \
	phase "fuzz-run" && $(MAKE) --no-print-directory fuzz-run && \
	phase "the package" && { $(MAKE) --no-print-directory deb PACKAGE=debug > .build/package.log 2>&1 \
		|| { tail -60 .build/package.log; echo "make deb failed (its output: .build/package.log)"; exit 1; }; } && \
	$(if $(SUDO),,phase "waiting for the container's root" && beside $$root .build/e2e-root.log "make e2e-root" &&) \
	phase "container test" && $(SUDO) Tests/e2e/nspawn-e2e.sh $(DEB) && phase "done"

# The ListClient library's reference, from its DocC catalogue and its symbol graph, into
# .build-docs/ListClient.doccarchive (`docc preview` serves one). Fails on any DocC warning and on
# a public declaration without a doc comment in what `import ListClient` shows (ListClient,
# ListClientCore, and the ListModel and ListRPC it re-exports); make test runs it.
# Its own scratch path: the symbol-graph flags would otherwise rebuild the debug build.
DOCS_SCRATCH := .build-docs
docs: deps
	@# ListClient compiled afresh each time (touched): its graph holds what it re-exports, which an
	@# incremental build would leave as it was when ListClient itself last changed.
	@rm -rf $(DOCS_SCRATCH)/graphs $(DOCS_SCRATCH)/ListClient-graphs && mkdir -p $(DOCS_SCRATCH)/graphs $(DOCS_SCRATCH)/ListClient-graphs
	@touch Sources/Shells/ListClient/ListClient.swift
	$(SWIFT) build --target ListClient --scratch-path $(DOCS_SCRATCH) \
		-Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CURDIR)/$(DOCS_SCRATCH)/graphs
	cp $(DOCS_SCRATCH)/graphs/ListClient.symbols.json $(DOCS_SCRATCH)/graphs/ListClient@*.symbols.json $(DOCS_SCRATCH)/ListClient-graphs/
	python3 Tests/Docs/undocumented.py $(DOCS_SCRATCH)/ListClient-graphs ListClient ListClientCore ListModel ListRPC
	docc convert Sources/Shells/ListClient/ListClient.docc --warnings-as-errors \
		--fallback-display-name ListClient --fallback-bundle-identifier org.listd.ListClient \
		--additional-symbol-graph-dir $(DOCS_SCRATCH)/ListClient-graphs --output-path $(DOCS_SCRATCH)/ListClient.doccarchive

# libFuzzer on the request-line decoder and the list-file parser, for a bounded time each. New
# inputs go to a scratch corpus; the kept corpus and past crashes (Tests/Fuzz) are read first. A
# crash's input is copied into Tests/Fuzz/regressions at once, so it is kept with the fix.
# Without Swift's backtracer, libFuzzer itself catches a crash and writes its input out.
fuzz: deps fuzz-build
	@$(MAKE) --no-print-directory fuzz-run

fuzz-build:
	@for fuzzer in $(FUZZERS); do \
		$(SWIFT) build --product $$fuzzer --sanitize=fuzzer --scratch-path .build-fuzz || exit 1; \
	done

fuzz-run:
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

# The list file never lies (issue 59): the model-based test of the real listd — random client
# edits, copies saved by rename, in place, sed -i and vim -es, notes stripped, restarts and saves
# while stopped — on a fixed set of seeds and every kept regression (Tests/SaveModel). A failure
# is shrunk and printed as a case to keep in Tests/SaveModel/regressions.
SAVE_MODEL_SEEDS ?= 7,8,12
SAVE_MODEL_STEPS ?= 100
save-model: deps
	@test -x $(DEBUG_BIN)/listd || $(SWIFT) build --product listd
	python3 Tests/SaveModel/save_model.py --listd $(DEBUG_BIN)/listd --seeds $(SAVE_MODEL_SEEDS) --steps $(SAVE_MODEL_STEPS)

# Shared lists under faults, Jepsen-style (issue 60): three listd on a real PostgreSQL, each
# through the test's fault proxy, kill -9, the server stopped / crashed / hung, a full disk; a
# recorded history and a checker (Tests/SharedFaults). A short run here; as long as asked with
# make soak-shared EACH=100 (that many faults of every kind).
SHARED_FAULTS ?= 20
shared-faults: deps
	@test -x $(DEBUG_BIN)/listd || $(SWIFT) build --product listd
	python3 Tests/SharedFaults/shared_faults.py --listd $(DEBUG_BIN)/listd --faults $(SHARED_FAULTS) --seed 60
EACH ?= 100
soak-shared: deps
	$(SWIFT) build --product listd
	python3 Tests/SharedFaults/shared_faults.py --listd $(DEBUG_BIN)/listd --each $(EACH)

# Tasks apps never lose an edit nor keep a ghost (issue 64): the model-based test of listd-web's
# CalDAV on the real listd and listd-web — two apps editing from stale copies and syncing by
# token while the household edits, listd-web and listd killed and restarted — on a fixed set of
# seeds and every kept regression (Tests/CalDAV/regressions); as long as asked with
# make soak-tasks STEPS=20000 (fresh seeds, in runs of 300).
TASKS_MODEL_SEEDS ?= 64,65,66,67,68,69
TASKS_MODEL_STEPS ?= 300
tasks-model: deps
	@test -x $(DEBUG_BIN)/listd-web -a -x $(DEBUG_BIN)/listd -a -x $(DEBUG_BIN)/listctl || $(SWIFT) build
	python3 Tests/CalDAV/tasks_model.py --bin $(DEBUG_BIN) --seeds $(TASKS_MODEL_SEEDS) --steps $(TASKS_MODEL_STEPS)
soak-tasks: deps
	$(SWIFT) build
	python3 Tests/CalDAV/tasks_model.py --bin $(DEBUG_BIN) --fresh-seeds $$(( ($(STEPS) + 299) / 300 )) --steps 300

# The same for as long as asked, on fresh seeds: make soak-saves STEPS=20000 (in runs of 250).
STEPS ?= 20000
soak-saves: deps
	$(SWIFT) build --product listd
	python3 Tests/SaveModel/save_model.py --listd $(DEBUG_BIN)/listd --fresh-seeds $$(( ($(STEPS) + 249) / 250 )) --steps 250

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
e2e: deps deb
	$(SUDO) Tests/e2e/nspawn-e2e.sh $(DEB)

# The container's Debian root alone (debootstrap, kept for later runs).
e2e-root:
	$(SUDO) Tests/e2e/nspawn-e2e.sh --root-only

# listd next to plain-C baselines (bench/c), release builds, in one run of a few minutes: prints
# the table and writes bench/results/latest.json (bench/README.md says how to read it).
# make bench measures Redis beside listd, on the same work with the same client (issue 14), and
# the binaries as make install ships them (the Swift runtime linked in).
BENCH_APT_PACKAGES := redis-server

# docs/web.md's pictures of the page, taken by the browser test that checks them
# (WebPageTests.thePageAsTheDocsShowIt), in headless Chromium at 360×780.
screenshots: deps build
	mkdir -p docs/images
	LISTD_DOC_SCREENSHOTS=$(CURDIR)/docs/images $(SWIFT) test --filter thePageAsTheDocsShowIt

bench: deps
	@command -v redis-server >/dev/null || { echo "Installing system packages: $(BENCH_APT_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_APT_PACKAGES); }
	@for product in $(SHIPPED) listd-bench listd-floor; do $(RELEASE_BUILD) --product $$product || exit 1; done
	@mkdir -p .build/bench
	@for baseline in pingpong fanout oneshot; do \
		$(BENCH_CC) -O2 -Wall -pthread -o .build/bench/$$baseline bench/c/$$baseline.c || exit 1; \
	done
	$(RELEASE_BIN)/listd-bench --baselines .build/bench --out bench/results/latest.json

# listctl's layout (Package.swift): the functions a one-shot command runs, read off the release
# listctl under callgrind against a release listd. Committed; run again after changes to its path.
LISTCTL_ORDER := Sources/Products/listctl/listctl.order
listctl-order: deps
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
	@for product in listd listctl; do $(RELEASE_BUILD) --product $$product || exit 1; done
	sh bench/listctl-order.sh $(RELEASE_BIN)/listd $(RELEASE_BIN)/listctl $(LISTCTL_ORDER)
	@# SwiftPM does not know the file is the link's input: linked again by hand.
	rm -f $(RELEASE_BIN)/listctl && $(RELEASE_BUILD) --product listctl

# Release binaries that carry the Swift runtime: they run where Swift is not installed.
release: deps
	@for product in $(SHIPPED); do $(RELEASE_BUILD) --product $$product || exit 1; done

# The binaries a package is made of (PACKAGE, above).
binaries: deps
ifeq ($(PACKAGE),debug)
	$(SWIFT) build
	python3 Tests/e2e/link-static.py $(PACKAGE_BIN) $(SHIPPED)
else
	@$(MAKE) --no-print-directory release
endif

# listctl(1) and listd-web(8) are generated from the argument-parser definitions by its
# generate-manual tool (the one its plugin runs), so they never drift from --help; listd(8) and
# listd(5) are written by hand (a test holds listd(8) to listd --help: every option, with its
# default).
man: binaries
	$(MANUAL_BUILD)
	@mkdir -p $(GENERATED)/man
	$(MANUAL_TOOL) $(PACKAGE_BIN)/listctl --section 1 --date $(MAN_DATE) --output-directory $(GENERATED)/man
	$(MANUAL_TOOL) $(PACKAGE_BIN)/listd-web --section 8 --date $(MAN_DATE) --output-directory $(GENERATED)/man
	@# listd-web has no subcommands: the tool's `subcommand` in its synopsis, and the built-in
	@# help subcommand's entry, would say it has.
	sed -i -e '/^\.Ar subcommand$$/d' -e '/^\.It Em help$$/,/^\.El$$/d' $(GENERATED)/man/listd-web.8
	@# Its EXIT STATUS is boilerplate (.Ex -std): listctl's own, with ENVIRONMENT, EXAMPLES and SEE ALSO.
	sed -i '/^\.Sh "*EXIT STATUS"*$$/,$$d' $(GENERATED)/man/listctl.1
	@# A blank line of --help's discussion is a paragraph break in mdoc (an empty line warns).
	sed -i 's/^$$/.Pp/' $(GENERATED)/man/listctl.1
	sed '/^\.\\"/d' docs/man/listctl.1.sections >> $(GENERATED)/man/listctl.1
	sed '/^\.\\"/d' docs/man/listd.8 > $(GENERATED)/man/listd.8
	cp docs/man/listd.5 $(GENERATED)/man/listd.5

# Completion scripts as each shell names them (bash's without a #! line: it is sourced);
# listctl's complete list names and items from the running listd.
completions: binaries
	@mkdir -p $(GENERATED)/completions
	@for tool in listd listctl; do \
		$(PACKAGE_BIN)/$$tool --generate-completion-script bash | sed '1{/^#!/d}' > $(GENERATED)/completions/$$tool && \
		$(PACKAGE_BIN)/$$tool --generate-completion-script zsh > $(GENERATED)/completions/_$$tool && \
		$(PACKAGE_BIN)/$$tool --generate-completion-script fish > $(GENERATED)/completions/$$tool.fish || exit 1; \
	done

install: binaries man completions
	@$(MAKE) --no-print-directory install-files

# What install copies, from what binaries, man and completions made (make deb runs it twice).
install-files:
	install -D -m 0755 $(PACKAGE_BIN)/listd $(DESTDIR)$(BINDIR)/listd
	install -D -m 0755 $(PACKAGE_BIN)/listctl $(DESTDIR)$(BINDIR)/listctl
	install -D -m 0755 $(PACKAGE_BIN)/listd-web $(DESTDIR)$(BINDIR)/listd-web
	install -d $(DESTDIR)$(DOCDIR)
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/
	@# web.md's pictures of the page, where its links look for them.
	install -d $(DESTDIR)$(DOCDIR)/images
	install -m 0644 docs/images/*.png $(DESTDIR)$(DOCDIR)/images/
	install -D -m 0644 $(GENERATED)/man/listctl.1 $(DESTDIR)$(MANDIR)/man1/listctl.1
	install -D -m 0644 $(GENERATED)/man/listd.5 $(DESTDIR)$(MANDIR)/man5/listd.5
	install -D -m 0644 $(GENERATED)/man/listd.8 $(DESTDIR)$(MANDIR)/man8/listd.8
	install -D -m 0644 $(GENERATED)/man/listd-web.8 $(DESTDIR)$(MANDIR)/man8/listd-web.8
	@for tool in listd listctl; do \
		install -D -m 0644 $(GENERATED)/completions/$$tool $(DESTDIR)$(BASH_COMPLETIONDIR)/$$tool && \
		install -D -m 0644 $(GENERATED)/completions/_$$tool $(DESTDIR)$(ZSH_COMPLETIONDIR)/_$$tool && \
		install -D -m 0644 $(GENERATED)/completions/$$tool.fish $(DESTDIR)$(FISH_COMPLETIONDIR)/$$tool.fish || exit 1; \
	done
	@case "$(UNITS)" in \
	user) dir="$(USER_UNITDIR)";; \
	system) dir="$(SYSTEM_UNITDIR)"; \
		install -D -m 0644 systemd/system/listd.sysusers $(DESTDIR)$(SYSUSERSDIR)/listd.conf; \
		if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers listd.conf 2>/dev/null || systemd-sysusers; fi;; \
	*) echo "UNITS must be user or system"; exit 2;; \
	esac; \
	for unit in $$(cd systemd/$(UNITS) && ls *.socket *.service); do \
		install -d $(DESTDIR)$$dir; \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/$(UNITS)/$$unit > $(DESTDIR)$$dir/$$unit; \
		chmod 0644 $(DESTDIR)$$dir/$$unit; \
	done; \
	[ -n "$(QUIET_INSTALL)" ] || echo "Installed. Next: systemctl $$( [ "$(UNITS)" = user ] && echo '--user ')daemon-reload && systemctl $$( [ "$(UNITS)" = user ] && echo '--user ')enable --now listd.socket"

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/listd $(DESTDIR)$(BINDIR)/listctl $(DESTDIR)$(BINDIR)/listd-web
	rm -rf $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(USER_UNITDIR)/listd.socket $(DESTDIR)$(USER_UNITDIR)/listd.service $(DESTDIR)$(USER_UNITDIR)/listd-web.service $(DESTDIR)$(USER_UNITDIR)/listd-rule@.service
	rm -f $(DESTDIR)$(SYSTEM_UNITDIR)/listd.socket $(DESTDIR)$(SYSTEM_UNITDIR)/listd.service $(DESTDIR)$(SYSTEM_UNITDIR)/listd-web.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/listd.conf
	rm -f $(DESTDIR)$(MANDIR)/man1/listctl.1 $(DESTDIR)$(MANDIR)/man5/listd.5 $(DESTDIR)$(MANDIR)/man8/listd.8 $(DESTDIR)$(MANDIR)/man8/listd-web.8
	for tool in listd listctl; do \
		rm -f $(DESTDIR)$(BASH_COMPLETIONDIR)/$$tool $(DESTDIR)$(ZSH_COMPLETIONDIR)/_$$tool $(DESTDIR)$(FISH_COMPLETIONDIR)/$$tool.fish; \
	done

# A Debian package (.build/deb/listd_VERSION_ARCH.deb) with dpkg-deb alone: the static binaries
# (stripped), system and user units, sysusers.d, manual pages, completions and docs, and
# maintainer scripts (systemd/debian) that create the group and reload systemd, enabling
# nothing. Checked with lintian (make deps installs it): no errors.
DEB_VERSION := $(shell sed -n 's/.*static let current = "\(.*\)"/\1/p' Sources/Core/ListRPC/ListdVersion.swift)-1
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB_ROOT := .build/deb/listd_$(DEB_VERSION)_$(DEB_ARCH)
DEB := .build/deb/listd_$(DEB_VERSION)_$(DEB_ARCH).deb
# Who answers for the package (make deb DEB_MAINTAINER="Name <address>"); none is named yet.
DEB_MAINTAINER ?= listd developers <listd@example.invalid>

deb: binaries man completions
	rm -rf $(DEB_ROOT) $(DEB)
	$(MAKE) --no-print-directory install-files DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr UNITS=system QUIET_INSTALL=1
	$(MAKE) --no-print-directory install-files DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr UNITS=user QUIET_INSTALL=1
	strip --remove-section=.comment --remove-section=.note --strip-unneeded $(DEB_ROOT)/usr/bin/listd $(DEB_ROOT)/usr/bin/listctl $(DEB_ROOT)/usr/bin/listd-web
	gzip -9n $(DEB_ROOT)/usr/share/man/man*/*
	install -m 0644 systemd/debian/copyright $(DEB_ROOT)/usr/share/doc/listd/copyright
	install -D -m 0644 systemd/debian/lintian-overrides $(DEB_ROOT)/usr/share/lintian/overrides/listd
	sed 's|@MAINTAINER@|$(DEB_MAINTAINER)|' systemd/debian/changelog | gzip -9n > $(DEB_ROOT)/usr/share/doc/listd/changelog.Debian.gz
	install -d $(DEB_ROOT)/DEBIAN
	install -m 0755 systemd/debian/postinst systemd/debian/prerm systemd/debian/postrm $(DEB_ROOT)/DEBIAN/
	@# Depends: the shared libraries the binaries load (the Swift runtime is linked in; listctl is
	@# linked fully static and loads none).
	cd .build/deb && mkdir -p shlibs/debian && printf 'Source: listd\n\nPackage: listd\nArchitecture: any\n' > shlibs/debian/control && \
		cd shlibs && dpkg-shlibdeps -O -e../listd_$(DEB_VERSION)_$(DEB_ARCH)/usr/bin/listd \
		-e../listd_$(DEB_VERSION)_$(DEB_ARCH)/usr/bin/listd-web \
		| sed 's/^shlibs:Depends=//' > ../depends
	sed -e 's|@VERSION@|$(DEB_VERSION)|' -e 's|@ARCH@|$(DEB_ARCH)|' -e 's|@MAINTAINER@|$(DEB_MAINTAINER)|' -e "s|@DEPENDS@|$$(cat .build/deb/depends)|" \
		-e "s|@SIZE@|$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)|" systemd/debian/control > $(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz -z1 --build $(DEB_ROOT) $(DEB)
	lintian --fail-on error $(DEB)
	@echo "Built $(DEB). Install: sudo apt install ./$(DEB)"

clean:
	rm -rf .build $(RELEASE_SCRATCH) .build-fuzz
