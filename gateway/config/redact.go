package config

import (
	"net/url"
	"strings"
)

// Redact returns a deep copy of tree with secrets replaced by
// RedactedSentinel, for config.get and anything else shown to people or
// read-scoped clients. A value is secret when its key looks like a
// credential (see IsSecretKey): strings and numbers there are replaced,
// arrays have their elements replaced, objects (such as a SecretRef) are
// walked. Passwords inside URLs anywhere (scheme://user:pass@host) are
// replaced too. Empty strings stay empty, so "not set" remains visible.
func Redact(tree map[string]any) map[string]any {
	if tree == nil {
		return nil
	}
	return redactValue(tree, "", false).(map[string]any)
}

func redactValue(v any, path string, secret bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = redactValue(x, JoinPath(path, k), IsSecretAt(path, k))
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = redactValue(x, indexPath(path, i), secret)
		}
		return out
	case string:
		if secret && v != "" {
			return RedactedSentinel
		}
		return redactURL(v)
	case float64, int, int64:
		if secret {
			return RedactedSentinel
		}
	}
	return v
}

// redactURL hides the password of a URL with credentials in it.
func redactURL(s string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); !has {
		return s
	}
	u.User = url.UserPassword(u.User.Username(), RedactedSentinel)
	return u.String()
}

// notSecretSuffixes are key endings that look like credentials but name
// counts, limits or file paths instead.
var notSecretSuffixes = []string{
	"tokens", "tokencount", "tokenlimit", "tokenbudget",
	"file", "path", "dir", "env", "ref", "mode", "header", "enabled", "policy",
}

// secretKeyParts are the parts of key names that hold credentials: token,
// password, apiKey, botToken, appToken, secret, signingSecret,
// webhookSecret, privateKey and their relatives all match, and so does a
// database DSN, which may carry a password.
var secretKeyParts = []string{"password", "passwd", "secret", "apikey", "api_key", "api-key", "privatekey", "private_key", "encryptkey", "accesskey", "dsn",
	"authorization", "cookie", "credential"}

// secretObjects are the objects every value of which is a credential,
// whatever its key: OpenClaw treats each tools.web.fetch.headers value as
// sensitive, since a header name says nothing about what it carries.
var secretObjects = map[string]bool{"tools.web.fetch.headers": true}

// IsSecretAt reports whether the value at key in the object at parent (a
// path as JoinPath writes it, "" for the root) holds a credential: its key
// looks like one (IsSecretKey), or parent is an object of secrets.
func IsSecretAt(parent, key string) bool {
	return IsSecretKey(key) || secretObjects[parent]
}

// IsSecretKey reports whether a config key holds a credential: a name ending
// in "token" (token, botToken, appToken), or containing password, secret,
// apiKey, privateKey or accessKey, but not names of counts, limits or files
// such as maxTokens or passwordFile.
func IsSecretKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range notSecretSuffixes {
		if strings.HasSuffix(k, s) {
			return false
		}
	}
	// Environment variables name their secrets STRIPE_KEY or HF_KEY.
	if strings.HasSuffix(k, "token") || strings.HasSuffix(k, "_key") || strings.HasSuffix(k, "-key") {
		return true
	}
	for _, p := range secretKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}
