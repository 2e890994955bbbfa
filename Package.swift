// swift-tools-version: 6.2
import PackageDescription

/// One set of settings for every target, so strictness never differs between modules.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "listd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "listd", targets: ["listd"]),
        .executable(name: "listctl", targets: ["listctl"]),
        .executable(name: "listd-web", targets: ["listd-web"]),
        .library(name: "ListClient", targets: ["ListClient"]),
    ],
    // What listd, listd-web and listctl are built with beyond the client's needs (PostgreSQL, the
    // web server, TLS, cryptography, argument parsing, logging, service lifecycle). On by default;
    // a package that only uses the ListClient library turns it off, `.package(…, traits: [])`,
    // and SwiftPM then neither fetches nor builds any of it (docs/clients.md).
    traits: [
        .trait(name: "Service", description: "The daemons and listctl: every dependency beyond SwiftNIO and swift-collections."),
        .default(enabledTraits: ["Service"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // A list's checked items and amounts as persistent hash trees, which copies share.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // listd-web: the phone page's HTTP server, its live connection, and its device tokens'
        // hashes. Hummingbird without its default traits (swift-configuration, full Foundation).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // Values and the rules of one edit (apply, merge, amounts, names), and the words delegates and
        // notices are in. No I/O. The decisions over time (queues, saves, delegates) are ListCore's.
        .target(
            name: "ListModel",
            dependencies: [.product(name: "HashTreeCollections", package: "swift-collections")],
            path: "Sources/Core/ListModel",
            swiftSettings: swiftSettings
        ),
        // The hand-editable Markdown list file <-> ListBook, on strings only.
        .target(name: "ListFileFormat", dependencies: ["ListModel"], path: "Sources/Core/ListFileFormat", swiftSettings: swiftSettings),
        // JSON-RPC 2.0 envelope, methods, notifications and error codes.
        .target(name: "ListRPC", dependencies: ["ListModel"], path: "Sources/Core/ListRPC", swiftSettings: swiftSettings),
        // libsystemd, found through pkg-config (Debian: libsystemd-dev).
        .systemLibrary(name: "CSystemd", path: "Sources/Shells/CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // sd_notify, sd_listen_fds, the watchdog and a journald LogHandler, with typed errors.
        .target(
            name: "Systemd",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"]))],
            path: "Sources/Shells/Systemd",
            swiftSettings: swiftSettings
        ),
        // Swift's default executor on NIO's loops, timed jobs included (listd, listd-web).
        .target(
            name: "LoopExecutors",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            path: "Sources/Shells/LoopExecutors",
            swiftSettings: swiftSettings
        ),
        // Linux headers and calls Glibc's module leaves out (signalfd, renameat2); nothing to link.
        .systemLibrary(name: "CLinux", path: "Sources/Shells/CLinux"),
        // Owns an inotify descriptor and reads its events; its owner registers it with a loop.
        .target(name: "Inotify", path: "Sources/Shells/Inotify", swiftSettings: swiftSettings),
        // How many log lines a flood may cost (pure): for listd-web's log and listd's refusals.
        .target(name: "LogFlood", path: "Sources/Core/LogFlood", swiftSettings: swiftSettings),
        // Where listd's socket and list file are when not named (XDG), for listd, listctl and
        // listd-web, and whether a runtime directory there is the user's own.
        .target(name: "ListdLocations", path: "Sources/Shells/ListdLocations", swiftSettings: swiftSettings),
        // Newline framing with a length cap, shared by daemon and client; the connection to
        // listd's socket that ListClient and listd-web open.
        .target(
            name: "ListRPCTransport",
            dependencies: [
                "ListRPC", "ErrnoText",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Shells/ListRPCTransport",
            swiftSettings: swiftSettings
        ),
        // Files read whole and replaced whole, durably (temp file, fsync, rename, fsync the
        // directory), the list file only if it still holds what listd read (renameat2's
        // exchange): listd's files and listd-web's device file alike.
        .target(name: "DurableFiles", dependencies: ["ErrnoText", "CLinux"], path: "Sources/Shells/DurableFiles", swiftSettings: swiftSettings),
        // strerror's words for an errno, for modules that describe failures without making any.
        .target(name: "ErrnoText", path: "Sources/Core/ErrnoText", swiftSettings: swiftSettings),
        // listd's decisions: events in, actions out, in the model's words. No wire module and no
        // I/O — no JSON, no NIO, no files, no clock — so the compiler proves every rule is
        // unit-testable without a socket; the shells translate to and from the protocol.
        .target(name: "ListCore", dependencies: ["ListModel", "ListFileFormat", "ErrnoText"], path: "Sources/Core/ListCore", swiftSettings: swiftSettings),
        .target(
            name: "ListDaemon",
            dependencies: [
                "ListCore", "ErrnoText", "ListModel", "ListFileFormat", "ListRPC", "ListRPCTransport", "Inotify", "CLinux", "DurableFiles", "Systemd",
                "LogFlood",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
                // The shared store (`--share`): PostgreSQL, over TLS when asked.
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Service"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Service"])),
            ],
            path: "Sources/Shells/ListDaemon",
            swiftSettings: swiftSettings
        ),
        // What every client shares, whatever its I/O: the errors, and a blocking connection for
        // short-lived programs (no event loop, no threads).
        .target(name: "ListClientCore", dependencies: ["ListModel", "ListRPC"], path: "Sources/Shells/ListClientCore", swiftSettings: swiftSettings),
        // The asynchronous client on SwiftNIO: calls, subscriptions, delegates.
        .target(
            name: "ListClient",
            dependencies: [
                "ListClientCore", "ListModel", "ListRPC", "ListRPCTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Shells/ListClient",
            swiftSettings: swiftSettings
        ),
        // What listd-web's clients say: its control requests (pair a device, list them, revoke
        // one), for listd-web and listctl on its own Unix socket; and what a page may send.
        // CalDAV task lists: XML and iCalendar read and written, the task book, the answers; pure.
        .target(name: "CalDAV", dependencies: ["ListModel"], path: "Sources/Core/CalDAV", swiftSettings: swiftSettings),
        .target(name: "ListWebProtocol", dependencies: ["ListModel", "ListRPC"], path: "Sources/Core/ListWebProtocol", swiftSettings: swiftSettings),
        // listd-web: the phone page (inside the binary), its devices and pairing, and the relay
        // between a page's live connection and listd.
        .target(
            name: "ListWeb",
            dependencies: [
                "ListWebProtocol", "ListRPC", "ListRPCTransport", "DurableFiles", "ListdLocations", "LogFlood", "CalDAV", "ListClient",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Service"])),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Service"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Service"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Service"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Service"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
            ],
            path: "Sources/Shells/ListWeb",
            resources: [.embedInCode("Page")],
            swiftSettings: swiftSettings
        ),
        // `make bench`: listd next to the plain-C baselines in bench/c.
        // A measuring harness of threads and raw sockets: Swift 5 mode spares it strict
        // concurrency checking that its plain threads would only satisfy with noise.
        .executableTarget(name: "listd-bench", path: "Sources/Tools/listd-bench", swiftSettings: swiftSettings + [.swiftLanguageMode(.v5)]),
        // The floor of listd's stack (issue 65): read a line, append it, fdatasync once per turn
        // of one NIO loop (or a raw epoll loop), reply. A measuring spike kept in bench/
        // (bench/README.md, figure 13).
        .executableTarget(
            name: "listd-floor",
            dependencies: [
                "CLinux", "ListRPC", "ListRPCTransport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "bench/floor",
            swiftSettings: swiftSettings + [.swiftLanguageMode(.v5)]
        ),
        // libFuzzer entry points (`make fuzz` builds them with --sanitize=fuzzer).
        .target(name: "FuzzChecks", dependencies: ["ListRPC", "ListFileFormat", "ListModel", "ListWebProtocol", "CalDAV"], path: "Sources/Tools/FuzzChecks", swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzRPCLine", dependencies: ["FuzzChecks"], path: "Sources/Tools/FuzzRPCLine", swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzListFile", dependencies: ["FuzzChecks"], path: "Sources/Tools/FuzzListFile", swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzPageMessage", dependencies: ["FuzzChecks"], path: "Sources/Tools/FuzzPageMessage", swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzCalDAV", dependencies: ["FuzzChecks"], path: "Sources/Tools/FuzzCalDAV", swiftSettings: swiftSettings),
        .executableTarget(
            name: "listd",
            dependencies: [
                "ListDaemon", "ListCore", "ListRPC", "ListRPCTransport", "ListdLocations", "Systemd", "LoopExecutors",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Products/listd",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "listd-web",
            dependencies: [
                "ListWeb", "ListdLocations", "LoopExecutors",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Products/listd-web",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "listctl",
            dependencies: [
                "ListClientCore", "ListModel", "ListRPC", "ListdLocations", "ListWebProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"])),
            ],
            path: "Sources/Products/listctl",
            exclude: ["listctl.order"],
            swiftSettings: swiftSettings,
            // A one-shot tool starts like a C one: linked fully static in release builds, no
            // dynamic loader resolving libstdc++'s and libc's symbols at every start. Linked by
            // lld with the functions a one-shot command runs laid out together (listctl.order,
            // written by `make listctl-order`): each 64 KiB of code a process first touches costs
            // it a page fault, and `listctl show` took 194 faults linked by gold, 145 so
            // (bench/README.md, figure 5). A name the file gives that is gone is passed over.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-executable", "-use-ld=lld",
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/Products/listctl/listctl.order",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ],
                    .when(configuration: .release)
                )
            ]
        ),
        .testTarget(name: "ListModelTests", dependencies: ["ListModel"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ListWebTests",
            dependencies: ["ListWeb", "ListWebProtocol", "ListRPC", "LogFlood", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"]))],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CalDAVTests", dependencies: ["CalDAV", "ListModel"], swiftSettings: swiftSettings),
        .testTarget(name: "InotifyTests", dependencies: ["Inotify"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SystemdTests",
            dependencies: ["Systemd", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"]))],
            swiftSettings: swiftSettings
        ),
        // Replays every fuzzer input kept in Tests/Fuzz (seeds and the crashes found).
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzChecks"], swiftSettings: swiftSettings),
        // The core on its own: events in, actions out; no daemon, sockets, files or clocks.
        .testTarget(name: "ListCoreTests", dependencies: ["ListCore", "ListModel", "ListFileFormat", "ListRPC"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ListDaemonTests",
            dependencies: [
                "ListDaemon", "ListCore", "ListModel", "ListRPC", "ListRPCTransport", "DurableFiles", "Inotify",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Service"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ListFileFormatTests",
            dependencies: ["ListFileFormat", "ListModel"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ListRPCTests",
            dependencies: [
                "ListRPC", "ListModel", "ListRPCTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // listctl's own rules, without a listd: its quick path read against argument-parser's.
        .testTarget(
            name: "ListctlTests",
            dependencies: ["listctl", "ListdLocations", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"]))],
            swiftSettings: swiftSettings
        ),
        // Drive the real listd and listctl binaries over a real socket.
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["ListClient", "ListFileFormat", "ListModel", "ListRPC"],
            swiftSettings: swiftSettings
        ),
    ]
)
