/// An item with its amount as people write it, in the list file and on listctl's command line:
/// `milk (2 l)` is the item "milk" with the amount "2 l"; `milk (organic)` is the item
/// "milk (organic)". An item whose own text ends in a parenthesis that would read as an amount is
/// written with the parenthesis escaped the Markdown way (`batteries \(4)`), and read back as that
/// text: `split(join(text, amount)) == (text, amount)` for every valid text and amount.
public enum ItemAmount {
    /// The item's text and its amount, from what follows an item line's bullet and box.
    public static func split(_ written: String) -> (text: String, quantity: String?) {
        let trimmed = ListText.trimmed(written)
        guard let group = trailingGroup(of: trimmed) else { return (trimmed, nil) }
        if group.escaped { return (unescaped(trimmed), nil) }
        let before = ListText.trimmed(String(trimmed[..<group.open]))
        // `(4)` alone is an item, not an amount of nothing.
        guard !before.isEmpty else { return (trimmed, nil) }
        return (unescaped(before), group.quantity)
    }

    /// What an item line says after its bullet and box: the text, escaped when it would read as
    /// having an amount, then ` (amount)`.
    public static func join(_ text: String, _ quantity: String?) -> String {
        var written = text
        if let group = trailingGroup(of: text), group.escaped || !ListText.trimmed(String(text[..<group.open])).isEmpty {
            written.insert("\\", at: group.open)
        }
        guard let quantity else { return written }
        return written + " (" + quantity + ")"
    }

    /// A final `(…)` whose content is an amount (its own parentheses paired: `12 (large)`);
    /// `escaped` when a backslash comes right before its `(`.
    private static func trailingGroup(of text: String) -> (open: String.Index, quantity: String, escaped: Bool)? {
        guard text.hasSuffix(")") else { return nil }
        // The `(` that the final `)` closes.
        var depth = 0
        var found: String.Index?
        var index = text.endIndex
        while index > text.startIndex {
            index = text.index(before: index)
            if text[index] == ")" { depth += 1 }
            if text[index] == "(" {
                depth -= 1
                if depth == 0 {
                    found = index
                    break
                }
            }
        }
        guard let open = found else { return nil }
        let content = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard ListText.isQuantity(content),
            case .success(let quantity) = ListText.validatedQuantity(String(content)),
            quantity == content
        else { return nil }
        let escaped = open > text.startIndex && text[text.index(before: open)] == "\\"
        return (escaped ? text.index(before: open) : open, quantity, escaped)
    }

    /// `text` with the backslash of an escaped final amount-like parenthesis taken out.
    private static func unescaped(_ text: String) -> String {
        guard let group = trailingGroup(of: text), group.escaped else { return text }
        var text = text
        text.remove(at: group.open)
        return text
    }
}
