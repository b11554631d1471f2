-- 006_king_shelter.sql - how many more pawns the side under test misses from
-- its king's shelter than the other side, for every pair of a values run.
--
-- A CRC array has a pawn on every file; pawn odds take one away, and in about
-- three arrays of ten it is one of the pawns in front of the king (its file
-- or a file beside it), which opens the king as well as costing a pawn. The
-- piece-value fit adjusts for it as it does for unprotected pawns (sql/005):
-- one more coefficient, the logit effect of one more pawn missing from the
-- king's shelter (docs/methods.md, "The king's shelter").
--
-- In a start array every pawn stands on its second rank and the king on its
-- first, so a side misses a shelter pawn on file f (the king's file or one
-- beside it, on the board) exactly when its pawn rank is empty on f. The unit
-- test test_store compares this rule with the engine's board
-- (startpos_shelter_missing) on arrays with removals.

CREATE FUNCTION capa_shelter_missing(fen text, white boolean) RETURNS smallint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    board text := split_part(fen, ' ', 1);
    back text;
    pawns text;
    pawn text;
    king int;
    n int := 0;
BEGIN
    IF white THEN
        back := capa_fen_rank(split_part(board, '/', 8));
        pawns := capa_fen_rank(split_part(board, '/', 7));
        pawn := 'P';
        king := position('K' IN back);
    ELSE
        back := capa_fen_rank(split_part(board, '/', 1));
        pawns := capa_fen_rank(split_part(board, '/', 2));
        pawn := 'p';
        king := position('k' IN back);
    END IF;
    IF king = 0 THEN
        RETURN 0;
    END IF;
    FOR f IN greatest(king - 1, 1) .. least(king + 1, length(pawns)) LOOP
        IF substr(pawns, f, 1) <> pawn THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END $$;

-- B's missing shelter pawns minus A's, from game 1's start (White is B there
-- when b_white1); values pairs only (NULL for the others, which have no
-- imbalance). Computed on insert, and here once for the pairs already stored.
ALTER TABLE pairs ADD COLUMN shelter smallint GENERATED ALWAYS AS (
    CASE WHEN imbalance IS NULL THEN NULL
         ELSE (CASE WHEN b_white1 THEN 1 ELSE -1 END)
              * (capa_shelter_missing(fen, true) - capa_shelter_missing(fen, false))
    END) STORED;
