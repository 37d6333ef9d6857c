package backport

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/source"
)

// The --exec command is the one thing in a rebase's state that runs: a
// state edited to hold a command (or another one) would run it on the
// next --continue. A start seals the command with a MAC under a key only
// this user's cache holds, and a command whose seal does not match is
// refused: a plain checksum in the same file would be rewritten with it.

const execKeyFile = "state.key"

var execKeyLimit = inputfile.Limit{Bytes: 1 << 10, What: "the rebase state key", Raise: "remove it; the rebase in progress must then be started again"}

// execKey is the user's sealing key, made on first use.
func execKey() ([]byte, error) {
	cache, err := source.CacheDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(cache, execKeyFile)
	key, err := inputfile.ReadFile(path, "", execKeyLimit)
	if err == nil && len(key) == 32 {
		return key, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the rebase state key: %w", err)
	}
	if err == nil {
		return nil, fmt.Errorf("the rebase state key %s is not 32 bytes: remove it (rebases in progress must then be started again)", path)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Written whole under another name and linked into place: a second
	// run making the key at the same instant finds the first's, and a kill
	// leaves no short key.
	tmp, err := os.CreateTemp(cache, "."+execKeyFile+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(key)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return execKey()
	} else if err != nil {
		return nil, err
	}
	return key, nil
}

func (x *Exec) mac(key []byte) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%q\x00%t\x00%t\x00%q", x.Command, x.AtEnd, x.CAPI, x.CAPISrc)
	return hex.EncodeToString(m.Sum(nil))
}

// seal records the MAC of the command as started.
func (x *Exec) seal() error {
	key, err := execKey()
	if err != nil {
		return err
	}
	x.Seal = x.mac(key)
	return nil
}

// verify refuses a command that is not the one the rebase started with.
func (x *Exec) verify() error {
	if x == nil {
		return nil
	}
	key, err := execKey()
	if err != nil {
		return err
	}
	got, err := hex.DecodeString(x.Seal)
	want, _ := hex.DecodeString(x.mac(key))
	if err != nil || !hmac.Equal(got, want) {
		return fmt.Errorf("the --exec command %q is not the one this rebase was started with (its seal does not match)", x.Command)
	}
	return nil
}
