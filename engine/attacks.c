/* attacks.c - the constant attack tables of the 10x8 board, filled once. */
#include "attacks.h"

#include <pthread.h>

attacks_tables_t attacks_tables;

/* (ten files a rank: types.h asserts the 10x8 board) */
#define SQ_BB_(r, f) ((bitboard_t) 1 << ((r) * FILE_NB + (f)))
#define SQ_BB_RANK_(r)                                                               \
    SQ_BB_(r, 0), SQ_BB_(r, 1), SQ_BB_(r, 2), SQ_BB_(r, 3), SQ_BB_(r, 4), SQ_BB_(r, 5), \
    SQ_BB_(r, 6), SQ_BB_(r, 7), SQ_BB_(r, 8), SQ_BB_(r, 9)
const bitboard_t attacks_square_bb[SQ_NB + 1] = {
    SQ_BB_RANK_(0), SQ_BB_RANK_(1), SQ_BB_RANK_(2), SQ_BB_RANK_(3),
    SQ_BB_RANK_(4), SQ_BB_RANK_(5), SQ_BB_RANK_(6), SQ_BB_RANK_(7), SQ_BB_(RANK_NB, 0) };
#undef SQ_BB_RANK_
#undef SQ_BB_

static pthread_once_t s_once = PTHREAD_ONCE_INIT;

/* Directions: the first four run toward higher squares, the last four are
 * their opposites in the same order (d + 4). */
enum { DIR_N, DIR_E, DIR_NE, DIR_NW, DIR_S, DIR_W, DIR_SW, DIR_SE, DIR_NB };

/* The ray from a square in each direction, the square left out. */
static bitboard_t s_ray[DIR_NB][SQ_NB];

static const int DIR_DF[DIR_NB] = { 0, 1, 1, -1, 0, -1, -1, 1 };
static const int DIR_DR[DIR_NB] = { 1, 0, 1, 1, -1, 0, -1, -1 };

static bool s_on_board(int f, int r)
{
    return f >= 0 && f < FILE_NB && r >= 0 && r < RANK_NB;
}

static bitboard_t s_leaper(square_t s, const int (*d)[2], int n)
{
    bitboard_t b = 0;
    int f = square_file(s), r = square_rank(s);
    for (int i = 0; i < n; i++)
        if (s_on_board(f + d[i][0], r + d[i][1]))
            b |= bb_square(square_make(f + d[i][0], r + d[i][1]));
    return b;
}

/* The places a slider on place i of a line of n places reaches, when the
 * set blockers (bit k for place k) hold pieces: up to and including the
 * first blocker each way. */
static unsigned s_line_attacks(int i, unsigned blockers, int n)
{
    unsigned a = 0;
    for (int k = i + 1; k < n; k++) {
        a |= 1u << k;
        if (blockers >> k & 1)
            break;
    }
    for (int k = i - 1; k >= 0; k--) {
        a |= 1u << k;
        if (blockers >> k & 1)
            break;
    }
    return a;
}

static void s_init(void)
{
    static const int KNIGHT_D[8][2] = { { 1, 2 }, { 2, 1 }, { 2, -1 }, { 1, -2 },
                                        { -1, -2 }, { -2, -1 }, { -2, 1 }, { -1, 2 } };
    static const int KING_D[8][2] = { { 1, 0 }, { 1, 1 }, { 0, 1 }, { -1, 1 },
                                      { -1, 0 }, { -1, -1 }, { 0, -1 }, { 1, -1 } };
    static const int WPAWN_D[2][2] = { { -1, 1 }, { 1, 1 } };
    static const int BPAWN_D[2][2] = { { -1, -1 }, { 1, -1 } };
    attacks_tables_t *t = &attacks_tables;

    for (square_t s = 0; s < SQ_NB; s++) {
        t->knight[s] = s_leaper(s, KNIGHT_D, 8);
        t->king[s] = s_leaper(s, KING_D, 8);
        t->pawn[WHITE][s] = s_leaper(s, WPAWN_D, 2);
        t->pawn[BLACK][s] = s_leaper(s, BPAWN_D, 2);
        for (int d = 0; d < DIR_NB; d++) {
            bitboard_t ray = 0;
            int f = square_file(s) + DIR_DF[d], r = square_rank(s) + DIR_DR[d];
            for (; s_on_board(f, r); f += DIR_DF[d], r += DIR_DR[d])
                ray |= bb_square(square_make(f, r));
            s_ray[d][s] = ray;
        }
    }
    for (square_t s = 0; s < SQ_NB; s++) {
        t->diagonal[s] = s_ray[DIR_NE][s] | s_ray[DIR_SW][s];
        t->anti_diagonal[s] = s_ray[DIR_NW][s] | s_ray[DIR_SE][s];
    }
    for (unsigned m = 0; m < 1u << RANK_NB; m++) {
        t->on_file_a[m] = 0;
        for (int r = 0; r < RANK_NB; r++)
            if (m >> r & 1)
                t->on_file_a[m] |= bb_square(square_make(0, r));
    }
    for (int i = 0; i < FILE_NB; i++)
        for (unsigned o = 0; o < 1u << (FILE_NB - 2); o++)
            t->line_attacks[i][o] = (uint16_t) s_line_attacks(i, o << 1, FILE_NB);
    for (int i = 0; i < RANK_NB; i++)
        for (unsigned o = 0; o < 1u << (RANK_NB - 2); o++)
            t->file_attacks[i][o] = (uint8_t) s_line_attacks(i, o << 1, RANK_NB);
    for (square_t a = 0; a < SQ_NB; a++) {
        for (int d = 0; d < DIR_NB; d++) {
            int opposite = (d + 4) % DIR_NB;
            bitboard_t full = s_ray[d][a] | s_ray[opposite][a] | bb_square(a);
            bitboard_t ray = s_ray[d][a];
            while (ray) {
                square_t b = bb_pop_lsb(&ray);
                t->line[a][b] = full;
                t->between[a][b] = s_ray[d][a] & s_ray[opposite][b];
            }
        }
    }
}

void attacks_init(void)
{
    pthread_once(&s_once, s_init);
}

bitboard_t bb_all(void)
{
    return ((bitboard_t) 1 << SQ_NB) - 1;
}

bitboard_t bb_file(int file)
{
    bitboard_t b = 0;
    for (int r = 0; r < RANK_NB; r++)
        b |= bb_square(square_make(file, r));
    return b;
}

bitboard_t bb_rank(int rank)
{
    return (((bitboard_t) 1 << FILE_NB) - 1) << (rank * FILE_NB);
}

bitboard_t bb_dark_squares(void)
{
    bitboard_t b = 0;
    for (square_t s = 0; s < SQ_NB; s++)
        if (((square_file(s) + square_rank(s)) & 1) == 0)
            b |= bb_square(s);
    return b;
}
