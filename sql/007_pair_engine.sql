-- 007_pair_engine.sql - the engine that played each pair: the bench
-- signature and version its worker reported when the pair was stored.
--
-- Until now the engine of a values run was read from the workers' rows at
-- the time of asking, so a worker that upgraded its engine moved every pair
-- it had ever stored to the new engine, and the best estimate per engine
-- (/values) changed its attribution with it. Pairs now keep it; pairs stored
-- before this migration get their worker's current engine, the best that is
-- known of them (NULL when the worker is unknown).

ALTER TABLE pairs ADD COLUMN engine_bench bigint CHECK (engine_bench >= 0),
                  ADD COLUMN engine_version text CHECK (octet_length(engine_version) <= 127);

UPDATE pairs p SET engine_bench = w.bench_signature, engine_version = w.engine_version
  FROM workers w WHERE w.id = p.worker_id;
