package disagg

import (
	"reflect"

	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// tokenizedPromptField is the field, on the request body or on the
// request itself, where GAIE keeps a request's tokenised prompt.
const tokenizedPromptField = "TokenizedPrompt"

// setTokenizedPrompt stores the router's tokens where the GAIE this source
// is built into keeps them, so later plugins read them. GAIE moved the
// field between the two commits Dynamo's Go EPP lines pin: at 206d40dca75d
// (Dynamo 1.2 and 1.3) it is InferenceRequest.TokenizedPrompt, at
// 7c1f1994dbff (Dynamo 1.4) InferenceRequestBody.TokenizedPrompt; the
// struct is the same (a TokenIDs []uint32 field). Finding it by name lets
// one source serve both lines instead of a copy per line, and a GAIE
// without either field (or with another shape) just does not get it,
// as before the field existed. The nvext.token_data write, which the
// frontend reads, does not depend on it.
func setTokenizedPrompt(req *fwksched.InferenceRequest, tokens []uint32) {
	storeTokens(holdersOf(req), tokens)
}

// tokenizedPromptIDs is the token list setTokenizedPrompt stored, nil when
// there is none.
func tokenizedPromptIDs(req *fwksched.InferenceRequest) []uint32 {
	return storedTokens(holdersOf(req))
}

// holdersOf lists the structs that may hold the field, the request body
// first (newer GAIE), then the request.
func holdersOf(req *fwksched.InferenceRequest) []reflect.Value {
	if req == nil {
		return nil
	}
	var holders []reflect.Value
	if req.Body != nil {
		holders = append(holders, reflect.ValueOf(req.Body).Elem())
	}
	return append(holders, reflect.ValueOf(req).Elem())
}

func storeTokens(holders []reflect.Value, tokens []uint32) {
	field := tokenizedPromptIn(holders)
	if !field.IsValid() || !field.CanSet() {
		return
	}
	prompt := reflect.New(field.Type().Elem())
	ids := prompt.Elem().FieldByName("TokenIDs")
	if !ids.IsValid() || ids.Type() != reflect.TypeFor[[]uint32]() {
		return
	}
	ids.Set(reflect.ValueOf(append([]uint32(nil), tokens...)))
	field.Set(prompt)
}

func storedTokens(holders []reflect.Value) []uint32 {
	field := tokenizedPromptIn(holders)
	if !field.IsValid() || field.IsNil() {
		return nil
	}
	ids := field.Elem().FieldByName("TokenIDs")
	if !ids.IsValid() || ids.Type() != reflect.TypeFor[[]uint32]() {
		return nil
	}
	return ids.Interface().([]uint32)
}

// tokenizedPromptIn is the first holder's pointer-to-struct field named
// tokenizedPromptField; the zero Value when none has one.
func tokenizedPromptIn(holders []reflect.Value) reflect.Value {
	for _, h := range holders {
		f := h.FieldByName(tokenizedPromptField)
		if f.IsValid() && f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct {
			return f
		}
	}
	return reflect.Value{}
}
