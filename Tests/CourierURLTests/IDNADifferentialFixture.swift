// Converts the domain names scripts/idna-check generated, for it to compare with Python's
// `idna` package (and libidn2's idn2). Runs only when that script names a directory in
// COURIER_IDNA_DIFFERENTIAL; a plain `swift test` skips it visibly.
//
// input.txt: one domain name per line, its UTF-8 in hex. output.txt, line for line:
// "ok <ASCII form>" or "error <rule identifier> <label index>".
import Testing
import Glibc
@testable import CourierURL

private let differentialDirectory: String? = getenv("COURIER_IDNA_DIFFERENTIAL").map { String(cString: $0) }

@Suite(.enabled(if: differentialDirectory != nil, "needs scripts/idna-check"))
struct IDNADifferentialFixture {
    @Test func convertGeneratedNames() throws {
        let directory = differentialDirectory!
        let input = try #require(IdnaTestFile.readAll("\(directory)/input.txt"), "cannot read \(directory)/input.txt")
        var output = ""
        var count = 0
        for line in input.split(separator: UInt8(ascii: "\n")) {
            var bytes: [UInt8] = []
            var index = line.startIndex
            while index + 1 < line.endIndex {
                let pair = String(decoding: line[index...(index + 1)], as: UTF8.self)
                bytes.append(UInt8(pair, radix: 16)!)
                index += 2
            }
            let name = String(decoding: bytes, as: UTF8.self)
            do {
                output += "ok " + (try IDNA.toASCII(name)) + "\n"
            } catch {
                output += "error \(error.rule.identifier) \(error.labelIndex)\n"
            }
            count += 1
        }
        guard let file = fopen("\(directory)/output.txt", "wb") else {
            Issue.record("cannot write \(directory)/output.txt")
            return
        }
        defer { fclose(file) }
        let bytes = Array(output.utf8)
        #expect(bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == bytes.count)
        #expect(count > 0)
    }
}
