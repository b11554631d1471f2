/* token.c - contributor tokens (random, hashed, compared in constant time)
 * and CURVE key pairs as Z85 text and key files. */
#include "token.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "err.h"

#define TOKEN_RANDOM_BYTES 32
#define KEY_BYTES 32

static const char s_z85[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int token_init(void)
{
    return sodium_init() < 0 ? CAPA_EIO : 0;
}

int token_generate(char *out, size_t cap)
{
    if (token_init() != 0)
        return CAPA_EIO;
    if (cap < TOKEN_TEXT_MAX)
        return CAPA_ERANGE;
    unsigned char raw[TOKEN_RANDOM_BYTES];
    randombytes_buf(raw, sizeof raw);
    memcpy(out, TOKEN_PREFIX, strlen(TOKEN_PREFIX));
    sodium_bin2base64(out + strlen(TOKEN_PREFIX), cap - strlen(TOKEN_PREFIX), raw, sizeof raw,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
    return 0;
}

int token_check_format(const char *token, char *err, size_t errlen)
{
    size_t plen = strlen(TOKEN_PREFIX);
    if (!token || strncmp(token, TOKEN_PREFIX, plen) != 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "a token starts with \"%s\"", TOKEN_PREFIX);
    size_t len = strlen(token);
    if (len != TOKEN_TEXT_LEN)
        return capa_fail(err, errlen, CAPA_EINVAL, "a token has %d characters, this one %zu",
                         TOKEN_TEXT_LEN, len);
    for (size_t i = plen; i < len; i++) {
        char c = token[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "a token holds only A-Z a-z 0-9 - _ after its prefix");
    }
    return 0;
}

int token_hash(const char *token, char *out, size_t cap)
{
    if (token_init() != 0)
        return CAPA_EIO;
    if (cap < TOKEN_HASH_MAX || !token)
        return CAPA_ERANGE;
    unsigned char digest[32];
    crypto_generichash(digest, sizeof digest, (const unsigned char *) token, strlen(token), NULL, 0);
    sodium_bin2hex(out, cap, digest, sizeof digest);
    return 0;
}

/* Parses 64 hex digits into 32 bytes; false if malformed. */
static bool s_unhex(const char *hex, unsigned char out[32])
{
    size_t len = 0;
    if (!hex || strlen(hex) != 64)
        return false;
    return sodium_hex2bin(out, 32, hex, 64, NULL, &len, NULL) == 0 && len == 32;
}

bool token_hash_equal(const char *hash_a, const char *hash_b)
{
    unsigned char a[32], b[32];
    if (token_init() != 0 || !s_unhex(hash_a, a) || !s_unhex(hash_b, b))
        return false;
    return sodium_memcmp(a, b, 32) == 0;
}

bool token_matches(const char *token, const char *stored_hash)
{
    char hash[TOKEN_HASH_MAX];
    if (!token || token_hash(token, hash, sizeof hash) != 0)
        return false;
    return token_hash_equal(hash, stored_hash);
}

int token_z85_encode(const uint8_t *data, size_t len, char *out, size_t cap)
{
    if (len % 4 != 0)
        return CAPA_EINVAL;
    if (cap < len / 4 * 5 + 1)
        return CAPA_ERANGE;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = (uint32_t) data[i] << 24 | (uint32_t) data[i + 1] << 16 |
                     (uint32_t) data[i + 2] << 8 | data[i + 3];
        for (int k = 4; k >= 0; k--) {
            out[o + (size_t) k] = s_z85[v % 85];
            v /= 85;
        }
        o += 5;
    }
    out[o] = '\0';
    return 0;
}

int token_z85_decode(const char *text, uint8_t *out, size_t cap, size_t *len)
{
    size_t n = strlen(text);
    if (n % 5 != 0)
        return CAPA_EINVAL;
    if (cap < n / 5 * 4)
        return CAPA_ERANGE;
    for (size_t i = 0; i < n; i += 5) {
        uint64_t v = 0;
        for (size_t k = 0; k < 5; k++) {
            const char *p = text[i + k] ? strchr(s_z85, text[i + k]) : NULL;
            if (!p)
                return CAPA_EINVAL;
            v = v * 85 + (uint64_t) (p - s_z85);
        }
        if (v > 0xFFFFFFFFu)
            return CAPA_EINVAL;
        for (size_t k = 0; k < 4; k++)
            out[i / 5 * 4 + k] = (uint8_t) (v >> (24 - 8 * k));
    }
    *len = n / 5 * 4;
    return 0;
}

int token_curve_keypair(char *public_z85, char *secret_z85)
{
    if (token_init() != 0)
        return CAPA_EIO;
    unsigned char pk[KEY_BYTES], sk[KEY_BYTES];
    if (crypto_box_keypair(pk, sk) != 0)
        return CAPA_EIO;
    token_z85_encode(pk, KEY_BYTES, public_z85, TOKEN_Z85_KEY_MAX);
    token_z85_encode(sk, KEY_BYTES, secret_z85, TOKEN_Z85_KEY_MAX);
    sodium_memzero(sk, sizeof sk);
    return 0;
}

/* Decodes one 40-character Z85 key. */
static int s_key(const char *z85, unsigned char out[KEY_BYTES])
{
    size_t len = 0;
    if (!z85 || strlen(z85) != 40 || token_z85_decode(z85, out, KEY_BYTES, &len) != 0 ||
        len != KEY_BYTES)
        return CAPA_EINVAL;
    return 0;
}

int token_curve_public(const char *secret_z85, char *public_z85)
{
    unsigned char sk[KEY_BYTES], pk[KEY_BYTES];
    if (token_init() != 0)
        return CAPA_EIO;
    if (s_key(secret_z85, sk) != 0)
        return CAPA_EINVAL;
    int rc = crypto_scalarmult_base(pk, sk) == 0 ? 0 : CAPA_EINVAL;
    sodium_memzero(sk, sizeof sk);
    if (rc == 0)
        token_z85_encode(pk, KEY_BYTES, public_z85, TOKEN_Z85_KEY_MAX);
    return rc;
}

int token_curve_save(const char *path, const char *public_z85, const char *secret_z85,
                     char *err, size_t errlen)
{
    unsigned char key[KEY_BYTES];
    if (s_key(public_z85, key) != 0 || (secret_z85 && s_key(secret_z85, key) != 0))
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: a key is not 40 Z85 characters", path);
    sodium_memzero(key, sizeof key);
    char tmp[4096];
    if ((size_t) snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp)
        return capa_fail(err, errlen, CAPA_ERANGE, "key file path too long");
    int fd = mkstemp(tmp);
    if (fd < 0)
        return capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(errno));
    mode_t mode = secret_z85 ? 0600 : 0644;
    char text[256];
    int n = snprintf(text, sizeof text, "# capalab CURVE key%s (ZeroMQ Z85)\npublic-key = \"%s\"\n",
                     secret_z85 ? " pair: keep this file secret" : ", public part", public_z85);
    if (secret_z85)
        n += snprintf(text + n, sizeof text - (size_t) n, "secret-key = \"%s\"\n", secret_z85);
    bool ok = fchmod(fd, mode) == 0 && write(fd, text, (size_t) n) == n && fsync(fd) == 0;
    int saved = errno;
    sodium_memzero(text, sizeof text);
    if (close(fd) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0) {
        if (ok)
            saved = errno;
        unlink(tmp);
        return capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(saved));
    }
    return 0;
}

/* Reads `name = "value"` with value exactly 40 characters. */
static int s_line_value(const char *line, const char *name, char *out)
{
    size_t n = strlen(name);
    if (strncmp(line, name, n) != 0)
        return 1;
    const char *p = line + n;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '=')
        return CAPA_EINVAL;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '"')
        return CAPA_EINVAL;
    const char *end = strchr(p, '"');
    if (!end || end - p != 40)
        return CAPA_EINVAL;
    memcpy(out, p, 40);
    out[40] = '\0';
    for (p = end + 1; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            return CAPA_EINVAL;
    return 0;
}

int token_curve_load(const char *path, char *public_z85, char *secret_z85, char *err,
                     size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(errno));
    }
    char pub[TOKEN_Z85_KEY_MAX] = "", sec[TOKEN_Z85_KEY_MAX] = "", line[512];
    int rc = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        int a = s_line_value(p, "public-key", pub);
        int b = a == 1 ? s_line_value(p, "secret-key", sec) : a;
        if (a < 0 || b != 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s:%d: expected public-key = \"<40 Z85>\" or "
                           "secret-key = \"<40 Z85>\"", path, lineno);
    }
    fclose(f);
    sodium_memzero(line, sizeof line);
    unsigned char key[KEY_BYTES];
    if (rc == 0 && (s_key(pub, key) != 0 || (*sec && s_key(sec, key) != 0)))
        rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: %s", path,
                       *pub ? "a key is not valid Z85" : "no public-key line");
    if (rc == 0 && *sec && (st.st_mode & 077))
        rc = capa_fail(err, errlen, CAPA_EAUTH,
                       "%s: holds a secret key but group or others may read it (chmod 600)", path);
    if (rc == 0 && *sec) {
        char derived[TOKEN_Z85_KEY_MAX];
        if (token_curve_public(sec, derived) != 0 || strcmp(derived, pub) != 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: the public key does not belong to the secret key", path);
    }
    if (rc == 0) {
        memcpy(public_z85, pub, sizeof pub);
        if (secret_z85)
            memcpy(secret_z85, sec, sizeof sec);
    }
    sodium_memzero(sec, sizeof sec);
    sodium_memzero(key, sizeof key);
    return rc;
}
