package bbrhints

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
)

// Hints is the routing decision of ONE request stream. BBR keeps one Server
// for all streams, so a Hints value must live in the stream's own scope (a
// local of Process), never on the shared Server: that is the data race and
// cross-request leak Dynamo's own patch had.
type Hints struct {
	// WorkerID is the Dynamo worker instance id; valid only if HasWorkerID.
	// The frontend reads nvext.backend_instance_id as an unsigned integer
	// (Option<u64>), so it is written as a JSON number, never a string.
	WorkerID    uint64
	HasWorkerID bool
	// TokenData is the router's token ids (u32 on the Rust side); nil when
	// no hint was given.
	TokenData []uint32
}

// Empty reports whether there is nothing to inject.
func (h Hints) Empty() bool {
	return !h.HasWorkerID && len(h.TokenData) == 0
}

// Header is one request header as BBR sees it (Envoy sends either Value or
// RawValue).
type Header struct {
	Key      string
	Value    string
	RawValue []byte
}

func (h Header) value() string {
	if len(h.RawValue) > 0 {
		return string(h.RawValue)
	}
	return h.Value
}

// FromHeaders reads the hints of one request. Header names match
// case-insensitively. A malformed hint is dropped with a DEBUG-level log
// line: a bad hint must never fail the request, the frontend then simply
// routes on its own.
//
// The worker id comes from InjectWorkerIDHeader or, as Dynamo's BBR also
// takes it, from WorkerIDHeader; when both are valid the inject header wins,
// because only the pre-request plugin sets it after validation.
func FromHeaders(logger logr.Logger, headers []Header) Hints {
	var h Hints
	fromInject := false
	for _, hdr := range headers {
		switch name := strings.ToLower(hdr.Key); name {
		case InjectWorkerIDHeader, WorkerIDHeader:
			if fromInject && name == WorkerIDHeader {
				continue
			}
			id, err := ParseWorkerID(hdr.value())
			if err != nil {
				logger.V(debugLevel).Info("Ignoring malformed worker id hint", "header", name, "error", err.Error())
				continue
			}
			h.WorkerID, h.HasWorkerID = id, true
			fromInject = name == InjectWorkerIDHeader
		case InjectTokenDataHeader:
			tokens, err := DecodeTokenData(hdr.value())
			if err != nil {
				logger.V(debugLevel).Info("Ignoring malformed token data hint", "header", InjectTokenDataHeader, "error", err.Error())
				continue
			}
			h.TokenData = tokens
		}
	}
	return h
}

// ParseWorkerID accepts a non-negative decimal integer that fits an int64
// (the C API hands the id out as int64 and the frontend reads it as u64, so
// only the overlap is meaningful); surrounding blanks are allowed.
func ParseWorkerID(value string) (uint64, error) {
	trimmed := strings.TrimSpace(value)
	if trimmed == "" {
		return 0, fmt.Errorf("worker id is empty")
	}
	id, err := strconv.ParseInt(trimmed, 10, 64)
	if err != nil || id < 0 {
		return 0, fmt.Errorf("worker id %q is not a non-negative decimal int64", trimmed)
	}
	return uint64(id), nil
}

// DecodeTokenData reverses EncodeTokenData. Raw (unpadded) base64 is
// accepted too because some proxies strip padding.
func DecodeTokenData(value string) ([]uint32, error) {
	trimmed := strings.TrimSpace(value)
	if trimmed == "" {
		return nil, fmt.Errorf("token data is empty")
	}
	raw, err := base64.StdEncoding.DecodeString(trimmed)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(trimmed)
		if err != nil {
			return nil, fmt.Errorf("token data is not base64: %w", err)
		}
	}
	var tokens []uint32
	if err := json.Unmarshal(raw, &tokens); err != nil {
		return nil, fmt.Errorf("token data is not a JSON array of u32 integers: %w", err)
	}
	if tokens == nil {
		return nil, fmt.Errorf("token data is JSON null, want an array")
	}
	return tokens, nil
}

// Inject writes the hints into a decoded JSON request body: nvext is created
// when missing, its other keys and every other top-level key are kept. A
// non-object nvext is replaced, because the frontend would reject it anyway.
// It reports whether the body changed.
func (h Hints) Inject(body map[string]any) bool {
	if body == nil || h.Empty() {
		return false
	}
	nvext, ok := body[NvextKey].(map[string]any)
	if !ok {
		nvext = map[string]any{}
		body[NvextKey] = nvext
	}
	if h.HasWorkerID {
		nvext[BackendInstanceIDKey] = h.WorkerID
	}
	// An empty list is left out, as Dynamo's BBR does: the frontend would
	// take it as the request's tokens.
	if len(h.TokenData) > 0 {
		nvext[TokenDataKey] = h.TokenData
	}
	return true
}
