package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	qrcode "github.com/skip2/go-qrcode"
	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/openclaw-go/openclaw/channels"
)

// logoutConnectTimeout bounds connecting an idle device just to unlink it.
const logoutConnectTimeout = 30 * time.Second

// Login links the account as a new companion device by QR code: each code
// WhatsApp hands out (a new one every 20 seconds or so) is shown through
// show as LoginStep.QR, to be scanned in WhatsApp under Settings → Linked
// devices → Link a device; on success show gets Done and a running
// adapter connects. It fails when the account is already linked, the
// codes run out unscanned, or ctx ends.
func (a *Adapter) Login(ctx context.Context, show func(channels.LoginStep)) error {
	return a.link(ctx, "", show)
}

// LoginWithPhone links the account by pairing code instead of QR: show
// gets LoginStep.PairingCode, to be typed on the phone under Linked
// devices → Link with phone number. phone is the account's number in
// international form ("+49 151 …").
func (a *Adapter) LoginWithPhone(ctx context.Context, phone string, show func(channels.LoginStep)) error {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, phone)
	if len(digits) < 6 || strings.HasPrefix(digits, "0") {
		return fmt.Errorf("whatsapp: %q is not a phone number in international form", phone)
	}
	return a.link(ctx, digits, show)
}

func (a *Adapter) link(ctx context.Context, phone string, show func(channels.LoginStep)) error {
	if a.opts.DB == nil {
		return errors.New("whatsapp: Options.DB is required")
	}
	if show == nil {
		show = func(channels.LoginStep) {}
	}
	a.mu.Lock()
	busy := a.login || (a.client != nil && !a.client.OwnID().IsEmpty())
	if !busy {
		a.login = true
	}
	a.mu.Unlock()
	if busy {
		return errors.New("whatsapp: already linked or linking; log out first")
	}
	defer func() {
		a.mu.Lock()
		a.login = false
		a.mu.Unlock()
	}()

	c, err := a.newClient(ctx)
	if err != nil {
		return err
	}
	if id := c.OwnID(); !id.IsEmpty() {
		return fmt.Errorf("whatsapp: already linked as %s; log out first", userID(id.ToNonAD()))
	}
	qr, err := c.GetQRChannel(ctx)
	if err != nil {
		return fmt.Errorf("whatsapp: login: %w", err)
	}
	if err := c.Connect(); err != nil {
		return classify("login: connect", err)
	}
	defer c.Disconnect()
	asked := false
	for {
		var item whatsmeow.QRChannelItem
		var ok bool
		select {
		case <-ctx.Done():
			return fmt.Errorf("whatsapp: login: %w", ctx.Err())
		case item, ok = <-qr:
		}
		if !ok {
			return errors.New("whatsapp: login ended without a result")
		}
		switch {
		case item.Event == whatsmeow.QRChannelEventCode && phone == "":
			show(channels.LoginStep{QR: item.Code, Detail: "scan in WhatsApp: Settings → Linked devices → Link a device"})
		case item.Event == whatsmeow.QRChannelEventCode && !asked:
			asked = true
			code, err := c.PairPhone(ctx, phone, true, whatsmeow.PairClientChrome, a.opts.PairDisplayName)
			if err != nil {
				return fmt.Errorf("whatsapp: pairing code: %w", err)
			}
			show(channels.LoginStep{PairingCode: code, Detail: "type it in WhatsApp: Settings → Linked devices → Link with phone number"})
		case item.Event == whatsmeow.QRChannelEventCode:
			// A fresh QR code while the pairing code is still valid.
		case item == whatsmeow.QRChannelSuccess:
			id := c.OwnID()
			c.Disconnect() // the run loop connects its own client
			if id.IsEmpty() {
				return errors.New("whatsapp: login succeeded but no device id was stored")
			}
			if err := rememberDevice(context.WithoutCancel(ctx), a.opts.DB, a.opts.AccountID, id); err != nil {
				return err
			}
			a.log.Info("whatsapp account linked", "as", userID(id.ToNonAD()))
			select {
			case a.linked <- struct{}{}:
			default:
			}
			show(channels.LoginStep{Done: true, Detail: "linked as " + userID(id.ToNonAD())})
			return nil
		case item == whatsmeow.QRChannelTimeout:
			return errors.New("whatsapp: login timed out: no code was scanned")
		case item.Event == whatsmeow.QRChannelEventError:
			return fmt.Errorf("whatsapp: login failed: %w", item.Error)
		default:
			return fmt.Errorf("whatsapp: login failed: %s", item.Event)
		}
	}
}

// Logout unlinks the device: WhatsApp forgets it, and its keys are
// deleted from the database. A running adapter reports logged-out and
// waits for a new login; while it is reconnecting, Logout returns a
// RetryableError (a second connection would replace its own). A stopped
// adapter connects just to unlink. Logging out an account that is not
// linked does nothing.
func (a *Adapter) Logout(ctx context.Context) error {
	c := a.currentClient()
	if c != nil && !c.IsLoggedIn() {
		// The run loop owns this device's connection; a second one would
		// replace it. Unlinking needs the connection back first.
		return &channels.RetryableError{Err: fmt.Errorf("whatsapp: logout: %w", errNotConnected)}
	}
	if c == nil {
		var err error
		if c, err = a.connectForLogout(ctx); err != nil || c == nil {
			return err
		}
		defer c.Disconnect()
	}
	if err := c.Logout(ctx); err != nil {
		return classify("logout", err)
	}
	if err := forgetDevice(context.WithoutCancel(ctx), a.opts.DB, a.opts.AccountID); err != nil {
		return err
	}
	a.log.Info("whatsapp account unlinked")
	select {
	case a.unlinked <- struct{}{}:
	default:
	}
	return nil
}

// connectForLogout connects the account's device when the adapter is not
// connected, or returns nil when there is no device to unlink.
func (a *Adapter) connectForLogout(ctx context.Context) (Client, error) {
	if a.opts.DB == nil {
		return nil, errors.New("whatsapp: Options.DB is required")
	}
	c, err := a.newClient(ctx)
	if err != nil {
		return nil, err
	}
	if c.OwnID().IsEmpty() {
		return nil, forgetDevice(ctx, a.opts.DB, a.opts.AccountID)
	}
	connected := make(chan struct{}, 1)
	c.AddEventHandler(func(evt any) bool {
		if _, ok := evt.(*events.Connected); ok {
			select {
			case connected <- struct{}{}:
			default:
			}
		}
		return true
	})
	if err := c.Connect(); err != nil {
		return nil, classify("logout: connect", err)
	}
	t := time.NewTimer(logoutConnectTimeout)
	defer t.Stop()
	select {
	case <-connected:
		return c, nil
	case <-t.C:
		c.Disconnect()
		return nil, &channels.RetryableError{Err: errors.New("whatsapp: logout: could not connect")}
	case <-ctx.Done():
		c.Disconnect()
		return nil, fmt.Errorf("whatsapp: logout: %w", ctx.Err())
	}
}

// RenderQR draws a login QR payload as text for a terminal, two modules
// per character cell (dark on a light background). It returns "" for a
// payload too long for a QR code.
func RenderQR(payload string) string {
	q, err := qrcode.New(payload, qrcode.Low)
	if err != nil {
		return ""
	}
	return q.ToSmallString(false)
}
