// Freeing deep trees: a JSONValue 100,000 levels deep (possible when a caller raises the depth
// limit) is released without recursion — on a task of the cooperative pool, whose threads have
// small stacks, where a recursive release failed after a few thousand levels.

import Testing
@testable import CourierJSON

@Test func aDeepParsedTreeIsFreedWithoutRecursion() async throws {
    let depth = 100_000
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
    let limits = JSONParser.Limits(maxDepth: depth)
    try await Task.detached {
        for input in [text, objects] {
            var value: JSONValue? = try JSONParser(limits: limits).parse(input)
            #expect(value?.arrayValue != nil || value?.objectValue != nil)
            value = nil
            #expect(value == nil)
            // The same through a document and its conversion.
            let document = try JSONDocument(parsing: input, options: .init(limits: limits))
            var tree: JSONValue? = JSONValue(document.root)
            #expect(tree != nil)
            tree = nil
        }
    }.value
}

@Test func aDeepBuiltTreeIsFreedWithoutRecursion() async {
    await Task.detached {
        var value: JSONValue = 1
        for level in 0..<100_000 {
            value = level % 2 == 0 ? .array([value, "x"]) : .object(["k": value, "n": nil])
        }
        // A copy shares the boxes; dropping one copy frees nothing, dropping the last frees all.
        var copy: JSONValue? = value
        value = .null
        #expect(copy?.isContainer == true)
        copy = nil
    }.value
}

@Test func sharedSubtreesSurviveTheTeardown() {
    let shared: JSONValue = ["deep": [[1, 2], ["x": [3]]]]
    var outer: JSONValue? = [shared, shared, ["again": shared]]
    outer = nil
    #expect(JSONWriter.string(shared) == #"{"deep":[[1,2],{"x":[3]}]}"#)
    var array = JSONArray([1, 2, 3])
    let copy = array
    array[0] = "changed"
    array.append(4)
    #expect(copy == [1, 2, 3])
    #expect(array == ["changed", 2, 3, 4])
    #expect(outer == nil)
}
