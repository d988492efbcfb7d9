package gateway

import (
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/retention"
)

// retentionLoop starts the retention sweep of the tables that grow with
// use (the channel ledger, the tool audit, finished cron runs' sessions)
// for as long as the gateway serves.
func (s *System) retentionLoop() {
	opts := retention.Options{Config: func() *config.Config { return s.current().snap.Config }, Log: s.log, FirstAfter: startupSettle}
	if s.channels != nil {
		opts.Ledger = s.channels
	}
	if s.toolhost != nil {
		opts.Audit = s.toolhost.Audit()
	}
	if s.sessions != nil {
		opts.CronSessions = s.sessions
	}
	s.inBackground(retention.New(opts).Run)
}

// keptFor is a retention as a maximum age, 0 when rows are kept forever.
func keptFor(r config.Retention) time.Duration { return retention.KeptFor(r) }
