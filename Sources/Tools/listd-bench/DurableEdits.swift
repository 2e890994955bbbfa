// Figure 2. Durable edits per second (bench/README.md).
import Foundation
import Glibc

func measureDurableEdits() throws {
    do {
        // Next to Redis doing the same job durably (issue 14): the same client code, the same disk.
        let listd = try ListdUnderTest("versus-redis")
        try createList(listd.connect(), "Busy")
        let redis = try RedisUnderTest("edits")
        for clients in [1, 8, 64] {
            let ours = editFigures(listd.socket, clients: clients) { client, index in
                addOrRemove(index, item: "client \(client)")
            }
            let theirs = editFigures(redis.socket, clients: clients) { client, index in
                redisAddOrRemove(index, member: "client-\(client)")
            }
            let label = "\(clients) client\(clients == 1 ? "" : "s")"
            report(
                "durable edits/s, \(label), Redis AOF always as baseline",
                "any",
                "edits/s",
                listd: ours.rate,
                baseline: theirs.rate,
                target: "≥ 1.0× Redis",
                met: ours.rate.median >= theirs.rate.median
            )
            report(
                "durable edit latency p50, \(label), Redis as baseline",
                "any",
                "µs",
                listd: ours.p50,
                baseline: theirs.p50,
                target: clients == 1 ? "≤ 1.0× Redis" : "",
                met: clients == 1 ? ours.p50.median <= theirs.p50.median : nil
            )
            report(
                "durable edit latency p99, \(label), Redis as baseline",
                "any",
                "µs",
                listd: ours.p99,
                baseline: theirs.p99
            )
            if clients == 64 {
                let ourCPU = cpuPerEdit(listd.socket, pid: listd.child.pid, clients: clients) { client, index in
                    addOrRemove(index, item: "client \(client)")
                }
                let theirCPU = cpuPerEdit(redis.socket, pid: redis.child.pid, clients: clients) { client, index in
                    redisAddOrRemove(index, member: "client-\(client)")
                }
                report(
                    "server CPU per durable edit, 64 clients, Redis as baseline",
                    "any",
                    "µs",
                    listd: ourCPU.total,
                    baseline: theirCPU.total,
                    target: "≤ 1.0× Redis",
                    met: ourCPU.total.median <= theirCPU.total.median
                )
            }
        }
    }
    do {
        // An edit of a 10,000-item list next to one of a 10-item list, on brief connections (whose
        // confirms do not carry the list): a long list costs an edit no more than a short one.
        let listd = try ListdUnderTest("long-list")
        let setup = try listd.connect()
        createList(setup, "Short", items: 10)
        createList(setup, "Long", items: 10_000)
        let brief = #"{"jsonrpc":"2.0","id":0,"method":"hello","params":{"brief":true}}"#
        func rate(list: Int) -> Stat {
            Stat(
                (0..<3).map { _ in
                    measureEdits(listd.socket, clients: 8, greeting: brief) { client, index in
                        let method = index % 2 == 0 ? "addItem" : "removeItem"
                        return
                            #"{"jsonrpc":"2.0","id":\#(index),"method":"\#(method)","params":{"list":\#(list),"item":"client \#(client)"}}"#
                    }.perSecond
                }
            )
        }
        let short = rate(list: 1)
        let long = rate(list: 2)
        report(
            "durable edits/s on a 10,000-item list, 8 brief clients, 10-item list as baseline",
            "any",
            "edits/s",
            listd: long,
            baseline: short,
            target: "≥ 0.9× the 10-item list (issue 38)",
            met: long.median >= 0.9 * short.median
        )
    }
    do {
        let pingpongSocket = "\(work)/pingpong-throughput.sock"
        let pingpong = try Child("\(baselines)/pingpong", [pingpongSocket])
        try waitForSocket(pingpongSocket)
        let listd = try ListdUnderTest("throughput")
        try createList(listd.connect(), "Busy")
        for clients in [1, 8, 64] {
            let durable = Stat((0..<3).map { _ in editsPerSecond(listd.socket, clients: clients) })
            let plain = Stat((0..<3).map { _ in editsPerSecond(pingpongSocket, clients: clients) })
            report(
                "durable edits/s, \(clients) client\(clients == 1 ? "" : "s")",
                "any",
                "edits/s",
                listd: durable,
                baseline: plain,
                target: clients == 64 ? "≥ 50,000/s" : "",
                met: clients == 64 ? durable.median >= 50_000 : nil
            )
        }
        pingpong.stop()
    }
}
