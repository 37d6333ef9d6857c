//go:build e2e

package deployed

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/service/ext_proc/v3"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// envoy drives the EPP's ext-proc service as Envoy's ext_proc filter does
// in GAIE's deployments (processing mode FULL_DUPLEX_STREAMED for bodies):
// one Process stream per HTTP request. The EPP serves ext-proc over TLS
// with a self-signed certificate by default (--secure-serving), which
// gateways accept without verification, as this client does.
type envoy struct {
	conn *grpc.ClientConn
}

func dialEnvoy(t *testing.T, port int) *envoy {
	conn, err := grpc.NewClient(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{InsecureSkipVerify: true})))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return &envoy{conn: conn}
}

// exchange is one request through the EPP: what the EPP answered.
type exchange struct {
	// setHeaders are the request headers the EPP set (last value wins).
	setHeaders map[string]string
	// removeHeaders are the request headers the EPP removed.
	removeHeaders []string
	// metadata is the dynamic metadata of the request headers response.
	destinationMetadata string
	// body is the request body the EPP forwards, reassembled.
	body []byte
	// responseChunks counts the response body chunks the EPP passed on.
	responseChunks int
	// immediate is set when the EPP answered with an immediate response.
	immediate *extprocv3.ImmediateResponse
}

// request is one HTTP request as Envoy hands it to ext-proc.
type request struct {
	headers map[string]string
	body    []byte
	chunk   int // request body chunk size
	// responseChunks are the model server's SSE chunks.
	responseChunks []string
	// inFlight, when set, is called after the EPP answered the request
	// and before the response starts: the request is being served.
	inFlight func()
	// cancelAfter, when set, cancels the stream after that phase
	// ("request" = after the EPP answered the request; "response-headers").
	cancelAfter string
}

// send runs one request through ext-proc: request headers, the body in
// chunks (the last with end_of_stream), then, once the EPP answered with
// the target, the response headers and the response body chunks, the
// last with end_of_stream; then the stream is closed.
func (e *envoy) send(t *testing.T, r request) exchange {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The ext-proc listener may come up after the health service reports
	// SERVING; Envoy keeps retrying the connection, so the stream waits.
	stream, err := extprocv3.NewExternalProcessorClient(e.conn).Process(ctx, grpc.WaitForReady(true))
	require.NoError(t, err)
	var ex exchange
	ex.setHeaders = map[string]string{}

	var hs []*corev3.HeaderValue
	for k, v := range r.headers {
		hs = append(hs, &corev3.HeaderValue{Key: k, RawValue: []byte(v)})
	}
	require.NoError(t, stream.Send(&extprocv3.ProcessingRequest{Request: &extprocv3.ProcessingRequest_RequestHeaders{
		RequestHeaders: &extprocv3.HttpHeaders{Headers: &corev3.HeaderMap{Headers: hs}}}}))
	chunk := r.chunk
	if chunk <= 0 {
		chunk = len(r.body)
	}
	for off := 0; off < len(r.body); off += chunk {
		end := min(off+chunk, len(r.body))
		require.NoError(t, stream.Send(&extprocv3.ProcessingRequest{Request: &extprocv3.ProcessingRequest_RequestBody{
			RequestBody: &extprocv3.HttpBody{Body: r.body[off:end], EndOfStream: end == len(r.body)}}}))
	}

	// The EPP answers the request headers once the body is complete, then
	// streams the (possibly rewritten) body back.
	bodyDone := false
	for !bodyDone {
		resp, err := stream.Recv()
		require.NoError(t, err, "waiting for the EPP's request answer")
		switch v := resp.Response.(type) {
		case *extprocv3.ProcessingResponse_RequestHeaders:
			ex.removeHeaders = append(ex.removeHeaders, v.RequestHeaders.GetResponse().GetHeaderMutation().GetRemoveHeaders()...)
			for _, h := range v.RequestHeaders.GetResponse().GetHeaderMutation().GetSetHeaders() {
				val := string(h.GetHeader().GetRawValue())
				if val == "" {
					val = h.GetHeader().GetValue()
				}
				ex.setHeaders[h.GetHeader().GetKey()] = val
			}
			if md := resp.GetDynamicMetadata(); md != nil {
				if lb := md.GetFields()["envoy.lb"]; lb != nil {
					ex.destinationMetadata = lb.GetStructValue().GetFields()["x-gateway-destination-endpoint"].GetStringValue()
				}
			}
		case *extprocv3.ProcessingResponse_RequestBody:
			mut := v.RequestBody.GetResponse().GetBodyMutation()
			if sr := mut.GetStreamedResponse(); sr != nil {
				ex.body = append(ex.body, sr.GetBody()...)
				bodyDone = sr.GetEndOfStream()
			} else {
				ex.body = append(ex.body, mut.GetBody()...)
				bodyDone = true
			}
		case *extprocv3.ProcessingResponse_ImmediateResponse:
			ex.immediate = v.ImmediateResponse
			return ex
		default:
			t.Fatalf("unexpected answer to the request: %T", v)
		}
	}
	if r.inFlight != nil {
		r.inFlight()
	}
	if r.cancelAfter == "request" {
		cancel()
		return ex
	}

	require.NoError(t, stream.Send(&extprocv3.ProcessingRequest{Request: &extprocv3.ProcessingRequest_ResponseHeaders{
		ResponseHeaders: &extprocv3.HttpHeaders{Headers: &corev3.HeaderMap{Headers: []*corev3.HeaderValue{
			{Key: ":status", RawValue: []byte("200")},
			{Key: "content-type", RawValue: []byte("text/event-stream")},
		}}}}}))
	resp, err := stream.Recv()
	require.NoError(t, err)
	require.NotNil(t, resp.GetResponseHeaders(), "answer to the response headers: %v", resp)
	if r.cancelAfter == "response-headers" {
		cancel()
		return ex
	}

	for i, c := range r.responseChunks {
		last := i == len(r.responseChunks)-1
		require.NoError(t, stream.Send(&extprocv3.ProcessingRequest{Request: &extprocv3.ProcessingRequest_ResponseBody{
			ResponseBody: &extprocv3.HttpBody{Body: []byte(c), EndOfStream: last}}}))
		resp, err := stream.Recv()
		require.NoError(t, err)
		require.NotNil(t, resp.GetResponseBody(), "answer to response chunk %d: %v", i, resp)
		ex.responseChunks++
	}
	require.NoError(t, stream.CloseSend())
	_, err = stream.Recv()
	require.ErrorIs(t, err, io.EOF, "the EPP ends the stream after the response")
	return ex
}

// chatRequest is an OpenAI chat completion request as Dynamo's frontend
// receives it, streamed.
func chatRequest(model, prompt string) []byte {
	return []byte(fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":%q}],"stream":true,"max_tokens":8}`, model, prompt))
}

// sseChunks are a streamed chat completion's server-sent events.
func sseChunks(model string) []string {
	return []string{
		fmt.Sprintf("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n", model),
		fmt.Sprintf("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n", model),
		fmt.Sprintf("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\ndata: [DONE]\n\n", model),
	}
}
