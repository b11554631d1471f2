/* fuzz_protocol.c - decodes arbitrary frames; whatever decodes must encode,
 * and the encoding must decode to a message that encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    proto_msg_t msg;
    char err[256];
    if (proto_decode(data, size, &msg, err, sizeof err) != 0) {
        if (msg.fault == PROTO_OK)
            abort();   /* every failure names an ERROR code */
        proto_msg_free(&msg);
        return 0;
    }
    char *frame = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    if (proto_encode(&msg, &frame, &len, err, sizeof err) != 0)
        abort();       /* a decoded message must always re-encode */
    proto_msg_t back;
    if (proto_decode(frame, len, &back, err, sizeof err) != 0 || back.type != msg.type)
        abort();
    if (proto_encode(&back, &again, &len2, err, sizeof err) != 0)
        abort();
    if (len != len2 || memcmp(frame, again, len) != 0)
        abort();       /* encoding is a fixed point after one round */
    free(frame);
    free(again);
    proto_msg_free(&back);
    proto_msg_free(&msg);
    return 0;
}
