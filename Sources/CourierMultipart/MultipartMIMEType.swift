// MultipartMIMEType: the built-in table that maps a file extension to a MIME type.
//
// AFNetworking asks the platform (UTTypeCreatePreferredIdentifierForTag) and falls back to
// `application/octet-stream`. Linux has no such registry that a pure module may read, so Courier
// keeps a small table of the common types, each the IANA-registered type where one exists. A switch
// over a lower-cased string keeps the type checker fast and the lookup allocation-free for the
// short extensions that dominate.

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
        let utf8 = Array(fileName.utf8)
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot + 1 < utf8.count else { return defaultType }
        let ext = String(decoding: asciiLowercased(utf8[(dot + 1)...]), as: UTF8.self)
        return forExtension(ext) ?? defaultType
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
