// Package disagg holds the Dynamo plugins of the EPP for disaggregated
// serving on the routers C API generation:
//
//   - disagg-profile-handler runs the prefill profile first (when the
//     config has one), then decode, and falls back to aggregated routing
//     when prefill yields nothing;
//   - dyn-prefill-scorer reserves a prefill worker under a booking id the
//     EPP mints, with admission bounded by a semaphore;
//   - dyn-decode-scorer routes decode, registers the decode booking with the
//     router, writes the router's tokens into the forwarded body as
//     nvext.token_data, and follows the response: the first chunk marks
//     prefill complete, the end of the stream (or the request's
//     cancellation) frees the booking once.
//
// Router-side state is owned by a booking.Manager shared by the two scorers
// (see Runtime); the router itself is a kvrouter.Router, the C API through
// cgo in the EPP and a Go fake in tests.
package disagg
