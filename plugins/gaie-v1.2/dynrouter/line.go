package dynrouter

// The environment names of Dynamo v1.0's EPP (plugins/dynamo_kv_scorer/
// plugin.go at v1.0.1). The recipe of another line on this plugin API
// replaces this file with its own (plugins/gaie-v1.2/lines/<line>/).

// EnvRoutersFlag is the variable create_routers' third argument
// (decode_fallback) is read from.
const EnvRoutersFlag = "DYN_DECODE_FALLBACK"

// namespaceVars are the namespace variables, first set wins.
var namespaceVars = []string{EnvNamespace}
