// Issue 63, case 7: the smaller points a household would mind, in Chromium at 360×780 with the
// real listd and listd-web.
import Foundation
import Glibc
import Testing

extension WebPageTests {
    @Test(.enabled(if: Requirement.runs(Browser.available, needing: needs)), .timeLimit(.minutes(3)))
    func theSmallerPointsOfTheShop() async throws {
        try Requirement.check(Browser.available, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            let socket = daemon.sandbox.socket
            for (name, item) in [("Groceries", "milk"), ("Weekend", "wine"), ("Pharmacy", "plasters"), ("Hardware store", "screws")] {
                #expect(try listctl(["create", name, item], socket: socket).status == 0)
            }
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Kitchen phone"))
            try browser.waitUntil("the paired page", Self.live(showing: "milk"))

            // Every list's button is in sight at 360 px (they wrap; none scrolls out of view).
            let outside = try browser.run(
                "return [...document.querySelectorAll('nav button')].filter(b => { const r = b.getBoundingClientRect(); return r.right > window.innerWidth || r.left < 0 || r.width === 0 }).map(b => b.textContent)"
            ) as? [String]
            #expect(outside == [], "buttons out of sight: \(String(describing: outside))")
            #expect(try browser.run("return document.querySelectorAll('nav button').length") as? Int == 4)

            // What the partner adds since the phone last left the list is marked new, until the
            // person leaves it again; the phone's own adds are not.
            try browser.click("[data-list='2']")
            try browser.click("[data-list='1']")
            #expect(try listctl(["add", "Groceries", "bread"], socket: socket).status == 0)
            try browser.waitUntil(
                "bread marked new",
                "const row = document.querySelector('[data-row=\"bread\"]'); return !!row && !!row.querySelector('.fresh')"
            )
            try browser.run("const f = document.querySelector('form[data-add]'); f.item.value = 'tea'; f.requestSubmit(); return true")
            try browser.waitUntil("tea confirmed", "const row = document.querySelector('[data-row=\"tea\"]'); return !!row && !row.classList.contains('pending')")

            // Recent names people, not programs: the user who ran listctl (by login name, with
            // the program), a phone by its name, a save of the file as the file (listd runs as a
            // system account here: root).
            let person = String(cString: getpwuid(getuid()).pointee.pw_name)
            let file = try daemon.sandbox.read(when: { $0.contains("tea") })
            try file.replacing("- [ ] tea\n", with: "- [ ] tea\n- [ ] honey\n").write(toFile: daemon.sandbox.file, atomically: false, encoding: .utf8)
            try browser.waitUntil(
                "each change in Recent by its person",
                """
                const lines = [...document.querySelectorAll('#recent-changes li')].map(li => li.textContent);
                return lines.some(l => l.startsWith('\(person) (listctl) added bread'))
                  && lines.some(l => l.startsWith('Kitchen phone added tea'))
                  && lines.some(l => l.startsWith('The list file added honey'))
                """
            )
            #expect(try browser.run("return !!document.querySelector('[data-row=\"tea\"] .fresh')") as? Bool == false, "its own add")
            #expect(try browser.run("return !!document.querySelector('[data-row=\"milk\"] .fresh')") as? Bool == false, "older")
            try browser.click("[data-list='2']")
            try browser.click("[data-list='1']")
            try browser.waitUntil("the mark gone once seen", "return !!document.querySelector('[data-row=\"bread\"]') && !document.querySelector('.fresh')")

            // Recent says the day of a change that was not today.
            let day = try browser.run(
                """
                const yesterday = new Date(Date.now() - 86400000).toISOString();
                state.recent.unshift({ revision: 999, list: { id: 1, name: 'Groceries' }, who: 'Anna’s phone', text: 'added jam', time: yesterday });
                render();
                return document.querySelector('#recent-changes time').textContent
                """
            ) as? String
            #expect(day?.hasPrefix("yesterday ") == true, "\(String(describing: day))")

            // The home-screen icon iOS asks for: a 180 px PNG.
            let icon = try browser.run(
                """
                const link = document.querySelector('link[rel="apple-touch-icon"]');
                if (!link) return 'no link';
                const image = new Image(); image.src = link.href;
                return image.decode().then(() => image.naturalWidth + 'x' + image.naturalHeight)
                """
            ) as? String
            #expect(icon == "180x180", "\(String(describing: icon))")

            // The pairing page's heading is seen.
            try browser.open(web.address + "/pair")
            try browser.waitUntil("the pairing page", "return !!document.querySelector('main h1')")
            let heading = try browser.run("const r = document.querySelector('main h1').getBoundingClientRect(); return [r.width, r.height]") as? [Double]
            #expect((heading?[0] ?? 0) > 100 && (heading?[1] ?? 0) > 10, "\(String(describing: heading))")
        }
    }
}
