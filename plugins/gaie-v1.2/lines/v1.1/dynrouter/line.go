// The file of the dynrouter package that differs on Dynamo's 1.1 line: the
// recipe patches/v1.1.1 adds it to the shared package
// (plugins/gaie-v1.2/dynrouter) in place of that package's line.go.
// (Not a package comment: the shared package has its own.)

package dynrouter

// EnvRoutersFlag is the variable create_routers' third argument
// (enforce_disagg since Dynamo v1.1) is read from.
const EnvRoutersFlag = "DYN_ENFORCE_DISAGG"

// namespaceVars are the namespace variables, first set wins: the
// operator's DYN_NAMESPACE_PREFIX, then DYN_NAMESPACE.
var namespaceVars = []string{"DYN_NAMESPACE_PREFIX", "DYN_NAMESPACE"}
