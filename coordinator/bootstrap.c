/* bootstrap.c - the contributor registered from a token file at start (see
 * bootstrap.h). */
#include "bootstrap.h"

#include <stdio.h>
#include <string.h>

#include "admin.h"
#include "err.h"
#include "log.h"
#include "token.h"

int bootstrap_read_token(const char *path, char *token, size_t cap, char *err, size_t errlen)
{
    if (cap < TOKEN_TEXT_MAX)
        return capa_fail(err, errlen, CAPA_ERANGE, "token buffer too small");
    token[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return capa_fail(err, errlen, CAPA_EIO, "token file %s: cannot open", path);
    char line[256];
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got)
        return capa_fail(err, errlen, CAPA_EINVAL, "token file %s is empty", path);
    size_t n = strcspn(line, "\r\n");
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    line[n] = 0;
    if (n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "token file %s: its first line is empty", path);
    char why[160];
    if (token_check_format(line, why, sizeof why) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "token file %s: %s", path, why);
    memcpy(token, line, n + 1);
    return 0;
}

int bootstrap_contributor(store_t *store, const char *name, const char *token_file,
                          bootstrap_outcome_t *outcome, char *err, size_t errlen)
{
    bootstrap_outcome_t dummy;
    if (!outcome)
        outcome = &dummy;
    *outcome = BOOTSTRAP_NONE;
    char token[TOKEN_TEXT_MAX];
    int rc = bootstrap_read_token(token_file, token, sizeof token, err, errlen);
    if (rc < 0)
        return rc;
    char hash[TOKEN_HASH_MAX];
    rc = token_hash(token, hash, sizeof hash);
    memset(token, 0, sizeof token);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "cannot hash the token of %s", token_file);

    store_contributor_t c;
    rc = admin_contributor_find(store, name, &c, err, errlen);
    if (rc == CAPA_ENOTFOUND) {
        rc = store_contributor_add(store, name, hash, false, NULL);
        if (rc == CAPA_EDUP)
            return capa_fail(err, errlen, rc,
                             "bootstrap contributor \"%s\": the token in %s belongs to another "
                             "contributor", name, token_file);
        if (rc < 0)
            return capa_fail(err, errlen, rc, "bootstrap contributor \"%s\": %s", name,
                             store_last_error(store));
        *outcome = BOOTSTRAP_ADDED;
        return 0;
    }
    if (rc < 0)
        return rc;
    if (c.revoked_at_ms != 0) {
        *outcome = BOOTSTRAP_REVOKED;
        return 0;
    }
    if (token_hash_equal(c.token_hash, hash)) {
        *outcome = BOOTSTRAP_KEPT;
        return 0;
    }
    rc = store_contributor_set_token(store, c.id, hash);
    if (rc == CAPA_EDUP)
        return capa_fail(err, errlen, rc,
                         "bootstrap contributor \"%s\": the token in %s belongs to another "
                         "contributor", name, token_file);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "bootstrap contributor \"%s\": %s", name,
                         store_last_error(store));
    *outcome = BOOTSTRAP_ROTATED;
    return 0;
}

int bootstrap_from_config(store_t *store, const coord_config_t *cfg,
                          bootstrap_outcome_t *outcome, char *err, size_t errlen)
{
    bootstrap_outcome_t got = BOOTSTRAP_NONE;
    if (outcome)
        *outcome = BOOTSTRAP_NONE;
    const char *name = cfg->bootstrap_contributor;
    const char *file = cfg->bootstrap_token_file;
    if (!name[0] && !file[0])
        return 0;
    if (!name[0] || !file[0])
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "bootstrap_contributor and bootstrap_token_file go together (%s is "
                         "missing)", name[0] ? "bootstrap_token_file" : "bootstrap_contributor");
    int rc = bootstrap_contributor(store, name, file, &got, err, errlen);
    if (rc < 0)
        return rc;
    switch (got) {
    case BOOTSTRAP_ADDED:
        LOG(LOG_INFO, "bootstrap: contributor \"%s\" added with the token of %s", name, file);
        break;
    case BOOTSTRAP_KEPT:
        LOG(LOG_INFO, "bootstrap: contributor \"%s\" exists with the token of %s", name, file);
        break;
    case BOOTSTRAP_ROTATED:
        LOG(LOG_WARN, "bootstrap: contributor \"%s\" now has the token of %s (its old token "
            "no longer works)", name, file);
        break;
    case BOOTSTRAP_REVOKED:
        LOG(LOG_WARN, "bootstrap: contributor \"%s\" is revoked and stays so; its workers are "
            "refused", name);
        break;
    case BOOTSTRAP_NONE:
        break;
    }
    if (outcome)
        *outcome = got;
    return 0;
}
