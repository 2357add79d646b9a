// The CourierJSON catalog's landing page (Sources/CourierJSON/CourierJSON.docc/CourierJSON.md),
// compiled and run: the block between `// doc: FILE N` and `// end doc` is the page's Nth swift
// block, line for line (scripts/check-doc-examples); what follows it checks what its comments say.

import CourierJSON
import Testing

@Suite struct CourierJSONDocCTests {
    @Test("the CourierJSON catalog's example 1 compiles and runs")
    func example1() throws {
        // doc: Sources/CourierJSON/CourierJSON.docc/CourierJSON.md 1

        struct Item: Codable, Sendable { let id: Int; let tags: [String] }

        let value = try JSONParser().parse(#"{"id": 7, "tags": ["a", "b"], "note": null}"#)
        print(value["id"]?.numberValue?.int64 ?? 0, value["tags"]?[1]?.stringValue ?? "")   // 7 b
        let item = try CourierJSONDecoder().decode(Item.self, from: #"{"id": 7, "tags": ["a"]}"#)
        print(JSONWriter.string(try CourierJSONEncoder().encodeToJSONValue(item), options: .sortedKeys))
        let clean = try JSONNullSanitizer().sanitize(Array(#"{"a":1,"b":null}"#.utf8))
        print(String(decoding: clean, as: UTF8.self))                                       // {"a":1}
        // end doc
        #expect(value["id"]?.numberValue?.int64 == 7 && value["tags"]?[1]?.stringValue == "b")
        #expect(item.tags == ["a"] && String(decoding: clean, as: UTF8.self) == #"{"a":1}"#)
    }
}
