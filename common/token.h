/* token.h - contributor tokens and CURVE key pairs.
 *
 * Tokens: "capa_" + 43 URL-safe base64 characters (32 random bytes from
 * libsodium). The database keeps only token_hash (BLAKE2b-256, hex): tokens
 * are 256-bit random, so a fast unsalted hash is enough and lets the
 * coordinator look a token up by its hash. Compare hashes with
 * token_hash_equal (constant time).
 *
 * CURVE (ZeroMQ RFC 26) keys are X25519 key pairs made with libsodium's
 * crypto_box_keypair (what zmq_curve_keypair does too) and written as Z85
 * text (ZeroMQ RFC 32, encoded here; capacommon does not link ZeroMQ): 40
 * characters per 32-byte key, as ZMQ_CURVE_PUBLICKEY etc. accept them.
 *
 * All functions may be called from any thread; libsodium is initialised on
 * first use (sodium_init is idempotent and thread-safe).
 */
#ifndef CAPA_TOKEN_H
#define CAPA_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOKEN_PREFIX "capa_"
#define TOKEN_TEXT_LEN 48          /* 5 + 43 */
#define TOKEN_TEXT_MAX (TOKEN_TEXT_LEN + 1)
#define TOKEN_HASH_MAX 65          /* 64 hex digits + NUL */
#define TOKEN_Z85_KEY_MAX 41       /* 40 Z85 characters + NUL */

/* Initialises libsodium; 0 or CAPA_EIO. Called by every function below. */
int token_init(void);

/* A new random token into out (TOKEN_TEXT_MAX bytes). */
int token_generate(char *out, size_t cap);
/* 0 if token looks like one of ours (prefix, length, alphabet), else
 * CAPA_EINVAL with the reason (never quoting the token). */
int token_check_format(const char *token, char *err, size_t errlen);
/* BLAKE2b-256 of the token text as 64 lower-case hex digits. */
int token_hash(const char *token, char *out, size_t cap);
/* Constant-time equality of two hex hashes (false if either is malformed). */
bool token_hash_equal(const char *hash_a, const char *hash_b);
/* Constant-time check that token hashes to stored_hash. */
bool token_matches(const char *token, const char *stored_hash);

/* Z85 (RFC 32): len must be a multiple of 4 (encode) / 5 (decode). encode
 * writes len*5/4 characters + NUL into out (cap at least that + 1); decode
 * writes strlen(text)*4/5 bytes. 0, CAPA_EINVAL or CAPA_ERANGE. */
int token_z85_encode(const uint8_t *data, size_t len, char *out, size_t cap);
int token_z85_decode(const char *text, uint8_t *out, size_t cap, size_t *len);

/* A new CURVE key pair as Z85 text (each TOKEN_Z85_KEY_MAX bytes). */
int token_curve_keypair(char *public_z85, char *secret_z85);
/* The public key that belongs to a secret key (like zmq_curve_public). */
int token_curve_public(const char *secret_z85, char *public_z85);

/* Key files. save writes `public-key = "..."` and `secret-key = "..."` lines
 * to path with mode 0600 (via a temporary file and rename); with secret_z85
 * NULL it writes a public-only file with mode 0644, for handing out. load
 * reads either kind (secret_z85 may be NULL; it gets "" if the file has no
 * secret key) and refuses a file holding a secret key that group or others
 * can read (CAPA_EAUTH), like ssh does. 0 or a negative capa_err_t. */
int token_curve_save(const char *path, const char *public_z85, const char *secret_z85,
                     char *err, size_t errlen);
int token_curve_load(const char *path, char *public_z85, char *secret_z85, char *err,
                     size_t errlen);

#endif
