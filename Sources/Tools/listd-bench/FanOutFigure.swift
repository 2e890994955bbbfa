// Figure 3. Fan-out (bench/README.md).
import Foundation
import Glibc

let subscribeRequest = #"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#
let baselinePublication =
    #"{"jsonrpc":"2.0","method":"didUpdateShoppingList","params":{"changes":[{"item":"probe","op":"add"}],"list":{"edited":"2026-11-22T10:00:00.000Z","id":1,"items":["probe"],"name":"Fan","revision":2},"origin":{"kind":"client","pid":1,"uid":0},"revision":2}}"#

func measureFanOut() throws {
    do {
        for count in [1, 100, 1_000] {
            var listdRuns: [Double] = []
            var listd99: [Double] = []
            var baseRuns: [Double] = []
            var base99: [Double] = []
            do {
                let listd = try ListdUnderTest("fanout-\(count)", extra: ["--max-connections", "20000"])
                let publisher = try listd.connect()
                createList(publisher, "Fan")
                let subs = try subscribers(listd.socket, count: count, request: subscribeRequest)
                for _ in 0..<3 {
                    var samples = (0..<40).map {
                        fanOutOnce(publisher: publisher, subscribers: subs, publication: addOrRemove($0))
                    }
                    samples.sort()
                    listdRuns.append(percentile(samples, 0.5))
                    listd99.append(percentile(samples, 0.99))
                }
            }
            do {
                let socket = "\(work)/fanout-c-\(count).sock"
                let server = try Child("\(baselines)/fanout", [socket])
                defer { server.stop() }
                try waitForSocket(socket, probe: "SUB")
                let publisher = try LineSocket(path: socket)
                let subs = try subscribers(socket, count: count, request: "SUB")
                for _ in 0..<3 {
                    var samples = (0..<40).map { _ in
                        fanOutOnce(publisher: publisher, subscribers: subs, publication: baselinePublication)
                    }
                    samples.sort()
                    baseRuns.append(percentile(samples, 0.5))
                    base99.append(percentile(samples, 0.99))
                }
            }
            var redisRuns: [Double] = []
            var redis99: [Double] = []
            do {
                let redis = try RedisUnderTest("fanout-\(count)")
                let publisher = try redis.connect()
                let subs = try redisSubscribers(redis.socket, count: count)
                let payload = String(repeating: "x", count: baselinePublication.utf8.count)
                for _ in 0..<3 {
                    // A message is seven lines (*3, then three bulk strings); EXEC's reply ends six.
                    var samples = (0..<40).map {
                        fanOutOnce(
                            publisher: publisher,
                            subscribers: subs,
                            publication: redisPublication($0, payload: payload),
                            linesPerMessage: 7,
                            replyLines: 6
                        )
                    }
                    samples.sort()
                    redisRuns.append(percentile(samples, 0.5))
                    redis99.append(percentile(samples, 0.99))
                }
            }
            let p50 = Stat(listdRuns)
            let base = Stat(baseRuns)
            let redisP50 = Stat(redisRuns)
            report(
                "durable change → \(count) subscriber\(count == 1 ? "" : "s") p50, Redis as baseline",
                "any",
                "µs",
                listd: p50,
                baseline: redisP50,
                target: "≤ 1.0× Redis",
                met: p50.median <= redisP50.median
            )
            report(
                "durable change → \(count) subscriber\(count == 1 ? "" : "s") p99, Redis as baseline",
                "any",
                "µs",
                listd: Stat(listd99),
                baseline: Stat(redis99)
            )
            report(
                "one edit → \(count) subscriber\(count == 1 ? "" : "s") p50",
                "any",
                "µs",
                listd: p50,
                baseline: base,
                target: count == 1_000 ? "≤ 2× C" : "",
                met: count == 1_000 ? p50.median <= 2 * base.median : nil
            )
            report(
                "one edit → \(count) subscriber\(count == 1 ? "" : "s") p99",
                "any",
                "µs",
                listd: Stat(listd99),
                baseline: Stat(base99)
            )
        }
    }
    do {
        var listdRates: [Double] = []
        var baseRates: [Double] = []
        for run in 0..<3 {
            let listd = try ListdUnderTest("rate-\(run)")
            let setup = try listd.connect()
            for publisher in 0..<4 { createList(setup, "Publisher \(publisher)") }
            listdRates.append(
                try notificationsPerSecond(listd.socket, subscribeWith: subscribeRequest, publishers: 4) {
                    publisher,
                    index in
                    let method = index % 2 == 0 ? "addItem" : "removeItem"
                    return
                        #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":{"list":\#(publisher + 1),"item":"probe"}}"#
                }
            )
            let socket = "\(work)/rate-c-\(run).sock"
            let server = try Child("\(baselines)/fanout", [socket])
            try waitForSocket(socket, probe: "SUB")
            baseRates.append(
                try notificationsPerSecond(socket, subscribeWith: "SUB", publishers: 4) { _, _ in baselinePublication }
            )
            server.stop()
        }
        let rate = Stat(listdRates)
        report(
            "notifications/s to 100 subscribers",
            "any",
            "notifications/s",
            listd: rate,
            baseline: Stat(baseRates),
            target: "≥ 30,000/s",
            met: rate.median >= 30_000
        )
    }
}
