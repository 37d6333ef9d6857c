package bbrhints

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, tokens := range [][]uint32{{}, {0}, {1, 2, 3}, {4294967295, 7}} {
		encoded := EncodeTokenData(tokens)
		raw, err := base64.StdEncoding.DecodeString(encoded)
		require.NoError(t, err)
		var asJSON []uint64
		require.NoError(t, json.Unmarshal(raw, &asJSON), "the wire form must be a JSON array")
		require.Len(t, asJSON, len(tokens))

		decoded, err := DecodeTokenData(encoded)
		require.NoError(t, err)
		assert.Equal(t, tokens, decoded)
	}
	assert.Equal(t, base64.StdEncoding.EncodeToString([]byte("[]")), EncodeTokenData(nil), "nil encodes as an empty array, not null")
}

func TestDecodeTokenDataRejects(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := map[string]string{
		"empty":          "  ",
		"not base64":     "%%%",
		"not json":       b64("hello"),
		"object":         b64(`{"a":1}`),
		"null":           b64("null"),
		"negative token": b64("[1,-2]"),
		"too large":      b64("[4294967296]"),
		"float":          b64("[1.5]"),
		"strings":        b64(`["1"]`),
	}
	for name, value := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeTokenData(value)
			assert.Error(t, err)
		})
	}
	unpadded := base64.RawStdEncoding.EncodeToString([]byte("[1,2]"))
	got, err := DecodeTokenData(unpadded)
	require.NoError(t, err, "unpadded base64 is accepted")
	assert.Equal(t, []uint32{1, 2}, got)
}

func TestParseWorkerID(t *testing.T) {
	id, err := ParseWorkerID("  7587888 \t")
	require.NoError(t, err)
	assert.Equal(t, uint64(7587888), id)

	for _, bad := range []string{"", " ", "-1", "12a", "0x10", "1.0", "9223372036854775808"} {
		_, err := ParseWorkerID(bad)
		assert.Error(t, err, "%q must be rejected", bad)
	}
}

func TestFromHeadersCaseInsensitiveAndRawValue(t *testing.T) {
	h := FromHeaders(logr.Discard(), []Header{
		{Key: "X-EPP-Inject-Nvext-Worker-Instance-Id", RawValue: []byte(" 42 ")},
		{Key: "x-epp-inject-nvext-token-data", Value: EncodeTokenData([]uint32{9, 8})},
		{Key: "x-unrelated", Value: "1"},
	})
	assert.True(t, h.HasWorkerID)
	assert.Equal(t, uint64(42), h.WorkerID)
	assert.Equal(t, []uint32{9, 8}, h.TokenData)
}

func TestFromHeadersTakesTheWorkerHeaderAsDynamoDoes(t *testing.T) {
	// Dynamo v0.7.0's BBR reads the worker id from x-worker-instance-id too.
	h := FromHeaders(logr.Discard(), []Header{{Key: "X-Worker-Instance-Id", Value: " 5 "}})
	assert.Equal(t, Hints{WorkerID: 5, HasWorkerID: true}, h)

	// The validated inject header wins over it, in either order.
	for _, headers := range [][]Header{
		{{Key: WorkerIDHeader, Value: "5"}, {Key: InjectWorkerIDHeader, Value: "6"}},
		{{Key: InjectWorkerIDHeader, Value: "6"}, {Key: WorkerIDHeader, Value: "5"}},
	} {
		assert.Equal(t, uint64(6), FromHeaders(logr.Discard(), headers).WorkerID)
	}
	// A malformed inject header leaves a valid worker header in force.
	h = FromHeaders(logr.Discard(), []Header{{Key: InjectWorkerIDHeader, Value: "x"}, {Key: WorkerIDHeader, Value: "7"}})
	assert.Equal(t, uint64(7), h.WorkerID)
}

func TestHeaderMutationsCarryTheWorkerID(t *testing.T) {
	body := []byte(`{"nvext":{"backend_instance_id":42}}`)
	got := Hints{WorkerID: 42, HasWorkerID: true}.HeaderMutations(body)
	require.Len(t, got, 2)
	assert.Equal(t, "Content-Length", got[0].GetHeader().GetKey())
	assert.Equal(t, WorkerIDHeader, got[1].GetHeader().GetKey())
	assert.Equal(t, "42", string(got[1].GetHeader().GetRawValue()))

	tokensOnly := Hints{TokenData: []uint32{1}}.HeaderMutations(body)
	require.Len(t, tokensOnly, 1, "no worker id, no worker header")
}

func TestFromHeadersDropsMalformedHintsAtDebug(t *testing.T) {
	type entry struct {
		level int
		msg   string
	}
	var got []entry
	sink := &capturingSink{onInfo: func(level int, msg string) { got = append(got, entry{level, msg}) }}
	logger := logr.New(sink)

	h := FromHeaders(logger, []Header{
		{Key: InjectWorkerIDHeader, Value: "not-a-number"},
		{Key: InjectTokenDataHeader, Value: "***"},
	})
	assert.True(t, h.Empty(), "malformed hints are dropped")
	require.Len(t, got, 2)
	for _, e := range got {
		assert.Equal(t, debugLevel, e.level)
		assert.Contains(t, e.msg, "Ignoring malformed")
	}
}

func TestFromHeaderMap(t *testing.T) {
	h := FromHeaderMap(logr.Discard(), &corev3.HeaderMap{Headers: []*corev3.HeaderValue{
		{Key: InjectWorkerIDHeader, RawValue: []byte("3")},
	}})
	assert.Equal(t, Hints{WorkerID: 3, HasWorkerID: true}, h)
	assert.True(t, FromHeaderMap(logr.Discard(), nil).Empty(), "a nil map yields no hints")
}

func TestContentLengthCountsBytes(t *testing.T) {
	h := ContentLength([]byte(`{"prompt":"héllo"}`))
	assert.Equal(t, "Content-Length", h.GetHeader().GetKey())
	assert.Equal(t, "19", string(h.GetHeader().GetRawValue()), "bytes, not runes")
	assert.Equal(t, "0", string(ContentLength(nil).GetHeader().GetRawValue()))
}

func TestInject(t *testing.T) {
	t.Run("creates nvext and keeps other keys", func(t *testing.T) {
		body := map[string]any{"model": "m", "stream": true}
		changed := Hints{WorkerID: 11, HasWorkerID: true, TokenData: []uint32{1, 2}}.Inject(body)
		assert.True(t, changed)
		assert.Equal(t, map[string]any{
			"model": "m", "stream": true,
			"nvext": map[string]any{"backend_instance_id": uint64(11), "token_data": []uint32{1, 2}},
		}, body)
	})
	t.Run("merges into an existing nvext", func(t *testing.T) {
		body := map[string]any{"nvext": map[string]any{"annotations": []any{"x"}, "token_data": []any{float64(0)}}}
		Hints{TokenData: []uint32{5}}.Inject(body)
		nvext := body["nvext"].(map[string]any)
		assert.Equal(t, []any{"x"}, nvext["annotations"])
		assert.Equal(t, []uint32{5}, nvext["token_data"])
		assert.NotContains(t, nvext, "backend_instance_id", "no worker hint, no key")
	})
	t.Run("replaces a non-object nvext", func(t *testing.T) {
		body := map[string]any{"nvext": "junk"}
		Hints{WorkerID: 0, HasWorkerID: true}.Inject(body)
		assert.Equal(t, map[string]any{"backend_instance_id": uint64(0)}, body["nvext"])
	})
	t.Run("no hints leaves the body alone", func(t *testing.T) {
		body := map[string]any{"model": "m"}
		assert.False(t, Hints{}.Inject(body))
		assert.Equal(t, map[string]any{"model": "m"}, body)
		assert.False(t, Hints{HasWorkerID: true}.Inject(nil))
	})
	t.Run("marshals as numbers", func(t *testing.T) {
		body := map[string]any{}
		Hints{WorkerID: 9007199254740993, HasWorkerID: true, TokenData: []uint32{4294967295}}.Inject(body)
		out, err := json.Marshal(body)
		require.NoError(t, err)
		assert.JSONEq(t, `{"nvext":{"backend_instance_id":9007199254740993,"token_data":[4294967295]}}`, string(out))
	})
	t.Run("an empty token list is left out", func(t *testing.T) {
		body := map[string]any{}
		assert.True(t, Hints{WorkerID: 1, HasWorkerID: true, TokenData: []uint32{}}.Inject(body))
		assert.Equal(t, map[string]any{"backend_instance_id": uint64(1)}, body["nvext"])
		assert.False(t, Hints{TokenData: []uint32{}}.Inject(map[string]any{}), "nothing to inject")
	})
}

// capturingSink is a logr.LogSink that reports each Info call's verbosity.
type capturingSink struct {
	onInfo func(level int, msg string)
}

func (s *capturingSink) Init(logr.RuntimeInfo)                {}
func (s *capturingSink) Enabled(int) bool                     { return true }
func (s *capturingSink) Info(level int, msg string, _ ...any) { s.onInfo(level, msg) }
func (s *capturingSink) Error(error, string, ...any)          {}
func (s *capturingSink) WithValues(...any) logr.LogSink       { return s }
func (s *capturingSink) WithName(string) logr.LogSink         { return s }
