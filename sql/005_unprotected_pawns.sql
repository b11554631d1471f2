-- 005_unprotected_pawns.sql - how many more of its start pawns the side under
-- test has unprotected than the other side, for every pair of a values run.
--
-- A CRC array protects every pawn; removing a piece can leave some of that
-- side's pawns unprotected (removing an archbishop leaves 0.53 of them on
-- average, a chancellor 0.39: issue 14), so imbalances start with unequal
-- weaknesses. The piece-value fit adjusts for it: one more coefficient, the
-- logit effect of one unprotected pawn (docs/methods.md, "Unprotected
-- pawns").
--
-- In a start array every pawn stands on its second rank and every piece on
-- its first, so a pawn on file f is protected exactly when its own first rank
-- holds, on file f, a rook, chancellor, queen or king (one step forward); on
-- f - 1 or f + 1 a bishop, archbishop, queen or king (one step diagonally);
-- on f - 2 or f + 2 a knight, archbishop or chancellor (a knight's jump).
-- Pawns do not protect pawns of their own rank, and no slider reaches another
-- square of the pawn rank through a gap. The unit test test_startpos compares
-- this rule with the engine's attack tables on arrays with removals.
--
-- capa_fen_rank expands one FEN rank ("RNAB1KBCNR", "10") to one character
-- per file ('.' empty); capa_unprotected_pawns counts the unprotected pawns of
-- one side of a start FEN (0 for a side with no pieces there).

CREATE FUNCTION capa_fen_rank(rank text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    out text := '';
    num int := 0;
    c text;
BEGIN
    FOR i IN 1 .. length(rank) LOOP
        c := substr(rank, i, 1);
        IF c BETWEEN '0' AND '9' THEN
            num := num * 10 + ascii(c) - 48;
        ELSE
            out := out || repeat('.', num) || c;
            num := 0;
        END IF;
    END LOOP;
    RETURN out || repeat('.', num);
END $$;

CREATE FUNCTION capa_unprotected_pawns(fen text, white boolean) RETURNS smallint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    board text := split_part(fen, ' ', 1);
    back text;
    pawns text;
    pawn text;
    n int := 0;
    w int;
    prot boolean;
    p text;
BEGIN
    IF white THEN
        back := upper(capa_fen_rank(split_part(board, '/', 8)));
        pawns := capa_fen_rank(split_part(board, '/', 7));
        pawn := 'P';
    ELSE
        back := upper(capa_fen_rank(split_part(board, '/', 1)));
        pawns := capa_fen_rank(split_part(board, '/', 2));
        pawn := 'p';
    END IF;
    w := length(pawns);
    FOR f IN 1 .. w LOOP
        CONTINUE WHEN substr(pawns, f, 1) <> pawn;
        prot := position(substr(back, f, 1) IN 'RCQK') > 0;
        FOR d IN 1 .. 2 LOOP
            FOR s IN -1 .. 1 BY 2 LOOP
                CONTINUE WHEN f + s * d < 1 OR f + s * d > w;
                p := substr(back, f + s * d, 1);
                prot := prot OR (d = 1 AND position(p IN 'BAQK') > 0)
                             OR (d = 2 AND position(p IN 'NAC') > 0);
            END LOOP;
        END LOOP;
        IF NOT prot THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END $$;

-- B's unprotected pawns minus A's, from game 1's start (White is B there when
-- b_white1); values pairs only (NULL for the others, which have no imbalance).
-- Computed on insert, and here once for the pairs already stored.
ALTER TABLE pairs ADD COLUMN unprotected smallint GENERATED ALWAYS AS (
    CASE WHEN imbalance IS NULL THEN NULL
         ELSE (CASE WHEN b_white1 THEN 1 ELSE -1 END)
              * (capa_unprotected_pawns(fen, true) - capa_unprotected_pawns(fen, false))
    END) STORED;
