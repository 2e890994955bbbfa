// What the ListModel tests share: two instants, a client, a book to start from, and a way to
// catch a typed denial.
import ListModel

let t0 = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000)
let t1 = Timestamp(millisecondsSinceEpoch: 1_700_000_005_000)
let me = ChangeOrigin.client(pid: 42, uid: 1000, name: "test")

/// A book with "Groceries" (these items) at revision 1.
func groceries(_ items: [String] = ["milk", "eggs"]) throws -> ListBook {
    var book = ListBook()
    _ = try book.apply(.createList(name: "Groceries", items: items), at: t0, origin: me)
    return book
}

/// The error `body` threw, or nil.
func denial(_ body: () throws(ListError) -> Void) -> ListError? {
    do throws(ListError) {
        try body()
        return nil
    } catch {
        return error
    }
}
