/* err.c - names of the shared error codes. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

const char *capa_err_name(int err)
{
    switch (err) {
    case CAPA_OK: return "OK";
    case CAPA_EINVAL: return "EINVAL";
    case CAPA_ERANGE: return "ERANGE";
    case CAPA_ENOMEM: return "ENOMEM";
    case CAPA_EIO: return "EIO";
    case CAPA_ENOTFOUND: return "ENOTFOUND";
    case CAPA_EDB: return "EDB";
    case CAPA_EAUTH: return "EAUTH";
    case CAPA_EPROTO: return "EPROTO";
    case CAPA_ESTATE: return "ESTATE";
    case CAPA_ETIMEOUT: return "ETIMEOUT";
    case CAPA_EDUP: return "EDUP";
    case CAPA_EILLEGAL: return "EILLEGAL";
    case CAPA_EFULL: return "EFULL";
    default: return "EUNKNOWN";
    }
}

int capa_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}
