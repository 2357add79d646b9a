// Checks for CourierMultipart: a form chosen by the input renders the same bytes however it is
// read (read sizes and segment sizes chosen by the input), its length is announced exactly, a
// restart gives the same bytes again, and the strict parser gives back the parts that were built.
import CourierBytes
import CourierMultipart

extension FuzzChecks {
    public static func multipart(_ input: UnsafeRawBufferPointer) {
        var cursor = ByteCursor(input)
        var form = MultipartForm(boundary: MultipartBoundary(randomBits: UInt64(cursor.next()) &* 0x9E37_79B9_7F4A_7C15))
        var files: [String: [UInt8]] = [:]
        let partCount = 1 + Int(cursor.next() % 6)
        for index in 0..<partCount where cursor.index < input.count {
            let name = cursor.string()
            let body = (0..<Int(cursor.next()) % 40).map { _ in cursor.next() }
            switch cursor.next() % 4 {
            case 0: try? form.appendField(name: name, value: ByteBuffer(bytes: body))
            case 1: try? form.appendData(ByteBuffer(bytes: body), name: name, fileName: cursor.string(), mimeType: "application/octet-stream")
            case 2: try? form.appendStream(MultipartBytesStream(ByteBuffer(bytes: body)), name: name, fileName: "s.bin", length: UInt64(body.count), mimeType: "text/plain")
            default:
                let path = "/f\(index).txt"
                files[path] = body
                try? form.appendFile(atPath: path, name: name, fileSystem: MultipartMemoryFileSystem(contents: files))
            }
        }
        let fileSystem = MultipartMemoryFileSystem(contents: files)
        let rendered: [UInt8]
        do {
            rendered = try form.renderedBytes(fileSystem: fileSystem)
        } catch {
            fatalError("rendering a valid form failed: \(error)")
        }
        require(UInt64(rendered.count) == form.contentLength, "announced length \(form.contentLength) != rendered \(rendered.count)")

        // Read sizes chosen by the input.
        var stream = form.makeBodyStream(fileSystem: fileSystem)
        for pass in 0..<2 {
            var out = ByteBuffer()
            while true {
                let size = 1 + Int(cursor.next() % 64)
                let n: Int
                do { n = try stream.read(into: &out, maxBytes: size) } catch { fatalError("read failed: \(error)") }
                if n == 0 { break }
            }
            require(out.readableBytesArray == rendered, "read sizes changed the bytes (pass \(pass))")
            stream.restart()
        }

        // Segments: in-memory bytes by reference, file ranges resolved through the file system.
        var segments = form.makeBodyStream(fileSystem: fileSystem)
        var joined: [UInt8] = []
        while let segment = try? segments.nextSegment(maxBytes: 1 + Int(cursor.next() % 200)) {
            switch segment {
            case .bytes(let bytes): joined += bytes.readableBytesArray
            case .file(let file):
                let contents = files[file.path] ?? []
                let start = Int(file.offset)
                joined += contents[start..<(start + file.length)]
            }
        }
        require(joined == rendered, "segments do not join to the rendered bytes")

        // Round trip through the strict parser (nil when the form is outside what it can express).
        if let expected = try? form.expectedParsedParts(fileSystem: fileSystem) {
            let parsed = try? MultipartParser.parse(rendered, boundary: form.boundary)
            require(parsed == expected, "parse(render(form)) != form")
        }
    }
}
