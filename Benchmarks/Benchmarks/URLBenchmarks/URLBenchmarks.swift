// Percent-encoding and query-string building, beside Foundation doing the same work
// (AFNetworking's algorithm) on the same input in the same run.
import Benchmark
import BenchmarkSupport
import CourierURL

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
