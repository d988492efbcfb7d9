package channels

import "fmt"

// ActionSwitch is one key of a channel's actions block: the message
// actions it turns on or off.
type ActionSwitch struct {
	Key     string // the config key, e.g. "channels.telegram.actions.deleteMessage"
	On      *bool  // as configured; nil means Default
	Default bool
	Actions []string // message actions (Actions) it governs
}

// ActionsOff maps each message action some switch turns off to that
// switch's key. An action several switches govern is off when any of
// them is (Telegram's sendMessage also governs polls).
func ActionsOff(switches ...ActionSwitch) map[string]string {
	off := map[string]string{}
	for _, s := range switches {
		if BoolOr(s.On, s.Default) {
			continue
		}
		for _, a := range s.Actions {
			if _, seen := off[a]; !seen {
				off[a] = s.Key
			}
		}
	}
	return off
}

// actionAllowed refuses an action the account's actions block turns off.
// It is checked before anything else of the action, for the agent's
// message tool and the operator's message.action alike: a prompt-injected
// model cannot reach a switched-off action by any route.
func (p AccountPolicy) actionAllowed(action string) error {
	if key, off := p.ActionsOff[action]; off {
		return fmt.Errorf("message action %q is turned off here (%s is false)", action, key)
	}
	return nil
}

// ActionAllowed refuses action where the account's actions block turns
// it off: for sends that do not go through Action (the message tools'
// files).
func (m *Manager) ActionAllowed(channel, accountID, action string) error {
	a, err := m.resolveAccount(channel, accountID)
	if err != nil {
		return err
	}
	return a.specNow().Policy.actionAllowed(action)
}
