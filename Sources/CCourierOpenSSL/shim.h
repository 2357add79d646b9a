// CCourierOpenSSL: the OpenSSL 3.x headers CourierTLS needs, plus `static inline` functions for the
// APIs that exist only as macros (Swift cannot call a function-like macro) and for the STACK_OF(X509)
// helpers, whose generated inline definitions differ between OpenSSL versions.
//
// Every wrapper is named courier_<the OpenSSL name> and does nothing but forward.
#ifndef COURIER_OPENSSL_SHIM_H
#define COURIER_OPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rand.h>

// MARK: SSL_CTX macros

static inline int courier_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int courier_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long courier_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long courier_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline int courier_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add1_chain_cert(ctx, cert);
}

/// The options every Courier context sets: no renegotiation (a client never needs it, and it has
/// a history of attacks), no TLS-level compression (CRIME).
static inline void courier_SSL_CTX_set_courier_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
}
/// Client session caching through the new-session callback only: OpenSSL's internal store is for
/// servers; the client keeps its own cache keyed by host:port.
static inline void courier_SSL_CTX_enable_client_session_callback(SSL_CTX *ctx) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

// MARK: SSL macros

static inline int courier_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int courier_SSL_session_reused(const SSL *ssl) {
    return (int)SSL_session_reused((SSL *)ssl);
}

// MARK: BIO macros (the custom ciphertext BIO's retry flags)

static inline void courier_BIO_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void courier_BIO_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }

// MARK: Memory

/// OPENSSL_clear_free is a macro (it passes the caller's file and line).
static inline void courier_OPENSSL_clear_free(void *pointer, size_t length) { OPENSSL_clear_free(pointer, length); }

// MARK: Error queue (ERR_GET_* are inline functions or macros depending on the version)

static inline int courier_ERR_GET_LIB(unsigned long error) { return ERR_GET_LIB(error); }
static inline int courier_ERR_GET_REASON(unsigned long error) { return ERR_GET_REASON(error); }

// MARK: STACK_OF(X509)

static inline int courier_sk_X509_num(const STACK_OF(X509) *stack) {
    return stack == NULL ? 0 : sk_X509_num(stack);
}
static inline X509 *courier_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}
static inline STACK_OF(X509) *courier_sk_X509_new_null(void) { return sk_X509_new_null(); }
/// Pushes `cert` after taking a reference of its own, so the stack owns what it holds.
static inline int courier_sk_X509_push_up_ref(STACK_OF(X509) *stack, X509 *cert) {
    if (X509_up_ref(cert) != 1) return 0;
    if (sk_X509_push(stack, cert) <= 0) { X509_free(cert); return 0; }
    return 1;
}
static inline void courier_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

#endif
