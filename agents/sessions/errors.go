package sessions

import "errors"

var (
	// ErrInvalidKey: a session key that does not parse. The caller reports
	// INVALID_REQUEST and does not retry.
	ErrInvalidKey = errors.New("invalid session key")
	// ErrNotFound: no session has that key or id. The caller reports it
	// (or creates the session with Ensure) and does not retry.
	ErrNotFound = errors.New("session not found")
	// ErrLabelInUse: another session of the same agent has that label. The
	// caller asks for another label.
	ErrLabelInUse = errors.New("session label already in use")
	// ErrInvalid: a field value the store refuses (a bad role, send
	// policy, seq). The caller reports INVALID_REQUEST.
	ErrInvalid = errors.New("invalid session value")

	// ErrAborted: Queue.Wait's job was aborted, before or while it ran.
	ErrAborted = errors.New("run aborted")
	// ErrUnknownJob: Queue.Wait was given an id the queue never saw or
	// forgot long ago. agent.wait reports the run as unknown.
	ErrUnknownJob = errors.New("unknown run")
	// ErrQueueClosed: the queue was closed before the job could finish.
	ErrQueueClosed = errors.New("run queue closed")
)
