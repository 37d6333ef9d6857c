package bbrhints

import logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"

// debugLevel is GAIE's DEBUG verbosity, so a malformed hint shows up only
// when an operator turns logging up.
const debugLevel = logutil.DEBUG
