package rpc

import (
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// deepFrame is a request whose params nest one level past the decoder's
// limit (the frame's own object is the first level).
func deepFrame(id, method string) []byte {
	n := protocol.MaxFrameDepth
	return []byte(`{"type":"req","id":"` + id + `","method":"` + method + `","params":` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
}

// TestDeepFrameIsAnswered: a client (authenticated or not) sends a
// request nested past the JSON decoder's depth limit. It used to be
// dropped without a word, leaving the caller waiting for an answer that
// never came; it must be answered INVALID_REQUEST naming the limit, and an
// authenticated connection stays usable.
func TestDeepFrameIsAnswered(t *testing.T) {
	g := startTestServer(t, nil)
	limit := "10000"

	t.Run("after hello", func(t *testing.T) {
		ws := g.connected(t, "operator.read")
		if err := ws.WriteMessage(websocket.TextMessage, deepFrame("2:deep", "health")); err != nil {
			t.Fatal(err)
		}
		res := readResponse(t, ws, "2:deep")
		if res.OK || res.Error == nil || res.Error.Code != protocol.CodeInvalidRequest || !strings.Contains(res.Error.Message, limit) {
			t.Fatalf("deep request answered ok=%v %+v; want INVALID_REQUEST naming the limit", res.OK, res.Error)
		}
		if r := call(t, ws, "3:after", "health", nil); !r.OK {
			t.Fatalf("connection unusable after the deep frame: %+v", r.Error)
		}
	})

	t.Run("as the first frame", func(t *testing.T) {
		ws, _ := g.dial(t, nil)
		if len(deepFrame("1:deep", "connect")) > protocol.MaxPreauthPayload {
			t.Fatal("the deep frame no longer fits the pre-auth frame limit")
		}
		if err := ws.WriteMessage(websocket.TextMessage, deepFrame("1:deep", "connect")); err != nil {
			t.Fatal(err)
		}
		res := readResponse(t, ws, "1:deep")
		if res.OK || res.Error == nil || res.Error.Code != protocol.CodeInvalidRequest || !strings.Contains(res.Error.Message, limit) {
			t.Fatalf("deep connect answered ok=%v %+v; want INVALID_REQUEST naming the limit", res.OK, res.Error)
		}
		if code, _ := closeCode(t, ws); code != protocol.ClosePolicy {
			t.Fatalf("close = %d, want %d", code, protocol.ClosePolicy)
		}
	})
}

// readResponse reads frames until the response to id, skipping events.
func readResponse(t *testing.T, ws *websocket.Conn, id string) response {
	t.Helper()
	for {
		var res response
		readInto(t, ws, &res)
		if res.Type == "res" && res.ID == id {
			return res
		}
	}
}
