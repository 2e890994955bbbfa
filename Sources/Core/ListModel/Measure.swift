/// What reads as a count or a measure written before or after an item's name, as people write
/// them: `6`, `2 l`, `500g`, `1½ kg`, `1/2 cup`, `2x`, `x2`. One grammar, the same for listd,
/// listctl, the list file and the page (listd-web gives the page `Measure.units`, and the page's
/// reader is checked against this one on generated texts in a browser test).
///
/// It reads Unicode scalars, not characters, so that a browser reading code points agrees; it
/// only ever matches ASCII digits and letters, the fraction characters and `×`.
public enum Measure {
    /// Units a number may carry, attached (`500g`) or after one space (`500 g`), matched without
    /// regard to ASCII case. `x` and `×` make a count of packs: `2x`, `2 x`.
    public static let units: Set<String> = [
        "g", "gr", "kg", "mg", "l", "ml", "cl", "dl", "lb", "lbs", "oz", "pt", "qt", "gal",
        "tsp", "tbsp", "cup", "cups", "m", "cm",
        "x", "×", "pc", "pcs", "piece", "pieces", "pack", "packs", "pk", "packet", "packets",
        "bag", "bags", "box", "boxes", "can", "cans", "tin", "tins", "jar", "jars", "bottle", "bottles",
        "carton", "cartons", "bunch", "bunches", "head", "heads", "loaf", "loaves", "dozen", "doz",
        "slice", "slices", "roll", "rolls", "tub", "tubs", "pot", "pots", "clove", "cloves", "bar", "bars",
    ]

    /// The fraction characters a number may be or end with: `½`, `1½`.
    public static let fractions: Set<Unicode.Scalar> = Set("½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞".unicodeScalars)

    /// Where the number starting at `start` ends: digits with a decimal part (`1.5`, `1,5`), a
    /// fraction (`1/2`), or digits and a fraction character (`1½`, `½`); nil: no number there.
    static func numberEnd(_ text: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index < text.count, isDigit(text[index]) { index += 1 }
        if index < text.count, fractions.contains(text[index]) { return index + 1 }
        guard index > start else { return nil }
        // `1.5`, `1,5`, `1/2`: the mark counts only with a digit after it.
        if index + 1 < text.count, [".", ",", "/"].contains(text[index]), isDigit(text[index + 1]) {
            index += 1
            while index < text.count, isDigit(text[index]) { index += 1 }
        }
        return index
    }

    /// Where the unit starting at `start` ends, when one is there and ends at `end` or a space.
    static func unitEnd(_ text: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        if index < text.count, text[index] == "×" { index += 1 } else {
            while index < text.count, isLetter(text[index]) { index += 1 }
        }
        guard index > start, index == text.count || text[index] == " " else { return nil }
        let word = String(String.UnicodeScalarView(text[start..<index])).lowercased()
        return units.contains(word) ? index : nil
    }

    /// The measures that start at `start`, longest first, each as the index it ends at: a number
    /// with its unit after one space, attached, or alone (when `bare`); `x2` / `×2`.
    static func measureEnds(_ text: [Unicode.Scalar], from start: Int, bare: Bool) -> [Int] {
        guard start < text.count else { return [] }
        if isTimes(text[start]) {
            var index = start + 1
            while index < text.count, isDigit(text[index]) { index += 1 }
            return index > start + 1 && (index == text.count || text[index] == " ") ? [index] : []
        }
        guard let number = numberEnd(text, from: start) else { return [] }
        var ends: [Int] = []
        if number < text.count, text[number] == " ", let unit = unitEnd(text, from: number + 1) { ends.append(unit) }
        if let unit = unitEnd(text, from: number) { ends.append(unit) }
        if bare, number == text.count || text[number] == " " { ends.append(number) }
        return ends
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }

    static func isTimes(_ scalar: Unicode.Scalar) -> Bool { scalar == "x" || scalar == "X" || scalar == "×" }
}
