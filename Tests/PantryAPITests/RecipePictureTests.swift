import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import PantryHTTP
import Testing

@Suite struct RecipePictureTests {
    @Test("A drawn picture shows the dish's main ingredients, not its title again")
    func drawnPictureShowsMainIngredientsNotTheTitle() {
        let svg = RecipePicture.svg(title: "Shakshuka for Two",
                                    ingredients: ["salt", "Eggs", "olive oil", "tomatoes", "egg", "onion", "cumin"])
        let shown = texts(svg)
        #expect(shown == ["Eggs", "tomatoes", "onion"], "salt and oil are in every kitchen; egg is named once")
        #expect(!shown.joined().contains("Shakshuka"))
        #expect(svg.contains(#"aria-label="Shakshuka for Two""#), "the title stays its accessible name")
    }

    @Test("A recipe without a main ingredient gets a plate, with no text")
    func noMainIngredientIsAPlate() {
        let svg = RecipePicture.svg(title: "Hot Water", ingredients: ["water", "salt"])
        #expect(texts(svg).isEmpty)
        #expect(svg.contains("<circle"))
    }

    @Test("Ingredient names with markup characters stay text, and long ones are cut at a word")
    func namesAreEscapedAndShortened() {
        let svg = RecipePicture.svg(title: "T", ingredients: ["<script>&\"'", "boneless skinless chicken breast halves"])
        #expect(texts(svg) == ["<script>&\"'", "boneless skinless…"])
        #expect(!svg.contains("<script>"))
    }

    /// The text nodes of the picture, read back by an XML parser (so it must parse).
    private func texts(_ svg: String) -> [String] {
        let reader = TextReader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        return reader.texts
    }
}

private final class TextReader: NSObject, XMLParserDelegate {
    var texts: [String] = []
    private var inText = false

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "text" { inText = true; texts.append("") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { texts[texts.count - 1] += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" { inText = false }
    }
}
