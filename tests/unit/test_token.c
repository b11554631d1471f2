/* Unit tests for contributor tokens and CURVE keys (common/token.h). */
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "err.h"
#include "token.h"

static void generated_tokens_have_the_prefix_and_differ(void)
{
    char a[TOKEN_TEXT_MAX], b[TOKEN_TEXT_MAX], err[128];
    CHECK_EQ_INT(token_generate(a, sizeof a), 0);
    CHECK_EQ_INT(token_generate(b, sizeof b), 0);
    CHECK_EQ_INT(strlen(a), TOKEN_TEXT_LEN);
    CHECK(strncmp(a, "capa_", 5) == 0);
    CHECK(strcmp(a, b) != 0);
    CHECK_EQ_INT(token_check_format(a, err, sizeof err), 0);
    CHECK_EQ_INT(token_generate(a, TOKEN_TEXT_MAX - 1), CAPA_ERANGE);
}

static void tokens_of_the_wrong_shape_are_refused(void)
{
    char err[128];
    CHECK_EQ_INT(token_check_format("capa_short", err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "characters") != NULL);
    CHECK_EQ_INT(token_check_format("xapa_0123456789012345678901234567890123456789012", err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "starts with") != NULL);
    CHECK_EQ_INT(token_check_format("capa_01234567890123456789012345678901234567890+2", err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "0123") == NULL);   /* never quotes the token */
    CHECK_EQ_INT(token_check_format("capa_0123456789012345678901234567890123456789-_2", err, sizeof err), 0);
}

static void the_hash_is_blake2b_256_in_hex(void)
{
    char h[TOKEN_HASH_MAX];
    CHECK_EQ_INT(token_hash("abc", h, sizeof h), 0);
    /* BLAKE2b-256("abc"), a published test value. */
    CHECK_EQ_STR(h, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
    CHECK_EQ_INT(token_hash("abc", h, 10), CAPA_ERANGE);
}

static void tokens_match_only_their_own_hash(void)
{
    char t[TOKEN_TEXT_MAX], u[TOKEN_TEXT_MAX], h[TOKEN_HASH_MAX], hu[TOKEN_HASH_MAX];
    token_generate(t, sizeof t);
    token_generate(u, sizeof u);
    token_hash(t, h, sizeof h);
    token_hash(u, hu, sizeof hu);
    CHECK(token_matches(t, h));
    CHECK(!token_matches(u, h));
    CHECK(!token_matches("", h));
    CHECK(!token_matches(NULL, h));
    CHECK(token_hash_equal(h, h));
    CHECK(!token_hash_equal(h, hu));
    CHECK(!token_hash_equal(h, "abcd"));
    CHECK(!token_hash_equal(h, NULL));
    char upper[TOKEN_HASH_MAX];
    strcpy(upper, h);
    upper[63] = upper[63] == '0' ? '1' : '0';
    CHECK(!token_hash_equal(h, upper));
}

static void z85_matches_the_rfc_example(void)
{
    const uint8_t hello[8] = { 0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B };
    char text[16];
    CHECK_EQ_INT(token_z85_encode(hello, 8, text, sizeof text), 0);
    CHECK_EQ_STR(text, "HelloWorld");
    uint8_t back[8];
    size_t len;
    CHECK_EQ_INT(token_z85_decode("HelloWorld", back, sizeof back, &len), 0);
    CHECK_EQ_INT(len, 8);
    CHECK(memcmp(back, hello, 8) == 0);
    CHECK_EQ_INT(token_z85_encode(hello, 7, text, sizeof text), CAPA_EINVAL);
    CHECK_EQ_INT(token_z85_encode(hello, 8, text, 10), CAPA_ERANGE);
    CHECK_EQ_INT(token_z85_decode("Hello", back, sizeof back, &len), 0);
    CHECK_EQ_INT(token_z85_decode("Hell", back, sizeof back, &len), CAPA_EINVAL);
    CHECK_EQ_INT(token_z85_decode("Hell\"", back, sizeof back, &len), CAPA_EINVAL);
    CHECK_EQ_INT(token_z85_decode("#####", back, sizeof back, &len), CAPA_EINVAL); /* > 2^32 */
}

static void z85_round_trips_every_byte_value(void)
{
    uint8_t data[256], back[256];
    for (int i = 0; i < 256; i++)
        data[i] = (uint8_t) (255 - i);
    char text[321];
    size_t len;
    CHECK_EQ_INT(token_z85_encode(data, 256, text, sizeof text), 0);
    CHECK_EQ_INT(strlen(text), 320);
    CHECK_EQ_INT(token_z85_decode(text, back, sizeof back, &len), 0);
    CHECK(memcmp(data, back, 256) == 0);
}

static void curve_keys_match_the_zeromq_guide_pair(void)
{
    /* The server key pair from the ZeroMQ Guide's CURVE examples. */
    char pub[TOKEN_Z85_KEY_MAX];
    CHECK_EQ_INT(token_curve_public("JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6", pub), 0);
    CHECK_EQ_STR(pub, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
    CHECK_EQ_INT(token_curve_public("too short", pub), CAPA_EINVAL);
}

static void a_new_key_pair_belongs_together(void)
{
    char pub[TOKEN_Z85_KEY_MAX], sec[TOKEN_Z85_KEY_MAX], derived[TOKEN_Z85_KEY_MAX];
    CHECK_EQ_INT(token_curve_keypair(pub, sec), 0);
    CHECK_EQ_INT(strlen(pub), 40);
    CHECK_EQ_INT(strlen(sec), 40);
    CHECK_EQ_INT(token_curve_public(sec, derived), 0);
    CHECK_EQ_STR(derived, pub);
}

static char s_dir[128];

static const char *s_path(const char *name)
{
    if (!*s_dir) {
        snprintf(s_dir, sizeof s_dir, "/tmp/capa-test-token-XXXXXX");
        CHECK(mkdtemp(s_dir) != NULL);
    }
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", s_dir, name);
    return path;
}

static void key_files_are_private_and_load_back(void)
{
    char pub[TOKEN_Z85_KEY_MAX], sec[TOKEN_Z85_KEY_MAX], err[256];
    token_curve_keypair(pub, sec);
    char path[256];
    snprintf(path, sizeof path, "%s", s_path("server.key"));
    CHECK_MSG(token_curve_save(path, pub, sec, err, sizeof err) == 0, "%s", err);
    struct stat st;
    CHECK_EQ_INT(stat(path, &st), 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
    char pub2[TOKEN_Z85_KEY_MAX], sec2[TOKEN_Z85_KEY_MAX];
    CHECK_MSG(token_curve_load(path, pub2, sec2, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_STR(pub2, pub);
    CHECK_EQ_STR(sec2, sec);

    chmod(path, 0644);
    CHECK_EQ_INT(token_curve_load(path, pub2, sec2, err, sizeof err), CAPA_EAUTH);
    CHECK(strstr(err, "chmod 600") != NULL);

    char pubpath[256];
    snprintf(pubpath, sizeof pubpath, "%s", s_path("server.pub"));
    CHECK_EQ_INT(token_curve_save(pubpath, pub, NULL, err, sizeof err), 0);
    CHECK_EQ_INT(stat(pubpath, &st), 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0644);
    CHECK_EQ_INT(token_curve_load(pubpath, pub2, sec2, err, sizeof err), 0);
    CHECK_EQ_STR(pub2, pub);
    CHECK_EQ_STR(sec2, "");
}

static void broken_key_files_are_refused(void)
{
    char pub[TOKEN_Z85_KEY_MAX], sec[TOKEN_Z85_KEY_MAX], other[TOKEN_Z85_KEY_MAX], err[256];
    token_curve_keypair(pub, sec);
    token_curve_keypair(other, sec);   /* sec no longer matches pub */
    const char *path = s_path("bad.key");
    FILE *f = fopen(path, "w");
    fprintf(f, "public-key = \"%s\"\nsecret-key = \"%s\"\n", pub, sec);
    fclose(f);
    chmod(path, 0600);
    CHECK_EQ_INT(token_curve_load(path, pub, sec, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "does not belong") != NULL);
    f = fopen(path, "w");
    fprintf(f, "public-key = \"short\"\n");
    fclose(f);
    CHECK_EQ_INT(token_curve_load(path, pub, sec, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, ":1:") != NULL);
    f = fopen(path, "w");
    fprintf(f, "# nothing\n");
    fclose(f);
    CHECK_EQ_INT(token_curve_load(path, pub, sec, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "no public-key") != NULL);
    CHECK_EQ_INT(token_curve_load(s_path("missing.key"), pub, sec, err, sizeof err), CAPA_EIO);
    CHECK_EQ_INT(token_curve_save(s_path("x.key"), "bad", NULL, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(token_curve_save("/nonexistent-dir/x.key", other, NULL, err, sizeof err), CAPA_EIO);
}

static const check_case_t CASES[] = {
    CASE(generated_tokens_have_the_prefix_and_differ),
    CASE(tokens_of_the_wrong_shape_are_refused),
    CASE(the_hash_is_blake2b_256_in_hex),
    CASE(tokens_match_only_their_own_hash),
    CASE(z85_matches_the_rfc_example),
    CASE(z85_round_trips_every_byte_value),
    CASE(curve_keys_match_the_zeromq_guide_pair),
    CASE(a_new_key_pair_belongs_together),
    CASE(key_files_are_private_and_load_back),
    CASE(broken_key_files_are_refused),
    { 0 },
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, CASES);
    if (*s_dir) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", s_dir);
    }
    return rc;
}
