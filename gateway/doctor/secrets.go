package doctor

// SecretsReport is `openclaw secrets audit`'s answer in OpenClaw's shape.
type SecretsReport struct {
	// Status is clean, findings (plaintext) or unresolved (a reference
	// that names nothing set).
	Status     string           `json:"status"`
	Resolution SecretResolution `json:"resolution"`
	Summary    SecretSummary    `json:"summary"`
	Findings   []SecretFinding  `json:"findings"`
}

// SecretResolution says how much of the config's references were checked.
type SecretResolution struct {
	RefsChecked           int  `json:"refsChecked"`
	SkippedExecRefs       int  `json:"skippedExecRefs"`
	ResolvabilityComplete bool `json:"resolvabilityComplete"`
}

// SecretSummary counts the findings by kind. This gateway has no auth
// profile store, team store or generated model files, so the shadowed,
// store and legacy counts stay zero.
type SecretSummary struct {
	PlaintextCount     int `json:"plaintextCount"`
	UnresolvedRefCount int `json:"unresolvedRefCount"`
	ShadowedRefCount   int `json:"shadowedRefCount"`
	StoreResidueCount  int `json:"storeResidueCount"`
	LegacyResidueCount int `json:"legacyResidueCount"`
}

// SecretFinding is one finding: PLAINTEXT_FOUND or REF_UNRESOLVED.
type SecretFinding struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// SecretsAudit scans the install's config for secrets written as plain
// text and for ${VAR} or SecretRef references that resolve to nothing. It
// reads only; exec references are resolved only when allowExec, since
// resolving one runs its command.
func SecretsAudit(in *Install, allowExec bool) *SecretsReport {
	a := newAudit(in)
	rep := &SecretsReport{Findings: []SecretFinding{}}
	plain, refs, execRefs := a.secretFields()
	for _, p := range plain {
		rep.Findings = append(rep.Findings, SecretFinding{Code: "PLAINTEXT_FOUND", Path: p, File: configFile(in),
			Message: p + " is written in the config as plain text; use \"${VAR}\" or a SecretRef {source, provider, id}"})
	}
	if in.Snap != nil {
		for _, is := range in.Snap.UnresolvedSecrets {
			rep.Findings = append(rep.Findings, SecretFinding{Code: "REF_UNRESOLVED", Path: is.Path, File: is.File, Line: is.Line, Message: is.Message})
		}
	}
	rep.Summary.PlaintextCount = len(plain)
	rep.Summary.UnresolvedRefCount = len(rep.Findings) - len(plain)
	rep.Resolution.RefsChecked = refs
	if !allowExec {
		rep.Resolution.RefsChecked -= execRefs
		rep.Resolution.SkippedExecRefs = execRefs
	}
	rep.Resolution.ResolvabilityComplete = in.Snap != nil && in.Snap.Config != nil && rep.Resolution.SkippedExecRefs == 0
	switch {
	case rep.Summary.UnresolvedRefCount > 0:
		rep.Status = "unresolved"
	case rep.Summary.PlaintextCount > 0:
		rep.Status = "findings"
	default:
		rep.Status = "clean"
	}
	return rep
}

func configFile(in *Install) string {
	if in.Snap != nil {
		return in.Snap.Path
	}
	return in.Paths.ConfigPath
}
