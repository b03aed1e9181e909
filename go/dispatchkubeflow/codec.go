package dispatchkubeflow

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"io"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// The worker's payload codec (src/codec/encryption-codec.ts), byte for byte: every payload is
// serialized as the Payload protobuf and sealed with AES-256-GCM under the current key, data =
// IV (12 bytes) | ciphertext | tag (16 bytes); the key id rides in the metadata in the clear and is
// the GCM associated data, so relabelling a payload with another key id fails authentication.
const (
	EncodingEncrypted = "binary/encrypted"
	MetadataEncoding  = "encoding"
	MetadataKeyID     = "encryption-key-id"

	ivBytes  = 12
	tagBytes = 16
)

// CodecError is a payload the codec cannot open.
type CodecError struct{ Message string }

func (e *CodecError) Error() string { return e.Message }

// UnknownKeyError is a payload sealed with a key this process does not have.
type UnknownKeyError struct {
	KeyID string
	Known []string
}

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("payload is encrypted with key %s, which is not among the known keys (%s); add it to %s to decode it",
		e.KeyID, strings.Join(e.Known, ", "), CodecKeysEnv)
}

// EncryptionCodec is a converter.PayloadCodec that encrypts and decrypts as the worker's codec does.
type EncryptionCodec struct {
	keys CodecKeys
	// random gives the IVs (crypto/rand; the tests give fixed ones to compare bytes).
	random io.Reader
}

var _ converter.PayloadCodec = (*EncryptionCodec)(nil)

// NewEncryptionCodec makes the codec of these keys.
func NewEncryptionCodec(keys CodecKeys) *EncryptionCodec {
	return &EncryptionCodec{keys: keys, random: rand.Reader}
}

// NewCodecDataConverter is the default data converter with the codec; give it to the Temporal client
// through WithDataConverter.
func NewCodecDataConverter(keys CodecKeys) converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), NewEncryptionCodec(keys))
}

// WithDataConverter is options with dataConverter as both its DataConverter and its failure
// converter's: the SDK's default failure converter decodes a failure's details with the default
// data converter, so without it every failure the worker sealed would come back with its details
// unreadable (FromError would see the message alone, step 0 and no ref, and ErrSealedDetails). A
// nil dataConverter (the codec off) leaves options as they are.
//
//	temporal, err := client.Dial(dk.WithDataConverter(client.Options{HostPort: address}, dataConverter))
func WithDataConverter(options client.Options, dataConverter converter.DataConverter) client.Options {
	if dataConverter == nil {
		return options
	}
	options.DataConverter = dataConverter
	options.FailureConverter = temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{DataConverter: dataConverter})
	return options
}

// Dial is client.Dial for dispatch-kubeflow: when options set a DataConverter (the usual field)
// and no FailureConverter, the failure converter is given the same data converter, so that the
// details of failures the worker sealed are read (see WithDataConverter). Options that set a
// FailureConverter of their own are dialled as they are.
//
//	temporal, err := dk.Dial(client.Options{HostPort: address, DataConverter: dataConverter})
func Dial(options client.Options) (client.Client, error) {
	return client.Dial(dialOptions(options))
}

func dialOptions(options client.Options) client.Options {
	if options.DataConverter != nil && options.FailureConverter == nil {
		return WithDataConverter(options, options.DataConverter)
	}
	return options
}

// DataConverterFromEnv is the data converter the environment configures (DISPATCH_CODEC_KEYS and
// DISPATCH_CODEC_KEY_ID, as the worker reads them), or nil when the codec is off; give it to the
// Temporal client through WithDataConverter.
func DataConverterFromEnv() (converter.DataConverter, error) {
	keys, err := CodecKeysFromEnv()
	if err != nil || keys == nil {
		return nil, err
	}
	return NewCodecDataConverter(*keys), nil
}

// CurrentKeyID is the key new payloads are sealed with.
func (c *EncryptionCodec) CurrentKeyID() string { return c.keys.CurrentKeyID }

// Encode seals every payload with the current key.
func (c *EncryptionCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, payload := range payloads {
		sealed, err := c.seal(payload)
		if err != nil {
			return nil, err
		}
		out[i] = sealed
	}
	return out, nil
}

// Decode opens every encrypted payload; one that is not encrypted passes through, so that history
// written before the codec was on still reads.
func (c *EncryptionCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, payload := range payloads {
		if !IsEncrypted(payload) {
			out[i] = payload
			continue
		}
		opened, err := c.open(payload)
		if err != nil {
			return nil, err
		}
		out[i] = opened
	}
	return out, nil
}

// IsEncrypted is whether a payload is one the codec sealed.
func IsEncrypted(payload *commonpb.Payload) bool {
	return string(payload.GetMetadata()[MetadataEncoding]) == EncodingEncrypted
}

func (c *EncryptionCodec) aead(keyID string) (cipher.AEAD, error) {
	block, err := aes.NewCipher(c.keys.Keys[keyID])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCMWithTagSize(block, tagBytes)
}

func (c *EncryptionCodec) seal(payload *commonpb.Payload) (*commonpb.Payload, error) {
	keyID := c.keys.CurrentKeyID
	// Map entries in key order: the TypeScript encoder writes them in insertion order, which is
	// the same for the one- and two-key metadata the SDKs write.
	plain, err := proto.MarshalOptions{Deterministic: true}.Marshal(payload)
	if err != nil {
		return nil, err
	}
	gcm, err := c.aead(keyID)
	if err != nil {
		return nil, err
	}
	iv := make([]byte, ivBytes, ivBytes+len(plain)+tagBytes)
	if _, err := io.ReadFull(c.random, iv); err != nil {
		return nil, err
	}
	return &commonpb.Payload{
		Metadata: map[string][]byte{MetadataEncoding: []byte(EncodingEncrypted), MetadataKeyID: []byte(keyID)},
		Data:     gcm.Seal(iv, iv, plain, []byte(keyID)),
	}, nil
}

func (c *EncryptionCodec) open(payload *commonpb.Payload) (*commonpb.Payload, error) {
	keyID := string(payload.GetMetadata()[MetadataKeyID])
	if keyID == "" {
		return nil, &CodecError{Message: fmt.Sprintf("encrypted payload has no %s metadata: it cannot say which key opens it", MetadataKeyID)}
	}
	if _, known := c.keys.Keys[keyID]; !known {
		return nil, &UnknownKeyError{KeyID: keyID, Known: append([]string{}, c.keys.IDs...)}
	}
	data := payload.GetData()
	if len(data) < ivBytes+tagBytes {
		return nil, &CodecError{Message: fmt.Sprintf("payload encrypted with key %s is %d bytes, shorter than its IV and tag: it was altered", keyID, len(data))}
	}
	gcm, err := c.aead(keyID)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, data[:ivBytes], data[ivBytes:], []byte(keyID))
	if err != nil {
		return nil, &CodecError{Message: fmt.Sprintf("payload encrypted with key %s failed authentication: it was altered, or the key listed as %s is not the one that sealed it", keyID, keyID)}
	}
	opened := &commonpb.Payload{}
	if err := proto.Unmarshal(plain, opened); err != nil {
		return nil, &CodecError{Message: fmt.Sprintf("payload encrypted with key %s does not hold a Payload: %v", keyID, err)}
	}
	return opened, nil
}
