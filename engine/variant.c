/* variant.c - the names and start positions of the supported variants. */
#include <strings.h>

#include "err.h"
#include "types.h"

static const char *const NAMES[VARIANT_NB] = { "capablanca", "caparandom", "gothic", "embassy",
                                               "janus" };

static const char *const START_FENS[VARIANT_NB] = {
    "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
    "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w JAja - 0 1",
    "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1",
    "rnbqkcabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKCABNR w KQkq - 0 1",
    "rjnbkqbnjr/pppppppppp/10/10/10/10/PPPPPPPPPP/RJNBKQBNJR w KQkq - 0 1",
};

const char *variant_name(variant_t v)
{
    return (unsigned) v < VARIANT_NB ? NAMES[v] : "?";
}

int variant_from_name(const char *name, variant_t *out)
{
    for (int v = 0; name && v < VARIANT_NB; v++) {
        if (strcasecmp(name, NAMES[v]) == 0) {
            *out = (variant_t) v;
            return CAPA_OK;
        }
    }
    return CAPA_EINVAL;
}

const char *variant_start_fen(variant_t v)
{
    return (unsigned) v < VARIANT_NB ? START_FENS[v] : START_FENS[0];
}
