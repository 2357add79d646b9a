// Codable security policies (issue 16): AFSecurityPolicy supports NSSecureCoding (pinning mode,
// allowInvalidCertificates, validatesDomainName and the pinned certificates' DER data); Courier's
// SecurityPolicy is Codable with the same fields plus curl's public-key pins, in text a person can
// read and edit:
//
//   {"pinningMode": "certificate", "allowInvalidCertificates": false, "validatesDomainName": true,
//    "pinnedCertificates": ["-----BEGIN CERTIFICATE-----\n…"], "pinnedPublicKeys": ["sha256//…"]}
//
// A certificate is its PEM block (the DER bytes in Base64), a pin its curl form: `sha256//BASE64`
// for a digest, a PEM `PUBLIC KEY` block for a pin made from a key or a certificate (so the pin
// decodes to the same value, not merely to one that matches the same keys). Missing keys decode to
// the defaults, so a file written by an older Courier, or by hand, keeps working; a certificate or
// pin that does not parse is a `DecodingError.dataCorrupted` naming the field.

import CourierBytes

extension SecurityPolicy: Codable {
    private enum CodingKeys: String, CodingKey {
        case pinningMode, allowInvalidCertificates, validatesDomainName, pinnedCertificates, pinnedPublicKeys
    }

    /// Decodes a policy; absent fields keep ``SecurityPolicy/default``'s values.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a wrong type, an unknown pinning mode, or a certificate or pin
    ///   that does not parse.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(pinningMode: try container.decodeIfPresent(PinningMode.self, forKey: .pinningMode) ?? .none,
                  pinnedCertificates: try container.decodeIfPresent([Certificate].self, forKey: .pinnedCertificates) ?? [])
        allowInvalidCertificates = try container.decodeIfPresent(Bool.self, forKey: .allowInvalidCertificates) ?? false
        validatesDomainName = try container.decodeIfPresent(Bool.self, forKey: .validatesDomainName) ?? true
        pinnedPublicKeys = try container.decodeIfPresent([PublicKeyPin].self, forKey: .pinnedPublicKeys) ?? []
    }

    /// Encodes every field of the policy.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pinningMode, forKey: .pinningMode)
        try container.encode(allowInvalidCertificates, forKey: .allowInvalidCertificates)
        try container.encode(validatesDomainName, forKey: .validatesDomainName)
        try container.encode(pinnedCertificates, forKey: .pinnedCertificates)
        try container.encode(pinnedPublicKeys, forKey: .pinnedPublicKeys)
    }
}

extension SecurityPolicy.PinningMode: Codable {
    /// The name of the mode as written: `none`, `certificate` or `publicKey` (AFSSLPinningMode's
    /// names without the prefix).
    public var name: String {
        switch self {
        case .none: "none"
        case .certificate: "certificate"
        case .publicKey: "publicKey"
        }
    }

    /// Decodes a mode from its ``name``.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError.dataCorrupted` for another string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch text {
        case "none": self = .none
        case "certificate": self = .certificate
        case "publicKey": self = .publicKey
        default:
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown pinning mode \"\(text)\" (none, certificate or publicKey)")
        }
    }

    /// Encodes the mode's ``name``.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

extension Certificate: Codable {
    /// The certificate as one PEM block (`-----BEGIN CERTIFICATE-----`, Base64 in lines of 64).
    public var pemText: String { pemBlock(label: "CERTIFICATE", derBytes) }

    /// Decodes a certificate from one PEM block.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError.dataCorrupted` when the text is not exactly one PEM certificate.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let parsed: [Certificate]
        do { parsed = try Certificate.certificates(fromPEM: Array(text.utf8)) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a PEM certificate: \(error.message)")
        }
        guard parsed.count == 1 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(parsed.count) certificates where one was expected")
        }
        self = parsed[0]
    }

    /// Encodes the certificate's ``pemText``.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(pemText)
    }
}

extension PublicKeyPin: Codable {
    /// Decodes a pin from `sha256//BASE64` or a PEM `PUBLIC KEY` block.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError.dataCorrupted` when the text is neither.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            if text.hasPrefix("sha256//") {
                let pins = try PublicKeyPin.parseHashes(text)
                guard pins.count == 1 else {
                    throw TLSError(code: .invalidPin, message: "one pin per entry, got \(pins.count)")
                }
                self = pins[0]
            } else {
                self = try PublicKeyPin(publicKey: Array(text.utf8))
            }
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a public-key pin: \(error)")
        }
    }

    /// Encodes `sha256//BASE64` for a digest pin, the key's PEM block for a key pin.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encodedText)
    }
}

/// A PEM block: the label lines around the Base64 of `der`, 64 characters a line (RFC 7468 §2).
func pemBlock(label: String, _ der: [UInt8]) -> String {
    let base64 = Array(Base64.encode(der).utf8)
    var text = "-----BEGIN \(label)-----\n"
    var start = 0
    while start < base64.count {
        let end = min(start + 64, base64.count)
        text += String(decoding: base64[start..<end], as: UTF8.self) + "\n"
        start = end
    }
    return text + "-----END \(label)-----\n"
}
