// Package bench measures epp-build against the git CLI side by side on a
// fixture the size of a GAIE release; run it with `make bench`.
package bench
