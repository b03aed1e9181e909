package dispatchkubeflow

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// test/vectors/codec.json was made once by the worker's codec (src/codec); the TypeScript unit test
// test/unit/codec/vectors.test.ts decodes the same vectors.

type vectorPayload struct {
	Metadata map[string]string `json:"metadata"`
	Data     string            `json:"data"`
}

func (v vectorPayload) payload(t *testing.T) *commonpb.Payload {
	t.Helper()
	p := &commonpb.Payload{Metadata: map[string][]byte{}}
	for key, value := range v.Metadata {
		p.Metadata[key] = fromBase64(t, value)
	}
	p.Data = fromBase64(t, v.Data)
	return p
}

func fromBase64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type codecVectors struct {
	Keys    map[string]string `json:"keys"`
	Vectors []struct {
		What       string        `json:"what"`
		KeyID      string        `json:"keyId"`
		Plaintext  vectorPayload `json:"plaintext"`
		Ciphertext vectorPayload `json:"ciphertext"`
	} `json:"vectors"`
	Refused []struct {
		What       string        `json:"what"`
		Ciphertext vectorPayload `json:"ciphertext"`
		Error      string        `json:"error"`
	} `json:"refused"`
}

func loadVectors(t *testing.T) codecVectors {
	t.Helper()
	raw, err := os.ReadFile("../../test/vectors/codec.json")
	if err != nil {
		t.Fatal(err)
	}
	var v codecVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Vectors) == 0 || len(v.Refused) == 0 {
		t.Fatal("no vectors")
	}
	return v
}

func vectorCodec(t *testing.T, v codecVectors, current string) *EncryptionCodec {
	t.Helper()
	keys, err := codecKeysFrom(func(name string) string {
		if name == CodecKeyIDEnv {
			return current
		}
		return v.Keys[name]
	})
	if err != nil || keys == nil {
		t.Fatalf("keys: %v", err)
	}
	return NewEncryptionCodec(*keys)
}

func TestCodecDecodesTheWorkersVectorsWhicheverKeyIsCurrent(t *testing.T) {
	v := loadVectors(t)
	for _, current := range []string{"k1", "k2.rotated"} {
		codec := vectorCodec(t, v, current)
		for _, vector := range v.Vectors {
			opened, err := codec.Decode([]*commonpb.Payload{vector.Ciphertext.payload(t)})
			if err != nil {
				t.Errorf("%s (current %s): %v", vector.What, current, err)
				continue
			}
			if !proto.Equal(opened[0], vector.Plaintext.payload(t)) {
				t.Errorf("%s (current %s): opened %v, want %v", vector.What, current, opened[0], vector.Plaintext.payload(t))
			}
		}
	}
}

func TestCodecSealsAsTheWorkerDoesByteForByte(t *testing.T) {
	v := loadVectors(t)
	for _, vector := range v.Vectors {
		want := vector.Ciphertext.payload(t)
		codec := vectorCodec(t, v, vector.KeyID)
		codec.random = bytes.NewReader(want.Data[:ivBytes])
		sealed, err := codec.Encode([]*commonpb.Payload{vector.Plaintext.payload(t)})
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(sealed[0], want) {
			t.Errorf("%s: sealed\n%x\nthe worker\n%x", vector.What, sealed[0].Data, want.Data)
		}
	}
}

func TestCodecRefusesAlteredPayloads(t *testing.T) {
	v := loadVectors(t)
	codec := vectorCodec(t, v, "k1")
	for _, refused := range v.Refused {
		_, err := codec.Decode([]*commonpb.Payload{refused.Ciphertext.payload(t)})
		if err == nil || !strings.Contains(err.Error(), refused.Error) {
			t.Errorf("%s: want an error with %q, got %v", refused.What, refused.Error, err)
		}
	}
	var unknown *UnknownKeyError
	_, err := codec.Decode([]*commonpb.Payload{v.Refused[3].Ciphertext.payload(t)})
	if !errors.As(err, &unknown) || unknown.KeyID != "k3" {
		t.Errorf("an unknown key id is not an *UnknownKeyError: %v", err)
	}
}

func TestCodecRoundTripsThroughTheDataConverterAndPassesPlainPayloads(t *testing.T) {
	keys, err := ParseCodecKeys(loadVectors(t).Keys[CodecKeysEnv], "k2.rotated")
	if err != nil {
		t.Fatal(err)
	}
	dc := NewCodecDataConverter(keys)
	secret := map[string]string{"API_TOKEN": "hunter2-very-secret"}
	payload, err := dc.ToPayload(secret)
	if err != nil {
		t.Fatal(err)
	}
	if !IsEncrypted(payload) || string(payload.Metadata[MetadataKeyID]) != "k2.rotated" || bytes.Contains(payload.Data, []byte("hunter2")) || len(payload.Metadata) != 2 {
		t.Errorf("not sealed as the worker seals: %v", payload)
	}
	var back map[string]string
	if err := dc.FromPayload(payload, &back); err != nil || back["API_TOKEN"] != secret["API_TOKEN"] {
		t.Errorf("%v %v", back, err)
	}
	plain, _ := converter.GetDefaultDataConverter().ToPayload("from before the codec")
	opened, err := NewEncryptionCodec(keys).Decode([]*commonpb.Payload{plain})
	if err != nil || opened[0] != plain {
		t.Errorf("a plain payload did not pass through: %v", err)
	}
	two, _ := dc.ToPayload(secret)
	if bytes.Equal(two.Data, payload.Data) {
		t.Error("the same payload sealed twice to the same bytes: the IV is not fresh")
	}
}

func TestCodecKeysAreParsedAsTheWorkerParsesThem(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	short := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 16))
	ok := []struct{ spec, current, want string }{
		{"a:" + key, "", "a"},
		{" a:" + key + " , b:" + key + " ", "b", "b"},
		{"a:" + key + ",b:" + key, " a ", "a"},
	}
	for _, c := range ok {
		keys, err := ParseCodecKeys(c.spec, c.current)
		if err != nil || keys.CurrentKeyID != c.want {
			t.Errorf("%q %q: %+v %v", c.spec, c.current, keys.CurrentKeyID, err)
		}
	}
	refused := []struct{ spec, current, error string }{
		{"a" + key, "", "DISPATCH_CODEC_KEYS entry 1: must be <key id>:<base64 key>"},
		{"a:" + key + ",", "", "DISPATCH_CODEC_KEYS entry 2: must be <key id>:<base64 key>"},
		{"a b:" + key, "", `DISPATCH_CODEC_KEYS entry 1: key id "a b" must be 1 to 64 of A-Z a-z 0-9 . _ -`},
		{"a:" + key + ",a:" + key, "a", "DISPATCH_CODEC_KEYS entry 2: key id a is listed twice"},
		{"a:" + strings.TrimRight(key, "="), "", "DISPATCH_CODEC_KEYS entry 1 (key a): the key is not standard base64"},
		{"a:" + strings.ReplaceAll(key, "B", "-"), "", "the key is not standard base64"},
		{"a:" + short, "", "DISPATCH_CODEC_KEYS entry 1 (key a): the key is 16 bytes; AES-256-GCM needs 32"},
		{"a:" + key + ",b:" + key, "", "DISPATCH_CODEC_KEY_ID must name the key new payloads are encrypted with (one of a, b)"},
		{"a:" + key, "c", "DISPATCH_CODEC_KEY_ID c is not among the keys of DISPATCH_CODEC_KEYS (a)"},
	}
	for _, c := range refused {
		_, err := ParseCodecKeys(c.spec, c.current)
		var keyErr *CodecKeyError
		if !errors.As(err, &keyErr) || !strings.Contains(err.Error(), c.error) || strings.Contains(err.Error(), key) {
			t.Errorf("%q %q: want %q, got %v", c.spec, c.current, c.error, err)
		}
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	if keys, err := codecKeysFrom(env(nil)); keys != nil || err != nil {
		t.Errorf("neither variable: %v %v", keys, err)
	}
	if _, err := codecKeysFrom(env(map[string]string{CodecKeyIDEnv: "a"})); err == nil || !strings.Contains(err.Error(), "DISPATCH_CODEC_KEY_ID is set but DISPATCH_CODEC_KEYS is not") {
		t.Errorf("half configured: %v", err)
	}
}
