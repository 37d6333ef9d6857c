package source

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hg "github.com/epp-build/epp-build/internal/testutil/hostilegit"
)

// bombEnv names the bomb TestHostilePackBombChild sets off.
const bombEnv = "EPP_BUILD_TEST_PACK_BOMB"

// peakRSSBound is what a refused bomb may cost the whole test process:
// the test binary alone takes a few tens of MB.
const peakRSSBound = 200 << 20

// packBombs are the few bytes that once cost gigabytes, each
// served as it was found: what the tip is and how the server answers.
func packBombs() map[string]func() ([20]byte, func(io.Writer)) {
	file, blob := hg.FileEntry("100644", "f", "x\n")
	repo := hg.NewRepo([]hg.Entry{file}, blob)
	answer := func(objs ...hg.Object) ([20]byte, func(io.Writer)) {
		return repo.Commit, hg.Response(repo.Commit, hg.Pack(append(append([]hg.Object(nil), repo.Objects...), objs...)...))
	}
	return map[string]func() ([20]byte, func(io.Writer)){
		// 65537 copies of a 64 KiB base: 4 GiB from under a KB.
		"delta of 4 GiB": func() ([20]byte, func(io.Writer)) {
			const chunk = 0xffff
			base := make([]byte, chunk)
			delta := hg.DeltaOf(chunk, 4<<30/chunk+1, chunk)
			return answer(hg.Honest(hg.Blob, base), hg.Object{Type: hg.RefDelta, Size: int64(len(delta)), Data: delta, Base: hg.ID("blob", base)})
		},
		"commit declaring 3 GiB": func() ([20]byte, func(io.Writer)) {
			return answer(hg.Object{Type: hg.Commit, Size: 3 << 30, Data: bytes.Repeat([]byte("x"), 1<<20)})
		},
		"unreferenced blob declaring 1 GiB": func() ([20]byte, func(io.Writer)) {
			return answer(hg.Object{Type: hg.Blob, Size: 1 << 30, Data: make([]byte, 1<<20)})
		},
		"endless shallow lines": func() ([20]byte, func(io.Writer)) {
			return repo.Commit, hg.Endless(nil, bytes.Repeat([]byte(hg.Shallow(1, repo.Commit)), 256))
		},
		"2^32-1 objects, endless tiny ones": func() ([20]byte, func(io.Writer)) {
			tiny := hg.Pack(hg.Honest(hg.Blob, []byte("x")))
			header := hg.PackDeclaring(1<<32 - 1)[:12]
			one := tiny[12 : len(tiny)-20]
			prefix := append([]byte(hg.Shallow(1, repo.Commit)+"0000"+hg.PktLine("NAK\n")), header...)
			return repo.Commit, hg.Endless(prefix, bytes.Repeat(one, 4096))
		},
		// Under lowered limits (bombLimits), deltas that stay within one
		// object each, on each other's results, until the pack's inflated
		// size is over: what the limits let memory reach.
		"deltas up to the limits": func() ([20]byte, func(io.Writer)) {
			const chunk, copies = 0xffff, 1024
			zeros := make([]byte, chunk)
			delta := hg.DeltaOf(chunk, copies, chunk)
			on := func(base []byte) hg.Object {
				return hg.Object{Type: hg.RefDelta, Size: int64(len(delta)), Data: delta, Base: hg.ID("blob", base)}
			}
			// Each result is zeros, copies*chunk of them; the next delta
			// copies its first chunk as many times, so all results match.
			result := make([]byte, copies*chunk)
			next := hg.DeltaOf(uint64(len(result)), copies, chunk)
			onResult := hg.Object{Type: hg.RefDelta, Size: int64(len(next)), Data: next, Base: hg.ID("blob", result)}
			return answer(hg.Honest(hg.Blob, zeros), on(zeros), onResult, onResult, onResult)
		},
		"folder 40,000 deep": func() ([20]byte, func(io.Writer)) {
			root, objs := hg.DeepTree(40_000)
			deep := hg.RepoOfTree(root, objs...)
			return deep.Commit, hg.Response(deep.Commit, hg.Pack(deep.Objects...))
		},
	}
}

// bombLimits are the settings a bomb runs under, when not the defaults.
var bombLimits = map[string][]string{
	"deltas up to the limits": {MaxObjectEnv + "=64", MaxPackEnv + "=200"},
}

// TestHostilePackBombsCostLittleMemory: each bomb, fetched with the
// default limits (or bombLimits) in a process of its own, is refused with a *LimitError,
// leaves the cache empty, and the process's peak RSS stays under
// peakRSSBound (before the limits, the delta alone took 6.75 GB).
func TestHostilePackBombsCostLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per bomb")
	}
	for name := range packBombs() {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostilePackBombChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), bombEnv+"="+name)
			for _, env := range []string{MaxPackEnv, MaxObjectEnv, MaxPackObjectsEnv, MaxTreeDepthEnv, MaxShallowLinesEnv, FetchTimeoutEnv} {
				cmd.Env = append(cmd.Env, env+"=")
			}
			cmd.Env = append(cmd.Env, bombLimits[name]...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "PASS")
			usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			require.True(t, ok)
			peak := int64(usage.Maxrss)
			if runtime.GOOS != "darwin" {
				peak <<= 10 // KiB on Linux, bytes on macOS
			}
			t.Logf("peak RSS %d MiB", peak>>20)
			assert.Less(t, peak, int64(peakRSSBound), "peak RSS")
		})
	}
}

// TestHostilePackBombChild sets off the bomb bombEnv names (only in the
// process TestHostilePackBombsCostLittleMemory starts).
func TestHostilePackBombChild(t *testing.T) {
	name := os.Getenv(bombEnv)
	if name == "" {
		t.Skip("run by TestHostilePackBombsCostLittleMemory")
	}
	bomb, ok := packBombs()[name]
	require.True(t, ok, "no bomb %q", name)
	tip, respond := bomb()
	_, err, cacheDir := hostileFetch(t, tip, respond)
	var limit *LimitError
	require.True(t, errors.As(err, &limit), "a *LimitError, got %v", err)
	assert.Empty(t, cacheEntries(t, cacheDir), "no entry and no temporary folder is left")
}
