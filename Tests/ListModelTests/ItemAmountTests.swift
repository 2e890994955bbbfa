// Amounts as people write them (issue 63, case 1): the forms read, the escapes, and the two
// promises checked on generated texts, each failure shrunk before it is reported.
import Testing

@testable import ListModel

struct ItemAmountTests {
    @Test(arguments: [
        // Before the item, after it, in parentheses.
        ("2 l milk", "milk", "2 l"),
        ("milk 2 l", "milk", "2 l"),
        ("6 eggs", "eggs", "6"),
        ("6 free-range eggs", "free-range eggs", "6"),
        ("bread x2", "bread", "x2"),
        ("2x bread", "bread", "2x"),
        ("500 g flour", "flour", "500 g"),
        ("500g flour", "flour", "500g"),
        ("flour 1½ kg", "flour", "1½ kg"),
        ("½ cup sugar", "sugar", "½ cup"),
        ("1/2 cup sugar", "sugar", "1/2 cup"),
        ("Coke Zero 1.5 l", "Coke Zero", "1.5 l"),
        ("eggs (12)", "eggs", "12"),
        ("eggs (12 (large))", "eggs", "12 (large)"),
        // Any text in parentheses is kept, as a note.
        ("rice (a few bags)", "rice", "a few bags"),
        ("milk (organic)", "milk", "organic"),
        // What is not a count or measure stays the item.
        ("2 lemons", "lemons", "2"),
        ("2 bags of rice", "bags of rice", "2"),
        ("7up", "7up", nil),
        ("2x4 timber", "2x4 timber", nil),
        ("100% juice", "100% juice", nil),
        ("vitamin B12", "vitamin B12", nil),
        ("A4 paper", "A4 paper", nil),
        ("(4)", "(4)", nil),
        ("6", "6", nil),
        // Escapes keep what would be an amount in the item's text.
        ("\\7 up", "7 up", nil),
        ("flour \\500g", "flour 500g", nil),
        // A number alone after the item is part of its name.
        ("size 4", "size 4", nil),
        ("item 12", "item 12", nil),
        ("milk \\2 l", "milk 2 l", nil),
        ("batteries \\(4)", "batteries (4)", nil),
        ("batteries \\(4) (2)", "batteries (4)", "2"),
        ("a \\\\(4)", "a \\(4)", nil),
        ("tape (2 (3)", "tape (2", "3"),
    ] as [(String, String, String?)])
    func readsAsWritten(_ written: String, _ text: String, _ quantity: String?) {
        let reading = ItemAmount.read(written)
        #expect(reading.text == text)
        #expect(reading.quantity == quantity)
        #expect(reading.written == written)
        let again = ItemAmount.split(ItemAmount.join(text, quantity))
        #expect(again.text == text && again.quantity == quantity, "written back as \(ItemAmount.join(text, quantity))")
    }

    @Test func aChangedAmountKeepsTheFormItWasWrittenIn() {
        #expect(ItemAmount.join("milk", "3 l", like: ItemAmount.read("2 l milk")) == "3 l milk")
        #expect(ItemAmount.join("bread", "x3", like: ItemAmount.read("bread x2")) == "bread x3")
        // A note cannot stand before the item: it goes in parentheses.
        #expect(ItemAmount.join("milk", "organic", like: ItemAmount.read("2 l milk")) == "milk (organic)")
    }

    @Test func anAmountIsNotRefusedForNotBeingANumber() {
        #expect(ListText.validatedQuantity("a few bags") == .success("a few bags"))
        #expect(ListText.validatedQuantity("12 (large") == .failure(.unbalancedParentheses))
    }

    /// Every text reads and prints back to itself, and every text and amount listd accepts is
    /// written so that it reads back the same — in the canonical form and in a person's form.
    @Test func everyTextPrintsBackAndEveryPairReadsBack() {
        var random = Generator(seed: 63)
        var checked = 0
        for _ in 0..<30_000 {
            let typed = random.text()
            guard case .success(let text) = ListText.validated(typed) else { continue }
            if let failure = Self.printBackFailure(text) {
                let small = Self.shrunk(text, while: { Self.printBackFailure($0) != nil })
                Issue.record("\(Self.scalars(small)) \(Self.printBackFailure(small) ?? failure)")
                return
            }
            var amount: String?
            if random.next(3) != 0 {
                guard case .success(let accepted) = ListText.validatedQuantity(random.text()) else { continue }
                amount = accepted
            }
            let like = ItemAmount.read(random.text())
            if let failure = Self.pairFailure(text, amount, like: like) {
                let small = Self.shrunk(text, while: { Self.pairFailure($0, amount, like: like) != nil })
                let failing = Self.pairFailure(small, amount, like: like) ?? failure
                Issue.record("\(Self.scalars(small)) (\(Self.scalars(amount ?? ""))) like \(Self.scalars(like.written)): \(failing)")
                return
            }
            checked += 1
        }
        #expect(checked > 10_000)
    }

    /// The shortcut that skips most names skips no text the full reading finds something in.
    @Test func theShortcutSkipsNothingTheReadingFinds() {
        var random = Generator(seed: 1_000)
        for _ in 0..<30_000 {
            let text = random.text()
            let fast = ItemAmount.read(text, shortcut: true)
            let full = ItemAmount.read(text, shortcut: false)
            if fast != full {
                let small = Self.shrunk(text, while: { ItemAmount.read($0, shortcut: true) != ItemAmount.read($0, shortcut: false) })
                Issue.record("\(Self.scalars(small)): the shortcut reads \(ItemAmount.read(small, shortcut: true)), the reading \(ItemAmount.read(small, shortcut: false))")
                return
            }
        }
        for name in ["item 12", "Coke Zero", "free-range eggs", "milk"] {
            #expect(!ItemAmount.mayHaveAmount(name), "\(name) is read without more work")
        }
    }

    static func printBackFailure(_ text: String) -> String? {
        guard case .success(let text) = ListText.validated(text) else { return nil }
        let reading = ItemAmount.read(text)
        return reading.written == text ? nil : "printed back as “\(reading.written)”"
    }

    static func pairFailure(_ text: String, _ amount: String?, like: ItemAmount.Reading) -> String? {
        guard case .success(let text) = ListText.validated(text) else { return nil }
        for written in [ItemAmount.join(text, amount), ItemAmount.join(text, amount, like: like)] {
            let read = ItemAmount.split(written)
            if read.text != text || read.quantity != amount { return "written as “\(written)”, read as “\(read.text)” (\(read.quantity ?? "none"))" }
        }
        return nil
    }

    static func scalars(_ text: String) -> String {
        "“\(text)” [" + text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") + "]"
    }

    /// The shortest text found by taking out one character at a time that still fails.
    static func shrunk(_ text: String, while fails: (String) -> Bool) -> String {
        var smallest = Array(text.unicodeScalars)
        var progress = true
        while progress {
            progress = false
            for index in smallest.indices.reversed() {
                var smaller = smallest
                smaller.remove(at: index)
                if fails(String(String.UnicodeScalarView(smaller))) {
                    smallest = smaller
                    progress = true
                }
            }
        }
        return String(String.UnicodeScalarView(smallest))
    }

    /// Texts made of the pieces amounts are made of, so that most are near an amount.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }

        static let pieces = [
            "2", "12", "1.5", "1,5", "1/2", "½", "1½", " ", " ", " ", "  ", "l", "g", "kg", "x", "×", "X",
            "cups", "of", "bags", "milk", "eggs", "a", "(", ")", "\\", "\\", "é", "\u{301}", "\u{A0}", "-", ".",
        ]

        mutating func text() -> String {
            (0..<(1 + next(7))).map { _ in Self.pieces[next(Self.pieces.count)] }.joined()
        }
    }
}
