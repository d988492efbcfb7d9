package main

import "os"

// restartSignals is empty on Windows, which has no SIGUSR1; restart with
// `openclaw gateway call gateway.restart` or the gateway tool instead.
var restartSignals []os.Signal
