#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/pkcs7.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/crypto.h>

// Macros Swift cannot import are wrapped here, one line of why each.

/// `BIO_get_mem_data` is a macro over BIO_ctrl.
static inline long shim_BIO_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }
/// `sk_X509_new_null` is a type-safe stack macro.
static inline STACK_OF(X509) *shim_sk_X509_new_null(void) { return sk_X509_new_null(); }
/// `sk_X509_push` is a type-safe stack macro.
static inline int shim_sk_X509_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
/// `sk_X509_num` is a type-safe stack macro.
static inline int shim_sk_X509_num(const STACK_OF(X509) *s) { return sk_X509_num(s); }
/// `sk_X509_value` is a type-safe stack macro.
static inline X509 *shim_sk_X509_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
/// `sk_X509_free` is a type-safe stack macro.
static inline void shim_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
/// `sk_X509_pop_free` with X509_free is a macro.
static inline void shim_sk_X509_pop_free(STACK_OF(X509) *s) { sk_X509_pop_free(s, X509_free); }
/// `SSL_CTX_set_min_proto_version` is a macro over SSL_CTX_ctrl.
static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_min_proto_version(ctx, v); }
/// `SSL_set_tlsext_host_name` is a macro over SSL_ctrl.
static inline int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
/// `SSL_CTX_add1_chain_cert` is a macro over SSL_CTX_ctrl.
static inline int shim_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *x) { return (int)SSL_CTX_add1_chain_cert(ctx, x); }
/// `OPENSSL_free` is a macro that records file and line.
static inline void shim_OPENSSL_free(void *p) { OPENSSL_free(p); }
#endif
