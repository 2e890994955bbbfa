# listd — two commands do everything on a fresh Debian machine:
#   make run    install what is missing, build, start listd on its defaults
#   make test   install what is missing, build, run every test

SWIFT ?= swift
# System packages the build and the tests need (Debian names); the tests edit the list file with vim.
APT_PACKAGES := libsystemd-dev pkg-config vim
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
DEBUG_BIN := .build/debug

.PHONY: all deps build run test clean

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

clean:
	rm -rf .build
