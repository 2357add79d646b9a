// JSON parsing to a document (the tape) and to a tree, Decodable, parsing with null removal, and
// the byte-to-byte null sanitizer, beside Foundation's JSONSerialization and JSONDecoder (plus
// AFNetworking's null-removal pass) on the same 20 MB API-like document in the same run; the
// bytes allocated by a document parse on it and on an 8 MB array of small integers. memcpy of the
// document is the limit for the sanitizer.
import Benchmark
import BenchmarkSupport
import CourierJSON
import Foundation

let benchmarks: @Sendable () -> Void = {
    let document = apiDocument(bytes: 20 << 20)
    let size = document.count
    let data = Data(document)

    // Agreement, checked outside the measurements (as the setup of one benchmark: Foundation's
    // null-removal pass alone takes seconds).
    @Sendable func checkAgreement() {
        // The Courier tree with nulls removed, the
        // sanitizer's bytes parsed again, and Foundation's tree after the null-removal pass have the
        // same digest; and the sanitizer's bytes are what the writer writes for the sanitized tree.
        let sanitizedTree = try! JSONParser(removesNullValues: true).parse(document)
        let sanitizedBytes = try! JSONNullSanitizer().sanitize(document)
        requireAgreement(sanitizedBytes == JSONWriter.write(sanitizedTree), "the sanitizer and the tree form disagree")
        let foundationSanitized = foundationRemovingNulls(try! JSONSerialization.jsonObject(with: data))
        let courierDigest = JSONDigest.courier(sanitizedTree)
        let foundationDigest = JSONDigest.foundation(foundationSanitized)
        requireAgreement(courierDigest == foundationDigest,
                         "Courier and Foundation disagree on the sanitized document:\n  \(courierDigest)\n  \(foundationDigest)")
        requireAgreement(JSONDigest.courier(try! JSONParser.parse(sanitizedBytes)) == courierDigest,
                         "the sanitizer's output does not parse to the sanitized tree")
        requireAgreement(courierDigest.nulls == 0 && JSONDigest.courier(try! JSONParser.parse(document)).nulls > 10_000,
                         "the document has too few nulls to measure null removal")
    }

    let megabytes = size >> 20

    Benchmark("JSON parse to a document, \(megabytes) MB API document [courier] bytes=\(size)",
              configuration: courierMemoryConfiguration(maxIterations: 500)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONDocument(parsing: document))
        }
    } setup: {
        // The document and the tree agree with Foundation's reading of the same bytes.
        let parsed = try! JSONDocument(parsing: document)
        requireAgreement(JSONDigest.courier(JSONValue(parsed.root)) == JSONDigest.foundation(try! JSONSerialization.jsonObject(with: data)),
                         "the document and JSONSerialization disagree")
    }
    Benchmark("JSON parse to a document, \(megabytes) MB API document [foundation] bytes=\(size)",
              configuration: courierMemoryConfiguration(maxIterations: 10)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: data))
        }
    }
    Benchmark("JSON parse to a document reusing its buffers, \(megabytes) MB API document [courier] bytes=\(size)",
              configuration: courierMemoryConfiguration(maxIterations: 500)) { benchmark in
        var spare: JSONDocument? = try JSONDocument(parsing: document)
        for _ in benchmark.scaledIterations {
            spare = try JSONDocument(parsing: document, reusing: consume spare)
            blackHole(spare)
        }
    }

    Benchmark("JSON Decodable, \(megabytes) MB API document [courier] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 100)) { benchmark in
        let decoder = CourierJSONDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(APIPage.self, from: document))
        }
    } setup: {
        let ours = try! CourierJSONDecoder().decode(APIPage.self, from: document)
        let theirs = try! JSONDecoder().decode(APIPage.self, from: data)
        requireAgreement(ours == theirs && ours.data.count > 10_000, "CourierJSONDecoder and JSONDecoder disagree")
    }
    Benchmark("JSON Decodable, \(megabytes) MB API document [foundation] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 10)) { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(APIPage.self, from: data))
        }
    }

    let integers = smallIntegerArray(bytes: 8 << 20)
    Benchmark("JSON parse to a document, 8 MB array of small integers [courier] bytes=\(integers.count)",
              configuration: courierMemoryConfiguration(maxIterations: 500)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONDocument(parsing: integers))
        }
    } setup: {
        requireAgreement((try! JSONDocument(parsing: integers)).root.count! > 2_000_000, "the integer array is too short")
    }
    Benchmark("JSON parse to a document, 8 MB array of small integers [foundation] bytes=\(integers.count)",
              configuration: courierMemoryConfiguration(maxIterations: 20)) { benchmark in
        let bytes = Data(integers)
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: bytes))
        }
    }
    Benchmark("JSON parse to a tree, \(megabytes) MB API document [courier] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 200)) { benchmark in
        let parser = JSONParser()
        for _ in benchmark.scaledIterations {
            blackHole(try parser.parse(document))
        }
    }
    Benchmark("JSON parse to a tree, \(megabytes) MB API document [foundation] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 10)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: data))
        }
    }
    Benchmark("JSON parse and remove nulls to a tree, \(megabytes) MB API document [courier] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 200)) { benchmark in
        let parser = JSONParser(removesNullValues: true)
        for _ in benchmark.scaledIterations {
            blackHole(try parser.parse(document))
        }
    } setup: {
        checkAgreement()
    }
    Benchmark("JSON parse and remove nulls to a tree, \(megabytes) MB API document [foundation] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 10)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(foundationRemovingNulls(try JSONSerialization.jsonObject(with: data)))
        }
    }
    Benchmark("JSON null sanitizing byte to byte, \(megabytes) MB API document [courier] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 500)) { benchmark in
        let sanitizer = JSONNullSanitizer()
        for _ in benchmark.scaledIterations {
            blackHole(try sanitizer.sanitize(document))
        }
    }
    Benchmark("JSON null sanitizing byte to byte, \(megabytes) MB API document [memcpy] bytes=\(size)",
              configuration: courierConfiguration(maxIterations: 500)) { benchmark in
        for _ in benchmark.scaledIterations {
            // A fresh array of the same size, as the sanitizer returns: allocation plus copy.
            let copy = [UInt8](unsafeUninitializedCapacity: size) { region, initialized in
                document.withUnsafeBytes { UnsafeMutableRawPointer(region.baseAddress!).copyMemory(from: $0.baseAddress!, byteCount: size) }
                initialized = size
            }
            blackHole(copy)
        }
    }
}

extension JSONDigest {
    /// The digest of a Courier tree (the same walk as `foundation(_:)`).
    static func courier(_ value: JSONValue) -> JSONDigest {
        var digest = JSONDigest()
        func walk(_ value: JSONValue) {
            switch value {
            case .null: digest.nulls += 1
            case .bool(let flag): digest.addNumber(flag ? 1 : 0)
            case .number(let number): digest.addNumber(number.double!)
            case .string(let string):
                digest.strings += 1
                digest.stringHash &+= hash(string)
            case .array(let elements):
                digest.arrays += 1
                digest.elements += elements.count
                for element in elements { walk(element) }
            case .object(let object):
                digest.objects += 1
                digest.members += object.count
                for member in object {
                    digest.keyHash &+= hash(member.key)
                    walk(member.value)
                }
            }
        }
        walk(value)
        return digest
    }
}
