-- The KernelBot platform's tables that the export reads (docs/dataset.md §2), newest known state.
-- `kbdata synth --db URL` runs this file (compiled in) on an empty database, then seeds it.
CREATE SCHEMA leaderboard;

CREATE TABLE leaderboard.leaderboard (
  id          serial PRIMARY KEY,
  name        text UNIQUE NOT NULL,
  deadline    timestamptz NOT NULL,
  task        jsonb,   -- {lang, files: {"reference.py": ...}, ranking_by, tests, benchmarks}
  creator_id  bigint,
  forum_id    bigint,
  secret_seed bigint,
  description text NOT NULL,
  visibility  text DEFAULT 'public'
);

CREATE TABLE leaderboard.gpu_type (
  leaderboard_id integer NOT NULL REFERENCES leaderboard.leaderboard (id),
  gpu_type       text NOT NULL,
  PRIMARY KEY (leaderboard_id, gpu_type)
);

-- One row per distinct code byte string. Rows from before the move to bytea keep their text in
-- old_code (sometimes the text of a Postgres hex escape, `\x...`) and an empty `code`, so their
-- hash is null.
CREATE TABLE leaderboard.code_files (
  id       serial PRIMARY KEY,
  old_code text,
  code     bytea NOT NULL,
  hash     text UNIQUE
);

CREATE TABLE leaderboard.user_info (
  id        text PRIMARY KEY,
  user_name text
);

CREATE TABLE leaderboard.submission (
  id              serial PRIMARY KEY,
  leaderboard_id  integer NOT NULL REFERENCES leaderboard.leaderboard (id),
  file_name       text,
  user_id         text NOT NULL REFERENCES leaderboard.user_info (id),
  code_id         integer NOT NULL REFERENCES leaderboard.code_files (id),
  submission_time timestamptz NOT NULL,
  done            boolean DEFAULT false,
  status          text DEFAULT 'active'
);
CREATE INDEX submission_leaderboard ON leaderboard.submission (leaderboard_id);

CREATE TABLE leaderboard.submission_job_status (
  submission_id integer UNIQUE NOT NULL REFERENCES leaderboard.submission (id),
  status        text,
  error         text,
  created_at    timestamptz,
  updated_at    timestamptz
);

CREATE TABLE leaderboard.runs (
  id            serial PRIMARY KEY,
  submission_id integer NOT NULL REFERENCES leaderboard.submission (id),
  start_time    timestamptz,
  end_time      timestamptz,
  mode          text,
  secret        boolean,
  runner        text,
  score         numeric,
  passed        boolean,
  compilation   jsonb,
  meta          jsonb,
  result        jsonb,
  system_info   jsonb
);
CREATE INDEX runs_submission ON leaderboard.runs (submission_id);
