/* client.c - HTTP requests to the coordinator with libcurl (see client.h). */
#include "json.h"
#include "client.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "err.h"

#define CLIENT_BODY_MAX ((size_t) 1 << 31)

typedef struct {
    char *data;
    size_t len, cap;
    int oom;
} s_sink_t;

static size_t s_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    s_sink_t *s = ud;
    size_t n = size * nmemb;
    if (s->len + n + 1 > CLIENT_BODY_MAX) {
        s->oom = 1;
        return 0;
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 8192;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *d = realloc(s->data, cap);
        if (!d) {
            s->oom = 1;
            return 0;
        }
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->len, ptr, n);
    s->len += n;
    s->data[s->len] = 0;
    return n;
}

int client_request(const char *server, const char *token, const char *method, const char *path,
                   const char *body, size_t len, int timeout_s, client_response_t *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (strncmp(server, "http://", 7) != 0 && strncmp(server, "https://", 8) != 0)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "the server \"%s\" is not an http:// or https:// URL", server);
    static int inited;
    if (!inited) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        inited = 1;
    }
    CURL *c = curl_easy_init();
    if (!c)
        return capa_fail(err, errlen, CAPA_ENOMEM, "libcurl failed to start");
    size_t ulen = strlen(server) + strlen(path) + 1;
    char *url = malloc(ulen);
    if (!url) {
        curl_easy_cleanup(c);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    snprintf(url, ulen, "%s%s", server, path);
    struct curl_slist *h = NULL;
    char auth[320];
    if (token && *token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    if (body) {
        h = curl_slist_append(h, "Content-Type: application/json");
        h = curl_slist_append(h, "Expect:");
    }
    s_sink_t sink = { 0 };
    char ebuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) len);
    } else if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) 0);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, s_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long) (timeout_s > 0 ? timeout_s : 60));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "capa/0.1");
    CURLcode rc = curl_easy_perform(c);
    int ret = 0;
    if (rc != CURLE_OK) {
        if (sink.oom)
            ret = capa_fail(err, errlen, CAPA_ENOMEM, "the answer is too large for memory");
        else
            ret = capa_fail(err, errlen, CAPA_EIO, "cannot reach %s: %s", server,
                            ebuf[0] ? ebuf : curl_easy_strerror(rc));
        free(sink.data);
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
        if (!sink.data) {
            sink.data = calloc(1, 1);
            if (!sink.data)
                ret = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        }
        out->body = sink.data;
        out->len = sink.len;
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(url);
    return ret;
}

void client_response_free(client_response_t *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

void client_error_text(const client_response_t *r, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    buf[0] = 0;
    cJSON *j = r->body ? json_parse_len(r->body, r->len) : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (cJSON_IsString(e)) {
        snprintf(buf, cap, "%s", e->valuestring);
        cJSON_Delete(j);
        return;
    }
    cJSON_Delete(j);
    size_t o = 0;
    for (size_t i = 0; r->body && i < r->len && o + 1 < cap && o < 200; i++) {
        unsigned char ch = (unsigned char) r->body[i];
        buf[o++] = isprint(ch) ? (char) ch : ' ';
    }
    buf[o] = 0;
}
