// Package speech turns text into voice notes and voice notes into text,
// over the speech providers OpenClaw names: OpenAI (/audio/speech and
// /audio/transcriptions) and ElevenLabs (/v1/text-to-speech/{voice}).
//
// It speaks each provider's HTTP wire format directly (no SDK), reads
// every answer through a size cap, bounds every call by a timeout, sends
// keys only in headers and takes them out of any error text. Failures a
// person must act on (quota spent, key refused) wrap ErrQuota or ErrAuth
// and say so plainly.
//
// Settings come from the config's tts and tools.media.audio sections
// (TTSPlan, STTSettings); speechtest holds httptest fakes of both
// providers for tests. The package holds no state between calls and is
// safe for concurrent use.
package speech
