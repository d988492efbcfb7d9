package harness

import (
	"net"
	"os"
	"testing"
)

func TestListensOn(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if !ListensOn(os.Getpid(), port) {
		t.Fatalf("this process listens on %d but ListensOn says no", port)
	}
	// A connected (not listening) socket on the port does not count, nor
	// does another process.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ListensOn(os.Getppid(), port) {
		t.Fatal("the parent process was said to listen on our port")
	}
	l.Close()
	if ListensOn(os.Getpid(), port) {
		t.Fatalf("port %d closed but ListensOn still says yes", port)
	}
}
