/* fuzz_fen - libFuzzer target for FEN parsing and everything a parsed
 * position allows: write it back, read that again (same FEN, same key), then
 * every legal move: make, self-check, UCI and SAN round trips, unmake.
 * Input: first byte picks the variant, the rest is the FEN text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "perft.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static board_t s_board, s_again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 600)
        return 0;
    variant_t v = (variant_t) (data[0] % VARIANT_NB);
    char fen[601];
    memcpy(fen, data + 1, size - 1);
    fen[size - 1] = '\0';

    char err[256];
    /* Lenient mode must not crash either (perft 2 exercises king capture). */
    if (board_set_fen_flags(&s_board, fen, v, BOARD_FEN_ALLOW_CAPTURE_KING, err, sizeof err) == 0)
        (void) perft(&s_board, 2);
    if (board_set_fen(&s_board, fen, v, err, sizeof err) != 0)
        return 0;
    if (board_validate(&s_board, err, sizeof err) != 0)
        abort();
    char out[FEN_MAX], again[FEN_MAX];
    if (board_get_fen(&s_board, out, sizeof out) != 0)
        abort();
    if (board_set_fen(&s_again, out, v, err, sizeof err) != 0)
        abort();
    if (board_get_fen(&s_again, again, sizeof again) != 0 || strcmp(out, again) != 0)
        abort();
    if (board_key(&s_again) != board_key(&s_board))
        abort();

    (void) rules_result(&s_board, NULL);
    move_list_t list, noisy;
    movegen_legal(&s_board, &list);
    if (movegen_noisy(&s_board, &noisy) > list.count)
        abort();
    for (int i = 0; i < list.count; i++) {
        move_t m = list.moves[i], back;
        char uci[UCI_MOVE_MAX], san[SAN_MOVE_MAX];
        if (!movegen_is_legal(&s_board, m))
            abort();
        move_to_uci(&s_board, m, v == VARIANT_CAPARANDOM, uci);
        if (move_from_uci(&s_board, uci, &back) != 0 || back != m)
            abort();
        move_to_san(&s_board, m, san);
        if (move_from_san(&s_board, san, &back) != 0 || back != m)
            abort();
        bool check = board_gives_check(&s_board, m);
        board_make(&s_board, m);
        if (board_validate(&s_board, err, sizeof err) != 0 || board_in_check(&s_board) != check)
            abort();
        (void) movegen_count(&s_board);
        board_unmake(&s_board);
    }
    if (board_get_fen(&s_board, again, sizeof again) != 0 || strcmp(out, again) != 0)
        abort();
    return 0;
}
