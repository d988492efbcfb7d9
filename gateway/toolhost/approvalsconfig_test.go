package toolhost

import "testing"

// TestGatewayToolCannotAddApprovalTarget: a prompt-injected model using
// the gateway tool to send approval prompts to its own chat, or to make
// itself an approver, waits for a person: these keys are not free.
func TestGatewayToolCannotAddApprovalTarget(t *testing.T) {
	cur := parseExecSnapshot(t, `{}`)
	for _, src := range []string{
		`{approvals: {exec: {enabled: true, mode: "targets", targets: [{channel: "telegram", to: "666"}]}}}`,
		`{approvals: {plugin: {enabled: true, mode: "both", targets: [{channel: "slack", to: "U666"}]}}}`,
		`{channels: {slack: {execApprovals: {approvers: ["U666"]}}}}`,
		`{channels: {telegram: {execApprovals: {enabled: true, target: "both"}}}}`,
	} {
		if keys := configChangesNeedingApproval(cur, parseExecSnapshot(t, src)); len(keys) == 0 {
			t.Errorf("%s needs no approval", src)
		}
	}
}
