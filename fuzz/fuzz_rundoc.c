/* fuzz_rundoc.c - parses arbitrary run documents; whatever parses must print
 * as canonical JSON that parses again to the same canonical JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rundoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rundoc_t *doc = NULL;
    char err[512];
    if (rundoc_parse((const char *) data, size, NULL, NULL, &doc, err, sizeof err) != 0) {
        if (doc || !err[0])
            abort();   /* a failure leaves no document and always says why */
        return 0;
    }
    char *json = rundoc_to_json(doc, false);
    if (!json)
        abort();
    rundoc_t *again = NULL;
    if (rundoc_parse(json, strlen(json), NULL, NULL, &again, err, sizeof err) != 0)
        abort();       /* canonical JSON must parse */
    char *json2 = rundoc_to_json(again, false);
    if (!json2 || strcmp(json, json2) != 0)
        abort();       /* and be a fixed point */
    if (rundoc_total_pairs(doc) != rundoc_total_pairs(again) || rundoc_total_pairs(doc) < 1)
        abort();
    free(json);
    free(json2);
    rundoc_destroy(&again);
    rundoc_destroy(&doc);
    return 0;
}
