#!/usr/bin/env bash
# Generates the committed test certificates for CourierTLSTests with the openssl CLI (3.0).
# Run ONCE; the output is committed so that every test run sees the same bytes. Re-running
# replaces every key and certificate (and TestCertificates.swift), which is harmless but noisy.
#
#   ca.pem / ca.key              test root CA "Courier Test CA", valid 2024-01-01 .. 2124-01-01
#                                (every "valid" certificate below has the same window)
#   server.pem / server.key      SAN DNS:localhost, IP:127.0.0.1, IP:::1; CN is NOT a host name, so a
#                                passing test proves the CN is never consulted (RFC 6125 §6.4.4)
#   wronghost.pem / .key         SAN DNS:wrong.example only
#   expired.pem / .key           SAN localhost, valid 2000-01-01 .. 2001-01-01
#   notyetvalid.pem / .key       SAN localhost, valid 2100-01-01 .. 2200-01-01
#   selfsigned.pem / .key        SAN localhost, self-signed (issuer untrusted), 100 years
#   cnonly.pem / .key            CN=localhost and no subjectAltName: must FAIL host name checks
#   client.pem / client.key      clientAuth certificate for mutual TLS, signed by the CA
#   client-encrypted.key         client.key encrypted (AES-256-CBC, pass phrase "s3cret": curl --pass)
#   other-ca.pem / other-ca.key  a second CA nobody trusts (for pin mismatches)
#   server-pubkey.pem / .der     the server's SubjectPublicKeyInfo (curl --pinnedpubkey file form)
#
# Keys are ECDSA P-256 (fast handshakes in tests), stored unencrypted as PKCS#8.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"; }

cat > "$work/ca.cnf" <<CNF
[ ca ]
default_ca = testca
[ testca ]
dir = $work
database = $work/index.txt
new_certs_dir = $work
serial = $work/serial
default_md = sha256
policy = anything
unique_subject = no
preserve = yes
copy_extensions = none
[ anything ]
commonName = supplied
organizationName = optional
[ leaf_localhost ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ leaf_wronghost ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:wrong.example
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ leaf_cnonly ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ leaf_client ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ v3_ca ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ v3_selfsigned ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
subjectKeyIdentifier = hash
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = unused
CNF
touch "$work/index.txt"
echo 1000 > "$work/serial"

# Root CAs (self-signed, 100 years).
# Validity starts on a fixed past date (not "now"), so a machine whose clock lags the one that ran
# this script still accepts the certificates.
start=20240101000000Z
end=21240101000000Z
# selfsign NAME SUBJECT SECTION: a self-signed certificate with the fixed validity.
selfsign() {
  key "$1"
  openssl req -new -config "$work/ca.cnf" -key "$1.key" -subj "$2" -out "$work/$1.csr"
  openssl ca -batch -notext -selfsign -config "$work/ca.cnf" -keyfile "$1.key" \
    -extensions "$3" -startdate "$start" -enddate "$end" -in "$work/$1.csr" -out "$1.pem" 2>/dev/null
}
selfsign ca       "/O=Courier/CN=Courier Test CA"       v3_ca
selfsign other-ca "/O=Courier/CN=Courier Other Test CA" v3_ca

# sign NAME SUBJECT SECTION START END: a CA-signed leaf with explicit validity dates.
sign() {
  key "$1"
  openssl req -new -config "$work/ca.cnf" -key "$1.key" -subj "$2" -out "$work/$1.csr"
  openssl ca -batch -notext -config "$work/ca.cnf" -cert ca.pem -keyfile ca.key \
    -extensions "$3" -startdate "$4" -enddate "$5" -in "$work/$1.csr" -out "$1.pem" 2>/dev/null
}
sign server      "/O=Courier/CN=Courier Test Server (not a host name)" leaf_localhost "$start" "$end"
sign wronghost   "/O=Courier/CN=localhost"                              leaf_wronghost "$start" "$end"
sign expired     "/O=Courier/CN=Courier Expired"                        leaf_localhost 20000101000000Z 20010101000000Z
sign notyetvalid "/O=Courier/CN=Courier Not Yet Valid"                  leaf_localhost 21000101000000Z 22000101000000Z
sign cnonly      "/O=Courier/CN=localhost"                              leaf_cnonly    "$start" "$end"
sign client      "/O=Courier/CN=courier-client"                         leaf_client    "$start" "$end"

selfsign selfsigned "/O=Courier/CN=Courier Self-Signed" v3_selfsigned

openssl pkey -in client.key -aes-256-cbc -passout pass:s3cret -out client-encrypted.key
openssl pkey -in server.key -pubout -out server-pubkey.pem
openssl pkey -in server.key -pubout -outform DER -out server-pubkey.der

# Embed the PEM texts in a Swift file so the tests need no file I/O (and no Foundation).
out=../TestCertificates.swift
{
  echo "// Generated by Certificates/generate.sh from the PEM files beside it. Do not edit."
  echo "// swift-format-ignore-file"
  echo ""
  echo "/// The committed test certificates and keys, as PEM text."
  echo "enum TestCertificates {"
  for f in ca other-ca server wronghost expired notyetvalid selfsigned cnonly client; do
    name=$(echo "$f" | sed -E 's/-(.)/\U\1/g')
    printf '    static let %sCertificate: String = """\n%s\n"""\n' "$name" "$(sed 's/^/    /' "$f.pem")"
    printf '    static let %sKey: String = """\n%s\n"""\n' "$name" "$(sed 's/^/    /' "$f.key")"
  done
  printf '    static let serverPublicKey: String = """\n%s\n"""\n' "$(sed 's/^/    /' server-pubkey.pem)"
  echo "}"
} > "$out"
# The multi-line literal's closing delimiter sets the indentation to strip: indent it too.
sed -i 's/^"""$/    """/' "$out"
echo "generated in $(pwd)"
