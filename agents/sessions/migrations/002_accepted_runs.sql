-- Runs accepted from an operator client (chat.send, agent) that have not
-- ended. A row is written in the transaction that stores the run's user
-- message and deleted when the run ends; a row left by a process that
-- stopped mid-run names a turn to run again at the next start. request is
-- the JSON the run needs to start again. Times are unix milliseconds.
CREATE TABLE accepted_runs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id      TEXT NOT NULL UNIQUE,
	session_key TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	agent_id    TEXT NOT NULL,
	request     TEXT NOT NULL DEFAULT '{}',
	accepted_at INTEGER NOT NULL
);
