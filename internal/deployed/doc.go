// Package deployed holds the deployed-EPP test: for each release line, the
// EPP binary taken from the image `epp-build build` produced for
// linux/amd64, linked against the C API test double, started with the
// flags, environment and EndpointPickerConfig Dynamo's operator gives it,
// against a real API server holding the InferencePool and worker pods, and
// driven over ext-proc as Envoy drives it. The package has no code outside
// its tests.
package deployed
