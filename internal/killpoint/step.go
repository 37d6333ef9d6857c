package killpoint

import (
	"strconv"
	"sync"
)

var (
	stepMu    sync.Mutex
	stepCount = map[string]int{}
)

// Step marks one write of a sequence of writes named name: the process
// kills itself at the n-th call when the environment names "name#n" (or
// at every call when it names "name"). A test that kills at #1, #2, ...
// until a run ends on its own has stopped the sequence between every two
// of its writes, without knowing how many there are.
func Step(name string) {
	if at == "" {
		return
	}
	At(name)
	stepMu.Lock()
	stepCount[name]++
	n := stepCount[name]
	stepMu.Unlock()
	At(name + "#" + strconv.Itoa(n))
}
