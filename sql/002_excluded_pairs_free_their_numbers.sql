-- 002_excluded_pairs_free_their_numbers.sql - an excluded pair (its worker
-- was flagged) is kept for audit but no longer holds its pair number, so the
-- coordinator hands the number out again and a run still ends with all its
-- planned pairs counted.
--
-- A pair number of a run is counted once: among the rows with NOT excluded,
-- (run_id, pair_no) is unique. Excluded rows of the same number may exist
-- beside it, one per worker. Both rules are one primary key on
-- (run_id, pair_no, slot), where slot is '' for the counted row and the
-- worker's id for an excluded one. slot is generated from excluded, so
-- store_worker_flag moves a row out of the counted slot by setting excluded,
-- and a flagged worker resending a batch meets its own excluded row (ON
-- CONFLICT DO NOTHING: counted once, stored once). Queries that ask whether
-- a number is done read NOT excluded.
--
-- excluded_at: when the pair stopped counting (why: workers.flag_reason).

ALTER TABLE pairs ADD COLUMN excluded_at timestamptz;

UPDATE pairs p SET excluded_at = coalesce(w.flagged_at, p.stored_at)
FROM workers w
WHERE p.excluded AND w.id = p.worker_id;
UPDATE pairs SET excluded_at = stored_at WHERE excluded AND excluded_at IS NULL;

ALTER TABLE pairs
    ADD CONSTRAINT pairs_excluded_at_check CHECK (excluded = (excluded_at IS NOT NULL)),
    -- An excluded row is its worker's: its slot is the worker's id.
    ADD CONSTRAINT pairs_excluded_worker_check CHECK (NOT excluded OR worker_id IS NOT NULL),
    ADD COLUMN slot text NOT NULL
        GENERATED ALWAYS AS (CASE WHEN excluded THEN worker_id ELSE '' END) STORED;

ALTER TABLE pairs DROP CONSTRAINT pairs_pkey,
    ADD CONSTRAINT pairs_pkey PRIMARY KEY (run_id, pair_no, slot);

COMMENT ON COLUMN pairs.slot IS
    'empty for the counted pair of its number, the worker''s id once excluded';
