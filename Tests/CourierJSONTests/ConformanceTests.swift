// JSONTestSuite (github.com/nst/JSONTestSuite) test_parsing: every y_ file accepted, every n_
// file rejected, every i_ file decided as recorded below (and in docs/json.md). The data is not
// in the repository: it is read from ../shared/data/JSONTestSuite/test_parsing beside the package
// root (or from $COURIER_JSONTESTSUITE), and the tests show as skipped when that folder does not
// exist.
//
// Reading files needs Foundation; tests may import it (Sources/ may not).

import Foundation
import Testing
@testable import CourierJSON

/// COURIER_JSONTESTSUITE names the folder when the checkout is elsewhere (a worktree).
private let suiteDirectory: URL = ProcessInfo.processInfo.environment["COURIER_JSONTESTSUITE"].map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // CourierJSONTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("../shared/data/JSONTestSuite/test_parsing")
    .standardizedFileURL

private let suiteExists: Bool = FileManager.default.fileExists(atPath: suiteDirectory.path)

/// The implementation-defined cases and Courier's decision: true = accepted.
/// Numbers are kept as text, so no number is out of range for the parser (accessors return nil
/// where a binary type cannot hold the value). Strings must be well-formed Unicode: lone or
/// inverted surrogate escapes and every ill-formed UTF-8 sequence are rejected. Input must be
/// UTF-8 without a byte order mark (RFC 8259 §8.1). 500 levels of nesting are within the 512 limit.
let implementationDefinedDecisions: [String: Bool] = [
    "i_number_double_huge_neg_exp.json": true,
    "i_number_huge_exp.json": true,
    "i_number_neg_int_huge_exp.json": true,
    "i_number_pos_double_huge_exp.json": true,
    "i_number_real_neg_overflow.json": true,
    "i_number_real_pos_overflow.json": true,
    "i_number_real_underflow.json": true,
    "i_number_too_big_neg_int.json": true,
    "i_number_too_big_pos_int.json": true,
    "i_number_very_big_negative_int.json": true,
    "i_object_key_lone_2nd_surrogate.json": false,
    "i_string_1st_surrogate_but_2nd_missing.json": false,
    "i_string_1st_valid_surrogate_2nd_invalid.json": false,
    "i_string_UTF-16LE_with_BOM.json": false,
    "i_string_UTF-8_invalid_sequence.json": false,
    "i_string_UTF8_surrogate_U+D800.json": false,
    "i_string_incomplete_surrogate_and_escape_valid.json": false,
    "i_string_incomplete_surrogate_pair.json": false,
    "i_string_incomplete_surrogates_escape_valid.json": false,
    "i_string_invalid_lonely_surrogate.json": false,
    "i_string_invalid_surrogate.json": false,
    "i_string_invalid_utf-8.json": false,
    "i_string_inverted_surrogates_U+1D11E.json": false,
    "i_string_iso_latin_1.json": false,
    "i_string_lone_second_surrogate.json": false,
    "i_string_lone_utf8_continuation_byte.json": false,
    "i_string_not_in_unicode_range.json": false,
    "i_string_overlong_sequence_2_bytes.json": false,
    "i_string_overlong_sequence_6_bytes.json": false,
    "i_string_overlong_sequence_6_bytes_null.json": false,
    "i_string_truncated-utf-8.json": false,
    "i_string_utf16BE_no_BOM.json": false,
    "i_string_utf16LE_no_BOM.json": false,
    "i_structure_500_nested_arrays.json": true,
    "i_structure_UTF-8_BOM_empty_object.json": true,
]

private func suiteFiles(prefix: String) throws -> [(name: String, bytes: [UInt8])] {
    let names = try FileManager.default.contentsOfDirectory(atPath: suiteDirectory.path)
        .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }
        .sorted()
    return try names.map { name in
        (name, [UInt8](try Data(contentsOf: suiteDirectory.appendingPathComponent(name))))
    }
}

/// Small files also go through every prefix, trailing bytes and the round trip.
private let exhaustiveCheckLimit = 4_096

@Suite("JSONTestSuite test_parsing", .enabled(if: suiteExists, "../shared/data/JSONTestSuite/test_parsing not found"))
struct ConformanceTests {
    @Test func everyYFileIsAccepted() throws {
        let files = try suiteFiles(prefix: "y_")
        #expect(files.count > 90)
        for (name, bytes) in files {
            let outcome = parseOutcome(bytes)
            #expect(outcome.error == nil, "\(name): \(outcome)")
            if bytes.count <= exhaustiveCheckLimit { checkAllWays(bytes) }
            #expect(sanitizerDisagreement(bytes) == nil, "\(name)")
        }
    }

    @Test func everyNFileIsRejected() throws {
        let files = try suiteFiles(prefix: "n_")
        #expect(files.count > 150)
        for (name, bytes) in files {
            let outcome = parseOutcome(bytes)
            #expect(outcome.error != nil, "\(name) was accepted: \(outcome)")
            if bytes.count <= exhaustiveCheckLimit { checkAllWays(bytes) }
            #expect(sanitizerDisagreement(bytes) == nil, "\(name)")
        }
    }

    @Test func everyIFileIsDecidedAsDocumented() throws {
        let files = try suiteFiles(prefix: "i_")
        #expect(Set(files.map(\.name)) == Set(implementationDefinedDecisions.keys), "the i_ files changed: update the table and docs/json.md")
        for (name, bytes) in files {
            guard let accepted = implementationDefinedDecisions[name] else { continue }
            let outcome = parseOutcome(bytes)
            #expect((outcome.error == nil) == accepted, "\(name): \(outcome)")
            if bytes.count <= exhaustiveCheckLimit { checkAllWays(bytes) }
            #expect(sanitizerDisagreement(bytes) == nil, "\(name)")
        }
    }

    @Test func sanitizerAgreesOnEveryYFile() throws {
        // The agreement the task requires, stated on its own: compact write of the null-removed
        // tree == streaming output, for every y_ file.
        for (name, bytes) in try suiteFiles(prefix: "y_") {
            let tree = try JSONParser(removesNullValues: true).parse(bytes)
            #expect(JSONWriter.write(tree) == (try JSONNullSanitizer.sanitize(bytes)), "\(name)")
        }
    }
}
