// The identity `courier bench` serves TLS with: the committed test CA and a certificate for
// localhost / 127.0.0.1 / ::1 issued by it (Tests/CourierTLSTests/Certificates/generate.sh). A test
// key, public on purpose: it authenticates nothing but the loopback benchmark.
// swift-format-ignore-file

/// PEM text of the loopback benchmark's TLS identity and the CA that issued it.
public enum LoopbackIdentity {
    /// The issuing CA certificate: what a client trusts to verify the benchmark server.
    public static let caCertificatePEM: String = """
    -----BEGIN CERTIFICATE-----
    MIIBizCCATKgAwIBAgICEAAwCgYIKoZIzj0EAwIwLDEYMBYGA1UEAwwPQ291cmll
    ciBUZXN0IENBMRAwDgYDVQQKDAdDb3VyaWVyMCAXDTI0MDEwMTAwMDAwMFoYDzIx
    MjQwMTAxMDAwMDAwWjAsMRgwFgYDVQQDDA9Db3VyaWVyIFRlc3QgQ0ExEDAOBgNV
    BAoMB0NvdXJpZXIwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARhBXuIGmvMOgJO
    VwcqqeH4xwpmSbzYABM07O6+c5zVzEJHjr3b2YfxGt6rJJ/qq542gfkdds3dITUK
    FjGAaRrko0IwQDAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBBjAdBgNV
    HQ4EFgQUma1KqzdXnWw7k9pJGGzT2A6aKLMwCgYIKoZIzj0EAwIDRwAwRAIgbSUy
    M7Zoe4K2wPAxmlzUlAuj2jFObBWZi6Kk3JJ1cXwCIB8YovHliUr3LalsAPWgNIb3
    y5tBDdQGI40LLSeT85Z9
    -----END CERTIFICATE-----
    """

    /// The server certificate (subjectAltName localhost, 127.0.0.1, ::1).
    public static let serverCertificatePEM: String = """
    -----BEGIN CERTIFICATE-----
    MIICBDCCAaugAwIBAgICEAIwCgYIKoZIzj0EAwIwLDEYMBYGA1UEAwwPQ291cmll
    ciBUZXN0IENBMRAwDgYDVQQKDAdDb3VyaWVyMCAXDTI0MDEwMTAwMDAwMFoYDzIx
    MjQwMTAxMDAwMDAwWjBCMS4wLAYDVQQDDCVDb3VyaWVyIFRlc3QgU2VydmVyIChu
    b3QgYSBob3N0IG5hbWUpMRAwDgYDVQQKDAdDb3VyaWVyMFkwEwYHKoZIzj0CAQYI
    KoZIzj0DAQcDQgAEHJJk0Cm3uCbFBiagun6Y1Vz13CGL7MWZly8M/IJIDIQA9yE4
    k2iwUZhzFjPA3GKus8us4J/QtzxnBKdtPgH5MaOBpDCBoTAMBgNVHRMBAf8EAjAA
    MA4GA1UdDwEB/wQEAwIFoDATBgNVHSUEDDAKBggrBgEFBQcDATAsBgNVHREEJTAj
    gglsb2NhbGhvc3SHBH8AAAGHEAAAAAAAAAAAAAAAAAAAAAEwHQYDVR0OBBYEFBx7
    uHJqzoxBHkb2/XCejYLC8RC6MB8GA1UdIwQYMBaAFJmtSqs3V51sO5PaSRhs09gO
    miizMAoGCCqGSM49BAMCA0cAMEQCIFg4xj5WXA1nLTf7z/40zyqMlR9QdS+kxgmx
    7gC+Tk8YAiB0N4GWrl3pntf4NMgS7LQ2LlZXRnQ2cZhvBA9eAhLv0Q==
    -----END CERTIFICATE-----
    """

    /// The server's private key.
    public static let serverKeyPEM: String = """
    -----BEGIN PRIVATE KEY-----
    MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXJ6kKPyFvFDbP1dt
    r/2DyrErq0JvcUCgTZxm+GQWwx6hRANCAAQckmTQKbe4JsUGJqC6fpjVXPXcIYvs
    xZmXLwz8gkgMhAD3ITiTaLBRmHMWM8DcYq6zy6zgn9C3PGcEp20+Afkx
    -----END PRIVATE KEY-----
    """
}
