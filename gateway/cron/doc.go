// Package cron is the gateway's scheduler: jobs in OpenClaw's shape
// (schedule kinds at, every and cron with a time zone; payloads
// systemEvent and agentTurn; session targets; delivery), kept with their
// run history in SQLite, fired by one timer over a heap of next-run
// times, caught up once after downtime, never overlapping themselves.
// Cron expressions are parsed and stepped by robfig/cron; its runner is
// not used because it keeps no state across restarts.
//
// What a run does is the Executor's business: the gateway implements it
// over the agents and channels. This package knows the store, the
// clock and the bus.
package cron
