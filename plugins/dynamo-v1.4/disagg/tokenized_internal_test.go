package disagg

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// The shapes of GAIE's request at 206d40dca75d (the prompt on the request)
// and at 7c1f1994dbff (on the body), reduced to what the adapter reads.
type prompt struct {
	TokenIDs []uint32
}

type body206 struct{ Stream bool }

type request206 struct {
	Body            *body206
	TokenizedPrompt *prompt
}

type body7c1 struct {
	TokenizedPrompt *prompt
}

type request7c1 struct{ Body *body7c1 }

func TestTokensGoWhereEachGAIEKeepsThem(t *testing.T) {
	old := &request206{Body: &body206{}}
	holders := []reflect.Value{reflect.ValueOf(old.Body).Elem(), reflect.ValueOf(old).Elem()}
	storeTokens(holders, []uint32{1, 2})
	if assert.NotNil(t, old.TokenizedPrompt, "GAIE 206d40dc keeps it on the request") {
		assert.Equal(t, []uint32{1, 2}, old.TokenizedPrompt.TokenIDs)
	}
	assert.Equal(t, []uint32{1, 2}, storedTokens(holders))

	cur := &request7c1{Body: &body7c1{}}
	holders = []reflect.Value{reflect.ValueOf(cur.Body).Elem(), reflect.ValueOf(cur).Elem()}
	tokens := []uint32{3}
	storeTokens(holders, tokens)
	if assert.NotNil(t, cur.Body.TokenizedPrompt, "GAIE 7c1f1994 keeps it on the body") {
		assert.Equal(t, []uint32{3}, cur.Body.TokenizedPrompt.TokenIDs)
	}
	tokens[0] = 9
	assert.Equal(t, []uint32{3}, storedTokens(holders), "the stored list is a copy")
}

func TestTokensAreDroppedWhereNoFieldFits(t *testing.T) {
	type wrongShape struct{ TokenizedPrompt *struct{ TokenIDs []int64 } }
	w := &wrongShape{}
	holders := []reflect.Value{reflect.ValueOf(w).Elem()}
	storeTokens(holders, []uint32{1})
	assert.Nil(t, w.TokenizedPrompt)
	assert.Nil(t, storedTokens(holders))
	assert.Nil(t, storedTokens(nil))
	storeTokens(nil, []uint32{1}) // no holder: nothing to do, no panic
}

func TestTheBuiltGAIEHasTheField(t *testing.T) {
	req := &fwksched.InferenceRequest{Body: &fwkrh.InferenceRequestBody{}}
	assert.True(t, tokenizedPromptIn(holdersOf(req)).IsValid(),
		"the GAIE this source is built into keeps the tokenised prompt where the adapter looks")
	setTokenizedPrompt(req, []uint32{7})
	assert.Equal(t, []uint32{7}, tokenizedPromptIDs(req))
}
