package chatrequest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

func chat(msgs ...schedtypes.Message) *schedtypes.LLMRequest {
	return &schedtypes.LLMRequest{RequestId: "r", Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{Messages: msgs}}}
}

func TestBuildKeepsRolesAndText(t *testing.T) {
	req := chat(
		schedtypes.Message{Role: "system", Content: schedtypes.Content{Raw: "be brief"}},
		schedtypes.Message{Role: "user", Content: schedtypes.Content{Structured: []schedtypes.ContentBlock{{Type: "text", Text: "hi"}, {Type: "image_url"}}}},
		schedtypes.Message{Role: "assistant", Content: schedtypes.Content{Raw: ""}},
	)
	got, err := Build(req, "fallback")
	require.NoError(t, err)
	assert.Equal(t, Request{Model: "fallback", Messages: []Message{{"system", "be brief"}, {"user", "hi "}, {"assistant", ""}}}, got)

	req.TargetModel = "llama"
	got, err = Build(req, "fallback")
	require.NoError(t, err)
	assert.Equal(t, "llama", got.Model)

	got, err = Build(&schedtypes.LLMRequest{TargetModel: " ", Body: &schedtypes.LLMRequestBody{Completions: &schedtypes.CompletionsRequest{Prompt: "once"}}}, "fallback")
	require.NoError(t, err)
	assert.Equal(t, Request{Model: "fallback", Messages: []Message{{"user", "once"}}}, got)
}

func TestBuildRefusesRequestsWithoutText(t *testing.T) {
	for _, req := range []*schedtypes.LLMRequest{
		nil,
		{},
		chat(),
		chat(schedtypes.Message{Role: "user", Content: schedtypes.Content{Raw: "  "}}),
		{Body: &schedtypes.LLMRequestBody{Completions: &schedtypes.CompletionsRequest{Prompt: " \n"}}},
	} {
		_, err := Build(req, "m")
		assert.ErrorIs(t, err, ErrNoPrompt)
	}
}
