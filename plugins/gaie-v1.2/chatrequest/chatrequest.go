// Package chatrequest builds the OpenAI chat request Dynamo's router
// tokenises from what GAIE v1.2.1 parsed of a request body: the request
// both the v0.9 pipeline and the v1.0 routers are handed.
package chatrequest

import (
	"errors"
	"fmt"
	"strings"

	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// ErrNoPrompt is returned when a request has nothing the router can
// tokenise: no chat message with text and no completions prompt.
var ErrNoPrompt = errors.New("request has no chat message text and no prompt to route with")

// Message is one chat message as the router reads it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is the OpenAI chat request the router tokenises.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
}

// Build keeps the chat messages with their text (structured
// content joined as GAIE's PlainText does), or turns a completions prompt
// into one user message, and sets "model" to the request's target model,
// defaultModel when that is blank. A chat request whose messages have no
// text at all, or a prompt of only white space, is refused.
func Build(req *schedtypes.LLMRequest, defaultModel string) (Request, error) {
	if req == nil || req.Body == nil {
		return Request{}, ErrNoPrompt
	}
	out := Request{Model: req.TargetModel}
	if strings.TrimSpace(out.Model) == "" {
		out.Model = defaultModel
	}
	switch body := req.Body; {
	case body.ChatCompletions != nil && len(body.ChatCompletions.Messages) > 0:
		text := false
		for _, m := range body.ChatCompletions.Messages {
			c := m.Content.PlainText()
			text = text || strings.TrimSpace(c) != ""
			out.Messages = append(out.Messages, Message{Role: m.Role, Content: c})
		}
		if !text {
			return Request{}, fmt.Errorf("request %s: chat messages have no text: %w", req.RequestId, ErrNoPrompt)
		}
	case body.Completions != nil && strings.TrimSpace(body.Completions.Prompt) != "":
		out.Messages = []Message{{Role: "user", Content: body.Completions.Prompt}}
	default:
		return Request{}, fmt.Errorf("request %s: %w", req.RequestId, ErrNoPrompt)
	}
	return out, nil
}
