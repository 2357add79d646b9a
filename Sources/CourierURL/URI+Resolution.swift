// URI+Resolution: reference resolution, RFC 3986 §5.2.
//
// Implements the strict algorithm of §5.2.2 (a reference with a scheme is never treated as
// relative, so `http:g` against an http base stays `http:g`), merge of §5.2.3 and
// remove_dot_segments of §5.2.4. Every example of §5.4.1 and §5.4.2 is a test.
//
// The result keeps the URI invariants: paths produced here only ever contain bytes taken from
// valid paths, and an authority-less path that ends up starting with "//" is written with a "/."
// prefix by the serialiser so that the text parses back to the same components.

extension URI {
    /// Resolves a reference against this URI as the base (RFC 3986 §5.2.2, strict).
    ///
    /// The base is normally absolute (RFC 3986 §5.1); its fragment is ignored. A relative base
    /// gives a relative result by the same algorithm.
    /// - Parameter reference: the reference to resolve.
    /// - Returns: the target URI.
    public func resolving(_ reference: URI) -> URI {
        var target = URI(
            uncheckedScheme: nil, userinfo: nil, host: nil, port: nil,
            path: "", query: nil, fragment: reference.fragment)
        if reference.scheme != nil {
            target.scheme = reference.scheme
            target.userinfo = reference.userinfo
            target.host = reference.host
            target.port = reference.port
            target.path = URI.removeDotSegments(reference.path)
            target.query = reference.query
            return target
        }
        if reference.host != nil {
            target.userinfo = reference.userinfo
            target.host = reference.host
            target.port = reference.port
            target.path = URI.removeDotSegments(reference.path)
            target.query = reference.query
        } else {
            if reference.path.isEmpty {
                target.path = path
                target.query = reference.query ?? query
            } else {
                if reference.path.utf8.first == UInt8(ascii: "/") {
                    target.path = URI.removeDotSegments(reference.path)
                } else {
                    target.path = URI.removeDotSegments(merge(reference.path))
                }
                target.query = reference.query
            }
            target.userinfo = userinfo
            target.host = host
            target.port = port
        }
        target.scheme = scheme
        return target
    }

    /// Parses `reference` and resolves it against this URI (RFC 3986 §5.2.2, strict).
    /// - Parameters:
    ///   - reference: the reference text.
    ///   - limits: bounds on the reference.
    /// - Returns: the target URI.
    /// - Throws: `URIError` when `reference` does not parse.
    public func resolving(_ reference: String, limits: Limits = Limits()) throws(URIError) -> URI {
        resolving(try URI(parsing: reference, limits: limits))
    }

    /// RFC 3986 §5.2.3: the reference's path appended to the base path's directory.
    private func merge(_ referencePath: String) -> String {
        if host != nil && path.isEmpty { return "/" + referencePath }
        let bytes = path.utf8
        guard let lastSlash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return referencePath }
        return String(path[...lastSlash]) + referencePath
    }

    /// Removes "." and ".." segments from a path (RFC 3986 §5.2.4).
    ///
    /// A ".." that would climb above the root is dropped (`/../g` → `/g`), as the RFC requires.
    /// - Parameter path: a path, percent-encoded as in a URI (`%2E` is not a dot here).
    /// - Returns: the path without dot segments.
    public static func removeDotSegments(_ path: String) -> String {
        // Fast exit: without a "." there is nothing to remove.
        guard path.utf8.contains(UInt8(ascii: ".")) else { return path }
        var input = Array(path.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
        var i = 0
        let n = input.count

        func at(_ k: Int) -> UInt8? { k < n ? input[k] : nil }
        func dropLastSegment() {
            if let last = output.lastIndex(of: slash) {
                output.removeSubrange(last...)
            } else {
                output.removeAll(keepingCapacity: true)
            }
        }

        while i < n {
            let c0 = input[i], c1 = at(i + 1), c2 = at(i + 2), c3 = at(i + 3)
            if c0 == dot, c1 == dot, c2 == slash {
                i += 3                                          // A: "../"
            } else if c0 == dot, c1 == slash {
                i += 2                                          // A: "./"
            } else if c0 == slash, c1 == dot, c2 == slash {
                i += 2                                          // B: "/./" → "/"
            } else if c0 == slash, c1 == dot, c2 == nil {
                input[i + 1] = slash                            // B: "/." at the end → "/"
                i += 1
            } else if c0 == slash, c1 == dot, c2 == dot, c3 == slash {
                i += 3                                          // C: "/../" → "/", drop a segment
                dropLastSegment()
            } else if c0 == slash, c1 == dot, c2 == dot, c3 == nil {
                input[i + 2] = slash                            // C: "/.." at the end → "/"
                i += 2
                dropLastSegment()
            } else if c0 == dot, c1 == nil {
                i += 1                                          // D: "."
            } else if c0 == dot, c1 == dot, c2 == nil {
                i += 2                                          // D: ".."
            } else {
                // E: the first segment, with its leading "/" if any, up to the next "/".
                output.append(c0)
                i += 1
                while i < n, input[i] != slash {
                    output.append(input[i])
                    i += 1
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
