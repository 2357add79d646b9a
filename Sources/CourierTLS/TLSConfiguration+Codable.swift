// TLSConfiguration's plain parts as Codable (issue 16, part of SessionConfiguration's coding):
// the trust roots (the system store, certificates as PEM, or the path of a PEM file or hashed
// directory), the handshake's verification, the version range, ALPN names, the resumption cache's
// capacity and the cipher strings. NOT encoded: `clientIdentity` — it holds a private key, which
// must not end up in a settings file by accident (load it from its own file as curl's --key does);
// a decoded configuration has none.

extension TLSConfiguration: Codable {
    private enum CodingKeys: String, CodingKey {
        case trustRoots, certificateVerification, minimumVersion, maximumVersion, applicationProtocols
        case sessionCacheCapacity, cipherList, tls13CipherSuites
    }

    private enum TrustRootsKeys: String, CodingKey {
        case system, certificates, pemFile, hashedDirectory, pemFileInDirectory
    }

    /// Decodes the plain parts; absent fields keep the secure defaults, `clientIdentity` is nil.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a wrong type or an unknown name.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.trustRoots) {
            let roots = try container.nestedContainer(keyedBy: TrustRootsKeys.self, forKey: .trustRoots)
            if let certificates = try roots.decodeIfPresent([Certificate].self, forKey: .certificates) {
                trustRoots = .certificates(certificates)
            } else if let path = try roots.decodeIfPresent(String.self, forKey: .pemFile) {
                trustRoots = .pemFile(path: path)
            } else if let path = try roots.decodeIfPresent(String.self, forKey: .hashedDirectory) {
                trustRoots = .hashedDirectory(path: path, pemFile: try roots.decodeIfPresent(String.self, forKey: .pemFileInDirectory))
            } else if try roots.decodeIfPresent(Bool.self, forKey: .system) == true {
                trustRoots = .system
            } else {
                throw DecodingError.dataCorruptedError(
                    forKey: .trustRoots, in: container,
                    debugDescription: "trust roots are {\"system\": true}, {\"certificates\": […]}, {\"pemFile\": …} or {\"hashedDirectory\": …}")
            }
        }
        if let name = try container.decodeIfPresent(String.self, forKey: .certificateVerification) {
            switch name {
            case "fullVerification": certificateVerification = .fullVerification
            case "noHostnameVerification": certificateVerification = .noHostnameVerification
            case "none": certificateVerification = .none
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .certificateVerification, in: container,
                    debugDescription: "unknown verification \"\(name)\" (fullVerification, noHostnameVerification, none)")
            }
        }
        minimumVersion = try Self.version(container, .minimumVersion) ?? minimumVersion
        if container.contains(.maximumVersion) {
            maximumVersion = try container.decodeNil(forKey: .maximumVersion) ? nil : Self.version(container, .maximumVersion)
        }
        applicationProtocols = try container.decodeIfPresent([String].self, forKey: .applicationProtocols) ?? applicationProtocols
        sessionCacheCapacity = try container.decodeIfPresent(Int.self, forKey: .sessionCacheCapacity) ?? sessionCacheCapacity
        cipherList = try container.decodeIfPresent(String.self, forKey: .cipherList)
        tls13CipherSuites = try container.decodeIfPresent(String.self, forKey: .tls13CipherSuites)
    }

    private static func version(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> TLSVersion? {
        guard let name = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        switch name {
        case "TLSv1.2": return .v1_2
        case "TLSv1.3": return .v1_3
        default: throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "unknown TLS version \"\(name)\" (TLSv1.2, TLSv1.3)")
        }
    }

    /// Encodes the plain parts (never `clientIdentity`).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var roots = container.nestedContainer(keyedBy: TrustRootsKeys.self, forKey: .trustRoots)
        switch trustRoots {
        case .system: try roots.encode(true, forKey: .system)
        case .certificates(let certificates): try roots.encode(certificates, forKey: .certificates)
        case .pemFile(let path): try roots.encode(path, forKey: .pemFile)
        case .hashedDirectory(let path, let pemFile):
            try roots.encode(path, forKey: .hashedDirectory)
            try roots.encodeIfPresent(pemFile, forKey: .pemFileInDirectory)
        }
        let verification = switch certificateVerification {
        case .fullVerification: "fullVerification"
        case .noHostnameVerification: "noHostnameVerification"
        case .none: "none"
        }
        try container.encode(verification, forKey: .certificateVerification)
        try container.encode(minimumVersion.description, forKey: .minimumVersion)
        if let maximumVersion { try container.encode(maximumVersion.description, forKey: .maximumVersion) } else {
            try container.encodeNil(forKey: .maximumVersion)
        }
        try container.encode(applicationProtocols, forKey: .applicationProtocols)
        try container.encode(sessionCacheCapacity, forKey: .sessionCacheCapacity)
        try container.encodeIfPresent(cipherList, forKey: .cipherList)
        try container.encodeIfPresent(tls13CipherSuites, forKey: .tls13CipherSuites)
    }
}
