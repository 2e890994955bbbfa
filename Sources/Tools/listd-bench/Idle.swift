// Figure 6. Idle (bench/README.md).
import Foundation
import Glibc

func measureIdle() throws {
    do {
        let listd = try ListdUnderTest("idle", extra: ["--max-connections", "20000"])
        let idle = try subscribers(listd.socket, count: 100, request: subscribeRequest)
        // Idle means after start-up's work is done: libdispatch lets a worker thread go some seconds
        // after its last job (strace: the exits come 3–5 s after the subscriptions, and nothing else
        // wakes listd), and that tail is not what an idle listd costs.
        sleep(6)
        let switchesBefore = contextSwitches(listd.child.pid)
        let idleCPU = Stat([ms(cpuTimeOver(seconds: 10, of: listd.child.pid))])
        let wakeUps = Double(contextSwitches(listd.child.pid) - switchesBefore)
        report(
            "wake-ups (context switches) over 10 s idle, 100 subscribers",
            "any",
            "",
            listd: Stat([wakeUps]),
            target: "none periodic (< 5)",
            met: wakeUps < 5
        )
        report(
            "CPU over 10 s idle, 100 subscribers",
            "any",
            "ms",
            listd: idleCPU,
            target: "≤ 0.5 ms",
            met: idleCPU.median <= 0.5
        )
        _ = idle

        let before = residentKiB(of: listd.child.pid)
        let many = try subscribers(listd.socket, count: 10_000, request: subscribeRequest)
        usleep(500_000)
        let perSubscriber = Double(max(0, residentKiB(of: listd.child.pid) - before)) / Double(many.count)
        report(
            "memory per idle subscriber (10,000 connected)",
            "any",
            "KiB",
            listd: Stat([perSubscriber]),
            target: "≤ 16 KiB",
            met: perSubscriber <= 16
        )
    }
}
