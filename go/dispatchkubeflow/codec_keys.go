package dispatchkubeflow

import (
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// The codec's keys come from the environment, as the worker's do (src/codec/keys.ts):
// DISPATCH_CODEC_KEYS lists every key a payload may be encrypted with, `id1:base64key,id2:base64key`;
// DISPATCH_CODEC_KEY_ID names the one new payloads are encrypted with (optional with one key).
// Rotation is adding a key, making it current, and dropping the old one once no history needs it.
const (
	CodecKeysEnv  = "DISPATCH_CODEC_KEYS"
	CodecKeyIDEnv = "DISPATCH_CODEC_KEY_ID"
	// KeyBytes is an AES-256 key's length.
	KeyBytes = 32
)

var (
	keyIDRegexp  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	base64Regexp = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`)
)

// CodecKeys are the keys of the codec: the current one, and every one a payload may be decrypted with.
type CodecKeys struct {
	CurrentKeyID string
	// IDs lists the key ids in the order they were given.
	IDs  []string
	Keys map[string][]byte
}

// CodecKeyError is a key configuration the codec refuses; it names the variable and the entry,
// never the key material.
type CodecKeyError struct{ Message string }

func (e *CodecKeyError) Error() string { return e.Message }

func keyError(format string, args ...any) error {
	return &CodecKeyError{Message: fmt.Sprintf(format, args...)}
}

// ParseCodecKeys parses `id1:base64key,id2:base64key` and the current key id, as the worker does.
func ParseCodecKeys(spec, currentKeyID string) (CodecKeys, error) {
	keys := CodecKeys{Keys: map[string][]byte{}}
	for index, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		where := fmt.Sprintf("%s entry %d", CodecKeysEnv, index+1)
		id, encoded, found := strings.Cut(entry, ":")
		if !found {
			return CodecKeys{}, keyError("%s: must be <key id>:<base64 key>", where)
		}
		if !keyIDRegexp.MatchString(id) {
			return CodecKeys{}, keyError("%s: key id %s must be 1 to 64 of A-Z a-z 0-9 . _ -", where, wire.String(id))
		}
		if _, twice := keys.Keys[id]; twice {
			return CodecKeys{}, keyError("%s: key id %s is listed twice", where, id)
		}
		key, err := base64.StdEncoding.DecodeString(encoded)
		if !base64Regexp.MatchString(encoded) || err != nil {
			return CodecKeys{}, keyError("%s (key %s): the key is not standard base64", where, id)
		}
		if len(key) != KeyBytes {
			return CodecKeys{}, keyError("%s (key %s): the key is %d bytes; AES-256-GCM needs %d", where, id, len(key), KeyBytes)
		}
		keys.IDs = append(keys.IDs, id)
		keys.Keys[id] = key
	}
	current := strings.TrimSpace(currentKeyID)
	if current == "" && len(keys.IDs) == 1 {
		current = keys.IDs[0]
	}
	if current == "" {
		return CodecKeys{}, keyError("%s must name the key new payloads are encrypted with (one of %s)", CodecKeyIDEnv, strings.Join(keys.IDs, ", "))
	}
	if _, known := keys.Keys[current]; !known {
		return CodecKeys{}, keyError("%s %s is not among the keys of %s (%s)", CodecKeyIDEnv, current, CodecKeysEnv, strings.Join(keys.IDs, ", "))
	}
	keys.CurrentKeyID = current
	return keys, nil
}

// CodecKeysFromEnv reads the keys the environment configures; nil when the codec is off (neither
// variable set). A half-configured codec is an error, never a fallback to plaintext.
func CodecKeysFromEnv() (*CodecKeys, error) {
	return codecKeysFrom(os.Getenv)
}

func codecKeysFrom(getenv func(string) string) (*CodecKeys, error) {
	spec := strings.TrimSpace(getenv(CodecKeysEnv))
	current := strings.TrimSpace(getenv(CodecKeyIDEnv))
	if spec == "" {
		if current != "" {
			return nil, keyError("%s is set but %s is not: no key to encrypt with", CodecKeyIDEnv, CodecKeysEnv)
		}
		return nil, nil
	}
	keys, err := ParseCodecKeys(spec, current)
	if err != nil {
		return nil, err
	}
	return &keys, nil
}
