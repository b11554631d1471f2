-- 004_study_series.sql - study series: an ordered list of ordinary values
-- runs made from one document (a node ladder or a self-consistent
-- iteration; docs/api.md "Study series", docs/methods.md).
--
-- A series is submitted as one document (doc: its canonical JSON, with
-- "ladder" or "iterate"); the coordinator makes its runs one at a time:
-- step 0 at submit, step k + 1 when step k's run has finished
-- (coordinator/series.c). The link (series_id, step) is the primary key, so
-- each step's run is created once even when two coordinators, or one that
-- restarted, try: the run and its link are inserted in one transaction.
--
-- status: running until the series ends; then finished (result says why:
-- every rung played, converged, max_rounds, ...) or failed (a run of it
-- failed, or its next step could not be made). steps_planned: the rungs, or
-- max_rounds.

CREATE TABLE series (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('ladder', 'iterate')),
    name            text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 255),
    doc             jsonb NOT NULL,
    status          text NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'finished', 'failed')),
    steps_planned   integer NOT NULL CHECK (steps_planned BETWEEN 1 AND 100),
    submitted_by    bigint REFERENCES contributors (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    result          jsonb
);

CREATE TABLE series_runs (
    series_id   bigint NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    step        integer NOT NULL CHECK (step >= 0),
    run_id      bigint NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
    PRIMARY KEY (series_id, step)
);

-- The coordinator's question each refresh: running series whose last run
-- has ended.
CREATE INDEX series_running_idx ON series (id) WHERE status = 'running';
