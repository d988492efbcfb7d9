package channels

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// loginSession is one running device link (WhatsApp's QR flow).
type loginSession struct {
	mu      sync.Mutex
	step    LoginStep
	err     error
	ended   bool
	changed chan struct{} // closed and replaced on every change
	cancel  context.CancelFunc
}

func (l *loginSession) update(f func()) {
	l.mu.Lock()
	f()
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

func (l *loginSession) snapshot() (LoginStep, error, bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.step, l.err, l.ended, l.changed
}

// StartLogin begins linking a device for a channel account whose adapter
// has a LoginFlow, replacing a running link when force is set.
func (m *Manager) StartLogin(channel, accountID string, force bool) (*loginSession, error) {
	return m.startLogin(channel, accountID, "", force)
}

// StartPhoneLogin is StartLogin with a pairing code for phone instead of
// QR codes.
func (m *Manager) StartPhoneLogin(channel, accountID, phone string, force bool) (*loginSession, error) {
	return m.startLogin(channel, accountID, phone, force)
}

func (m *Manager) startLogin(channel, accountID, phone string, force bool) (*loginSession, error) {
	a, err := m.resolveAccount(channel, accountID)
	if err != nil {
		return nil, err
	}
	ad := a.adapterNow()
	if ad == nil {
		return nil, fmt.Errorf("the %s account %q is stopped; start it first (channels.start)", a.network.Label, a.id)
	}
	flow, ok := ad.(LoginFlow)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no device login (it uses a token from the config)", ErrUnsupported, a.network.Label)
	}
	login := flow.Login
	if phone != "" {
		pl, ok := flow.(PhoneLogin)
		if !ok {
			return nil, fmt.Errorf("%w: %s cannot link by phone number", ErrUnsupported, a.network.Label)
		}
		login = func(ctx context.Context, show func(LoginStep)) error { return pl.LoginWithPhone(ctx, phone, show) }
	}
	key := accountKey{a.network.Name, a.id}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.logins == nil {
		m.logins = map[accountKey]*loginSession{}
	}
	if l, ok := m.logins[key]; ok {
		if _, _, ended, _ := l.snapshot(); !ended && !force {
			return l, nil
		}
		l.cancel()
	}
	ctx, cancel := context.WithTimeout(m.ctx, 5*time.Minute)
	l := &loginSession{changed: make(chan struct{}), cancel: cancel}
	m.logins[key] = l
	go func() {
		defer cancel()
		err := login(ctx, func(s LoginStep) { l.update(func() { l.step = s }) })
		l.update(func() { l.err, l.ended = err, true })
		if err == nil {
			m.log.Info("channels: device linked", "channel", key.channel, "accountId", key.account)
		}
	}()
	return l, nil
}

// qrPNG renders a QR payload as a data URL for browsers.
func qrPNG(payload string) string {
	if payload == "" {
		return ""
	}
	png, err := qrcode.Encode(payload, qrcode.Medium, 320)
	if err != nil {
		return ""
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
}

func loginResult(step LoginStep, err error, ended bool) map[string]any {
	out := map[string]any{"connected": ended && err == nil && step.Done, "qr": step.QR, "pairingCode": step.PairingCode, "message": step.Detail}
	if png := qrPNG(step.QR); png != "" && !step.Done {
		out["qrDataUrl"] = png
	}
	if ended && err != nil {
		out["error"] = err.Error()
		out["message"] = "login failed: " + err.Error()
	}
	if ended && err == nil {
		out["connected"] = true
		out["message"] = "linked"
	}
	return out
}

type loginParams struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
	Force     bool   `json:"force"`
	TimeoutMs int    `json:"timeoutMs"`
	Verbose   bool   `json:"verbose"`
	// CurrentQr is the payload the caller shows; wait returns when it
	// changes (a new code) or the link ends.
	CurrentQr string `json:"currentQr"`
	// Phone asks for a pairing code for this number (E.164) instead of
	// QR codes (this gateway's parameter).
	Phone            string `json:"phone"`
	CurrentQrDataURL string `json:"currentQrDataUrl"`
}

func (p loginParams) timeout(def time.Duration) time.Duration {
	if p.TimeoutMs > 0 {
		return time.Duration(p.TimeoutMs) * time.Millisecond
	}
	return def
}

// handleLoginStart serves web.login.start: it starts (or joins) a link
// and answers with the first code to show.
func (m *Manager) handleLoginStart(ctx context.Context, req *rpc.Request, p loginParams) (any, error) {
	if p.Channel == "" {
		p.Channel = m.loginChannel()
	}
	l, err := m.startLogin(p.Channel, p.AccountID, p.Phone, p.Force)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	return waitLogin(ctx, l, "", p.timeout(30*time.Second))
}

// handleLoginWait serves web.login.wait: it answers when the code to
// show changes or the link ends.
func (m *Manager) handleLoginWait(ctx context.Context, req *rpc.Request, p loginParams) (any, error) {
	if p.Channel == "" {
		p.Channel = m.loginChannel()
	}
	a, err := m.resolveAccount(p.Channel, p.AccountID)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	m.mu.Lock()
	l := m.logins[accountKey{a.network.Name, a.id}]
	m.mu.Unlock()
	if l == nil {
		return nil, bad(req.Method, errors.New("no login is running; call web.login.start first"))
	}
	return waitLogin(ctx, l, p.CurrentQr, p.timeout(2*time.Minute))
}

func waitLogin(ctx context.Context, l *loginSession, current string, d time.Duration) (any, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		step, err, ended, changed := l.snapshot()
		if ended || (step.QR != "" && step.QR != current) || step.PairingCode != "" && current == "" {
			return loginResult(step, err, ended), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			return loginResult(step, err, ended), nil
		}
	}
}
