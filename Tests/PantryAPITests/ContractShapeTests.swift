import Foundation
@testable import PantryHTTP
import Testing

/// Rules openapi.yaml states that the API checks itself (schemathesis --checks all holds the two
/// to each other; these say why each case is what it is).
@Suite struct ContractShapeTests {
    @Test func queryValuesAreReadAsFormsWriteThem() throws {
        #expect(try QueryParameter.formValue("diet", in: "query=soup&diet=gluten+free") == "gluten free")
        #expect(try QueryParameter.formValue("diet", in: "diet=gluten%20free") == "gluten free")
        #expect(try QueryParameter.formValue("q", in: "q=1%2B1") == "1+1", "an encoded plus stays a plus")
        #expect(try QueryParameter.formValue("q", in: "q=a&q=b") == "a", "the first of two")
        #expect(try QueryParameter.formValue("q", in: "qq=a") == nil)
        #expect(try QueryParameter.formValue("q", in: "q") == "")
        #expect(try QueryParameter.formValue("q", in: nil) == nil)
        #expect(throws: Problem.self) { try QueryParameter.formValue("q", in: "q=%ZZ") }
    }

    @Test func registrationTakesEmailsAsTheContractSpellsThem() {
        for valid in ["anna@example.org", "a.b+c@mail.example.co.uk", "x@a-b.c", String(repeating: "a", count: 64) + "@e.org"] {
            #expect(AccountRoutes.hasContractShape(email: valid), "\(valid)")
        }
        for invalid in ["anna@example", "@example.org", "anna@@example.org", "an na@example.org", " anna@example.org",
                        "anna@exa_mple.org", "anna@example..org", "anna@.example.org", "anna@example.org.",
                        "änna@example.org", "anna@exämple.org", String(repeating: "a", count: 65) + "@e.org",
                        "a@" + String(repeating: "b", count: 250) + ".org"] {
            #expect(!AccountRoutes.hasContractShape(email: invalid), "\(invalid)")
        }
    }
}
