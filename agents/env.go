package agents

import "os"

// lookupEnv is os.Getenv behind a variable so tests can fake it.
var lookupEnv = os.Getenv
