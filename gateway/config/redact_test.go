package config

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRedact(t *testing.T) {
	in := map[string]any{
		"gateway": map[string]any{
			"port": 18789.0,
			"auth": map[string]any{
				"mode": "token", "token": "abc", "password": "",
				"rateLimit": map[string]any{"maxAttempts": 10.0},
			},
			"remote": map[string]any{
				"url":   "wss://bob:hunter2@gw.example/",
				"token": map[string]any{"source": "env", "provider": "default", "id": "GW_TOKEN"},
			},
		},
		"channels": map[string]any{
			"telegram": map[string]any{"botToken": "123:abc", "tokenFile": "/run/secrets/tg", "webhookSecret": "w"},
			"slack":    map[string]any{"appToken": "xapp-1", "signingSecret": "s", "botToken": "xoxb-1"},
		},
		"models": map[string]any{
			"providers": map[string]any{"local": map[string]any{"apiKey": "sk-1", "baseUrl": "http://127.0.0.1/v1", "maxTokens": 4096.0}},
		},
		"hooks": map[string]any{"privateKey": "-----BEGIN", "secrets": []any{"a", "b"}, "adminPassword": 1234.0},
		"tools": map[string]any{"web": map[string]any{"fetch": map[string]any{
			"userAgent": "ua/1", "headers": map[string]any{"X-Routing-Target": "staging", "X-Gw-Auth": "hunter2", "Empty": ""},
		}}},
		"plugins": map[string]any{"entries": map[string]any{"brave": map[string]any{"config": map[string]any{"webSearch": map[string]any{"apiKey": "BSA-1"}}}}},
	}
	before, _ := json.Marshal(in)
	got := Redact(in)
	const R = RedactedSentinel
	want := map[string]any{
		"gateway": map[string]any{
			"port": 18789.0,
			"auth": map[string]any{
				"mode": "token", "token": R, "password": "",
				"rateLimit": map[string]any{"maxAttempts": 10.0},
			},
			"remote": map[string]any{
				"url":   "wss://bob:" + R + "@gw.example/",
				"token": map[string]any{"source": "env", "provider": "default", "id": "GW_TOKEN"},
			},
		},
		"channels": map[string]any{
			"telegram": map[string]any{"botToken": R, "tokenFile": "/run/secrets/tg", "webhookSecret": R},
			"slack":    map[string]any{"appToken": R, "signingSecret": R, "botToken": R},
		},
		"models": map[string]any{
			"providers": map[string]any{"local": map[string]any{"apiKey": R, "baseUrl": "http://127.0.0.1/v1", "maxTokens": 4096.0}},
		},
		"hooks": map[string]any{"privateKey": R, "secrets": []any{R, R}, "adminPassword": R},
		"tools": map[string]any{"web": map[string]any{"fetch": map[string]any{
			"userAgent": "ua/1", "headers": map[string]any{"X-Routing-Target": R, "X-Gw-Auth": R, "Empty": ""},
		}}},
		"plugins": map[string]any{"entries": map[string]any{"brave": map[string]any{"config": map[string]any{"webSearch": map[string]any{"apiKey": R}}}}},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("got %s", g)
	}
	if after, _ := json.Marshal(in); string(after) != string(before) {
		t.Error("Redact modified its input")
	}
	if R != "__OPENCLAW_REDACTED__" {
		t.Error("the sentinel must match OpenClaw's")
	}
}

func TestIsSecretKey(t *testing.T) {
	for key, want := range map[string]bool{
		"token": true, "botToken": true, "appToken": true, "password": true, "apiKey": true,
		"api_key": true, "secret": true, "signingSecret": true, "webhookSecret": true, "privateKey": true,
		"clientSecret": true, "accessKeyId": true, "STRIPE_KEY": true, "HF_KEY": true, "x-api-key": true,
		"MY_CREDENTIALS": true, "GITHUB_TOKEN": true, "mainKey": false, "key": false,
		"maxTokens": false, "tokenFile": false, "passwordFile": false, "mode": false, "tokenEnv": false,
		"contextTokens": false, "url": false, "secretRef": false,
	} {
		if got := IsSecretKey(key); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", key, got, want)
		}
	}
}
