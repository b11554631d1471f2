-- 003_estimate_history.sql - every piece-value estimate a values run had, so
-- that pages and the API read stored fits instead of fitting again, and the
-- convergence chart draws the values as the games arrived.
--
-- The coordinator fits a values run once per change of its data (at most
-- every --estimate-seconds, and once more when the run ends) and stores the
-- report in estimates (the latest, replaced) and its fit here (kept, one row
-- per number of pairs used: the same data gives the same fit).
--
-- fit: the report's "values" object (pieces with value, lo, hi; games, pairs,
-- elo_per_pawn, ...; docs/api.md), as the estimate's report holds it.
--
-- Reports are served from here now, so they are kept as json (the text as
-- the coordinator wrote it, keys in its order: the values lead with the
-- contrasts), not jsonb (which sorts keys).

ALTER TABLE estimates ALTER COLUMN report TYPE json USING report::json;

CREATE TABLE estimate_history (
    run_id      bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    pairs_used  bigint NOT NULL CHECK (pairs_used >= 0),
    computed_at timestamptz NOT NULL DEFAULT now(),
    fit         json NOT NULL,
    PRIMARY KEY (run_id, pairs_used)
);

-- The estimates made before this migration start each run's history.
INSERT INTO estimate_history (run_id, pairs_used, computed_at, fit)
SELECT run_id, pairs_used, computed_at, report -> 'values'
FROM estimates
WHERE json_typeof(report -> 'values') = 'object';
