// MultipartMIMEType: file extension → MIME type, from the system's database or a built-in table.
//
// AFNetworking asks the platform (UTTypeCreatePreferredIdentifierForTag) and falls back to
// `application/octet-stream`. On Linux the platform's database is /etc/mime.types (Debian's
// `media-types` package, the file Python's mimetypes and many servers read). This pure module
// parses such a file's text (`MIMETypeTable`); the I/O layer reads the file once and hands the
// table to file parts through `MultipartFileSystem.mimeType(forFileName:)`. When there is no such
// file, a small built-in table of the common types is the fallback, each the IANA-registered type
// where one exists. A switch over a lower-cased string keeps the type checker fast and the lookup
// allocation-free for the short extensions that dominate.

import CourierBytes

/// Maps file extensions to MIME types for file parts appended without an explicit type.
public enum MultipartMIMEType {
    /// The type used when the extension is unknown or missing (AFNetworking's fallback).
    public static let defaultType = "application/octet-stream"

    /// The MIME type for a file name, from its extension (case-insensitive).
    ///
    /// The extension is the text after the last `.` of the name; a name whose only dot is its first
    /// character (`.profile`) has no extension, as `NSString.pathExtension` treats it.
    /// - Parameter fileName: the file name (a last path component).
    /// - Returns: the type, or `defaultType`.
    public static func forFileName(_ fileName: String) -> String {
        guard let ext = fileExtension(fileName) else { return defaultType }
        return forExtension(ext) ?? defaultType
    }

    /// The lower-cased extension of a file name: the text after its last `.`, unless that dot is
    /// the first character or the last; nil when there is none.
    /// - Parameter fileName: the file name (a last path component).
    /// - Returns: the extension without the dot.
    public static func fileExtension(_ fileName: String) -> String? {
        let utf8 = Array(fileName.utf8)
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot + 1 < utf8.count else { return nil }
        return String(decoding: ASCIICase.lowercased(bytes: utf8[(dot + 1)...]), as: UTF8.self)
    }

    /// The MIME type for a lower-case extension without the dot.
    /// - Parameter ext: the extension, lower case (`"png"`).
    /// - Returns: the type, or nil when the table does not know it.
    public static func forExtension(_ ext: String) -> String? {
        switch ext {
        // Text
        case "html", "htm": return "text/html"
        case "txt", "text": return "text/plain"
        case "css": return "text/css"
        case "csv": return "text/csv"
        case "md", "markdown": return "text/markdown"
        case "js", "mjs": return "text/javascript"          // RFC 9239
        case "json": return "application/json"               // RFC 8259
        case "xml": return "application/xml"                 // RFC 7303
        case "yaml", "yml": return "application/yaml"        // RFC 9512
        // Images
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "bmp": return "image/bmp"
        case "ico": return "image/vnd.microsoft.icon"
        case "tif", "tiff": return "image/tiff"
        case "svg": return "image/svg+xml"
        case "heic": return "image/heic"
        case "avif": return "image/avif"
        // Documents and archives
        case "pdf": return "application/pdf"
        case "zip": return "application/zip"
        case "gz": return "application/gzip"
        case "tar": return "application/x-tar"
        case "wasm": return "application/wasm"
        // Audio and video
        case "mp3": return "audio/mpeg"
        case "m4a": return "audio/mp4"
        case "wav": return "audio/wav"
        case "ogg": return "audio/ogg"
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        case "webm": return "video/webm"
        // Fonts (RFC 8081)
        case "woff": return "font/woff"
        case "woff2": return "font/woff2"
        case "ttf": return "font/ttf"
        case "otf": return "font/otf"
        default: return nil
        }
    }
}

/// A MIME type database in the format of `/etc/mime.types` (mime.types(5)): one type per line
/// followed by its extensions, separated by spaces or tabs; `#` starts a comment line.
///
/// ```
/// # comment
/// image/png                                       png
/// text/plain                                      txt text conf def list log in
/// ```
public struct MIMETypeTable: Sendable, Hashable {
    private var types: [String: String] = [:]

    /// Parses the text of a mime.types file. Lines that are not `type/subtype ext...` are skipped;
    /// extensions are matched case-insensitively; an extension listed twice keeps its first type.
    /// - Parameter bytes: the file's contents.
    public init(parsing bytes: some Collection<UInt8>) {
        var line: [UInt8] = []
        func take(_ line: [UInt8]) {
            let words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
            guard let type = words.first, type.first != UInt8(ascii: "#"), type.contains(UInt8(ascii: "/")),
                  words.count > 1 else { return }
            let typeText = String(decoding: type, as: UTF8.self)
            for word in words.dropFirst() {
                if word.first == UInt8(ascii: "#") { break }
                let ext = String(decoding: ASCIICase.lowercased(bytes: word), as: UTF8.self)
                if types[ext] == nil { types[ext] = typeText }
            }
        }
        for byte in bytes {
            if byte == 0x0A {
                take(line)
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        take(line)
    }

    /// The number of extensions the table knows.
    public var count: Int { types.count }

    /// The type for an extension (any case, without the dot).
    /// - Parameter ext: the extension.
    /// - Returns: the type, or nil when the table does not list it.
    public func type(forExtension ext: String) -> String? {
        types[String(decoding: ASCIICase.lowercased(bytes: ext.utf8), as: UTF8.self)]
    }

    /// The type for a file name, from its extension; `application/octet-stream` when the table does
    /// not know it (the table is the platform's answer, as AFNetworking takes it).
    /// - Parameter fileName: the file name (a last path component).
    /// - Returns: the type.
    public func type(forFileName fileName: String) -> String {
        MultipartMIMEType.fileExtension(fileName).flatMap { type(forExtension: $0) } ?? MultipartMIMEType.defaultType
    }
}
