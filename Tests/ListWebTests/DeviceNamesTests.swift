// Issue 61, case 7: device names could hold zero-width, right-to-left and look-alike
// characters. What may name a device, and when two names are one.
@testable import ListWeb
import Testing

@Suite struct DeviceNamesTests {
    @Test func namesPeopleGiveAreKept() {
        for name in ["Kitchen phone", "Анин телефон", "الهاتف", "台所のスマホ", "Zoë's tablet", "👩‍👧 family iPad", "❤️ phone"] {
            #expect(DeviceNames.validated(name) == .success(name), "\(name)")
        }
        #expect(DeviceNames.validated("  Kitchen phone ") == .success("Kitchen phone"))
        // Canonical form: an e with a combining acute is one é.
        #expect(DeviceNames.validated("Rene\u{301}e") == .success("Ren\u{E9}e"))
    }

    @Test func invisibleAndDirectionCharactersAreRefused() {
        let refused: [(String, UInt32)] = [
            ("Kitchen\u{200B}phone", 0x200B),  // zero-width space
            ("Kitchen\u{200D}phone", 0x200D),  // a joiner outside an emoji
            ("Kitchen\u{2060}phone", 0x2060),  // word joiner
            ("\u{202E}enohp nehctiK", 0x202E),  // right-to-left override
            ("Phone\u{2066}x\u{2069}", 0x2066),  // an isolate
            ("\u{FEFF}Phone", 0xFEFF),  // byte order mark
            ("Phone\u{E000}", 0xE000),  // private use
            ("Phone\u{7}", 0x7),
            ("Phone\u{2028}two", 0x2028),
        ]
        for (name, scalar) in refused {
            #expect(DeviceNames.validated(name) == .failure(.invisible(scalar)), "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(DeviceNames.validated("   ") == .failure(.empty))
        #expect(DeviceNames.validated(String(repeating: "a", count: 101)) == .failure(.tooLong))
        #expect(DeviceNames.validated(String(repeating: "a", count: 100)) == .success(String(repeating: "a", count: 100)))
    }

    @Test func namesThatDifferOnlyInCaseWidthOrSpacesAreOne() {
        let key = DeviceNames.key("Kitchen phone")
        for same in ["kitchen PHONE", "Ｋｉｔｃｈｅｎ phone", "Kitchen\u{A0}phone", "Kitchen   phone"] {
            #expect(DeviceNames.key(same) == key, "\(same)")
        }
        // A Cyrillic а is a letter of its own (said in docs/web.md): not folded.
        #expect(DeviceNames.key("Kitchen phone") != DeviceNames.key("Kitchen phone".replacingOccurrences(of: "e", with: "е")))
    }
}
