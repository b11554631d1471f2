-- 006_king_shelter.sql - how much more the side under test's removals struck
-- its king's shelter than chance would, against the other side, for every
-- pair of a values run.
--
-- A CRC array has a pawn on every file; pawn odds take some away, and when
-- one of them stood in front of the king (its file or a file beside it) the
-- king starts opened as well as a pawn down. The piece-value fit adjusts for
-- it (docs/methods.md, "The king's shelter"): one more coefficient, on
--
--   shelter = (pawns missing from the king's files) - (pawns missing) x w / 10
--
-- per side (B's minus A's), w the king's files on the board (3, or 2 at an
-- edge). Pawns come off files a..j in turn while the king stands anywhere, so
-- a removed pawn is a shelter pawn with chance w / 10 and the value is 0 on
-- average in every imbalance: the pawn's coefficient stays the average start
-- pawn, and the covariate takes up only which pawns a pair happened to lose.
--
-- In a start array every pawn stands on its second rank and the king on its
-- first, so a side misses a pawn on file f exactly when its pawn rank is empty
-- on f. The unit test test_store compares this rule with the engine's board
-- (startpos_shelter) on arrays with removals.

CREATE FUNCTION capa_shelter(fen text, white boolean) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    board text := split_part(fen, ' ', 1);
    back text;
    pawns text;
    pawn text;
    king int;
    width int;
    missing int := 0;
    shelter int := 0;
    files int := 0;
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
    width := length(pawns);
    IF king = 0 OR width = 0 THEN
        RETURN 0;
    END IF;
    FOR f IN 1 .. width LOOP
        IF substr(pawns, f, 1) <> pawn THEN
            missing := missing + 1;
            IF abs(f - king) <= 1 THEN
                shelter := shelter + 1;
            END IF;
        END IF;
        IF abs(f - king) <= 1 THEN
            files := files + 1;
        END IF;
    END LOOP;
    RETURN shelter - missing * files::double precision / width;
END $$;

-- B's value minus A's, from game 1's start (White is B there when b_white1);
-- values pairs only (NULL for the others, which have no imbalance). Computed
-- on insert, and here once for the pairs already stored.
ALTER TABLE pairs ADD COLUMN shelter double precision GENERATED ALWAYS AS (
    CASE WHEN imbalance IS NULL THEN NULL
         ELSE (CASE WHEN b_white1 THEN 1 ELSE -1 END)
              * (capa_shelter(fen, true) - capa_shelter(fen, false))
    END) STORED;
