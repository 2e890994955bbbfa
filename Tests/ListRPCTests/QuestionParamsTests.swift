import Foundation
import ListModel
import ListRPC
import Testing

/// Issue 35, case 9: a brief delegate is asked every field a default one is, the list aside.
@Suite struct QuestionParamsTests {
    @Test func aBriefQuestionCarriesEveryFieldButTheListsItems() throws {
        var question = DelegateQuestionParams(
            list: ShoppingList(id: 1, name: "Groceries", edited: Timestamp(millisecondsSinceEpoch: 0), revision: 7, items: ["milk"]),
            name: nil,
            item: "milk",
            with: "butter",
            items: nil,
            origin: .file,
            revision: 7
        )
        question.op = "rename"
        question.section = "Dairy"
        question.to = "Milk"
        question.quantity = "2 l"
        func params(_ data: Data) throws -> [String: Any] {
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try #require(object["params"] as? [String: Any])
        }
        let whole = try params(RPCEncoding.request(id: .string("q1"), method: "shouldEditSection", params: question))
        let brief = try params(RPCEncoding.request(id: .string("q2"), method: "shouldEditSection", params: BriefQuestionParams(question)))
        #expect(Set(brief.keys) == Set(whole.keys), "\(brief)")
        for key in ["op", "section", "to", "quantity", "item", "with"] {
            #expect(brief[key] as? String == whole[key] as? String, "\(key)")
        }
        let list = try #require(brief["list"] as? [String: Any])
        #expect(list["items"] == nil && list["name"] as? String == "Groceries" && list["revision"] as? Int == 7)
    }
}
