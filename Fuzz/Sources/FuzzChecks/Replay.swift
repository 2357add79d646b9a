// Reading corpus files without Foundation, for the replay `main` of each harness and for the
// replay tests.
#if canImport(Glibc)
import Glibc
#endif

/// Namespace of the checks each fuzz target runs.
public enum FuzzChecks {
    /// Reads a whole file.
    /// - Parameter path: the file.
    /// - Returns: its bytes, or nil when it cannot be read.
    public static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, file) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// The regular files in a directory, sorted by name.
    public static func files(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            names.append(directory + "/" + name)
        }
        return names.sorted()
    }

    /// Runs `check` over each file (or each file of each directory) named in `paths`.
    public static func replay<S: Sequence>(_ paths: S, through check: (UnsafeRawBufferPointer) -> Void) where S.Element == String {
        for path in paths {
            let targets = files(in: path)
            for file in targets.isEmpty ? [path] : targets {
                guard let bytes = readFile(file) else {
                    print("replay: cannot read \(file)")
                    continue
                }
                bytes.withUnsafeBytes { check($0) }
                print("replay: ok \(file) (\(bytes.count) bytes)")
            }
        }
    }

    /// Traps with a message naming the property that failed (a finding for libFuzzer).
    static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                        file: StaticString = #fileID, line: UInt = #line) {
        if !condition() { fatalError("fuzz property failed: \(message())", file: file, line: line) }
    }

    /// A split point chosen from the input's first bytes, so the fuzzer explores cuts.
    static func splitPoint(for input: UnsafeRawBufferPointer) -> Int {
        guard input.count > 1 else { return 0 }
        let seed = Int(input[0]) &* 31 &+ Int(input[input.count - 1])
        return 1 + seed % (input.count - 1)
    }
}
