-- 001_init.sql - capalab's schema: contributors, workers, runs, tasks (leases),
-- pairs, SPSA history, estimates, and the views the reports read.
--
-- Applied by store_migrate (coordinator/store.c) inside one transaction, under
-- an advisory lock; the runner itself creates and fills schema_migrations
-- (version, name, checksum, applied_at). A migration file must not contain
-- BEGIN/COMMIT. Once applied, a file never changes: write a new numbered file.
--
-- Conventions: timestamps are timestamptz; ids are bigint identities except a
-- worker's id, which the worker chooses (protocol: 1..63 bytes of
-- A-Z a-z 0-9 . _ : -). Counters kept in runs and workers are updated in the
-- same statement that stores the pairs (store_insert_pairs); the views
-- *_recount compute the same figures from the pairs table alone.

-- Unix epoch milliseconds, the unit of every time the store hands out.
CREATE FUNCTION epoch_ms(t timestamptz) RETURNS bigint
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS $$ SELECT floor(extract(epoch FROM t) * 1000)::bigint $$;

CREATE TABLE contributors (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE
                CHECK (octet_length(name) BETWEEN 1 AND 127),
    -- Only a hash of the token is kept (hex of a 16..64-byte digest).
    token_hash  text NOT NULL UNIQUE
                CHECK (token_hash ~ '^[0-9a-f]{32,128}$'),
    is_admin    boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE workers (
    id              text PRIMARY KEY
                    CHECK (id ~ '^[A-Za-z0-9._:-]{1,63}$'),
    contributor_id  bigint NOT NULL REFERENCES contributors (id),
    name            text NOT NULL DEFAULT '' CHECK (octet_length(name) <= 127),
    host_info       jsonb,
    cores           integer NOT NULL DEFAULT 1 CHECK (cores BETWEEN 1 AND 4096),
    concurrency     integer NOT NULL DEFAULT 1 CHECK (concurrency BETWEEN 1 AND 4096),
    engine_version  text NOT NULL DEFAULT '' CHECK (octet_length(engine_version) <= 127),
    bench_signature bigint NOT NULL DEFAULT 0 CHECK (bench_signature >= 0),
    nps             double precision NOT NULL DEFAULT 0 CHECK (nps >= 0 AND nps <= 1e12),
    first_seen      timestamptz NOT NULL DEFAULT now(),
    last_seen       timestamptz NOT NULL DEFAULT now(),
    -- A worker whose games do not reproduce: its pairs stay, excluded.
    flagged         boolean NOT NULL DEFAULT false,
    flag_reason     text,
    flagged_at      timestamptz,
    -- Accounting, kept by store_insert_pairs (all pairs, excluded or not).
    pairs           bigint NOT NULL DEFAULT 0,
    games           bigint NOT NULL DEFAULT 0,
    cpu_ms          bigint NOT NULL DEFAULT 0
);
CREATE INDEX workers_contributor_idx ON workers (contributor_id);
CREATE INDEX workers_last_seen_idx ON workers (last_seen DESC);

CREATE TABLE runs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('sprt', 'values', 'spsa')),
    name            text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 255),
    doc             jsonb NOT NULL,           -- the canonical run document
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'running', 'finished', 'stopped', 'failed')),
    priority        integer NOT NULL DEFAULT 0,
    seed            bigint NOT NULL,
    pairs_planned   bigint NOT NULL CHECK (pairs_planned >= 1),
    submitted_by    bigint REFERENCES contributors (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    result          jsonb,                    -- verdict / final report
    state           jsonb,                    -- the kind's live state (SPSA theta, ...)
    -- Counters over the run's non-excluded pairs (see run_totals_recount).
    pairs_done      bigint NOT NULL DEFAULT 0,
    penta0          bigint NOT NULL DEFAULT 0,
    penta1          bigint NOT NULL DEFAULT 0,
    penta2          bigint NOT NULL DEFAULT 0,
    penta3          bigint NOT NULL DEFAULT 0,
    penta4          bigint NOT NULL DEFAULT 0,
    wins            bigint NOT NULL DEFAULT 0,   -- games, for the side under test (B)
    draws           bigint NOT NULL DEFAULT 0,
    losses          bigint NOT NULL DEFAULT 0,
    cpu_ms          bigint NOT NULL DEFAULT 0,   -- all pairs, excluded or not
    CHECK (finished_at IS NULL OR status IN ('finished', 'stopped', 'failed'))
);
CREATE INDEX runs_status_idx ON runs (status, priority DESC, id);
CREATE INDEX runs_created_idx ON runs (created_at DESC);

-- A task is a lease: a contiguous range of a run's pair numbers handed to one
-- worker until expires_at. Active leases survive a coordinator restart.
CREATE TABLE tasks (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    worker_id   text NOT NULL REFERENCES workers (id),
    first_pair  bigint NOT NULL CHECK (first_pair >= 0),
    last_pair   bigint NOT NULL,
    status      text NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'done', 'expired', 'cancelled')),
    issued_at   timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    ended_at    timestamptz,
    CHECK (last_pair >= first_pair),
    CHECK ((status = 'active') = (ended_at IS NULL))
);
CREATE INDEX tasks_active_idx ON tasks (expires_at) WHERE status = 'active';
CREATE INDEX tasks_run_idx ON tasks (run_id, first_pair);
CREATE INDEX tasks_worker_idx ON tasks (worker_id) WHERE status = 'active';

-- One row per pair of games (same start, colours swapped). Results are from
-- White's view in half points: 2 = 1-0, 1 = 1/2-1/2, 0 = 0-1; b_white1/2 say
-- whether B (the side under test) had White in game 1/2. score is B's pair
-- score in quarter points (0..4), i.e. B's half points over both games.
CREATE TABLE pairs (
    run_id      bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    pair_no     bigint NOT NULL CHECK (pair_no >= 0),
    task_id     bigint REFERENCES tasks (id) ON DELETE SET NULL,
    worker_id   text REFERENCES workers (id),
    fen         text NOT NULL CHECK (octet_length(fen) BETWEEN 1 AND 127),
    fen2        text CHECK (octet_length(fen2) BETWEEN 1 AND 127),
    imbalance   text CHECK (octet_length(imbalance) BETWEEN 1 AND 127),
    result1     smallint NOT NULL CHECK (result1 BETWEEN 0 AND 2),
    result2     smallint NOT NULL CHECK (result2 BETWEEN 0 AND 2),
    b_white1    boolean NOT NULL,
    b_white2    boolean NOT NULL,
    end1        text NOT NULL CHECK (octet_length(end1) BETWEEN 1 AND 63),
    end2        text NOT NULL CHECK (octet_length(end2) BETWEEN 1 AND 63),
    plies1      integer NOT NULL CHECK (plies1 BETWEEN 0 AND 100000),
    plies2      integer NOT NULL CHECK (plies2 BETWEEN 0 AND 100000),
    moves1      text,
    moves2      text,
    score       smallint NOT NULL CHECK (score BETWEEN 0 AND 4),
    cpu_ms      bigint NOT NULL DEFAULT 0 CHECK (cpu_ms >= 0),
    stored_at   timestamptz NOT NULL DEFAULT now(),
    excluded    boolean NOT NULL DEFAULT false,
    -- Verification: a replay of the pair elsewhere; NULL = never checked.
    verified    boolean,
    verified_by text REFERENCES workers (id),
    verified_at timestamptz,
    PRIMARY KEY (run_id, pair_no),
    CHECK (b_white1 <> b_white2),
    CHECK (score = (CASE WHEN b_white1 THEN result1 ELSE 2 - result1 END)
                 + (CASE WHEN b_white2 THEN result2 ELSE 2 - result2 END))
);
CREATE INDEX pairs_worker_idx ON pairs (worker_id);
CREATE INDEX pairs_task_idx ON pairs (task_id);
CREATE INDEX pairs_imbalance_idx ON pairs (run_id, imbalance) WHERE imbalance IS NOT NULL;

CREATE TABLE spsa_history (
    run_id      bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    iteration   bigint NOT NULL CHECK (iteration >= 0),
    theta       jsonb NOT NULL,
    info        jsonb,              -- e.g. c_k, a_k, delta, the pair results
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, iteration)
);

CREATE TABLE estimates (
    run_id      bigint PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    computed_at timestamptz NOT NULL DEFAULT now(),
    pairs_used  bigint NOT NULL DEFAULT 0,
    report      jsonb NOT NULL
);

-- Per-run totals recounted from the pairs (non-excluded), for reports that
-- want the truth rather than the counters, and for the fault tests.
CREATE VIEW run_totals_recount AS
SELECT r.id AS run_id,
       count(*) FILTER (WHERE p.pair_no IS NOT NULL AND NOT p.excluded) AS pairs_done,
       count(*) FILTER (WHERE p.score = 0 AND NOT p.excluded) AS penta0,
       count(*) FILTER (WHERE p.score = 1 AND NOT p.excluded) AS penta1,
       count(*) FILTER (WHERE p.score = 2 AND NOT p.excluded) AS penta2,
       count(*) FILTER (WHERE p.score = 3 AND NOT p.excluded) AS penta3,
       count(*) FILTER (WHERE p.score = 4 AND NOT p.excluded) AS penta4,
       coalesce(sum((CASE WHEN p.b_white1 THEN p.result1 ELSE 2 - p.result1 END = 2)::int
                  + (CASE WHEN p.b_white2 THEN p.result2 ELSE 2 - p.result2 END = 2)::int)
                FILTER (WHERE NOT p.excluded), 0) AS wins,
       coalesce(sum((p.result1 = 1)::int + (p.result2 = 1)::int)
                FILTER (WHERE NOT p.excluded), 0) AS draws,
       coalesce(sum((CASE WHEN p.b_white1 THEN p.result1 ELSE 2 - p.result1 END = 0)::int
                  + (CASE WHEN p.b_white2 THEN p.result2 ELSE 2 - p.result2 END = 0)::int)
                FILTER (WHERE NOT p.excluded), 0) AS losses,
       coalesce(sum(p.cpu_ms), 0) AS cpu_ms
FROM runs r
LEFT JOIN pairs p ON p.run_id = r.id
GROUP BY r.id;

-- Games of a values run per imbalance and per colour of B (the side that
-- holds the imbalance's pieces), from B's view: the piece-value fit's input.
CREATE VIEW imbalance_games AS
SELECT run_id, imbalance, b_white,
       count(*) FILTER (WHERE b_score = 2) AS wins,
       count(*) FILTER (WHERE b_score = 1) AS draws,
       count(*) FILTER (WHERE b_score = 0) AS losses
FROM (
    SELECT run_id, imbalance, b_white1 AS b_white,
           CASE WHEN b_white1 THEN result1 ELSE 2 - result1 END AS b_score
    FROM pairs WHERE NOT excluded AND imbalance IS NOT NULL
    UNION ALL
    SELECT run_id, imbalance, b_white2,
           CASE WHEN b_white2 THEN result2 ELSE 2 - result2 END
    FROM pairs WHERE NOT excluded AND imbalance IS NOT NULL
) g
GROUP BY run_id, imbalance, b_white;

-- Accounting recounted from the pairs (all pairs: CPU was spent either way).
CREATE VIEW worker_stats_recount AS
SELECT w.id AS worker_id, w.contributor_id,
       count(p.pair_no) AS pairs,
       2 * count(p.pair_no) AS games,
       coalesce(sum(p.cpu_ms), 0) AS cpu_ms
FROM workers w
LEFT JOIN pairs p ON p.worker_id = w.id
GROUP BY w.id;

CREATE VIEW contributor_stats AS
SELECT c.id AS contributor_id, c.name,
       count(w.id) AS workers,
       coalesce(sum(w.pairs), 0) AS pairs,
       coalesce(sum(w.games), 0) AS games,
       coalesce(sum(w.cpu_ms), 0) AS cpu_ms,
       max(w.last_seen) AS last_seen
FROM contributors c
LEFT JOIN workers w ON w.contributor_id = c.id
GROUP BY c.id;
