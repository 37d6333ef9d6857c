package attest

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// EnvKeyPrefix names a key by the environment variable holding it, as
// cosign's --key env://VAR does: CI systems hand secrets over in the
// environment, and writing one to a file just to name it leaks it to disk.
const EnvKeyPrefix = "env://"

// ErrKeyEnvUnset is an env://VAR key whose variable is unset or empty.
var ErrKeyEnvUnset = errors.New("environment variable is unset or empty")

// readKey is the key material ref names: the value of $VAR for env://VAR,
// else the file at ref. The content is only returned, never put in an
// error, since it may be an unencrypted private key. A key file that is
// not a regular file of bounded size is the *inputfile.Error as it is:
// refused input, like any other file the tool reads.
func readKey(ref string) ([]byte, error) {
	name, ok := strings.CutPrefix(ref, EnvKeyPrefix)
	if !ok {
		raw, err := inputfile.ReadFile(ref, "", inputfile.KeyLimit())
		if refused := (*inputfile.Error)(nil); errors.As(err, &refused) {
			return nil, err
		}
		if err != nil {
			return nil, &KeyError{Path: ref, Err: err}
		}
		return raw, nil
	}
	if name == "" {
		return nil, &KeyError{Path: ref, Err: errors.New("env:// names no variable (want env://VAR)")}
	}
	val := os.Getenv(name)
	if val == "" {
		return nil, &KeyError{Path: ref, Err: fmt.Errorf("$%s: %w", name, ErrKeyEnvUnset)}
	}
	return []byte(val), nil
}
