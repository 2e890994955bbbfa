// An edit's confirm as a client reads it: the list, and whether the request changed anything now.
import ListModel
import ListRPC

/// An edit's confirm as a client reads it: the list (`ShoppingList`, or `ListSummary` on a brief
/// connection) and what the request did now (a fresh change, a resend, or nothing: `EditEffect`).
public struct ConfirmedEdit<List: Decodable & Sendable>: Decodable, Sendable {
    /// The list the edit left.
    public var list: List
    /// What the request did now: a fresh change, a resend of one made before, or nothing.
    public var effect: EditEffect

    public init(from decoder: any Decoder) throws {
        // Through the reply's decoder, which reads a list by hand when it is as listd writes it.
        list = try JSONValueDecoder.decode(List.self, from: decoder)
        effect = try EditEffect(from: decoder)
    }
}
