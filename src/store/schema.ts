/** The SQLite index's tables. Bump USER_VERSION and add a step when the layout changes. */
export const USER_VERSION = 4;

export const DDL = `
CREATE TABLE IF NOT EXISTS blobs (
  id TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime_ns TEXT NOT NULL,
  ctime_ns TEXT NOT NULL,
  ino TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS file_states (
  path TEXT NOT NULL,
  mode TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ns TEXT NOT NULL,
  ctime_ns TEXT NOT NULL,
  ino TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  recorded_ns TEXT NOT NULL,
  PRIMARY KEY (path, mode)
);
CREATE TABLE IF NOT EXISTS action_cache (
  key TEXT PRIMARY KEY,
  receipt TEXT NOT NULL,
  label TEXT NOT NULL,
  created_ns TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  key TEXT PRIMARY KEY,
  job TEXT NOT NULL,
  root TEXT NOT NULL,
  created_ns TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  job TEXT NOT NULL,
  queue TEXT,
  label TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  state TEXT NOT NULL,
  outcome TEXT,
  reason TEXT,
  receipt TEXT,
  created_ns TEXT NOT NULL,
  ended_ns TEXT,
  root TEXT
);
CREATE INDEX IF NOT EXISTS runs_label ON runs (label, created_ns);
CREATE INDEX IF NOT EXISTS runs_key ON runs (key, created_ns);
CREATE INDEX IF NOT EXISTS runs_queue ON runs (queue, state, created_ns);
CREATE INDEX IF NOT EXISTS runs_receipt ON runs (receipt);
CREATE TABLE IF NOT EXISTS attempts (
  id TEXT PRIMARY KEY,
  run TEXT NOT NULL REFERENCES runs (id),
  state TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pid_start TEXT NOT NULL,
  heartbeat_ns TEXT NOT NULL,
  started_ns TEXT NOT NULL,
  ended_ns TEXT,
  outcome TEXT,
  reason TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  child_pgid INTEGER
);
CREATE INDEX IF NOT EXISTS attempts_run ON attempts (run);
CREATE INDEX IF NOT EXISTS attempts_state ON attempts (state);
CREATE TABLE IF NOT EXISTS latest (
  label TEXT PRIMARY KEY,
  receipt TEXT NOT NULL,
  key TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS receipt_copies (
  id TEXT PRIMARY KEY,
  bytes BLOB NOT NULL
);
`;

/** Steps from one user_version to the next, for stores made by earlier vkits. */
export const MIGRATIONS: Record<number, string> = {
  // 1 -> 2: frozen jobs for detached workers and retry; per-submitter queues; cancellation.
  1: `
CREATE TABLE IF NOT EXISTS jobs (key TEXT PRIMARY KEY, job TEXT NOT NULL, root TEXT NOT NULL, created_ns TEXT NOT NULL);
ALTER TABLE runs ADD COLUMN queue TEXT;
CREATE INDEX IF NOT EXISTS runs_queue ON runs (queue, state, created_ns);
ALTER TABLE attempts ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN child_pgid INTEGER;
`,
  // 2 -> 3: each run records the directory it runs in (a job is shared by checkouts with one store).
  2: `
ALTER TABLE runs ADD COLUMN root TEXT;
`,
  // 3 -> 4: a no-op's hit checks in one query each: the runs recording each label's latest receipt
  // (chains), and a copy of each receipt's bytes (read with the CAS file's stat, not the file).
  3: `
CREATE INDEX IF NOT EXISTS runs_receipt ON runs (receipt);
CREATE TABLE IF NOT EXISTS receipt_copies (id TEXT PRIMARY KEY, bytes BLOB NOT NULL);
`,
};
