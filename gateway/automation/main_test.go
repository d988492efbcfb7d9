package automation

import (
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
