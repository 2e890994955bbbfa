// Figure 1. Request → reply (bench/README.md).
import Foundation
import Glibc

func measureRoundTrips() throws {
    do {
        /// fdatasync of a small append on the file system listd writes to: what a durable confirm costs at least.
        let fdatasyncMicros: Double = {
            let fd = open("\(work)/fdatasync-probe", O_WRONLY | O_CREAT | O_APPEND, 0o600)
            defer { close(fd) }
            var samples: [Double] = []
            for _ in 0..<200 {
                let start = now()
                _ = write(fd, "0123456789012345678901234567890123456789\n", 41)
                fdatasync(fd)
                samples.append(us(now() - start))
            }
            samples.sort()
            return percentile(samples, 0.5)
        }()
        report("fdatasync of a small append", "—", "µs", listd: nil, baseline: Stat([fdatasyncMicros]))

        let placements: [(name: String, server: Int, client: Int)] =
            cpus > 1
            ? [("same CPU", 0, 0), ("different CPUs", 0, 1)] : [("same CPU", 0, 0)]
        for placement in placements {
            let pingpongSocket = "\(work)/pingpong.sock"
            let pingpong = try Child("\(baselines)/pingpong", [pingpongSocket], cpu: placement.server)
            try waitForSocket(pingpongSocket)
            var baseline50: [Double] = []
            var baseline99: [Double] = []
            for _ in 0..<runs {
                let result = try onThread(cpu: placement.client) {
                    roundTrips(try LineSocket(path: pingpongSocket), count: 2_000) { _ in getList }
                }
                baseline50.append(result.p50)
                baseline99.append(result.p99)
            }
            pingpong.stop()

            let listd = try ListdUnderTest("latency", cpu: placement.server)
            try createList(listd.connect(), "Groceries", items: 20)
            var read50: [Double] = []
            var read99: [Double] = []
            var write50: [Double] = []
            var write99: [Double] = []
            for _ in 0..<runs {
                let read = try onThread(cpu: placement.client) {
                    roundTrips(try listd.connect(), count: 2_000) { _ in getList }
                }
                read50.append(read.p50)
                read99.append(read.p99)
                let write = try onThread(cpu: placement.client) {
                    roundTrips(try listd.connect(), count: 200) { addOrRemove($0) }
                }
                write50.append(write.p50)
                write99.append(write.p99)
            }
            let ping50 = Stat(baseline50)
            let read = Stat(read50)
            report(
                "getList round trip p50",
                placement.name,
                "µs",
                listd: read,
                baseline: ping50,
                target: "≤ 2× ping-pong",
                met: read.median <= 2 * ping50.median
            )
            report("getList round trip p99", placement.name, "µs", listd: Stat(read99), baseline: Stat(baseline99))
            let write = Stat(write50)
            let writeTarget = fdatasyncMicros + 2 * ping50.median
            report(
                "addItem (durable) round trip p50",
                placement.name,
                "µs",
                listd: write,
                baseline: ping50,
                target: String(format: "≤ fdatasync + 2× ping-pong = %.0f µs", writeTarget),
                met: write.median <= writeTarget
            )
            report(
                "addItem (durable) round trip p99",
                placement.name,
                "µs",
                listd: Stat(write99),
                baseline: Stat(baseline99)
            )
        }
    }
}
