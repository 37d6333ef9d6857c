// Package disagg is Dynamo v1.0's disaggregated serving on GAIE v1.2.1:
// the disagg-profile-handler (prefill, then decode), the dyn-prefill-scorer
// and the dyn-decode-scorer over the Dynamo KV router, and the decode
// scorer's router bookkeeping (add_request before the request is sent,
// mark_prefill_complete on the first streamed chunk, free_request at the
// end). Routing decisions reach Dynamo's frontend as request headers.
package disagg
