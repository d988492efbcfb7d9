//go:build !unix

package secrets

import "fmt"

// Without POSIX ownership and modes the rules cannot be checked, and
// OpenClaw fails closed where it cannot verify a path: so do we.
func readPrivateFile(path string, max int64) ([]byte, error) {
	return nil, fmt.Errorf("%s: file permissions cannot be verified on this system, so file secrets are refused", path)
}

func checkCommand(label, command string, trustedDirs []string, opts Options) (string, error) {
	return "", fmt.Errorf("%s: command permissions cannot be verified on this system, so exec secrets are refused", label)
}
