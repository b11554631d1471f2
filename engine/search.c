/* search.c - iterative deepening PVS with quiescence, null move and LMR. */
#include "search.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "eval.h"
#include "movegen.h"
#include "movepick.h"
#include "rules.h"
#include "see.h"
#include "timeman.h"
#include "tt.h"

#define LMR_DEPTH 64
#define LMR_MOVES 64
/* The evaluation cache: the raw evaluations of recent positions, so that a
 * position evaluated again (one the hash table did not keep, or a stand-pat
 * cut-off in the quiescence search, which stores nothing) is not evaluated
 * twice. An entry is the position's key with its low 16 bits replaced by the
 * evaluation; the index takes the key's low bits. Cleared with the
 * histories and whenever the parameters change, so a hit is always the
 * evaluation the same parameters give: no node changes. */
#define EVAL_CACHE_SIZE (1 << 18)
/* Correction history: what the search found beyond the static evaluation,
 * in CORR_GRAIN-ths of a centipawn, at most CORR_LIMIT in size, per side to
 * move and: pawn structure (the low bits of the pawn key); the last move's
 * piece and destination; each colour's non-pawn men (the low bits of that
 * colour's key). The pawn entry counts whole, the others half each. */
#define CORR_SIZE 16384
#define CORR_GRAIN 32
#define CORR_LIMIT (64 * CORR_GRAIN)

/* A search parameter of s (engine/params.h: Search...). */
#define SP(s, name) ((s)->params.value[PARAM_Search##name])

typedef struct {
    move_t killer[2];
    int static_eval;
    int raw_eval;           /* the evaluation before correction */
    move_t move;            /* the move made from this ply */
    piece_t piece;          /* the piece that made it (none for a null move) */
    move_t excluded;        /* the move a singular search leaves out */
} ply_state_t;

struct search_s {
    board_t board;
    params_t params;
    tt_t *tt;
    eval_pawn_table_t *pawns;
    uint64_t *eval_cache;   /* EVAL_CACHE_SIZE entries */
    history_table_t history;
    cont_history_t cont;
    move_t counter[MOVEPICK_CONT_PIECES][SQ_NB]; /* the quiet reply that last cut off, by previous move */
    int16_t corr[COLOR_NB][CORR_SIZE];
    int16_t corr_last[COLOR_NB][PIECE_NB][SQ_NB];  /* by the last move's piece and square */
    int16_t corr_np[COLOR_NB][COLOR_NB][CORR_SIZE]; /* by one colour's non-pawn men */
    ply_state_t stack[MAX_PLY + 4];
    movepick_t pick[MAX_PLY + 4];
    move_t pv[MAX_PLY + 1][MAX_PLY + 1];
    int pv_len[MAX_PLY + 1];
    int8_t lmr[LMR_DEPTH][LMR_MOVES];

    search_info_fn info_fn;
    void *info_ctx;
    atomic_bool stop;

    /* per search */
    search_limits_t limits;
    timeman_t tm;
    bool timed;
    int64_t start_ms;
    uint64_t nodes;
    int seldepth;
    bool aborted;
    move_t root_best;       /* best move found so far in the current iteration */
    int root_best_score;
};

int search_mate_in(int score)
{
    if (score >= SCORE_MATE_IN_MAX)
        return (SCORE_MATE - score + 1) / 2;
    if (score <= -SCORE_MATE_IN_MAX)
        return -(SCORE_MATE + score) / 2;
    return 0;
}

void search_limits_init(search_limits_t *l)
{
    memset(l, 0, sizeof *l);
    l->time_ms[WHITE] = l->time_ms[BLACK] = -1;
}

/* The LMR table from SearchLmrBase and SearchLmrDivisor (hundredths). */
static void s_lmr_init(search_t *s)
{
    double base = SP(s, LmrBase) / 100.0, div = SP(s, LmrDivisor) / 100.0;
    for (int d = 0; d < LMR_DEPTH; d++)
        for (int m = 0; m < LMR_MOVES; m++)
            s->lmr[d][m] = (int8_t) (d && m ? base + log((double) d) * log((double) m) / div : 0);
}

/* The LMR table's reduction for the move_number-th move (from 1) at depth,
 * both clamped to the table. */
static int s_lmr_reduction(const search_t *s, int depth, int move_number)
{
    return s->lmr[depth < LMR_DEPTH ? depth : LMR_DEPTH - 1]
                 [move_number < LMR_MOVES ? move_number : LMR_MOVES - 1];
}

search_t *search_new(size_t hash_mb)
{
    eval_init();
    search_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->tt = tt_new(hash_mb);
    s->pawns = eval_pawn_table_new();
    s->eval_cache = calloc(EVAL_CACHE_SIZE, sizeof *s->eval_cache);
    if (!s->tt || !s->pawns || !s->eval_cache) {
        tt_destroy(&s->tt);
        eval_pawn_table_destroy(&s->pawns);
        free(s->eval_cache);
        free(s);
        return NULL;
    }
    params_default(&s->params);
    s_lmr_init(s);
    atomic_init(&s->stop, false);
    board_set_startpos(&s->board, VARIANT_CAPABLANCA);
    return s;
}

void search_destroy(search_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    tt_destroy(&(*self_p)->tt);
    eval_pawn_table_destroy(&(*self_p)->pawns);
    free((*self_p)->eval_cache);
    free(*self_p);
    *self_p = NULL;
}

int search_set_hash(search_t *s, size_t hash_mb)
{
    tt_t *tt = tt_new(hash_mb);
    if (!tt)
        return CAPA_ENOMEM;
    tt_destroy(&s->tt);
    s->tt = tt;
    return CAPA_OK;
}

void search_set_params(search_t *s, const params_t *p)
{
    s->params = *p;
    s_lmr_init(s);
    memset(s->eval_cache, 0, EVAL_CACHE_SIZE * sizeof *s->eval_cache);
}

const params_t *search_params(const search_t *s)
{
    return &s->params;
}

void search_new_game(search_t *s)
{
    tt_clear(s->tt);
    memset(s->history, 0, sizeof s->history);
    memset(s->cont, 0, sizeof s->cont);
    memset(s->counter, 0, sizeof s->counter);
    memset(s->corr, 0, sizeof s->corr);
    memset(s->corr_last, 0, sizeof s->corr_last);
    memset(s->corr_np, 0, sizeof s->corr_np);
    memset(s->stack, 0, sizeof s->stack);
    memset(s->eval_cache, 0, EVAL_CACHE_SIZE * sizeof *s->eval_cache);
}

void search_set_info(search_t *s, search_info_fn fn, void *ctx)
{
    s->info_fn = fn;
    s->info_ctx = ctx;
}

void search_stop(search_t *s)
{
    atomic_store(&s->stop, true);
}

void search_clear_stop(search_t *s)
{
    atomic_store(&s->stop, false);
}

static int64_t s_elapsed(const search_t *s)
{
    return timeman_now_ms() - s->start_ms;
}

/* Counts a node and decides whether to abort. Once aborted, nothing more is
 * counted: a re-search started on the way out must not push the count past
 * a node limit. */
static bool s_should_abort(search_t *s)
{
    if (s->aborted)
        return true;
    s->nodes++;
    if (s->limits.nodes && s->nodes >= s->limits.nodes) {
        s->aborted = true;
        return true;
    }
    if ((s->nodes & 255) == 0) {
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            s->aborted = true;
        else if (s->timed && s_elapsed(s) >= s->tm.hard_ms)
            s->aborted = true;
    }
    return s->aborted;
}

/* The raw static evaluation of the search's board, from the evaluation
 * cache when it holds the position. */
static int s_evaluate(search_t *s)
{
    const board_t *b = &s->board;
    uint64_t key = board_key(b);
    uint64_t *e = &s->eval_cache[key & (EVAL_CACHE_SIZE - 1)];
    if (*e != 0 && ((*e ^ key) >> 16) == 0)
        return (int16_t) (uint16_t) (*e & 0xFFFF);
    int v = eval_evaluate_cached(b, &s->params, s->pawns);
    if (v >= INT16_MIN && v <= INT16_MAX)
        *e = (key & ~(uint64_t) 0xFFFF) | (uint16_t) (int16_t) v;
    return v;
}

static bool s_is_draw(const board_t *b, int ply)
{
    if (board_halfmove_clock(b) >= 100)
        return true;
    if (board_is_repetition(b, ply))
        return true;
    if (bb_popcount(board_occupied(b)) <= 4 && rules_insufficient_material(b))
        return true;
    return false;
}

static bool s_has_non_pawn(const board_t *b, color_t c)
{
    return (board_color_bb(b, c) & ~board_type_bb(b, PAWN) & ~board_type_bb(b, KING)) != 0;
}

/* The move that led to this ply, NULL at the root and after a null move:
 * its piece and target square index the counter-move history and the
 * counter moves. */
static const ply_state_t *s_prev(const search_t *s, int ply)
{
    if (ply == 0)
        return NULL;
    const ply_state_t *prev = &s->stack[ply - 1];
    return prev->move == MOVE_NONE || prev->move == MOVE_NULL ? NULL : prev;
}

/* The counter-move history row for the replies to the move that led to
 * this ply; NULL when there is none (s_prev). */
static cont_entry_t *s_cont(search_t *s, int ply)
{
    const ply_state_t *prev = s_prev(s, ply);
    return prev ? &s->cont[movepick_cont_index(prev->piece)][move_to(prev->move)] : NULL;
}

/* The counter-move slot for the move that led to this ply; NULL when there
 * is none. */
static move_t *s_counter(search_t *s, int ply)
{
    const ply_state_t *prev = s_prev(s, ply);
    return prev ? &s->counter[movepick_cont_index(prev->piece)][move_to(prev->move)] : NULL;
}

/* The principal variation at ply: m, then the one below it. */
static void s_pv_update(search_t *s, int ply, move_t m)
{
    s->pv[ply][0] = m;
    memcpy(&s->pv[ply][1], s->pv[ply + 1], sizeof(move_t) * (size_t) s->pv_len[ply + 1]);
    s->pv_len[ply] = s->pv_len[ply + 1] + 1;
}

/* Whether c has an archbishop, chancellor or queen. */
static bitboard_t s_compound(const board_t *b, color_t c)
{
    return board_pieces(b, c, ARCHBISHOP) | board_pieces(b, c, CHANCELLOR) |
           board_pieces(b, c, QUEEN);
}

typedef struct {
    bitboard_t direct[PIECE_TYPE_NB]; /* squares from which a compound piece checks */
    bitboard_t uncover;               /* our men first on a line from their king */
} check_squares_t;

/* What board_gives_check needs for quiet moves by the compound pieces,
 * found once per node: a move to one of direct[kind] checks; one from a
 * square of uncover may (board_gives_check decides); any other does not.
 * The lines are today's: a move can open a line to its own destination only
 * by leaving a square on it between that square and the king, and such a
 * square is in uncover. */
static void s_check_squares(const board_t *b, check_squares_t *cs)
{
    color_t us = board_side(b);
    square_t ksq = board_king_sq(b, (color_t) !us);
    bitboard_t occ = board_occupied(b);
    bitboard_t diag = attacks_bishop(ksq, occ), straight = attacks_rook(ksq, occ);
    bitboard_t jumps = attacks_knight(ksq);
    cs->direct[ARCHBISHOP] = diag | jumps;
    cs->direct[CHANCELLOR] = straight | jumps;
    cs->direct[QUEEN] = diag | straight;
    cs->uncover = (diag | straight) & board_color_bb(b, us);
}

/* The next quiet move of list from *idx on by an archbishop, chancellor or
 * queen that gives check and does not lose the piece by exchange
 * (MOVE_NONE when none is left): a mate by one of them just past the
 * horizon is how most games against Fairy-Stockfish were lost
 * (docs/strength.md, test 36). */
static move_t s_next_quiet_check(const board_t *b, const check_squares_t *cs,
                                 const move_list_t *list, int *idx)
{
    while (*idx < list->count) {
        move_t m = list->moves[(*idx)++];
        piece_type_t t = piece_type(board_piece_on(b, move_from(m)));
        if (t != ARCHBISHOP && t != CHANCELLOR && t != QUEEN)
            continue;
        bool check = (cs->direct[t] & bb_square(move_to(m))) ||
                     ((cs->uncover & bb_square(move_from(m))) && board_gives_check(b, m));
        if (check && see_ge(b, m, 0))
            return m;
    }
    return MOVE_NONE;
}

/* The correction entries of a position: by its pawns, by each colour's
 * other men (each with the side to move), and by the move that led to it
 * (the piece now on its destination; NULL at a FEN's first position or
 * after a null move). Found once per node, read by s_corrected and nudged
 * by s_corr_update. */
typedef struct {
    int16_t *pawns, *np[COLOR_NB], *last;
} corr_entries_t;

static corr_entries_t s_corr_entries(search_t *s, const board_t *b)
{
    color_t side = board_side(b);
    corr_entries_t c;
    c.pawns = &s->corr[side][board_pawn_key(b) & (CORR_SIZE - 1)];
    for (int k = 0; k < COLOR_NB; k++)
        c.np[k] = &s->corr_np[side][k][board_nonpawn_key(b, (color_t) k) & (CORR_SIZE - 1)];
    move_t m = board_last_move(b);
    c.last = m == MOVE_NONE || m == MOVE_NULL
                 ? NULL
                 : &s->corr_last[side][board_piece_on(b, move_to(m))][move_to(m)];
    return c;
}

/* The static evaluation raw (from the evaluation or the hash table)
 * corrected by what searches found beyond it in positions with the same
 * side to move and the same pawns, last move, or one colour's other men;
 * never a mate score. */
static int s_corrected(const corr_entries_t *c, int raw)
{
    int v = raw + *c->pawns / CORR_GRAIN + (c->last ? *c->last / (2 * CORR_GRAIN) : 0) +
            (*c->np[WHITE] + *c->np[BLACK]) / (2 * CORR_GRAIN);
    if (v >= SCORE_MATE_IN_MAX)
        v = SCORE_MATE_IN_MAX - 1;
    if (v <= -SCORE_MATE_IN_MAX)
        v = -SCORE_MATE_IN_MAX + 1;
    return v;
}

/* Moves a correction entry by step grains, less entry x |step| /
 * CORR_LIMIT, so that it stays within +-CORR_LIMIT and old results fade. */
static void s_corr_nudge(int16_t *e, int step)
{
    *e = (int16_t) (*e + step - *e * abs(step) / CORR_LIMIT);
}

/* Moves a position's correction entries towards what a search to depth
 * found (best) beyond the corrected evaluation (eval): a step of (best -
 * eval) x depth / 8 centipawns, at most CORR_LIMIT / 4 grains. */
static void s_corr_update(const corr_entries_t *c, int best, int eval, int depth)
{
    int step = (best - eval) * depth / 8 * CORR_GRAIN;
    if (step > CORR_LIMIT / 4)
        step = CORR_LIMIT / 4;
    if (step < -CORR_LIMIT / 4)
        step = -CORR_LIMIT / 4;
    s_corr_nudge(c->pawns, step);
    s_corr_nudge(c->np[WHITE], step);
    s_corr_nudge(c->np[BLACK], step);
    if (c->last)
        s_corr_nudge(c->last, step);
}

/* Captures and promotions until the position is quiet (all moves when in
 * check); with checks (the first ply below the main search), also the quiet
 * checks by the archbishop, chancellor and queen. */
static int s_qsearch(search_t *s, int alpha, int beta, int ply, bool checks)
{
    board_t *b = &s->board;
    bool pv_node = beta - alpha > 1;
    s->pv_len[ply] = 0;
    if (s_should_abort(s))
        return 0;
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (s_is_draw(b, ply))
        return 0;
    bool in_check = board_in_check(b);
    if (ply >= MAX_PLY - 2)
        return in_check ? 0 : s_evaluate(s);

    tt_entry_t te;
    move_t tt_move = MOVE_NONE;
    int ts = 0, tt_bound = TT_BOUND_NONE;
    bool hit = tt_probe(s->tt, board_key(b), &te);
    if (hit) {
        tt_move = te.move;
        ts = tt_score_from(te.score, ply);
        tt_bound = te.bound_gen & 3;
        if (!pv_node && (tt_bound == TT_BOUND_EXACT || (tt_bound == TT_BOUND_LOWER && ts >= beta) ||
                         (tt_bound == TT_BOUND_UPPER && ts <= alpha)))
            return ts;
    }

    int best = -SCORE_INF, stand = -SCORE_INF, raw = 0;
    if (!in_check) {
        raw = hit ? te.eval : s_evaluate(s);
        corr_entries_t ce = s_corr_entries(s, b);
        stand = s_corrected(&ce, raw);
        /* The hash score, where its bound points away from the evaluation
         * (a lower bound above it, an upper bound below it), is the closer
         * estimate of what this position is worth (as in Stockfish). */
        if (hit && SP(s, QsTtStand) && abs(ts) < SCORE_MATE_IN_MAX &&
            (tt_bound & (ts > stand ? TT_BOUND_LOWER : TT_BOUND_UPPER)))
            stand = ts;
        if (stand >= beta)
            return stand;
        if (stand > alpha)
            alpha = stand;
        best = stand;
    }
    int old_alpha = alpha;
    move_t best_move = MOVE_NONE;
    movepick_t *mp = &s->pick[ply];
    movepick_init(mp, b, tt_move, NULL, &s->history, NULL, true);
    int moves = 0;
    /* After the captures, with checks: the quiet checks (s_next_quiet_check),
     * from the move picker's quiet list, which this search leaves unused. */
    bool quiet_stage = false;
    int quiet_idx = 0;
    check_squares_t cs = { { 0 }, 0 };
    for (;;) {
        move_t m = quiet_stage ? MOVE_NONE : movepick_next(mp);
        if (m == MOVE_NONE) {
            /* (no quiet move list to make without a piece that could check) */
            bitboard_t compound = s_compound(b, board_side(b));
            if (!checks || in_check || !compound)
                break;
            if (!quiet_stage) {
                quiet_stage = true;
                movegen_quiet_of(b, &mp->quiet, compound);
                s_check_squares(b, &cs);
            }
            m = s_next_quiet_check(b, &cs, &mp->quiet, &quiet_idx);
            if (m == MOVE_NONE)
                break;
        } else if (!in_check) {
            /* Delta pruning: even winning the piece cannot reach alpha. */
            int gain = SEE_VALUE[move_captured_type(b, m)];
            if (!move_is_promotion(m) && stand + gain + SP(s, QsDelta) <= alpha)
                continue;
            /* (the picker only produces the hash move unchecked) */
            if (m == tt_move && !see_ge(b, m, 0))
                continue;
        }
        moves++;
        s->stack[ply].move = m;
        board_make(b, m);
        tt_prefetch(s->tt, board_key(b));
        int score = -s_qsearch(s, -beta, -alpha, ply + 1, false);
        board_unmake(b);
        if (s->aborted)
            return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                best_move = m;
                s_pv_update(s, ply, m);
                if (score >= beta)
                    break;
            }
        }
    }
    if (in_check && moves == 0)
        return -SCORE_MATE + ply;
    int bound = best >= beta ? TT_BOUND_LOWER : alpha > old_alpha ? TT_BOUND_EXACT : TT_BOUND_UPPER;
    tt_store(s->tt, board_key(b), best_move, tt_score_to(best, ply), raw, 0, bound);
    return best;
}

/* cut_node: the node is expected to fail high, as Stockfish judges it.
 * The child of a reduced (LMR) zero-window search is one; the child of any
 * other zero-window search (a non-PV node's first move, a late move at full
 * depth, the null move) is of the other kind than its parent; a PV node
 * never is one, and a singular search keeps its node's kind. */
static int s_search(search_t *s, int alpha, int beta, int depth, int ply, bool null_ok,
                    bool cut_node)
{
    board_t *b = &s->board;
    bool in_check = board_in_check(b);
    if (depth <= 0 && !in_check)
        return s_qsearch(s, alpha, beta, ply, true);
    if (depth < 0)
        depth = 0;
    bool root = ply == 0;
    bool pv_node = beta - alpha > 1;
    s->pv_len[ply] = 0;
    if (s_should_abort(s))
        return 0;
    if (ply > s->seldepth)
        s->seldepth = ply;

    if (!root) {
        if (s_is_draw(b, ply))
            return 0;
        if (ply >= MAX_PLY - 2)
            return in_check ? 0 : s_evaluate(s);
        /* Mate distance pruning. */
        int lo = -SCORE_MATE + ply, hi = SCORE_MATE - ply - 1;
        if (alpha < lo)
            alpha = lo;
        if (beta > hi)
            beta = hi;
        if (alpha >= beta)
            return alpha;
    }

    /* A singular search (below) leaves the hash move out: the entry is the
     * full node's, so it is neither read nor written. */
    move_t excluded = s->stack[ply].excluded;
    bool singular_search = excluded != MOVE_NONE;
    tt_entry_t te;
    move_t tt_move = MOVE_NONE;
    bool hit = !singular_search && tt_probe(s->tt, board_key(b), &te);
    int tt_score = 0;
    if (hit) {
        tt_move = te.move;
        tt_score = tt_score_from(te.score, ply);
        int bound = te.bound_gen & 3;
        if (!pv_node && te.depth >= depth &&
            (bound == TT_BOUND_EXACT || (bound == TT_BOUND_LOWER && tt_score >= beta) ||
             (bound == TT_BOUND_UPPER && tt_score <= alpha)))
            return tt_score;
    }

    /* (a singular search is at its node's ply, whose evaluation is kept) */
    int raw_eval = in_check ? 0
                   : hit ? te.eval
                   : singular_search ? s->stack[ply].raw_eval
                                     : s_evaluate(s);
    s->stack[ply].raw_eval = raw_eval;
    corr_entries_t ce = { 0 };
    int static_eval = -SCORE_INF;
    if (!in_check) {
        ce = s_corr_entries(s, b);
        static_eval = s_corrected(&ce, raw_eval);
    }
    s->stack[ply].static_eval = static_eval;
    /* The opponent's last quiet move is judged by how it moved the static
     * evaluation: a move after which we stand worse than they stood before
     * it gains history, one after which we stand better loses some. */
    if (ply > 0 && !in_check && !singular_search && s->stack[ply - 1].static_eval != -SCORE_INF) {
        move_t pm = board_last_move(b);
        if (pm != MOVE_NULL && !move_is_promotion(pm) && board_last_captured(b) == NO_PIECE) {
            int bonus = -10 * (s->stack[ply - 1].static_eval + static_eval);
            bonus = bonus < -1000 ? -1000 : bonus > 1000 ? 1000 : bonus;
            movepick_history_update(&s->history, !board_side(b), pm, bonus);
        }
    }
    s->stack[ply + 2].killer[0] = s->stack[ply + 2].killer[1] = MOVE_NONE;

    if (!pv_node && !in_check && !singular_search) {
        /* Reverse futility pruning. */
        if (depth <= SP(s, RfpDepth) && static_eval - SP(s, RfpMargin) * depth >= beta &&
            abs(beta) < SCORE_MATE_IN_MAX)
            return static_eval;
        /* Null move. */
        if (null_ok && depth >= 3 && static_eval >= beta && s_has_non_pawn(b, board_side(b))) {
            int excess = (static_eval - beta) / SP(s, NullEvalDiv);
            int r = SP(s, NullBase) + depth / SP(s, NullDepthDiv) + (excess < 3 ? excess : 3);
            s->stack[ply].move = MOVE_NULL;
            s->stack[ply].piece = NO_PIECE;
            board_make_null(b);
            int score = -s_search(s, -beta, -beta + 1, depth - 1 - r, ply + 1, false, !cut_node);
            board_unmake_null(b);
            if (s->aborted)
                return 0;
            if (score >= beta)
                return score >= SCORE_MATE_IN_MAX ? beta : score;
        }
    }
    /* Internal iterative reduction: without a hash move the node is searched
     * one ply shallower (it is likely new to the search, and its move
     * ordering weak). */
    if (tt_move == MOVE_NONE && depth >= SP(s, IirDepth) && !in_check && !singular_search)
        depth--;

    /* Singular extension: when the hash move's lower bound is deep enough
     * and no other move reaches close to it in a search of half the depth,
     * the hash move is searched a ply deeper; when another move beats beta
     * even at the lowered bound, the node fails high at once (multi-cut).
     * Done before this ply's move picker is set up, which the search
     * without the move reuses. */
    bool singular = false;
    if (!root && hit && depth >= 6 && tt_move != MOVE_NONE && (te.bound_gen & 3) != TT_BOUND_UPPER &&
        te.depth >= depth - 3 && abs(tt_score) < SCORE_MATE_IN_MAX) {
        int sbeta = tt_score - 2 * depth;
        s->stack[ply].excluded = tt_move;
        int v = s_search(s, sbeta - 1, sbeta, (depth - 1) / 2, ply, false, cut_node);
        s->stack[ply].excluded = MOVE_NONE;
        s->pv_len[ply] = 0;
        if (s->aborted)
            return 0;
        if (v < sbeta)
            singular = true;
        else if (sbeta >= beta)
            return sbeta;
    }

    movepick_t *mp = &s->pick[ply];
    cont_entry_t *cont = s_cont(s, ply);
    movepick_init(mp, b, tt_move, s->stack[ply].killer, &s->history, cont, false);
    move_t *counter = s_counter(s, ply);
    if (counter)
        movepick_set_counter(mp, *counter);
    /* A node whose hash move wins material is unlikely to be saved by a
     * quiet move: LMR reduces those one ply more. */
    bool tt_capture = mp->tt_move != MOVE_NONE && move_is_capture(b, mp->tt_move);
    int best = -SCORE_INF, old_alpha = alpha, moves = 0;
    move_t best_move = MOVE_NONE;
    move_t quiets_tried[64];
    int quiet_count = 0;
    color_t us = board_side(b);
    move_t m;
    while ((m = movepick_next(mp)) != MOVE_NONE) {
        if (m == excluded)
            continue;
        bool quiet = !move_is_capture(b, m) && !move_is_promotion(m);
        bool killer = m == s->stack[ply].killer[0] || m == s->stack[ply].killer[1];
        if (!root && !in_check && best > -SCORE_MATE_IN_MAX && quiet && !pv_node) {
            /* Late move pruning and futility for quiet moves. */
            if (depth <= SP(s, LmpDepth) &&
                moves >= SP(s, LmpBase) + SP(s, LmpScale) * depth * depth / 100) {
                movepick_skip_quiets(mp);
                continue;
            }
            /* Futility and SEE pruning judge a late move at the depth LMR
             * would search it to. */
            int lmr_depth = depth - s_lmr_reduction(s, depth, moves + 1);
            if (lmr_depth < 0)
                lmr_depth = 0;
            if (lmr_depth <= SP(s, FutDepth) &&
                static_eval + SP(s, FutMargin) * lmr_depth + SP(s, FutBase) <= alpha && moves > 0 &&
                !board_gives_check(b, m))
                continue;
            /* A quiet move that loses material by exchange at low depth. */
            if (lmr_depth <= SP(s, SeeQuietDepth) && moves > 0 &&
                !see_ge(b, m, -SP(s, SeeQuietMargin) * lmr_depth * lmr_depth))
                continue;
        }
        /* A capture that loses more than a margin at low depth (a capture
         * the picker produced before the losing ones has SEE >= 0). */
        if (!root && !in_check && !quiet && depth <= SP(s, SeeNoisyDepth) &&
            best > -SCORE_MATE_IN_MAX && moves > 0 && (m == tt_move || movepick_losing(mp)) &&
            !see_ge(b, m, -SP(s, SeeNoisyMargin) * depth))
            continue;

        moves++;
        s->stack[ply].move = m;
        piece_t moved = board_piece_on(b, move_from(m));
        s->stack[ply].piece = moved;
        board_make(b, m);
        tt_prefetch(s->tt, board_key(b));
        bool gives_check = board_in_check(b);
        int new_depth = depth - 1 + (gives_check || (singular && m == tt_move) ? 1 : 0);
        int score;
        if (moves == 1) {
            score = -s_search(s, -beta, -alpha, new_depth, ply + 1, true, !pv_node && !cut_node);
        } else {
            int r = 0;
            if (depth >= 3 && moves > 2 && quiet && !in_check && !gives_check) {
                r = s_lmr_reduction(s, depth, moves);
                if (pv_node)
                    r--;
                if (killer)
                    r--;
                if (tt_capture)
                    r++;
                if (cut_node)
                    r += SP(s, LmrCutNode);
                int h = s->history[us][move_from(m)][move_to(m)];
                if (cont)
                    h += (*cont)[piece_type(moved)][move_to(m)];
                r -= h / SP(s, LmrHistoryDiv);
                if (r > new_depth - 1)
                    r = new_depth - 1;
                if (r < 0)
                    r = 0;
            }
            score = -s_search(s, -alpha - 1, -alpha, new_depth - r, ply + 1, true,
                              r > 0 || !cut_node);
            if (score > alpha && r > 0)
                score = -s_search(s, -alpha - 1, -alpha, new_depth, ply + 1, true, !cut_node);
            if (score > alpha && score < beta)
                score = -s_search(s, -beta, -alpha, new_depth, ply + 1, true, false);
        }
        board_unmake(b);
        if (s->aborted)
            return 0;

        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                best_move = m;
                s_pv_update(s, ply, m);
                if (root) {
                    s->root_best = m;
                    s->root_best_score = score;
                }
                if (score >= beta) {
                    if (quiet) {
                        if (s->stack[ply].killer[0] != m) {
                            s->stack[ply].killer[1] = s->stack[ply].killer[0];
                            s->stack[ply].killer[0] = m;
                        }
                        int bonus = SP(s, HistoryBonus) * depth * depth +
                                    SP(s, HistoryLinear) * depth + SP(s, HistoryOffset);
                        if (bonus > SP(s, HistoryMax))
                            bonus = SP(s, HistoryMax);
                        if (bonus < 1)
                            bonus = 1;
                        movepick_history_update(&s->history, us, m, bonus);
                        if (counter)
                            *counter = m;
                        if (cont)
                            movepick_cont_update(cont, piece_type(moved), move_to(m), bonus);
                        for (int i = 0; i < quiet_count; i++) {
                            move_t q = quiets_tried[i];
                            movepick_history_update(&s->history, us, q, -bonus);
                            if (cont)
                                movepick_cont_update(cont, piece_type(board_piece_on(b, move_from(q))),
                                                     move_to(q), -bonus);
                        }
                    }
                    break;
                }
            }
        }
        if (quiet && quiet_count < 64)
            quiets_tried[quiet_count++] = m;
    }

    /* Pruning never skips the first move, so no move searched means none
     * exists (but the excluded one). A singular search stores nothing. */
    if (moves == 0)
        return singular_search ? alpha : in_check ? -SCORE_MATE + ply : 0;
    if (singular_search)
        return best;
    int bound = best >= beta ? TT_BOUND_LOWER : alpha > old_alpha ? TT_BOUND_EXACT : TT_BOUND_UPPER;
    /* What the search found beyond the static evaluation, unless a capture
     * or promotion explains it or the bound says nothing about it. */
    if (!in_check &&
        (best_move == MOVE_NONE || (!move_is_capture(b, best_move) && !move_is_promotion(best_move))) &&
        !(bound == TT_BOUND_LOWER && best <= static_eval) &&
        !(bound == TT_BOUND_UPPER && best >= static_eval) && abs(best) < SCORE_MATE_IN_MAX)
        s_corr_update(&ce, best, static_eval, depth);
    tt_store(s->tt, board_key(b), best_move, tt_score_to(best, ply), raw_eval, depth, bound);
    return best;
}

static void s_report(search_t *s, int depth, int score)
{
    if (!s->info_fn)
        return;
    search_info_t info;
    info.depth = depth;
    info.seldepth = s->seldepth;
    info.score = score;
    info.nodes = s->nodes;
    info.time_ms = s_elapsed(s);
    info.hashfull = tt_hashfull(s->tt);
    info.pv_len = s->pv_len[0];
    memcpy(info.pv, s->pv[0], sizeof(move_t) * (size_t) info.pv_len);
    s->info_fn(&info, &s->board, s->info_ctx);
}

int search_go(search_t *s, const board_t *root, const search_limits_t *limits,
              search_result_t *out)
{
    board_copy(&s->board, root);
    s->limits = *limits;
    color_t us = board_side(root);
    timeman_init(&s->tm, limits->infinite ? 0 : limits->movetime_ms,
                 limits->infinite ? -1 : limits->time_ms[us], limits->inc_ms[us], limits->movestogo,
                 limits->overhead_ms);
    s->timed = s->tm.hard_ms >= 0;
    s->start_ms = s->timed || s->info_fn ? timeman_now_ms() : 0;
    s->nodes = 0;
    s->seldepth = 0;
    s->aborted = false;
    tt_new_search(s->tt);
    memset(s->stack, 0, sizeof s->stack);

    memset(out, 0, sizeof *out);
    move_list_t *root_moves = &s->pick[MAX_PLY].noisy;
    movegen_legal(&s->board, root_moves);
    if (root_moves->count == 0) {
        out->best = MOVE_NONE;
        out->score = board_in_check(&s->board) ? -SCORE_MATE : 0;
        return CAPA_OK;
    }
    move_t best = root_moves->moves[0];
    move_t ponder = MOVE_NONE;
    int best_score = 0, completed = 0;
    int max_depth = limits->depth > 0 && limits->depth < SEARCH_MAX_DEPTH ? limits->depth
                                                                          : SEARCH_MAX_DEPTH;
    bool single = root_moves->count == 1;
    int prev = 0, stable = 0;
    for (int d = 1; d <= max_depth; d++) {
        s->root_best = MOVE_NONE;
        int delta = SP(s, AspDelta);
        int alpha = -SCORE_INF, beta = SCORE_INF;
        if (d >= 5) {
            alpha = prev - delta > -SCORE_INF ? prev - delta : -SCORE_INF;
            beta = prev + delta < SCORE_INF ? prev + delta : SCORE_INF;
        }
        int score;
        for (;;) {
            score = s_search(s, alpha, beta, d, 0, false, false);
            if (s->aborted)
                break;
            if (score <= alpha) {
                beta = (alpha + beta) / 2;
                alpha = score - delta > -SCORE_INF ? score - delta : -SCORE_INF;
            } else if (score >= beta) {
                beta = score + delta < SCORE_INF ? score + delta : SCORE_INF;
            } else {
                break;
            }
            delta += delta / 2 + 10;
            if (delta > 1000)
                alpha = -SCORE_INF, beta = SCORE_INF;
        }
        if (s->aborted) {
            /* A move that beat the previous best inside the cut iteration is kept. */
            if (s->root_best != MOVE_NONE && completed > 0 && s->root_best_score > prev &&
                s->root_best != best) {
                best = s->root_best;
                best_score = s->root_best_score;
                ponder = MOVE_NONE;
            } else if (completed == 0 && s->root_best != MOVE_NONE) {
                best = s->root_best;
                best_score = s->root_best_score;
            }
            break;
        }
        int drop = completed > 0 ? prev - score : 0;
        completed = d;
        prev = score;
        best_score = score;
        if (s->pv_len[0] > 0) {
            stable = s->pv[0][0] == best && d > 1 ? stable + 1 : 0;
            best = s->pv[0][0];
            ponder = s->pv_len[0] > 1 ? s->pv[0][1] : MOVE_NONE;
        }
        s_report(s, d, score);
        if (s->timed && !limits->infinite) {
            if (single)
                break;
            if (s_elapsed(s) >= timeman_soft_scaled(&s->tm, timeman_scale(stable, drop)))
                break;
        }
        if (atomic_load(&s->stop))
            break;
        /* A found mate will not get shorter by searching much deeper. */
        if (!limits->infinite && search_mate_in(score) != 0 &&
            d >= 2 * abs(search_mate_in(score)) + 6 && limits->depth == 0)
            break;
    }
    out->best = best;
    out->ponder = ponder;
    out->score = best_score;
    out->depth = completed;
    out->seldepth = s->seldepth;
    out->nodes = s->nodes;
    out->time_ms = s->start_ms ? s_elapsed(s) : 0;
    return CAPA_OK;
}
