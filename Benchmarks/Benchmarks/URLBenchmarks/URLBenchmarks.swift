// Percent-encoding, query-string building and URI parsing (ASCII and international hosts),
// beside Foundation doing the same work (AFNetworking's algorithm, URL(string:)) on the same input
// in the same run.
import Benchmark
import BenchmarkSupport
import CourierURL
import Foundation

let benchmarks: @Sendable () -> Void = {
    let text = mixedText(bytes: 16 << 20)
    let textBytes = text.utf8.count
    requireAgreement(
        PercentEncoding.encode(text, allowing: .afnetworkingQueryComponent) == foundationPercentEncode(text),
        "Courier's percent-encoding differs from Foundation's")

    Benchmark("percent-encoding 16 MiB mixed text [courier] bytes=\(textBytes)",
              configuration: courierConfiguration()) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(PercentEncoding.encode(text, allowing: .afnetworkingQueryComponent))
        }
    }
    Benchmark("percent-encoding 16 MiB mixed text [foundation] bytes=\(textBytes)",
              configuration: courierConfiguration(maxIterations: 10)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(foundationPercentEncode(text))
        }
    }

    // URI parsing: 1,000 URLs whose hosts are ASCII (the fast path, no IDNA work) and 1,000 whose
    // hosts are international (percent-decoding aside, UTS #46 ToASCII); Foundation's URL(string:)
    // converts such hosts too (UTS #46 nontransitional) and must give the same ASCII host.
    let words = ["bücher", "münchen", "例え", "テスト", "пример", "δοκιμή", "مثال", "한국", "faß", "ñandú"]
    let international = (0..<1000).map { "https://\(words[$0 % 10])\($0 / 10).\(words[($0 / 10) % 10]).example/a/b?c=\($0)" }
    let ascii = (0..<1000).map { "https://host\($0).example\($0 % 7).com/a/b?c=\($0)" }
    for text in international + ascii {
        let courierHost = (try? URI(parsing: text))?.host?.text
        requireAgreement(courierHost != nil && courierHost == URL(string: text)?.host, "hosts differ for \(text)")
    }
    for (label, urls) in [("ASCII", ascii), ("international", international)] {
        let bytes = urls.reduce(0) { $0 + $1.utf8.count }
        Benchmark("URI parse, 1,000 URLs with \(label) hosts [courier] bytes=\(bytes)",
                  configuration: courierConfiguration()) { benchmark in
            for _ in benchmark.scaledIterations {
                for text in urls { blackHole(try? URI(parsing: text)) }
            }
        }
        Benchmark("URI parse, 1,000 URLs with \(label) hosts [foundation] bytes=\(bytes)",
                  configuration: courierConfiguration()) { benchmark in
            for _ in benchmark.scaledIterations {
                for text in urls { blackHole(URL(string: text)?.host) }
            }
        }
    }

    let shape = ParameterShape.tree(keys: 10_000)
    let courierTree = QueryValue.dictionary(shape.map { ($0.0, $0.1.courier) })
    let foundationTree = Dictionary(shape.map { ($0.0, $0.1.foundation) }, uniquingKeysWith: { a, _ in a })
    let expected = foundationQueryString(foundationTree)
    let built = QueryString.build(courierTree)
    requireAgreement(built == expected, "Courier's query string differs from the Foundation transcription of AFNetworking's")
    let queryBytes = expected.utf8.count

    Benchmark("query string from a 10,000-key tree [courier] bytes=\(queryBytes)",
              configuration: courierConfiguration()) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(QueryString.build(courierTree))
        }
    }
    Benchmark("query string from a 10,000-key tree [foundation] bytes=\(queryBytes)",
              configuration: courierConfiguration(maxIterations: 50)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(foundationQueryString(foundationTree))
        }
    }
}

extension ParameterShape {
    var courier: QueryValue {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(Int64(i))
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .array(let a): return .array(a.map(\.courier))
        case .dictionary(let d): return .dictionary(d.map { ($0.0, $0.1.courier) })
        }
    }
}
