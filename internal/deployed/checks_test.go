//go:build e2e

package deployed

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestChecksRefuseWhatTheFrontendCannotParse shows the exchange checks
// fail on the values Dynamo's frontend or BBR cannot parse: a worker id
// written as a JSON string (what Dynamo v0.7.0's BBR wrote), an id that is
// not the router's pick, a token outside u32, and token data that is not
// base64 of a JSON array.
func TestChecksRefuseWhatTheFrontendCannotParse(t *testing.T) {
	decode, prefill := int64(1), int64(-1)
	p := program{DecodeWorker: &decode, PrefillWorker: &prefill}
	d := deployment{workers: []worker{{name: "f0", role: "frontend", ip: "10.0.2.10"}}}
	ex := func(body string, headers map[string]string) exchange {
		hs := map[string]string{"x-gateway-destination-endpoint": "10.0.2.10:8000"}
		for k, v := range headers {
			hs[k] = v
		}
		return exchange{setHeaders: hs, destinationMetadata: "10.0.2.10:8000", body: []byte(body)}
	}
	ok := `{"nvext":{"backend_instance_id":1,"token_data":[1,2,4294967295]}}`
	assert.NoError(t, checkExchange(v080, aggregated, d, p, ex(ok, map[string]string{"x-worker-instance-id": "1"})))
	for name, body := range map[string]string{
		"id as a string":  `{"nvext":{"backend_instance_id":"1","token_data":[1]}}`,
		"another worker":  `{"nvext":{"backend_instance_id":2,"token_data":[1]}}`,
		"token above u32": `{"nvext":{"backend_instance_id":1,"token_data":[4294967296]}}`,
		"no token data":   `{"nvext":{"backend_instance_id":1}}`,
	} {
		assert.Error(t, checkExchange(v080, aggregated, d, p, ex(body, map[string]string{"x-worker-instance-id": "1"})), name)
	}

	tokens := base64.StdEncoding.EncodeToString([]byte("[1,2]"))
	v07 := map[string]string{"x-worker-instance-id": "1", "x-epp-inject-nvext-worker-instance-id": "1"}
	good := map[string]string{"x-epp-inject-nvext-token-data": tokens}
	for k, v := range v07 {
		good[k] = v
	}
	assert.NoError(t, checkExchange(v070, aggregated, d, p, ex(`{}`, good)))
	for name, data := range map[string]string{
		"not base64":   "[1,2]",
		"not an array": base64.StdEncoding.EncodeToString([]byte(`{"a":1}`)),
		"negative":     base64.StdEncoding.EncodeToString([]byte("[-1]")),
		"empty array":  base64.StdEncoding.EncodeToString([]byte("[]")),
	} {
		bad := map[string]string{"x-epp-inject-nvext-token-data": data}
		for k, v := range v07 {
			bad[k] = v
		}
		assert.ErrorContains(t, checkExchange(v070, aggregated, d, p, ex(`{}`, bad)), "x-epp-inject-nvext-token-data", name)
	}
}
