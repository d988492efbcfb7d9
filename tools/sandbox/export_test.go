package sandbox

// For the tests of package sandbox_test, which run the file tools over
// the real sshd this package's tests start.

// StartSSHD is startSSHD.
var StartSSHD = startSSHD

// Settings is settings: an ssh sandbox on s, remote workspaces under root.
func (s sshServer) Settings(root string) Settings { return s.settings(root) }
