// Issue 63, case 4: refusals were drawn where the list is, not where the person is — a duplicate
// typed at the bottom of a 200-item list was refused 9,680 px up; old warnings stayed for days;
// texts overlapped at 360 px. In Chromium at 360×780 with the real listd and listd-web.
import Foundation
import Glibc
import Testing

extension WebPageTests {
    /// Every visible piece of text on the page, as rectangles, and the pairs of different
    /// elements whose text overlaps.
    static let overlaps = """
        const boxes = [];
        const footer = document.querySelector('footer');
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
          const node = walker.currentNode;
          const parent = node.parentElement;
          // Text a person can see: not in a screen reader's 1-px box, not under the fixed footer.
          if (!node.textContent.trim() || !parent || !parent.checkVisibility() || parent.getBoundingClientRect().width <= 1) continue;
          const range = document.createRange(); range.selectNodeContents(node);
          for (const r of range.getClientRects()) {
            if (r.width <= 0 || r.height <= 0 || r.bottom < 0 || r.top > window.innerHeight) continue;
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            if (top && footer.contains(top) && !footer.contains(parent)) continue;
            boxes.push({ r, node, text: node.textContent.trim().slice(0, 30) });
          }
        }
        const hit = [];
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i], b = boxes[j];
          if (a.node === b.node) continue;
          const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
          const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
          if (x > 1 && y > 1) hit.push(a.text + ' × ' + b.text);
        }
        return hit
        """

    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func aRefusalIsShownWhereThePersonActedAndOldOnesFold() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            let long = "a very long item name that wraps onto a second line on a phone screen"
            let items = (1...200).map { "item \($0)" } + [long]
            #expect(try listctl(["create", "Groceries"] + items, socket: socket).status == 0)
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser(width: 360, height: 780)
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the page", Self.live(showing: "item 200"))

            // At the bottom of the list, "item 150" typed again with an amount: refused beside the
            // form, in view, with its action — not at item 150's row, far up.
            try browser.run("window.scrollTo(0, document.body.scrollHeight); return true")
            try browser.run(
                "const f = document.querySelector('form[data-add]'); f.item.value = 'item 150'; f.quantity.value = '2'; f.requestSubmit(); return true"
            )
            try browser.waitUntil("the refusal by the form", "return !!document.querySelector('#form-notices .problem')")
            let notice = try browser.run(
                """
                const p = document.querySelector('#form-notices .problem').getBoundingClientRect();
                const form = document.querySelector('form[data-add]').getBoundingClientRect();
                return [p.top >= 0 && p.bottom <= form.top + 1, document.querySelector('#form-notices .problem').textContent,
                        !!document.querySelector('[data-row=\"item 150\"] .problem')]
                """
            ) as? [Any] ?? []
            #expect(notice.first as? Bool == true, "in view, above the form: \(notice)")
            #expect((notice[safe: 1] as? String)?.contains("Set its amount to 2") == true, "with its action: \(notice)")
            #expect(notice[safe: 2] as? Bool == false, "not at the row")
            // The last row is not under the footer, now taller.
            let hidden = try browser.run(
                """
                window.scrollTo(0, document.body.scrollHeight);
                const last = [...document.querySelectorAll('li.item')].pop().getBoundingClientRect();
                return last.bottom - document.querySelector('footer').getBoundingClientRect().top
                """
            ) as? Double ?? 99
            #expect(hidden <= 0, "the last row is \(hidden) px under the footer")

            // No text over other text: a refusal with its choices, rows waiting to be sent, a
            // long name being removed — in light and in dark.
            try browser.network(online: false)
            try browser.waitUntil("offline", "return document.getElementById('status').textContent.startsWith('Offline')")
            try browser.click("[data-remove='\(long)']")
            try browser.click("[data-tick='item 200']")
            for dark in [false, true] {
                try browser.colorScheme(dark: dark)
                for scroll in ["0", "document.body.scrollHeight"] {
                    try browser.run("window.scrollTo(0, \(scroll)); return true")
                    let hits = try browser.run(Self.overlaps) as? [String] ?? ["?"]
                    #expect(hits == [], "overlapping text (dark: \(dark)): \(hits.prefix(5))")
                }
            }
            try browser.network(online: true)
            try browser.waitUntil("live", timeout: 20, "return document.getElementById('status').textContent === 'Live'")

            // Read (on screen for a while) or a day old, a warning folds into Recent.
            try browser.run(
                """
                READ_AFTER = 300;
                state.problems.push({ id: 'old', list: 1, item: null, message: 'an old warning', made: Date.now() - 2 * 86400000 });
                render(); return true
                """
            )
            try browser.waitUntil(
                "every warning folded into Recent",
                timeout: 10,
                "return !document.querySelector('.problem') && [...document.querySelectorAll('#recent-changes li')].some(l => l.textContent.includes('an old warning')) && [...document.querySelectorAll('#recent-changes li')].some(l => l.textContent.includes('item 150'))"
            )
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
