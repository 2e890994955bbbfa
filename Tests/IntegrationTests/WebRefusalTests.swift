// Issue 63, case 6: edits lost from view. A queued edit for a list deleted meanwhile was refused
// ("There is no list with id 5") and never shown — the page showed refusals for the list on
// screen only; a list deleted while shown jumped to another list without a word.
import Foundation
import Glibc
import Testing

/// With the browser tests, one browser at a time.
extension WebPageTests {
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func everyRefusedQueuedEditIsShownWhateverItsList() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            #expect(try listctl(["create", "Groceries", "milk", "eggs"], socket: socket).status == 0)  // #1
            #expect(try listctl(["create", "Weekend", "wine"], socket: socket).status == 0)  // #2
            #expect(try listctl(["create", "Party", "chips"], socket: socket).status == 0)  // #3
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the paired page", Self.live(showing: "milk"))
            try browser.waitUntil("the service worker in charge", "return !!navigator.serviceWorker.controller")

            // Without signal: cheese added to Weekend, eggs ticked on Groceries; Party on screen.
            try browser.network(online: false)
            try browser.waitUntil("offline", "return document.getElementById('status').textContent.startsWith('Offline')")
            try browser.click("[data-list='2']")
            try browser.waitUntil("Weekend shown", "return !!document.querySelector('[data-tick=\"wine\"]')")
            try browser.run("const f = document.querySelector('form[data-add]'); f.item.value = 'cheese'; f.requestSubmit(); return true")
            try browser.click("[data-list='1']")
            try browser.waitUntil("Groceries shown", "return !!document.querySelector('[data-tick=\"eggs\"]')")
            try browser.click("[data-tick='eggs']")
            try browser.click("[data-list='3']")
            try browser.waitUntil("Party shown", "return !!document.querySelector('[data-tick=\"chips\"]')")

            // Meanwhile at home: Weekend deleted, eggs taken off.
            #expect(try listctl(["delete", "Weekend"], socket: socket).status == 0)
            #expect(try listctl(["remove", "Groceries", "eggs"], socket: socket).status == 0)

            // Signal again: both refused. On Party, the gone list's refusal is shown whole, with
            // its list's name; Groceries' is counted, with a way there.
            try browser.network(online: true)
            try browser.waitUntil("the queue sent", timeout: 20, "return document.getElementById('status').textContent === 'Live'")
            try browser.waitUntil(
                "the refusal for the deleted list shown on Party",
                "return [...document.querySelectorAll('.problem')].some(p => p.textContent.includes('cheese') && p.textContent.includes('“Weekend” was deleted meanwhile'))"
            )
            try browser.waitUntil(
                "Groceries' refusal counted on Party",
                "return [...document.querySelectorAll('.problem.elsewhere')].some(p => p.textContent.includes('A change on “Groceries” not made'))"
            )
            try browser.click(".problem.elsewhere button")
            try browser.waitUntil(
                "on Groceries, the tick's refusal",
                "return document.getElementById('title').textContent === 'Groceries' && [...document.querySelectorAll('.problem')].some(p => p.textContent.includes('eggs'))"
            )

            // A list deleted while it is shown says so, and by whom.
            try browser.click("[data-list='3']")
            try browser.waitUntil("Party shown", "return !!document.querySelector('[data-tick=\"chips\"]')")
            #expect(try listctl(["delete", "Party"], socket: socket).status == 0)
            try browser.waitUntil(
                "the deletion said",
                // By the person who ran listctl ("root (listctl)"), or "listctl" before the page
                // learned their name.
                "return [...document.querySelectorAll('.problem')].some(p => p.textContent.includes('“Party” was deleted by ') && /listctl\\)? while you had it open/.test(p.textContent))"
            )
            #expect(try browser.run("return document.getElementById('title').textContent") as? String == "Groceries")
        }
    }

    /// Issue 63, case 5: a household's rule that stopped went unnoticed ("birthday cake" was
    /// accepted from the phones, and no phone was told). The page says so once it hears the
    /// lists again (it subscribes at each load and each return to the screen).
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func aStoppedRuleIsSaidOnThePage() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            #expect(try listctl(["create", "Groceries", "milk"], socket: socket).status == 0)
            let script = try daemon.sandbox.script("no-sweets.sh", "grep -qi cake && { echo no sweets; exit 1; }\nexit 0\n")
            let rule = try ChildProcess(Binaries.listctl.path, ["--socket", socket, "delegate", "--name", "no-sweets", "--", script])
            #expect(try LineReader(rule.stdout).line().hasPrefix("Registered as delegate"))
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the paired page", Self.live(showing: "milk"))
            #expect(try browser.run("return !!document.querySelector('.problem.rule')") as? Bool == false)

            // Said as it stops, without a reload, and gone as it comes back.
            rule.signal(SIGKILL)
            rule.wait()
            try browser.waitUntil(
                "the stopped rule said",
                "const p = document.querySelector('.problem.rule'); return !!p && p.textContent.includes('The rule “no-sweets” is not running') && p.textContent.includes('its connection closed')"
            )
            let back = try ChildProcess(Binaries.listctl.path, ["--socket", socket, "delegate", "--name", "no-sweets", "--", script])
            defer { back.signal(SIGTERM) }
            #expect(try LineReader(back.stdout).line().hasPrefix("Registered as delegate"))
            try browser.waitUntil("the rule back, the notice gone", "return !document.querySelector('.problem.rule')")
        }
    }
}
